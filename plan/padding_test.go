package plan

import "testing"

// TestLoadDatasetCountsPadding: the manifest's dataset entry counts the
// padding options the loader dropped (MedAgentsBench's AfriMedQA copy pads
// four-option items with option E "n/a").
func TestLoadDatasetCountsPadding(t *testing.T) {
	qs, ref, err := LoadDataset("../datasets/testdata/afrimedqa_medagentsbench_test.jsonl", Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 6 || ref.PaddingOptionsDropped != 4 {
		t.Fatalf("%d questions, padding_options_dropped %d; want 6 and 4", len(qs), ref.PaddingOptionsDropped)
	}
	for _, q := range qs {
		for _, o := range q.Options {
			if o.Text == "n/a" || o.Text == "N/A" {
				t.Errorf("%s: padding option %s %q shown to the model", q.SourceID, o.Letter, o.Text)
			}
		}
	}
}
