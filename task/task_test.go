package task

import (
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
)

func toy(name, kind string) *Task {
	return &Task{Name: name, Kind: kind, Score: func(r *results.QuestionRow, _ qa.Question, _ *protocol.Outcome) { r.Correct = true }}
}

// TestRegistry: a question's task is the one of its kind; every task's
// Blank applies to every row; a kind no task scores is an error naming the
// question, its kind and the tasks there are.
func TestRegistry(t *testing.T) {
	mc, other := toy("mc", ""), toy("other", "other")
	other.Blank = func(r *results.QuestionRow) { r.UrgencyRank = -1 }
	reg := Registry{mc, other}
	if err := reg.Check(); err != nil {
		t.Fatal(err)
	}
	var r results.QuestionRow
	if !reg.Score(&r, qa.Question{ID: "q"}, nil) || !r.Correct || r.UrgencyRank != -1 {
		t.Errorf("multiple-choice row: correct %v urgency rank %d; want scored by mc and blanked by other", r.Correct, r.UrgencyRank)
	}
	if got, err := reg.Lookup("s", qa.Question{ID: "q", Kind: "other"}); err != nil || got != other {
		t.Errorf("Lookup(other) = %v, %v", got, err)
	}
	_, err := reg.Lookup("set1", qa.Question{ID: "q7", Kind: "yesno"})
	if err == nil || err.Error() != `question q7 of set1 is an item of kind "yesno", which no task scores (tasks: mc (kind ""), other (kind "other")); add its task to tasks.All` {
		t.Errorf("unknown kind: %v", err)
	}
	r = results.QuestionRow{}
	if (Registry{other}).Score(&r, qa.Question{ID: "q"}, nil) || r.Correct {
		t.Error("a registry without the kind scored the row")
	}
	if _, err := Registry(nil).Lookup("s", qa.Question{ID: "q"}); err == nil || !strings.Contains(err.Error(), "no task registry") {
		t.Errorf("nil registry: %v", err)
	}
}

func TestCheck(t *testing.T) {
	noScore := toy("b", "b")
	noScore.Score = nil
	for _, c := range []struct {
		reg  Registry
		want string
	}{
		{Registry{toy("a", ""), toy("b", "")}, `tasks a and b both score item kind ""`},
		{Registry{toy("", "x")}, "task 0 of the registry has no name"},
		{Registry{nil}, "task 0 of the registry has no name"},
		{Registry{toy("a", ""), noScore}, "task b has no Score"},
	} {
		if err := c.reg.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check = %v; want %q", err, c.want)
		}
	}
}
