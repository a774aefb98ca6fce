package datasets

import (
	"slices"
	"testing"
)

// TestFormatTable checks the invariants the generic reader and sniffer rely
// on: every format is listed once, every format that is detected in some
// form is in detectOrder (and only those), and every format either reads
// records or names a container.
func TestFormatTable(t *testing.T) {
	seen := map[Format]bool{}
	for _, f := range formatTable {
		if f.Name == FormatAuto || seen[f.Name] {
			t.Errorf("format %q is empty or listed twice", f.Name)
		}
		seen[f.Name] = true
		if f.Doc == "" {
			t.Errorf("%s: no Doc", f.Name)
		}
		if (f.Normalize == nil) == (f.Container == nil) {
			t.Errorf("%s: a format either normalises records or names a container", f.Name)
		}
		if f.Normalize != nil && f.Dataset == "" {
			t.Errorf("%s: no Dataset", f.Name)
		}
		detected := f.Fields != nil || f.Headerless != nil || (f.Keyed != nil && f.Keyed.Detect != nil)
		if in := slices.Contains(detectOrder, f); in != detected {
			t.Errorf("%s: in detectOrder %v, detected %v", f.Name, in, detected)
		}
		if f.CSVHeader && f.Fields == nil {
			t.Errorf("%s: CSVHeader without Fields", f.Name)
		}
		if lookupFormat(f.Name) != f {
			t.Errorf("lookupFormat(%q) is not its entry", f.Name)
		}
	}
	for _, f := range detectOrder {
		if !slices.Contains(formatTable, f) {
			t.Errorf("%s is in detectOrder but not in formatTable", f.Name)
		}
		if f.Fields == nil {
			t.Errorf("%s is in detectOrder without Fields", f.Name)
		}
	}
	if len(Formats()) != len(formatTable) {
		t.Errorf("Formats() has %d entries, the table %d", len(Formats()), len(formatTable))
	}
	const hint = "name the format with --format (medqa, standard, medmcqa, pubmedqa, mmlu, mmlu-pro, medbullets, headqa, semigran, triage, canonical), or map the fields with --format mapped --map question=…,options=…,answer=…"
	if got := formatHint(); got != hint {
		t.Errorf("formatHint() = %q, want %q", got, hint)
	}
}

// TestClassifyFields pins the detection order: which format a first
// record's fields are recognised as, where several formats' fields overlap.
func TestClassifyFields(t *testing.T) {
	cases := []struct {
		fields []string
		want   Format
	}{
		{[]string{"id", "stem", "options", "gold", "question", "answer_idx"}, FormatCanonical},
		{[]string{"question", "opa", "cop", "answer_idx"}, FormatMedMCQA},
		{[]string{"question_id", "question", "options", "answer", "answer_idx"}, FormatMMLUPro},
		{[]string{"question_id", "options", "answer_index"}, FormatMMLUPro},
		{[]string{"question_id", "options"}, ""},
		{[]string{"pubid", "question", "choices", "answer", "final_decision"}, FormatPubMedQA},
		{[]string{"QUESTION", "final_decision"}, FormatPubMedQA},
		{[]string{"QUESTION"}, ""},
		{[]string{"question", "choices", "answer", "opa", "answer_idx"}, FormatMMLU},
		{[]string{"question", "opa", "answer_idx", "options"}, FormatMedBullets},
		{[]string{"question", "options", "answer_idx", "realidx"}, FormatStandard},
		{[]string{"question", "options", "answer_idx"}, FormatMedQA},
		{[]string{"question", "options"}, ""},
		{[]string{"urgency_level", "correct_diagnosis", "case_description"}, FormatSemigran},
		{[]string{"case_description", "urgency"}, FormatTriage},
		{[]string{"vignette", "urgency", "specialty"}, FormatTriage},
		{[]string{"case", "urgency_level"}, ""},
		{nil, ""},
	}
	for _, tc := range cases {
		if got := classifyFields(tc.fields); got != tc.want {
			t.Errorf("classifyFields(%v) = %q, want %q", tc.fields, got, tc.want)
		}
	}
}
