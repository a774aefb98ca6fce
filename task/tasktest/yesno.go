// Package tasktest holds tasks for tests of the task contract: YesNo is a
// toy task, and adding it to a registry is all it takes to score its items
// (see runner's TestAddingATask).
package tasktest

import (
	"strings"

	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/task"
)

// KindYesNo is the item kind YesNo scores.
const KindYesNo = "yesno"

// YesNo scores yes/no items: two options, "yes" and "no" in either order.
// The prediction is correct when its option says what the gold option says
// (the texts compared, case aside), so the order the options were shown in
// does not matter.
var YesNo = &task.Task{
	Name:    "yes-no",
	Kind:    KindYesNo,
	Doc:     "A question answered yes or no: correct is the predicted option's text equal to the gold option's, case aside; no prediction is an abstention.",
	Columns: []string{"correct", "abstained"},
	Metrics: []string{"accuracy", "coverage"},
	Score: func(r *results.QuestionRow, q qa.Question, out *protocol.Outcome) {
		if out == nil {
			return
		}
		r.Abstained = out.Predicted == ""
		r.Correct = !r.Abstained && strings.EqualFold(text(q, out.Predicted), text(q, q.Gold))
	},
}

func text(q qa.Question, letter string) string {
	for _, o := range q.Options {
		if o.Letter == letter {
			return strings.TrimSpace(o.Text)
		}
	}
	return ""
}
