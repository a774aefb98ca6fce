package aggregator

import (
	"fmt"
	"math"
	"slices"
)

// Rule names of the plurality rules (Decision.Rule).
const (
	RulePlurality         = "plurality"
	RuleWeightedPlurality = "weighted_plurality"
)

// Plurality counts one vote per voter for its choice (votes[i]; "" is an
// abstention, and a letter not among options counts as one too). Scores are
// the counts in option order; the Winner is set when one option has the
// most votes, else Tie and Tied (the options sharing the top count, in
// option order) are set and the caller applies its tie rule.
func Plurality(options, votes []string) Decision {
	d, _ := plurality(options, votes, nil, RulePlurality)
	return d
}

// WeightedPlurality counts each voter's vote with its weight (a stated
// confidence, say): Score(option) = Σ weight of the voters choosing it.
// Only options that received a vote can win or tie, so voters of weight 0
// (no stated confidence) still name the options in contention. It returns
// an error when the lengths differ or a weight is negative or not finite.
func WeightedPlurality(options, votes []string, weights []float64) (Decision, error) {
	if len(weights) != len(votes) {
		return Decision{}, fmt.Errorf("aggregator: %d weights for %d votes", len(weights), len(votes))
	}
	for i, w := range weights {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return Decision{}, fmt.Errorf("aggregator: weight %d is %v; weights must be finite and ≥ 0", i, w)
		}
	}
	return plurality(options, votes, weights, RuleWeightedPlurality)
}

func plurality(options, votes []string, weights []float64, rule string) (Decision, error) {
	d := Decision{Scores: make([]float64, len(options)), Rule: rule}
	voted := make([]bool, len(options))
	for i, v := range votes {
		k := slices.Index(options, v)
		if v == "" || k < 0 {
			continue
		}
		w := 1.0
		if weights != nil {
			w = weights[i]
		}
		d.Voters++
		d.Scores[k] += w
		voted[k] = true
	}
	if d.Voters == 0 {
		return d, nil
	}
	best := math.Inf(-1)
	for k, s := range d.Scores {
		if voted[k] {
			best = math.Max(best, s)
		}
	}
	for k, s := range d.Scores {
		if voted[k] && best-s <= TieEpsilon {
			d.Tied = append(d.Tied, options[k])
		}
	}
	if len(d.Tied) == 1 {
		d.Winner, d.Tied = d.Tied[0], nil
		return d, nil
	}
	d.Tie = true
	return d, nil
}

// PluralityWithDraw is plurality with a seeded draw among the tied options
// (self-consistency, debate): the Decision's Winner is the drawn option when
// drawn is true, so a tie is never broken by "the first letter".
func PluralityWithDraw(options, votes []string, seed uint64) (d Decision, drawn bool) {
	d = Plurality(options, votes)
	if d.Tie {
		d.Winner, drawn = BreakTie(d.Tied, seed), true
	}
	return d, drawn
}
