package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestNoteFinish: the report counts per arm the calls cut off, filtered and
// refused, in arm order, and says nothing of an arm that had none.
func TestNoteFinish(t *testing.T) {
	rows := handRows()
	for i := range rows {
		switch q := &rows[i]; {
		case q.Arm == "c1" && q.QuestionID == "a0":
			q.CallsTruncated, q.CallsRefused = 2, 1
		case q.Arm == "c1" && q.QuestionID == "a1":
			q.CallsTruncated = 1
		case q.Arm == "base" && q.QuestionID == "b3":
			q.CallsFiltered = 1
		}
	}
	r, err := Build(rows, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range r.Notes {
		if strings.Contains(n, "cut off") || strings.Contains(n, "withheld") || strings.Contains(n, "refused") {
			got = append(got, n)
		}
	}
	want := []string{
		"Arm base: of its 200 calls, 1 withheld by the content filter (content_filter).",
		"Arm c1: of its 200 calls, 3 cut off at the token limit (finish reason length), 1 refused by the model.",
	}
	if len(got) != len(want) {
		t.Fatalf("notes %q, want %d", got, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("note %d = %q, want it to start %q", i, got[i], w)
		}
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "3 cut off at the token limit") {
		t.Error("report.md lacks the note")
	}
	plain, err := Build(handRows(), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range plain.Notes {
		if strings.Contains(n, "cut off at the token limit") {
			t.Errorf("a note without any cut-off call: %q", n)
		}
	}
}
