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

// TestRunDatasetDuplicatesKeptNote: report.md notes the content duplicates
// a dataset keeps under distinct source ids (the manifest's
// duplicates_kept), and says --dedupe merges them; with --dedupe there is
// no such note.
func TestRunDatasetDuplicatesKeptNote(t *testing.T) {
	out := t.TempDir()
	code, so, se := runCLI(t, "run", "--dataset", "../datasets/testdata/mmlu_pro_dups.jsonl", "--config", "base", "--agents", "2", "--out", out, "--run-name", "dups")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	md, err := os.ReadFile(filepath.Join(out, "dups", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	const note = "mmlu-pro: 1 content duplicate(s) with distinct source ids kept, as the published dataset counts them (merge with --dedupe)"
	if !strings.Contains(string(md), note) {
		t.Errorf("report.md lacks the note %q:\n%s", note, md)
	}
	code, so, se = runCLI(t, "run", "--dataset", "../datasets/testdata/mmlu_pro_dups.jsonl", "--dedupe", "--config", "base", "--agents", "2", "--out", out, "--run-name", "dedupe")
	if code != 0 {
		t.Fatalf("--dedupe: exit %d\n%s\n%s", code, so, se)
	}
	if md, err := os.ReadFile(filepath.Join(out, "dedupe", "report.md")); err != nil || strings.Contains(string(md), "content duplicate") {
		t.Errorf("--dedupe report.md: %v\n%s", err, md)
	}
}
