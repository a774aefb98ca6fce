package cli

import (
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
