package report

import (
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// TestNoteTerms: compared arms with different team sizes or first-answer
// prompts are flagged; arms alike in both are not; an errored row counts
// for neither.
func TestNoteTerms(t *testing.T) {
	row := func(arm string, q string, n int32, prompt string, correct bool) results.QuestionRow {
		return results.QuestionRow{Dataset: "d", Model: "m", Arm: arm, Protocol: arm, QuestionID: q, NAgents: n,
			FirstPrompt: prompt, Correct: correct, Predicted: "A", Gold: "A", NOptions: 4}
	}
	var rows []results.QuestionRow
	for i, q := range []string{"q1", "q2", "q3", "q4"} {
		rows = append(rows,
			row("vote", q, 3, "p-shared", i%2 == 0),
			row("sc:k=3", q, 3, "p-shared", true),          // equal terms: no note
			row("sc:k=5", q, 5, "p-shared", true),          // larger team
			row("zeroshot", q, 1, "p-zero", true),          // other prompt and size
			row("base", q, int32(2+i%3), "p-shared", true), // dynamic 2–4
		)
	}
	bad := row("vote2", "q1", 3, "p-other", true)
	bad.Error = "boom"
	rows = append(rows, bad, row("vote2", "q2", 3, "p-shared", true))
	r, err := Build(rows, Options{Reference: "vote", Reps: 50})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(r.Notes, "\n")
	for _, want := range []string{"sc:k=5 (5) vs vote (3)", "zeroshot (1) vs vote (3)", "base (2–4) vs vote (3)",
		"first answers asked with a different prompt than vote's (column first_prompt): zeroshot\n"} {
		if !strings.Contains(notes+"\n", want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	var terms []string
	for _, n := range r.Notes {
		if strings.HasPrefix(n, "team sizes") || strings.HasPrefix(n, "first answers") {
			terms = append(terms, n)
		}
	}
	for _, not := range []string{"sc:k=3", "vote2"} {
		if strings.Contains(strings.Join(terms, "\n"), not) {
			t.Errorf("notes flag %s, compared on equal terms:\n%s", not, notes)
		}
	}
}
