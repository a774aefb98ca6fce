package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFlagEdges: absurd or malformed flag values are refused (exit 2)
// naming the flag and the value, at once (issue 28, item 9: --repeats
// 1000000000 --dry-run ran for ever, power --delta 1e-10 printed a
// negative number of pairs, a NaN temperature failed in the plan's JSON,
// negative budgets were accepted).
func TestFlagEdges(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--repeats", "1000000000", "--dry-run"}, "--repeats 1000000000"},
		{[]string{"run", "--repeats", "1000", "--config", "base,full,c1,c2,c3,c4,c5,c6,c7", "--model", "sim/default", "--model", "sim/weak", "--model", "sim/strong", "--dry-run"}, "the plan has 1350000 units"},
		{[]string{"run", "--agent-temperature", "NaN", "--dry-run"}, "--agent-temperature NaN"},
		{[]string{"run", "--leader-temperature", "nan", "--dry-run"}, "--leader-temperature NaN"},
		{[]string{"run", "--peer-chars", "-1", "--dry-run"}, "--peer-chars -1"},
		{[]string{"run", "--max-tokens", "-1", "--dry-run"}, "--max-tokens -1"},
		{[]string{"run", "--budget-tokens", "-5", "--dry-run"}, "--budget-tokens -5"},
		{[]string{"run", "--budget-usd", "-1", "--dry-run"}, "--budget-usd -1"},
		{[]string{"run", "--budget-usd", "NaN", "--dry-run"}, "--budget-usd NaN"},
		{[]string{"run", "--max-error-rate", "NaN", "--dry-run"}, "--max-error-rate NaN"},
		{[]string{"power", "--delta", "1e-10", "--discordance", "0.2"}, "--delta 1e-10"},
	} {
		start := time.Now()
		code, so, se := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(se, c.want) || time.Since(start) > time.Minute {
			t.Errorf("%v: exit %d after %v, want %d with %q\n%s\n%s", c.args, code, time.Since(start), exitUsage, c.want, so, se)
		}
		if strings.Contains(so, "-9223372036854775808") || strings.Contains(so, ": -") {
			t.Errorf("%v printed a negative count:\n%s", c.args, so)
		}
	}
}

// TestItemSizeCapFlag: run refuses a dataset with an item over the
// per-item cap (1 MiB) at its file:line, naming --max-item-bytes, before
// any run directory exists; the flag raises the cap (issue 28, item 10).
func TestItemSizeCapFlag(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.jsonl")
	var b strings.Builder
	for i, stem := range []string{"Which is right?", strings.Repeat("long ", 1<<20/5+1)} {
		line, _ := json.Marshal(map[string]any{"question": stem + strings.Repeat("?", i), "options": map[string]string{"A": "yes", "B": "no"}, "answer_idx": "A", "answer": "yes"})
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, so, se := runCLI(t, "run", "--dataset", path, "--config", "base", "--out", out, "--run-name", "big", "--dry-run")
	if code != exitUsage || !strings.Contains(se, path+":2") || !strings.Contains(se, "over the cap of 1048576") || !strings.Contains(se, "--max-item-bytes") {
		t.Errorf("over the cap: exit %d\n%s\n%s", code, so, se)
	}
	code, so, se = runCLI(t, "run", "--dataset", path, "--config", "base", "--out", out, "--run-name", "big", "--dry-run", "--max-item-bytes", "2097152")
	if code != exitOK || !strings.Contains(so, "2 questions") {
		t.Errorf("--max-item-bytes 2097152: exit %d\n%s\n%s", code, so, se)
	}
	if code, so, se := runCLI(t, "datasets", "validate", path); code == exitOK || !strings.Contains(so+se, path+":2") {
		t.Errorf("datasets validate: exit %d\n%s\n%s", code, so, se)
	}
	if code, so, se := runCLI(t, "datasets", "validate", "--max-item-bytes", "2097152", path); code != exitOK {
		t.Errorf("datasets validate --max-item-bytes: exit %d\n%s\n%s", code, so, se)
	}
}
