package choice

import (
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
)

func TestChanges(t *testing.T) {
	tests := []struct {
		initial, final []string
		gold           string
		rw, wr         int
	}{
		{[]string{"A", "B", "C"}, []string{"A", "B", "C"}, "A", 0, 0},
		{[]string{"A", "B", "C"}, []string{"B", "A", "A"}, "A", 1, 2},
		{[]string{"A", ""}, []string{"", "A"}, "A", 1, 1}, // abstaining finally is not right
		{[]string{"B"}, []string{"C"}, "A", 0, 0},
	}
	for _, tt := range tests {
		if rw, wr := Changes(tt.initial, tt.final, tt.gold); rw != tt.rw || wr != tt.wr {
			t.Errorf("Changes(%q→%q, gold %s) = %d, %d; want %d, %d", tt.initial, tt.final, tt.gold, rw, wr, tt.rw, tt.wr)
		}
	}
}

func first(l string) answer.Answer { return answer.Answer{Ranking: []string{l}} }

// TestScore: correct is the gold letter, an abstention is not correct, a
// failed question is neither, and the changes compare the first and final
// rounds with the gold letter.
func TestScore(t *testing.T) {
	q := qa.Question{ID: "q", Gold: "B", Options: []qa.Option{{Letter: "A", Text: "x"}, {Letter: "B", Text: "y"}}}
	rounds := [][]answer.Answer{{first("A"), first("B")}, {first("B"), first("B")}, {first("B"), first("A")}}
	cases := []struct {
		name               string
		out                *protocol.Outcome
		correct, abstained bool
		rw, wr             int32
	}{
		{"failed", nil, false, false, 0, 0},
		{"correct", &protocol.Outcome{Predicted: "B", Rounds: rounds[:2]}, true, false, 0, 1},
		{"wrong, over three rounds", &protocol.Outcome{Predicted: "A", Rounds: rounds}, false, false, 1, 1},
		{"abstained", &protocol.Outcome{}, false, true, 0, 0},
	}
	for _, c := range cases {
		var r results.QuestionRow
		Score(&r, q, c.out)
		if r.Correct != c.correct || r.Abstained != c.abstained || r.ChangesRightToWrong != c.rw || r.ChangesWrongToRight != c.wr {
			t.Errorf("%s: correct %v abstained %v changes %d/%d; want %v %v %d/%d", c.name, r.Correct, r.Abstained,
				r.ChangesRightToWrong, r.ChangesWrongToRight, c.correct, c.abstained, c.rw, c.wr)
		}
	}
}
