package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/qa"
)

// afrimedFixture is a copy of MedAgentsBench's AfriMedQA layout (standard
// JSONL, options {A..E}) in which some items pad a four-option question
// with option E "n/a" (76 of 174 in the published copy).
const afrimedFixture = "testdata/afrimedqa_medagentsbench_test.jsonl"

// TestPaddingDroppedEveryLayout: trailing "n/a" options are padding in
// every layout, not only MMLU-Pro's: dropped before the model sees them,
// counted in the question's metadata and in the load's Stats (which the
// manifest records), and never confused with a real option E.
func TestPaddingDroppedEveryLayout(t *testing.T) {
	res := mustLoad(t, Source{Path: afrimedFixture, Dataset: "afrimedqa"})
	want := map[string]struct {
		letters string
		dropped string
	}{
		"afrimed-0a1f3c": {"ABCD", "1"},
		"afrimed-0b7d21": {"ABCD", "1"},
		"afrimed-1c02e8": {"ABCDE", ""}, // a real option E
		"afrimed-1d9a44": {"ABCD", "1"},
		"afrimed-2e5b90": {"ABCD", ""},  // four options as published
		"afrimed-2f8c17": {"ABCD", "1"}, // "N/A": any case
	}
	if len(res.Questions) != len(want) {
		t.Fatalf("%d questions, want %d", len(res.Questions), len(want))
	}
	for _, q := range res.Questions {
		w := want[q.SourceID]
		if got := strings.Join(qa.Item{Options: q.Options}.Letters(), ""); got != w.letters || q.Meta["padding_options_dropped"] != w.dropped {
			t.Errorf("%s: options %s, padding_options_dropped %q; want %s, %q", q.SourceID, got, q.Meta["padding_options_dropped"], w.letters, w.dropped)
		}
	}
	if res.PaddingDropped != 4 || !containsNote(res.Notes, `4 padding option(s) ("n/a") dropped from 4 question(s)`) {
		t.Errorf("PaddingDropped %d, notes %q; want 4 and a note", res.PaddingDropped, res.Notes)
	}
}

func containsNote(notes []string, s string) bool {
	for _, n := range notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// TestPaddingOtherLayouts: MedQA's layout (options object) drops the
// padding too; a gold naming a padding option is a problem at its file and
// line, in every layout (MMLU-Pro's included).
func TestPaddingOtherLayouts(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const medqa = `{"question": "Which vitamin deficiency causes scurvy?", "answer": "Vitamin C", "options": {"A": "Vitamin A", "B": "Vitamin C", "C": "Vitamin D", "D": "n/a", "E": "n/a"}, "meta_info": "step1", "answer_idx": "B"}` + "\n"
	res := mustLoad(t, Source{Path: write("medqa_test.jsonl", medqa), Format: FormatMedQA})
	if q := res.Questions[0]; len(q.Options) != 3 || q.Meta["padding_options_dropped"] != "2" || res.PaddingDropped != 2 {
		t.Errorf("MedQA layout: %d options, meta %q, PaddingDropped %d; want 3, \"2\", 2", len(q.Options), q.Meta, res.PaddingDropped)
	}
	tests := []struct{ name, file, body, where string }{
		{"standard", "afrimedqa_test.jsonl", `{"realidx": "x1", "question": "Q?", "options": {"A": "Yes", "B": "No", "C": "n/a"}, "answer_idx": "A"}` + "\n" +
			`{"realidx": "x2", "question": "Which drug?", "answer": "n/a", "options": {"A": "Aspirin", "B": "Heparin", "C": "n/a"}, "answer_idx": "C"}` + "\n",
			`afrimedqa_test.jsonl:2: field "answer_idx"`},
		{"mmlu-pro", "mmlu_pro_test.jsonl", `{"question_id": 7, "question": "Which vitamin?", "options": ["Vitamin A", "Vitamin C", "N/A"], "answer": "C", "answer_index": 2, "category": "health"}` + "\n",
			`mmlu_pro_test.jsonl:1: field "answer"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(Source{Path: write(tt.file, tt.body)}, LoadOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.where) || !strings.Contains(err.Error(), "padding option") {
				t.Fatalf("gold on a padding option: %v; want a problem at %s naming the padding option", err, tt.where)
			}
		})
	}
}
