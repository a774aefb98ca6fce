package teamwork

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/qa"
)

// TestAnyNumberOfOptions runs the full preset on items with 2 to 10 options
// (yes/no/maybe included) and checks that prompts list every option and its
// context, and that the decision is one of the item's own letters.
func TestAnyNumberOfOptions(t *testing.T) {
	for k := 2; k <= 10; k++ {
		q := qa.Question{ID: fmt.Sprintf("k%d", k), Stem: "Which one?", Context: []string{"An abstract passage."}, Gold: "B"}
		for i := range k {
			q.Options = append(q.Options, qa.Option{Letter: string(rune('A' + i)), Text: fmt.Sprintf("choice %d", i)})
		}
		if k == 3 {
			q.Options = []qa.Option{{Letter: "A", Text: "yes"}, {Letter: "B", Text: "no"}, {Letter: "C", Text: "maybe"}}
		}
		model := simFor(t, "default", []qa.Question{q})
		rec := &recorder{next: model}
		c, _ := ParseComponents("full", Default())
		out, err := (&Team{Config: c, RunSeed: 1}).Run(context.Background(), rec, q.Item())
		if err != nil {
			t.Fatalf("%d options: %v", k, err)
		}
		if out.Predicted == "" || !strings.Contains(strings.Join(q.Letters(), ""), out.Predicted) {
			t.Fatalf("%d options: predicted %q", k, out.Predicted)
		}
		if len(out.Decision.Scores) != k {
			t.Fatalf("%d options: %d scores", k, len(out.Decision.Scores))
		}
		prompt := llm.RenderMessages(rec.reqs[2].Messages) // a predict call
		for _, o := range q.Options {
			if !strings.Contains(prompt, o.Letter+") "+o.Text) {
				t.Fatalf("%d options: prompt lacks %s) %s", k, o.Letter, o.Text)
			}
		}
		if !strings.Contains(prompt, "CONTEXT:\nAn abstract passage.") {
			t.Fatalf("%d options: prompt lacks the context:\n%s", k, prompt)
		}
	}
}
