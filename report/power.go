package report

import (
	"math"

	"github.com/medteam-bench/medteam/stats"
)

// PowerRow plans the power of one comparison (a candidate arm against the
// reference on one dataset × model) at its null discordance, the
// convention of the baseline gate (stats.PairedBinary.NullDiscordance).
type PowerRow struct {
	Dataset, Model, Reference, Candidate string
	Pairs, Questions                     int // matched (question, repeat) pairs; distinct questions
	// Discordance is the null discordance 2·min(B, C)/Pairs: the share of
	// pairs on which the arms would disagree were they equally accurate
	// (the observed (B + C)/Pairs less what the difference itself made
	// discordant).
	Discordance float64
	// Deff is the design effect of repeats on the paired differences:
	// SE²_CR1 / (s²/Pairs), taken as 1 when below 1 (and without repeats);
	// NaN when no pair is discordant.
	Deff float64
	// MDE is the minimum detectable |Δaccuracy| at Alpha and Power for
	// Pairs/Deff effective pairs at the null discordance, the discordance
	// under the alternative being at least the difference
	// (stats.MinDetectableDiffNull); NaN when none is detectable.
	MDE          float64
	Alpha, Power float64
	Needed       []Needed // one per planned difference
}

// Needed is the size a comparison needs to detect a difference.
type Needed struct {
	Delta float64 // the difference, as a proportion
	// Pairs is the effective pairs needed (stats.PairsNeededNull at the
	// null discordance); Questions is the questions needed with this run's
	// repeats and design effect: ⌈Pairs·Deff·Questions/Pairs_observed⌉.
	Pairs, Questions int
	OK               bool // false when no size reaches the power (no pair, or past stats.MaxPairs)
}

// powerRows plans every comparison at the default α and power.
func powerRows(cs []stats.Comparison, deltas []float64) []PowerRow {
	return PowerFor(cs, deltas, stats.DefaultAlpha, stats.DefaultPower)
}

// PowerFor plans every comparison for the differences deltas at level
// alpha (two-sided) and the given power: the MDE at the comparison's size
// and, per difference, the pairs and questions needed.
func PowerFor(cs []stats.Comparison, deltas []float64, alpha, power float64) []PowerRow {
	out := make([]PowerRow, 0, len(cs))
	for _, c := range cs {
		pb := c.Accuracy
		p := PowerRow{Dataset: c.Dataset, Model: c.Model, Reference: c.Reference, Candidate: c.Candidate,
			Pairs: pb.N, Questions: pb.Clusters, Discordance: pb.NullDiscordance(), Deff: deffOf(pb), Alpha: alpha, Power: power}
		p.MDE = math.NaN()
		if !math.IsNaN(p.Deff) {
			p.MDE = stats.MinDetectableDiffNull(float64(p.Pairs)/p.Deff, p.Discordance, alpha, power)
		}
		for _, d := range deltas {
			p.Needed = append(p.Needed, p.need(d))
		}
		out = append(out, p)
	}
	return out
}

// need is the size needed for difference d.
func (p PowerRow) need(d float64) Needed {
	n := Needed{Delta: d}
	if math.IsNaN(p.Deff) {
		return n
	}
	n.Pairs, n.OK = stats.PairsNeededNull(d, p.Discordance, p.Alpha, p.Power)
	if n.OK {
		perQ := float64(p.Pairs) / float64(max(p.Questions, 1))
		n.Questions = int(math.Ceil(float64(n.Pairs) * p.Deff / perQ))
	}
	return n
}

// deffOf is the design effect of a paired comparison (see PowerRow.Deff).
func deffOf(pb stats.PairedBinary) float64 {
	if pb.N < 2 || pb.B+pb.C == 0 {
		return math.NaN()
	}
	n := float64(pb.N)
	mean := pb.Delta.Value
	ss := float64(pb.B+pb.C) - n*mean*mean
	iid := ss / (n - 1) / n
	// Without repeats the ratio is 1 up to rounding: not a design effect.
	if d := pb.Delta.SE * pb.Delta.SE / iid; d > 1+1e-9 && !math.IsInf(d, 0) {
		return d
	}
	return 1
}
