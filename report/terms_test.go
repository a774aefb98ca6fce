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

// TestNoteTermsOwnFirstAnswer (issue 36 item 7): arms whose method asks no
// shared first answer (Options.OwnFirstAnswer) are named in a note of their
// own, whether or not they record a first_prompt, and never among the arms
// whose shared first-answer request differs.
func TestNoteTermsOwnFirstAnswer(t *testing.T) {
	row := func(arm, q, prompt string) results.QuestionRow {
		return results.QuestionRow{Dataset: "d", Model: "m", Arm: arm, Protocol: arm, QuestionID: q, NAgents: 3,
			FirstPrompt: prompt, Correct: true, Predicted: "A", Gold: "A", NOptions: 4}
	}
	var rows []results.QuestionRow
	for _, q := range []string{"q1", "q2", "q3"} {
		rows = append(rows, row("vote", q, "p-shared"), row("full", q, "p-full"), row("zeroshot", q, "p-zero"),
			row("veto", q, ""), row("medagents", q, ""), row("mdagents", q, "p-md"), row("judge", q, "p-shared"))
	}
	own := []string{"zeroshot", "veto", "medagents", "mdagents"}
	r, err := Build(rows, Options{Reference: "vote", Reps: 50, OwnFirstAnswer: own})
	if err != nil {
		t.Fatal(err)
	}
	var prompt, ownNote string
	for _, n := range r.Notes {
		switch {
		case strings.HasPrefix(n, "first answers asked"):
			prompt = n
		case strings.HasPrefix(n, "arms that ask no shared first answer"):
			ownNote = n
		}
	}
	if !strings.HasSuffix(prompt, "(column first_prompt): full") {
		t.Errorf("shared-request note = %q, want it to name full alone", prompt)
	}
	for _, a := range own {
		if !strings.Contains(ownNote, a) {
			t.Errorf("own-first-answer note lacks %s: %q", a, ownNote)
		}
	}
	if strings.Contains(ownNote, "full") || strings.Contains(ownNote, "judge") {
		t.Errorf("own-first-answer note names an arm that asks the shared request: %q", ownNote)
	}
	// The reference itself asking its own first answers is said once.
	r, err = Build(rows, Options{Reference: "mdagents", Reps: 50, OwnFirstAnswer: own})
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, "the reference mdagents asks its first answers in its own prompts") {
		t.Errorf("no note on the reference's own first answers:\n%s", notes)
	}
}
