package datasets

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestSameQuestionSameID: the official MedQA test file (content ids, no id
// of its own) and a MedAgentsBench-style standardised copy of some of its
// questions (with realidx), named a copy of MedQA (--dataset-name medqa),
// give each question the same id; the copy's realidx is kept as SourceID.
func TestSameQuestionSameID(t *testing.T) {
	readReal(t)
	official := mustLoad(t, Source{Path: realMedQATest})
	copyRes := mustLoad(t, Source{Path: "testdata/medqa_medagentsbench_test.jsonl", Dataset: DatasetMedQA})
	if copyRes.Format != FormatStandard || len(copyRes.Questions) != 4 {
		t.Fatalf("copy: format %s, %d questions", copyRes.Format, len(copyRes.Questions))
	}
	for _, q := range copyRes.Questions {
		line, err := strconv.Atoi(q.SourceID)
		if err != nil || line < 0 || line >= len(official.Questions) {
			t.Fatalf("copy question %s: SourceID %q is not a line index of the official file", q.ID, q.SourceID)
		}
		o := official.Questions[line]
		if q.ID != o.ID {
			t.Errorf("realidx %d: id %s in the copy, %s in the official file", line, q.ID, o.ID)
		}
		if o.SourceID != "" {
			t.Errorf("official question %s has SourceID %q; the official file has no ids", o.ID, o.SourceID)
		}
		q.SourceID = ""
		if d := diffQuestion(q, o); d != "" {
			t.Errorf("realidx %d: %s", line, d)
		}
	}
}

// TestIDsIndependentOfFileName: the same standardised file gives the same
// ids under any name (the MedAgentsBench MedQA copy saved as
// medagents_test.jsonl or under its published name); a path names the
// dataset label only by a whole word ("afrimedqa" is not "medqa").
func TestIDsIndependentOfFileName(t *testing.T) {
	b, err := os.ReadFile("testdata/medqa_medagentsbench_test.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var ids [][]string
	for _, name := range []string{"medqa/test_hard.jsonl", "medagents_test.jsonl", "afrimedqa/test.jsonl"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		res := mustLoad(t, Source{Path: p})
		var got []string
		for _, q := range res.Questions {
			got = append(got, q.ID)
		}
		ids = append(ids, got)
	}
	for i := 1; i < len(ids); i++ {
		if !slices.Equal(ids[i], ids[0]) {
			t.Errorf("ids differ by file name: %v vs %v", ids[i], ids[0])
		}
	}
	for path, want := range map[string]string{
		"x/afrimedqa/test.jsonl": "standard", "x/medqa/test.jsonl": DatasetMedQA, "mmlu_pro_health.jsonl": DatasetMMLUPro,
		"x/mymedmcqa_copy.jsonl": "standard", "medmcqa-dev.jsonl": DatasetMedMCQA, "mmlu-professional.csv": DatasetMMLU,
	} {
		if got := guessDataset(path, "standard"); got != want {
			t.Errorf("guessDataset(%q) = %q, want %q", path, got, want)
		}
	}
}
