package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultLevel is the confidence level used when a caller passes 0.
const DefaultLevel = 0.95

// Interval is the closed interval [Lo, Hi]; both NaN when undefined.
type Interval struct {
	Lo, Hi float64
}

// nanInterval is the undefined interval.
func nanInterval() Interval { return Interval{math.NaN(), math.NaN()} }

// Contains reports whether Lo ≤ x ≤ Hi (false for an undefined interval).
func (i Interval) Contains(x float64) bool { return i.Lo <= x && x <= i.Hi }

// Width is Hi − Lo.
func (i Interval) Width() float64 { return i.Hi - i.Lo }

// Defined reports whether both bounds are numbers.
func (i Interval) Defined() bool { return !math.IsNaN(i.Lo) && !math.IsNaN(i.Hi) }

// level returns l, or DefaultLevel for 0.
func level(l float64) float64 {
	if l == 0 {
		return DefaultLevel
	}
	return l
}

// ZFor is the two-sided standard normal critical value of a confidence
// level: z = Φ⁻¹(1 − (1 − level)/2), via gonum's distuv.UnitNormal
// (1.959964 at 0.95). Level 0 means DefaultLevel.
func ZFor(lvl float64) float64 {
	lvl = level(lvl)
	return distuv.UnitNormal.Quantile(1 - (1-lvl)/2)
}

// TFor is the two-sided Student t critical value with df degrees of freedom:
// t = F⁻¹_df(1 − (1 − level)/2), via distuv.StudentsT; NaN when df < 1.
// Intervals built on a cluster-robust standard error use df = G − 1 (G
// clusters), as Cameron & Miller (2015, "A Practitioner's Guide to
// Cluster-Robust Inference", J. Human Resources 50(2)) recommend; at
// G = 1,273 it is 1.9618 against z = 1.9600.
func TFor(lvl, df float64) float64 {
	if !(df >= 1) {
		return math.NaN()
	}
	lvl = level(lvl)
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-lvl)/2)
}

// clamp01 limits x to [0, 1] (NaN stays NaN).
func clamp01(x float64) float64 {
	switch {
	case x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}
