package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// TestRescoreWritesRunDirectory: rescore writes a run directory that report
// reads (two arms of protocol rescore), prints both readings per model and
// lists the replies read differently.
func TestRescoreWritesRunDirectory(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rs")
	code, stdout, stderr := runCLI(t, "rescore", "../rescore/testdata/mmlupro_result.json", "--model-name", "gpt-4o", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"| gpt-4o | 4 | 2/4 = 50.00% | 2 (0) | 2/4 = 50.00% [", "2 replies read differently"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "rescore.md"))
	if err != nil || !strings.Contains(string(md), "| gpt-4o | 71 | none (filled D) | B | B | answer_line |") {
		t.Errorf("rescore.md: %v\n%s", err, md)
	}
	rows, err := results.ReadQuestions(filepath.Join(out, results.QuestionsFile))
	if err != nil || len(rows) != 8 || rows[0].Protocol != "rescore" || rows[0].Dataset != "mmlu-pro" {
		t.Fatalf("rows %d, %v", len(rows), err)
	}
	m, err := results.ReadManifest(filepath.Join(out, results.ManifestFile))
	if err != nil || len(m.Arms) != 2 || m.Counts.Questions != 8 || m.Files[results.QuestionsFile] == "" {
		t.Fatalf("manifest %+v, %v", m, err)
	}
	runs, err := loadRuns([]string{out}, out)
	if err != nil || len(runs) != 1 || strings.Join(runs[0].armOrder, ",") != "published,medteam" {
		t.Fatalf("report cannot load the run: %v %+v", err, runs)
	}
	// Again into the same directory: refused.
	if code, _, stderr := runCLI(t, "rescore", "../rescore/testdata/mmlupro_result.json", "--model-name", "gpt-4o", "--out", out); code == 0 || !strings.Contains(stderr, "already holds a run") {
		t.Errorf("second rescore into %s: exit %d %s", out, code, stderr)
	}
	// A generic file without a model: --model-name is asked for.
	if code, _, stderr := runCLI(t, "rescore", "../rescore/testdata/generic.jsonl", "--out", filepath.Join(t.TempDir(), "g")); code == 0 || !strings.Contains(stderr, "--model-name") {
		t.Errorf("no model: exit %d %s", code, stderr)
	}
}
