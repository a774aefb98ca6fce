package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSplit: `run` refuses a folder holding several splits without
// --split, naming them (exit 2), and runs the one --split names.
func TestRunSplit(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"train_HEAD_EN.json", "dev_HEAD_EN.json", "test_HEAD_EN.json"} {
		data, err := os.ReadFile(filepath.Join("../datasets/testdata/headqa/HEAD_EN", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	code, so, se := runCLI(t, "run", "--dataset", dir, "--config", "base", "--agents", "2", "--out", out, "--run-name", "nosplit")
	if code != 2 || !strings.Contains(se, "dev (dev_HEAD_EN.json)") || !strings.Contains(se, "--split") {
		t.Fatalf("without --split: exit %d\n%s\n%s", code, so, se)
	}
	code, so, se = runCLI(t, "run", "--dataset", dir, "--split", "dev", "--config", "base", "--agents", "2", "--out", out, "--run-name", "dev")
	if code != 0 {
		t.Fatalf("--split dev: exit %d\n%s\n%s", code, so, se)
	}
	code, so, se = runCLI(t, "datasets", "validate", dir, "--split", "test")
	if code != 0 || !strings.Contains(so, "valid 5") {
		t.Errorf("datasets validate --split test: exit %d\n%s\n%s", code, so, se)
	}
}
