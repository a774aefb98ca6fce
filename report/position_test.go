package report

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/stats"
)

func TestPositionOf(t *testing.T) {
	cases := []struct {
		letter, order string
		n             int32
		want          int
	}{
		{"A", "", 4, 0}, {"D", "", 4, 3}, {"E", "", 4, -1}, {"", "", 4, -1}, {"AB", "", 4, -1},
		{"C", "CADB", 4, 0}, {"B", "CADB", 4, 3}, {"E", "CADB", 4, -1},
	}
	for _, c := range cases {
		r := results.QuestionRow{OptionOrder: c.order, NOptions: c.n}
		if got := positionOf(c.letter, &r); got != c.want {
			t.Errorf("positionOf(%q, order %q) = %d, want %d", c.letter, c.order, got, c.want)
		}
	}
}

// posRows makes one row per question: gold at position q%3 and the
// prediction from pred(q), on 3 options.
func posRows(arm string, n int, pred func(q int) int) []results.QuestionRow {
	var rows []results.QuestionRow
	for q := 0; q < n; q++ {
		g, p := q%3, pred(q)
		rows = append(rows, results.QuestionRow{Dataset: "d", Model: "m", Arm: arm, QuestionID: fmt.Sprint("q", q),
			NOptions: 3, Gold: positionLetter(g), Predicted: positionLetter(p), Correct: g == p})
	}
	return rows
}

// TestGoodnessOfFitKnownAnswer: predicted counts 30, 15, 15 against gold
// spread evenly (20 each) over 60 rows, one per question (deff 1):
// χ² = (100 + 25 + 25) / 20 = 7.5 on 2 df, p = exp(−7.5/2).
func TestGoodnessOfFitKnownAnswer(t *testing.T) {
	rows := posRows("x", 60, func(q int) int {
		switch {
		case q < 30:
			return 0
		case q < 45:
			return 1
		}
		return 2
	})
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	pb := positionGroup(rows, idx, 0.95)
	if pb.Answered != 60 || pb.DF != 2 || math.Abs(pb.ChiSquare-7.5) > 1e-12 || math.Abs(pb.DeffMean-1) > 1e-12 {
		t.Fatalf("answered %d, χ² %v, df %d, deff %v; want 60, 7.5, 2, 1", pb.Answered, pb.ChiSquare, pb.DF, pb.DeffMean)
	}
	if want := math.Exp(-3.75); math.Abs(pb.P-want) > 1e-12 {
		t.Errorf("p = %v, want %v", pb.P, want)
	}
	if pb.Predicted[0].K != 30 || pb.Gold[0].K != 20 || pb.AccuracyByGold[0].N != 20 {
		t.Errorf("counts: predicted A %d, gold A %d, rows with gold A %d", pb.Predicted[0].K, pb.Gold[0].K, pb.AccuracyByGold[0].N)
	}
}

// TestPositionBiasFlags: an arm that answers A on 70% of questions is
// flagged after Holm; an arm whose answers follow the gold is not; an
// abstention is not an answer.
func TestPositionBiasFlags(t *testing.T) {
	rows := posRows("biased", 150, func(q int) int {
		if q%10 < 7 {
			return 0
		}
		return q % 3
	})
	rows = append(rows, posRows("fair", 150, func(q int) int {
		if q%5 == 0 {
			return (q + 1) % 3
		}
		return q % 3
	})...)
	rows[len(rows)-1].Abstained, rows[len(rows)-1].Predicted = true, ""
	rank := func(a string) int { return map[string]int{"biased": 0, "fair": 1}[a] }
	got := positionBias(rows, 0.95, rank)
	if len(got) != 2 || got[0].Key.Arm != "biased" || got[1].Key.Arm != "fair" {
		t.Fatalf("groups %+v", got)
	}
	if !got[0].Flagged || got[1].Flagged {
		t.Errorf("flags: biased %v (Holm p %v), fair %v (Holm p %v)", got[0].Flagged, got[0].HolmP, got[1].Flagged, got[1].HolmP)
	}
	if got[1].Answered != 149 {
		t.Errorf("fair answered %d, want 149", got[1].Answered)
	}
	if want := stats.Holm([]float64{got[0].P, got[1].P}); got[0].HolmP != want[0] || got[1].HolmP != want[1] {
		t.Errorf("Holm p %v %v, want %v", got[0].HolmP, got[1].HolmP, want)
	}
	r := &Report{Position: got, Level: 0.95}
	s := r.positionSection()
	if s == nil || !strings.Contains(fmt.Sprint(s.Tables[0].Rows[0]), "position bias") || strings.Contains(fmt.Sprint(s.Tables[0].Rows[1]), "position bias") {
		t.Errorf("section: %+v", s)
	}
}
