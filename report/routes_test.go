package report

import (
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// TestRoutes: the routes section gives, per route of a routing arm, its rows,
// share, accuracy and calls (mean, min–max) and tokens; arms that do not
// route have no line; the arms whose few-shot step ran zero-shot are noted.
func TestRoutes(t *testing.T) {
	row := func(arm, q, route string, correct bool, calls int32, tokens int64, pj string) results.QuestionRow {
		return results.QuestionRow{Dataset: "d", Model: "m", Arm: arm, Protocol: "p", QuestionID: q, Route: route, Correct: correct,
			Predicted: "A", Gold: "A", NOptions: 4, Calls: calls, PromptTokens: tokens, CompletionTokens: tokens / 10, ProtocolJSON: pj}
	}
	zs := `{"route":"basic","zero_shot":true}`
	rows := []results.QuestionRow{
		row("mdagents", "q1", "basic", true, 2, 100, zs),
		row("mdagents", "q2", "basic", false, 2, 300, zs),
		row("mdagents", "q3", "intermediate", true, 12, 1000, `{"route":"intermediate","zero_shot":true}`),
		row("mdagents", "q4", "advanced", true, 15, 2000, `{"route":"advanced"}`),
		row("cot", "q1", "", true, 1, 50, ""),
		row("cot", "q2", "", true, 1, 50, ""),
		row("cot", "q3", "", true, 1, 50, ""),
		row("cot", "q4", "", true, 1, 50, ""),
	}
	rows[2].Calls = 40
	r, err := Build(rows, Options{Reference: "cot", Reps: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Routes) != 3 {
		t.Fatalf("routes %+v", r.Routes)
	}
	b := r.Routes[0]
	if b.Arm != "mdagents" || b.Route != "basic" || b.N != 2 || b.Share != 0.5 || b.Correct != 1 || b.CallsMean != 2 || b.CallsMin != 2 ||
		b.CallsMax != 2 || b.PromptTokens != 200 || b.CompletionTokens != 20 {
		t.Fatalf("basic %+v", b)
	}
	if i := r.Routes[1]; i.Route != "intermediate" || i.CallsMin != 40 || i.CallsMax != 40 || i.Share != 0.25 {
		t.Fatalf("intermediate %+v", i)
	}
	if r.Routes[2].Route != "advanced" {
		t.Fatalf("order %+v", r.Routes)
	}
	var sec *Section
	for _, s := range Sections(r) {
		if s.ID == SecRoutes {
			sec = &s
		}
	}
	if sec == nil || len(sec.Tables[0].Rows) != 3 || !strings.Contains(strings.Join(sec.Tables[0].Rows[1], "|"), "|40.0 (40–40)|") {
		t.Fatalf("section %+v", sec)
	}
	if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, "Arm mdagents: 3 of 4 rows ran the few-shot step zero-shot") {
		t.Fatalf("notes:\n%s", notes)
	}

	r, err = Build(rows[4:], Options{Reps: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range Sections(r) {
		if s.ID == SecRoutes {
			t.Fatal("a routes section without routing arms")
		}
	}
}
