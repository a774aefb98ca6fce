package plan

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// headqaSplits copies the HEAD-QA train/dev/test fixtures into a folder.
func headqaSplits(t *testing.T) string {
	t.Helper()
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
	return dir
}

// TestSplitFlag: a folder of several splits is an input error naming them
// without --split; --split selects one; an unset split leaves the stored
// plan (and so its hash) as before.
func TestSplitFlag(t *testing.T) {
	dir := headqaSplits(t)
	s := defaultSpec()
	s.Datasets, s.Configs = []string{dir}, []string{"base"}
	_, err := Resolve(context.Background(), s, simOpener)
	if err == nil || !IsInput(err) || !strings.Contains(err.Error(), "several splits") || !strings.Contains(err.Error(), "--split") {
		t.Fatalf("no --split: %v", err)
	}
	for split, n := range map[string]int{"dev": 2, "test": 5, "*": 8} {
		s.Split = split
		r, err := Resolve(context.Background(), s, simOpener)
		if err != nil {
			t.Fatalf("--split %s: %v", split, err)
		}
		if r.Questions() != n || !strings.Contains(string(r.Doc), `"split": "`+split+`"`) {
			t.Errorf("--split %s: %d questions, want %d", split, r.Questions(), n)
		}
	}
	b, err := json.Marshal(defaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"split"`) {
		t.Errorf("an unset split is stored: %s", b)
	}
}

// TestSplitSweepKey: a sweep file's split sets the flag.
func TestSplitSweepKey(t *testing.T) {
	f := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(f, []byte("arms: [base]\nsplit: dev\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := defaultSpec()
	if err := LoadSweep(f, &s); err != nil {
		t.Fatal(err)
	}
	if s.Split != "dev" {
		t.Fatalf("split: %q", s.Split)
	}
}
