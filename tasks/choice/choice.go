// Package choice is the multiple-choice task: an item with lettered options
// and one correct letter (MedQA, MedMCQA, MMLU, PubMedQA), scored by whether
// the protocol's prediction is that letter. An abstention (no prediction)
// and an error are not correct and stay in the denominator.
package choice

import (
	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/task"
)

// Task scores multiple-choice items (kind "").
var Task = &task.Task{
	Name: "multiple-choice",
	Kind: qa.KindMultipleChoice,
	Doc: "A question with lettered options and one correct letter: correct is the prediction equal to it; " +
		"abstained is no prediction (not correct); right→wrong and wrong→right count the agents whose first choice " +
		"left or reached the gold letter between the first and the final round.",
	Columns: Columns,
	Metrics: []string{"accuracy", "coverage", "selective_accuracy", "abstention_rate", "ece"},
	Score:   Score,
}

// Columns are the question-row columns Score fills.
var Columns = []string{"correct", "abstained", "changes_right_to_wrong", "changes_wrong_to_right"}

// Score fills the columns that compare the outcome with the gold letter:
// correct, abstained, and the opinion changes from and to it between the
// first and the final round. A failed question (out nil) keeps them false
// and zero.
func Score(r *results.QuestionRow, q qa.Question, out *protocol.Outcome) {
	if out == nil {
		return
	}
	r.Correct = out.Predicted != "" && out.Predicted == q.Gold
	r.Abstained = out.Predicted == ""
	if len(out.Rounds) == 0 {
		return
	}
	initial, final := firsts(out.Rounds[0]), firsts(out.Rounds[len(out.Rounds)-1])
	rw, wr := Changes(initial, final, q.Gold)
	r.ChangesRightToWrong, r.ChangesWrongToRight = int32(rw), int32(wr)
}

func firsts(round []answer.Answer) []string {
	out := make([]string, len(round))
	for i, a := range round {
		out[i] = a.First()
	}
	return out
}

// Changes compares each agent's initial and final first choices with the
// gold letter: rightToWrong agents were correct initially and not finally
// (abstaining counts as not correct), wrongToRight the other way.
func Changes(initial, final []string, gold string) (rightToWrong, wrongToRight int) {
	for i := range min(len(initial), len(final)) {
		a, b := initial[i], final[i]
		switch {
		case a == gold && b != gold:
			rightToWrong++
		case a != gold && b == gold:
			wrongToRight++
		}
	}
	return rightToWrong, wrongToRight
}
