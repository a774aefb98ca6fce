package stats

import (
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// sourced is a unit with a source id and a gold answer.
func sourced(arm, q, src, gold string, rep int32, correct bool) results.QuestionRow {
	r := unit(arm, q, rep, correct, 1, 10)
	r.SourceID, r.Gold = src, gold
	return r
}

// TestPairBySourceAcrossLayouts: two layouts of PubMedQA give a question
// different content ids but the same PMID; the arms pair on (source id,
// repeat) only when that matches more units, every row has a source id
// and every pair has the same gold answer.
func TestPairBySourceAcrossLayouts(t *testing.T) {
	official := []results.QuestionRow{
		sourced("cot", "pubmedqa-aaa1", "21645374", "A", 0, true),
		sourced("cot", "pubmedqa-aaa2", "9812345", "B", 0, false),
		sourced("cot", "pubmedqa-aaa3", "17554321", "C", 0, true),
		sourced("cot", "pubmedqa-aaa1", "21645374", "A", 1, false),
	}
	copyRows := func(mut func(i int, r *results.QuestionRow)) []results.QuestionRow {
		out := []results.QuestionRow{
			sourced("full", "pubmedqa-bbb1", "21645374", "A", 0, true),
			sourced("full", "pubmedqa-bbb2", "9812345", "B", 0, true),
			sourced("full", "pubmedqa-bbb3", "17554321", "C", 0, true),
			sourced("full", "pubmedqa-bbb1", "21645374", "A", 1, true),
		}
		for i := range out {
			if mut != nil {
				mut(i, &out[i])
			}
		}
		return out
	}
	cases := []struct {
		name                    string
		cand                    []results.QuestionRow
		by                      string
		matched, refOnly, cands int
	}{
		{"another layout: paired on the PMID", copyRows(nil), PairedBySource, 4, 0, 0},
		{"same layout: question ids first", func() []results.QuestionRow {
			c := copyRows(nil)
			for i := range c {
				c[i].QuestionID = official[i].QuestionID
			}
			return c
		}(), PairedByQuestion, 4, 0, 0},
		{"a row without a source id: no fallback", copyRows(func(i int, r *results.QuestionRow) {
			if i == 2 {
				r.SourceID = ""
			}
		}), PairedByQuestion, 0, 4, 4},
		{"line numbers of two different files (golds differ): no fallback", copyRows(func(i int, r *results.QuestionRow) {
			if i == 1 {
				r.Gold = "C"
			}
		}), PairedByQuestion, 0, 4, 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Compare(official, tc.cand, Bootstrap{Seed: 1, Reps: 100})
			if c.PairedBy != tc.by || c.Matched != tc.matched || c.RefOnly != tc.refOnly || c.CandOnly != tc.cands {
				t.Fatalf("paired by %s: %d matched, %d ref only, %d cand only; want %s %d %d %d",
					c.PairedBy, c.Matched, c.RefOnly, c.CandOnly, tc.by, tc.matched, tc.refOnly, tc.cands)
			}
			if tc.matched == 4 && (c.Questions != 3 || c.Accuracy.B != 0 || c.Accuracy.C != 2) {
				t.Errorf("pairs: %d questions, B %d, C %d; want 3, 0, 2", c.Questions, c.Accuracy.B, c.Accuracy.C)
			}
		})
	}
}
