package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Dist summarises a distribution: its size, mean, median and 95th
// percentile.
type Dist struct {
	N    int
	Mean float64
	P50  float64
	P95  float64
}

// Describe returns the mean, p50 and p95 of x (NaN for all three when x is
// empty); x is not modified. The quantiles are gonum's stat.Quantile with
// stat.Empirical: the inverse of the empirical distribution function, the
// smallest observed x₍ᵢ₎ with i/n ≥ p (Hyndman & Fan 1996, The American
// Statistician 50(4), definition 1; R's quantile(type = 1)). A reported
// percentile is therefore always a value that occurred — a real question's
// latency, not an interpolation between two. For an even n, p50 is the
// lower of the two middle values.
func Describe(x []float64) Dist {
	if len(x) == 0 {
		return Dist{Mean: math.NaN(), P50: math.NaN(), P95: math.NaN()}
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return Dist{
		N:    len(s),
		Mean: stat.Mean(s, nil),
		P50:  stat.Quantile(0.5, stat.Empirical, s, nil),
		P95:  stat.Quantile(0.95, stat.Empirical, s, nil),
	}
}
