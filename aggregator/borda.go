// Package aggregator holds the pure decision rules that turn individual
// answers into a team decision. Every rule returns a Decision carrying its
// evidence: the scores, whether the top was tied, and which rule was applied.
// Borda (plain, weighted) serves teamwork; plurality, seed 000's vote rule
// and seed 004's veto rule serve the panel protocols and say, besides the
// winner, when the caller's safe default applies (Consensus); MeanRanks
// aggregates peer rankings. All take the options in their order.
//
// Nothing here calls a model or draws from shared randomness; a tie draw
// takes its seed as an argument.
package aggregator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// TieEpsilon is the tolerance within which two scores count as equal.
const TieEpsilon = 1e-9

// Rule names recorded in Decision.Rule.
const (
	RulePlainBorda        = "borda"
	RuleHierarchicalBorda = "hierarchical_borda"
	RuleTrustBorda        = "trust_borda"
)

// Ballot is one voter's ranking (best first) and the weight of its vote.
// A ranking may be partial; an empty ranking is an abstention.
type Ballot struct {
	Ranking []string
	Weight  float64
}

// Decision is the outcome of an aggregation rule.
type Decision struct {
	// Winner is the chosen option letter; "" when every ballot abstained or the
	// tie is still open (see Tie).
	Winner string
	// Scores holds each option's score, in the order of the options given.
	Scores []float64
	// Tie is true when two or more options share the top score (within TieEpsilon).
	Tie bool
	// Tied lists the options sharing the top score, in option order (only when Tie).
	Tied []string
	// Rule names the rule applied.
	Rule string
	// Voters counts the non-empty ballots.
	Voters int
}

// Abstained reports whether no ballot carried a ranking.
func (d Decision) Abstained() bool { return d.Voters == 0 }

// BordaPoints returns the points a ranking gives to each option, in option
// order: with K options, the option at 0-based rank position p earns K−1−p;
// options the ranking does not mention earn 0. Letters not among the options
// and repeated letters are ignored (the first occurrence counts). Because
// points depend on K and not on the ranking's length, a single-answer ballot
// on a yes/no/maybe item still gives its choice K−1 points.
func BordaPoints(options []string, ranking []string) []float64 {
	k := len(options)
	pts := make([]float64, k)
	seen := make([]bool, k)
	p := 0
	for _, l := range ranking {
		i := slices.Index(options, l)
		if i < 0 || seen[i] {
			continue
		}
		seen[i] = true
		pts[i] = float64(k - 1 - p)
		p++
	}
	return pts
}

// Borda aggregates weighted ballots: Score(option) = Σ weight·BordaPoints.
// rule is recorded in the Decision as given. When the top score is not tied
// the Winner is set; otherwise Tie and Tied are set and Winner is "" so that
// the caller applies its tie rule (BreakTie or a leader's call).
func Borda(options []string, ballots []Ballot, rule string) Decision {
	d := Decision{Scores: make([]float64, len(options)), Rule: rule}
	for _, b := range ballots {
		if len(b.Ranking) == 0 {
			continue
		}
		d.Voters++
		for i, pt := range BordaPoints(options, b.Ranking) {
			d.Scores[i] += b.Weight * pt
		}
	}
	if d.Voters == 0 || len(options) == 0 {
		return d
	}
	best := math.Inf(-1)
	for _, s := range d.Scores {
		best = math.Max(best, s)
	}
	for i, s := range d.Scores {
		if best-s <= TieEpsilon {
			d.Tied = append(d.Tied, options[i])
		}
	}
	if len(d.Tied) == 1 {
		d.Winner = d.Tied[0]
		d.Tied = nil
		return d
	}
	d.Tie = true
	return d
}

// PlainBorda gives every ballot weight 1.
func PlainBorda(options []string, rankings [][]string) Decision {
	ballots := make([]Ballot, len(rankings))
	for i, r := range rankings {
		ballots[i] = Ballot{Ranking: r, Weight: 1}
	}
	return Borda(options, ballots, RulePlainBorda)
}

// WeightedBorda weights ballot i by weights[i] (hierarchical or trust
// weights); rule names which. It returns an error when the lengths differ or a
// weight is negative or not finite.
func WeightedBorda(options []string, rankings [][]string, weights []float64, rule string) (Decision, error) {
	if len(weights) != len(rankings) {
		return Decision{}, fmt.Errorf("aggregator: %d weights for %d rankings", len(weights), len(rankings))
	}
	ballots := make([]Ballot, len(rankings))
	for i, r := range rankings {
		w := weights[i]
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return Decision{}, fmt.Errorf("aggregator: weight %d is %v; weights must be finite and ≥ 0", i, w)
		}
		ballots[i] = Ballot{Ranking: r, Weight: w}
	}
	return Borda(options, ballots, rule), nil
}

// HierarchicalWeights returns the fixed seniority weights of seed 002 for a
// team of n: n=2 {0.6,0.4}; n=3 {0.5,0.3,0.2}; n=4 {0.4,0.3,0.2,0.1}; any
// other n gets equal weights 1/n.
func HierarchicalWeights(n int) []float64 {
	switch n {
	case 2:
		return []float64{0.6, 0.4}
	case 3:
		return []float64{0.5, 0.3, 0.2}
	case 4:
		return []float64{0.4, 0.3, 0.2, 0.1}
	}
	return EqualWeights(n)
}

// EqualWeights returns n weights of 1/n.
func EqualWeights(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 1 / float64(n)
	}
	return w
}

// BreakTie draws one of tied with a generator seeded by seed: the same seed
// and the same tied set give the same choice, and every tied option is
// equally likely across seeds (never "the first letter"). It returns "" for an
// empty set.
func BreakTie(tied []string, seed uint64) string {
	if len(tied) == 0 {
		return ""
	}
	r := rand.New(rand.NewPCG(seed, 0x6d65647465616d)) // "medteam"
	return tied[r.IntN(len(tied))]
}
