package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSplitFolder: a folder holding train, dev and test files is refused
// without a split, naming the splits found; a split selects its files; a
// split no file states is refused too; AllSplits reads every file.
func TestSplitFolder(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"train_HEAD_EN.json", "dev_HEAD_EN.json", "test_HEAD_EN.json"} {
		data, err := os.ReadFile(filepath.Join("testdata/headqa/HEAD_EN", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Load(Source{Path: dir}, LoadOptions{})
	var se *SplitsError
	if !errors.As(err, &se) || !slices.Equal(se.Splits(), []string{"dev", "test", "train"}) {
		t.Fatalf("no split: %v", err)
	}
	for _, want := range []string{"dev (dev_HEAD_EN.json)", "test (test_HEAD_EN.json)", "train (train_HEAD_EN.json)", "--split"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %v", want, err)
		}
	}
	for split, n := range map[string]int{"test": 5, "dev": 2, "train": 1, AllSplits: 8} {
		res := mustLoad(t, Source{Path: dir, Split: split})
		if len(res.Questions) != n || len(res.Files) != map[bool]int{true: 3, false: 1}[split == AllSplits] {
			t.Errorf("--split %s: %d questions from %v, want %d", split, len(res.Questions), res.Files, n)
		}
		for _, q := range res.Questions {
			if split != AllSplits && q.Split != split {
				t.Errorf("--split %s: question of split %s", split, q.Split)
			}
		}
	}
	if _, err := Load(Source{Path: dir, Split: "validation"}, LoadOptions{}); !errors.As(err, &se) || se.Want != "validation" || !strings.Contains(err.Error(), `no file of split "validation"`) {
		t.Errorf("--split validation: %v", err)
	}
	// A folder of one split (and files stating none) is read as before.
	os.Remove(filepath.Join(dir, "train_HEAD_EN.json"))
	os.Remove(filepath.Join(dir, "dev_HEAD_EN.json"))
	if res := mustLoad(t, Source{Path: dir}); len(res.Questions) != 5 {
		t.Errorf("one split: %d questions", len(res.Questions))
	}
	// HF's validation files state their split.
	if s := fileSplit("validation-00000-of-00001.parquet"); s != "validation" {
		t.Errorf("fileSplit(validation-…) = %q", s)
	}
}
