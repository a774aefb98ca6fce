package report

import (
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// TestPairsAcrossLayouts: the same 20 PubMedQA questions run from two
// layouts (the abstract as context in one run, inside the question in the
// other) have different question ids but the same PMIDs (source_id) and
// golds: the report pairs them on the PMID and says so.
func TestPairsAcrossLayouts(t *testing.T) {
	var a, b []results.QuestionRow
	for _, r := range handRows() {
		r.SourceID, r.Gold = "pmid"+r.QuestionID, "A"
		switch r.Arm {
		case "base":
			a = append(a, r)
		case "c4":
			r.RunID, r.QuestionID = "run-copy", "copy-"+r.QuestionID
			b = append(b, r)
		}
	}
	rows, infos, _, err := Pool([]RunRows{{Info: RunInfo{Name: "run-hand"}, Rows: a}, {Info: RunInfo{Name: "run-copy"}, Rows: b}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(rows, Options{Seed: 1, Runs: infos})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Comparisons) != 1 {
		t.Fatalf("%d comparisons", len(r.Comparisons))
	}
	c := r.Comparisons[0]
	if c.Matched != 20 || c.RefOnly+c.CandOnly != 0 || c.Accuracy.B != 0 || c.Accuracy.C != 10 {
		t.Errorf("pairs across layouts: %d matched, %d/%d unmatched, b %d c %d; want 20, 0/0, 0, 10",
			c.Matched, c.RefOnly, c.CandOnly, c.Accuracy.B, c.Accuracy.C)
	}
	if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, "paired on the dataset's own id (source_id, e.g. the PMID) with the same gold answer in every pair: 20 pairs") {
		t.Errorf("no note on the pairing:\n%s", notes)
	}
}
