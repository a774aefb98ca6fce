package runner

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocol/protocoltest"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/task"
	"github.com/medteam-bench/medteam/task/tasktest"
	"github.com/medteam-bench/medteam/tasks"
)

// yesNoPlan runs always-first (which answers option A) on yes/no items
// whose options come in both orders, beside a multiple-choice question,
// with the task registry reg.
func yesNoPlan(t *testing.T, reg task.Registry) Plan {
	t.Helper()
	arm, _, err := protocoltest.AlwaysFirst.Parse("always-first", protocol.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	yn := func(id, a, b, gold string) qa.Question {
		return qa.Question{ID: id, Stem: "Is it?", Kind: tasktest.KindYesNo, Gold: gold,
			Options: []qa.Option{{Letter: "A", Text: a}, {Letter: "B", Text: b}}}
	}
	qs := []qa.Question{
		yn("yn-1", "yes", "no", "A"), yn("yn-2", "No", "Yes", "B"), yn("yn-3", "no", "yes", "B"),
		{ID: "mc-1", Stem: "Which?", Gold: "A", Options: []qa.Option{{Letter: "A", Text: "x"}, {Letter: "B", Text: "y"}}},
	}
	return Plan{RunID: "t", Sets: []QuestionSet{{Name: "toy", Questions: qs}}, Tasks: reg,
		Arms:    []Arm{{Label: "always-first", Protocol: arm}},
		Models:  []Model{{Name: "stub/x", Request: "x", Client: protocoltest.AlwaysFirst.Stub(false)}},
		Repeats: 1, Seed: 1, Parallel: 2}
}

// TestAddingATask: a task in the registry scores its items with nothing
// else changed — the runner, the plan and the protocol know no task — and
// without it the runner refuses the plan, naming the kind no task scores.
func TestAddingATask(t *testing.T) {
	var scored atomic.Int32
	yesNo := *tasktest.YesNo
	yesNo.Score = func(r *results.QuestionRow, q qa.Question, out *protocol.Outcome) {
		scored.Add(1)
		tasktest.YesNo.Score(r, q, out)
	}
	res, err := Run(context.Background(), yesNoPlan(t, append(tasks.All(), &yesNo)), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"yn-1": true, "yn-2": false, "yn-3": false, "mc-1": true}
	for _, q := range res.Questions {
		if q.Predicted != "A" || q.Correct != want[q.QuestionID] || q.Abstained || q.UrgencyRank != -1 || q.PredictedRank != -1 {
			t.Errorf("%s: predicted %q correct %v abstained %v ranks %d %d; want A, %v, false, -1 -1",
				q.QuestionID, q.Predicted, q.Correct, q.Abstained, q.UrgencyRank, q.PredictedRank, want[q.QuestionID])
		}
	}
	if len(res.Questions) != 4 || scored.Load() != 3 {
		t.Fatalf("%d rows, the yes/no task scored %d; want 4 rows, 3 scored", len(res.Questions), scored.Load())
	}

	_, err = Run(context.Background(), yesNoPlan(t, tasks.All()), nil)
	if err == nil || !strings.Contains(err.Error(), `question yn-1 of toy is an item of kind "yesno", which no task scores`) ||
		!strings.Contains(err.Error(), "tasks.All") {
		t.Fatalf("shipped registry on yes/no items: err = %v; want the refusal naming the kind", err)
	}
	_, err = Run(context.Background(), yesNoPlan(t, nil), nil)
	if err == nil || !strings.Contains(err.Error(), "set runner.Plan.Tasks") {
		t.Fatalf("no registry: err = %v; want it named", err)
	}
}
