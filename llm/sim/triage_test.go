package sim

import (
	"fmt"
	"strings"
	"testing"

	parse "github.com/medteam-bench/medteam/answer"
)

// TestTriageDiagnosis: on an item with a gold diagnosis every agent answer
// states one, the gold exactly when its first choice is the gold letter, in
// JSON and in plain text; both kinds of outcome occur.
func TestTriageDiagnosis(t *testing.T) {
	ls := letters(3)
	items := map[string]Item{}
	for i := range 40 {
		items[fmt.Sprintf("t%02d", i)] = Item{Letters: ls, Gold: ls[i%3], Diagnosis: "Pulmonary embolism"}
	}
	m := New(mustProfile(t, "default"), items)
	// a triage item's options, as kit.AnswerOptions gives them (aliases
	// make the parser read the stated diagnosis)
	opts := []parse.Option{{Letter: "A", Text: "sc", Aliases: []string{"sc"}}, {Letter: "B", Text: "ne", Aliases: []string{"ne"}},
		{Letter: "C", Text: "em", Aliases: []string{"em"}}}
	seen := map[bool]int{}
	for id, it := range items {
		for _, kind := range []string{kindFirst} {
			for _, schema := range []bool{true, false} {
				text := mustChat(t, m, protocolReq(id, ls, kind, 0, 7, schema)).Text
				a := parse.Parse(text, opts)
				if a.First() == "" || !strings.Contains(text, "iagnosis") {
					continue // a malformed draw (cut off, prose, a bare letter)
				}
				right := a.First() == it.Gold
				want := WrongDiagnosis
				if right {
					want = it.Diagnosis
				}
				if a.Diagnosis != want {
					t.Fatalf("%s %s schema %v: first %s (gold %s), diagnosis %q, want %q\n%s", id, kind, schema, a.First(), it.Gold, a.Diagnosis, want, text)
				}
				seen[right]++
			}
		}
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Errorf("outcomes %v: both right and wrong answers should occur", seen)
	}
	// Without a diagnosis nothing is added.
	plain := New(mustProfile(t, "default"), map[string]Item{"q": {Letters: ls, Gold: "A"}})
	if text := mustChat(t, plain, protocolReq("q", ls, kindFirst, 0, 7, false)).Text; parse.Parse(text, opts).Diagnosis != "" {
		t.Errorf("multiple-choice answer states a diagnosis: %q", text)
	}
}
