package aggregator

import (
	"testing"
)

// TestReconcileWeight is trans_confidence of ReConcile's utils.py, bucket by
// bucket and at every boundary.
func TestReconcileWeight(t *testing.T) {
	tests := []struct{ c, w float64 }{
		{-1, 0.1}, {0, 0.1}, {0.3, 0.1}, {0.6, 0.1},
		{0.61, 0.3}, {0.7, 0.3}, {0.79, 0.3},
		{0.8, 0.5}, {0.85, 0.5}, {0.89, 0.5},
		{0.9, 0.8}, {0.95, 0.8}, {0.99, 0.8},
		{1, 1}, {1.5, 1},
	}
	for _, tt := range tests {
		if got := ReconcileWeight(tt.c); got != tt.w {
			t.Errorf("ReconcileWeight(%v) = %v, want %v", tt.c, got, tt.w)
		}
	}
}

// gridMinorityWins walks the 101³ grid of confidences (0, 0.01, …, 1) of a
// council voting A, B, B and counts the cells where rule commits to the lone
// A vote. It fails the test on a minority win with a mean under the gate.
func gridMinorityWins(t *testing.T, rule func(conf []float64) Consensus) int {
	t.Helper()
	wins := 0
	for a := 0; a <= 100; a++ {
		for b1 := 0; b1 <= 100; b1++ {
			for b2 := 0; b2 <= 100; b2++ {
				conf := []float64{float64(a) / 100, float64(b1) / 100, float64(b2) / 100}
				c := rule(conf)
				if c.Decision.Winner != "A" {
					continue
				}
				if c.MeanConfidence < MinMeanConfidence-TieEpsilon {
					t.Fatalf("confidences %v: the minority wins with mean %.3f under the gate", conf, c.MeanConfidence)
				}
				wins++
			}
		}
	}
	return wins
}

// TestWeightedVoteGrid is issue 36's exhaustive check at N = 3: with raw
// confidences as weights, seed 000's 0.70 gate leaves a confident minority
// no cell to win in (so vote:weighted equalled vote but on three-way
// splits); with ReConcile's weights it wins in some, always above the gate.
func TestWeightedVoteGrid(t *testing.T) {
	votes := []string{"A", "B", "B"}
	raw := gridMinorityWins(t, func(conf []float64) Consensus {
		c := Consensus{MeanConfidence: (conf[0] + conf[1] + conf[2]) / 3}
		c.Decision, _ = WeightedPlurality(abcd, votes, conf)
		if c.MeanConfidence < MinMeanConfidence-TieEpsilon {
			c.Decision.Winner = ""
		}
		return c
	})
	if raw != 0 {
		t.Fatalf("raw confidences as weights: the minority wins in %d cells, want 0 (issue 36's grid)", raw)
	}
	rescaled := gridMinorityWins(t, func(conf []float64) Consensus {
		c, err := VoteRule(abcd, votes, conf, true)
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
	if rescaled == 0 {
		t.Fatal("vote:weighted: a confident minority never wins at N = 3; the weighted vote cannot weigh")
	}
	t.Logf("minority wins in %d of 101³ cells (raw confidences: %d)", rescaled, raw)
}
