package datasets

import (
	"slices"
	"testing"

	"github.com/medteam-bench/medteam/qa"
)

// TestPubMedQASourceIDIsPMID: every PubMedQA layout gives the PMID as the
// source id — the official ori_pqal.json (keyed by PMID), MedAgentsBench's
// standardised copy (the abstract inside the question, realidx the PMID)
// and a standardised copy whose id field is an index with the PMID in
// pubid — so rows of the layouts pair by source_id although their question
// ids differ (the abstract is context in one, question text in the others).
func TestPubMedQASourceIDIsPMID(t *testing.T) {
	official := mustLoad(t, Source{Path: "testdata/pubmedqa/ori_pqal.json"})
	want := map[string]string{} // PMID → gold
	for _, q := range official.Questions {
		want[q.SourceID] = q.Gold
	}
	if len(want) != 3 || want["21645374"] != "A" || want["9812345"] != "B" || want["17554321"] != "C" {
		t.Fatalf("official layout: %v", want)
	}
	for _, path := range []string{"testdata/pubmedqa_medagents_test.jsonl", "testdata/pubmedqa_indexed_test.jsonl"} {
		for _, name := range []string{"", DatasetPubMedQA} {
			res := mustLoad(t, Source{Path: path, Dataset: name})
			got := map[string]string{}
			for _, q := range res.Questions {
				got[q.SourceID] = q.Gold
				if path == "testdata/pubmedqa_indexed_test.jsonl" && q.Meta["pmid"] != q.SourceID {
					t.Errorf("%s: Meta.pmid %q, source id %s", path, q.Meta["pmid"], q.SourceID)
				}
				if slices.ContainsFunc(official.Questions, func(o qa.Question) bool { return o.ID == q.ID }) {
					t.Errorf("%s: question id %s equals the official layout's", path, q.ID)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%s (--dataset-name %q): source ids %v, want the PMIDs %v", path, name, got, want)
			}
			for pmid, gold := range want {
				if got[pmid] != gold {
					t.Errorf("%s (--dataset-name %q): PMID %s gold %q, want %q (source ids %v)", path, name, pmid, got[pmid], gold, got)
				}
			}
		}
	}
}
