package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckRunName: --run-name is one path segment of safe characters
// (issue 28, item 8: "../x", "..", ".", "/" and control characters were
// accepted and wrote outside --out).
func TestCheckRunName(t *testing.T) {
	for _, ok := range []string{"", "a", "pilot-2026.1", "run_3f2a9c1b0d4e", "A.b-c_d", strings.Repeat("x", maxRunName)} {
		if err := checkRunName(ok); err != nil {
			t.Errorf("checkRunName(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{".", "..", "../x", "x/..", "/", "/tmp/x", "a/b", `a\b`, ".hidden", "-rf", "a\nb", "a\x1b[31mb", "a\x00", "a b", "ü", strings.Repeat("x", maxRunName+1)} {
		if err := checkRunName(bad); err == nil || !strings.Contains(err.Error(), "--run-name") {
			t.Errorf("checkRunName(%q) = %v, want an error naming --run-name", bad, err)
		}
	}
}

// TestRunNameOutsideOut: run refuses a --run-name that leaves --out, exit
// 2, before writing anything.
func TestRunNameOutsideOut(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	for _, name := range []string{"../escaped", "..", "a\x1b]0;x\x07"} {
		code, so, se := runCLI(t, "run", "--config", "base", "--limit", "2", "--out", out, "--run-name", name, "--no-report")
		if code != exitUsage || !strings.Contains(se, "--run-name") {
			t.Errorf("--run-name %q: exit %d\n%s\n%s", name, code, so, se)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "escaped")); err == nil {
		t.Error("a run directory was written outside --out")
	}
	if _, err := os.Stat(filepath.Join(root, "journal.db")); err == nil {
		t.Error("a journal was written in --out's parent")
	}
}
