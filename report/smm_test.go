package report

import (
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// TestSMMFacts (issue 36 item 5): the report shows, per arm with SMM, the
// facts stated and verified per question and the rows where none was
// verified, and notes a leaderless arm whose SMM verified nothing at all;
// arms without SMM have no line, and rows written before the counts
// existed count their facts list.
func TestSMMFacts(t *testing.T) {
	n := func(v int32) *int32 { return &v }
	row := func(arm, q, method string, stated, verified *int32, facts ...string) results.QuestionRow {
		return results.QuestionRow{Dataset: "d", Model: "m", Arm: arm, Protocol: "teamwork", QuestionID: q, Correct: true,
			Predicted: "A", Gold: "A", NOptions: 4, SMM: method != "", FactsMethod: method, FactsStated: stated, FactsVerified: verified, Facts: facts}
	}
	rows := []results.QuestionRow{
		row("base", "q1", "", nil, nil), row("base", "q2", "", nil, nil),
		row("c1", "q1", "intersection", n(6), n(0)), row("c1", "q2", "intersection", n(4), n(0)),
		row("c6", "q1", "leader", n(5), n(2), "x", "y"), row("c6", "q2", "leader", n(7), n(0)),
		row("old", "q1", "intersection", nil, nil, "x"), row("old", "q2", "intersection", nil, nil),
	}
	r, err := Build(rows, Options{Reference: "base", Reps: 50})
	if err != nil {
		t.Fatal(err)
	}
	var sec *Section
	for _, s := range Sections(r) {
		if s.ID == SecSMM {
			sec = &s
		}
	}
	if sec == nil {
		t.Fatal("no SMM section")
	}
	got := map[string]string{}
	for _, row := range sec.Tables[0].Rows {
		got[row[0]] = strings.Join(row, "|")
	}
	want := map[string]string{
		"c1":  "c1|intersection|2|5.00|0.00|2 (100.0%)",
		"c6":  "c6|leader|2|6.00|1.00|1 (50.0%)",
		"old": "old|intersection|2|" + dash + "|0.50|1 (50.0%)",
	}
	if len(got) != len(want) {
		t.Fatalf("rows %q", got)
	}
	for arm, w := range want {
		if got[arm] != w {
			t.Errorf("%s: %q, want %q", arm, got[arm], w)
		}
	}
	notes := strings.Join(r.Notes, "\n")
	if !strings.Contains(notes, "Arm c1: its shared mental model verified no fact on any of its 2 rows") || strings.Contains(notes, "Arm c6: its shared") || strings.Contains(notes, "Arm old: its shared") {
		t.Fatalf("notes:\n%s", notes)
	}
}
