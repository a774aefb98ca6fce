package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestViewRefusesNonLoopbackAndExports(t *testing.T) {
	out := t.TempDir()
	if code, so, se := runCLI(t, "run", "--config", "base,full", "--limit", "2", "--transcripts", "--out", out, "--run-name", "v", "--no-report"); code != exitOK {
		t.Fatalf("run: %d\n%s\n%s", code, so, se)
	}
	run := filepath.Join(out, "v")
	for _, addr := range []string{"0.0.0.0:8080", ":0", "192.168.0.1:80"} {
		code, _, se := runCLI(t, "view", "--addr", addr, run)
		if code != exitUsage || !strings.Contains(se, "not a loopback address") {
			t.Errorf("--addr %s: exit %d, %q; want exit 2 naming the loopback rule", addr, code, se)
		}
	}
	if code, _, se := runCLI(t, "view"); code != exitUsage || !strings.Contains(se, "give at least one run directory") {
		t.Errorf("no run: exit %d %q", code, se)
	}
	if code, _, se := runCLI(t, "view", t.TempDir()); code != exitUsage || !strings.Contains(se, "no questions.parquet") {
		t.Errorf("not a run: exit %d %q", code, se)
	}
	exp := filepath.Join(t.TempDir(), "site")
	code, so, se := runCLI(t, "view", "--export", exp, run)
	if code != exitOK || !strings.Contains(so, "2 questions × repeats, 2 arms") {
		t.Fatalf("export: exit %d %q %q", code, so, se)
	}
	for _, f := range []string{"index.html", "static/app.js", "data/grid.js", "data/q/0.js", "data/q/1.js"} {
		if _, err := os.Stat(filepath.Join(exp, f)); err != nil {
			t.Error(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(exp, "data", "q", "0.js"))
	if !strings.Contains(string(b), `"transcripts":true`) || !strings.Contains(string(b), `"Prompt":"`) {
		t.Errorf("q/0.js lacks the transcripts: %.300s", b)
	}
}
