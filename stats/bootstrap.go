package stats

import (
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// DefaultReps is the number of bootstrap replicates used when a caller
// passes 0.
const DefaultReps = 2000

// Bootstrap configures a seeded cluster bootstrap. The draws depend only on
// the seed and the number of clusters, so comparisons made with one seed
// on the same questions resample the same questions (common random
// numbers), and the same seed gives the same interval on every run and
// platform (math/rand/v2 keeps PCG's and IntN's sequences fixed).
type Bootstrap struct {
	Reps  int     // replicates; 0 = DefaultReps
	Seed  uint64  // seed of the PCG generator: same seed, same interval
	Level float64 // confidence level; 0 = DefaultLevel
}

func (b Bootstrap) reps() int {
	if b.Reps <= 0 {
		return DefaultReps
	}
	return b.Reps
}

// rng is the bootstrap's generator: math/rand/v2's PCG seeded with
// (Seed, Seed ^ 0x9e3779b97f4a7c15).
func (b Bootstrap) rng() *rand.Rand {
	return rand.New(rand.NewPCG(b.Seed, b.Seed^0x9e3779b97f4a7c15))
}

// BootstrapMeans is the seeded cluster (question) bootstrap percentile
// interval of the mean of each row of d: d[m][i] is metric m of observation
// i (for a paired comparison, the candidate's value minus the reference's),
// cluster[i] ∈ [0, g) its cluster. Each replicate draws g clusters with
// replacement (rand.IntN on the PCG generator; the cluster bootstrap of
// Davison & Hinkley 1997, Bootstrap Methods, §3.8) and computes for every
// metric the ratio mean
//
//	θ* = Σ_{draws k} S_m(k) / Σ_{draws k} n(k)
//
// where S_m(k) is the sum of metric m over cluster k and n(k) its size (the
// plain mean of the pairs when every question has the same number of
// repeats). All metrics share the same draws, so their intervals come from
// one resampling. The interval is the percentile interval (Efron & Tibshirani
// 1993, §13.3): the α/2 and 1 − α/2 quantiles of the sorted replicates with
// stat.Quantile(stat.Empirical). Replicates in which the draws hold no
// observation (impossible with g ≥ 1) are skipped. Undefined intervals
// when there is no observation or fewer than 2 clusters: one question
// resampled gives itself every time, a zero-width interval that says
// nothing about the population. It panics on ragged input.
func BootstrapMeans(d [][]float64, cluster []int, g int, opt Bootstrap) []Interval {
	out := make([]Interval, len(d))
	for m := range d {
		if len(d[m]) != len(cluster) {
			panic("stats: BootstrapMeans: metric and cluster differ in length")
		}
		out[m] = nanInterval()
	}
	if len(cluster) == 0 || g < 2 || len(d) == 0 {
		return out
	}
	sums, size := clusterSums(d, cluster, g)
	reps := resample(sums, size, opt)
	for m, r := range reps {
		out[m] = percentile(r, opt.Level)
	}
	return out
}

// percentile is the percentile interval of replicates r at a two-sided
// level (r is sorted in place); undefined when r is empty.
func percentile(r []float64, lvl float64) Interval {
	if len(r) == 0 {
		return nanInterval()
	}
	alpha := 1 - level(lvl)
	slices.Sort(r)
	return Interval{stat.Quantile(alpha/2, stat.Empirical, r, nil), stat.Quantile(1-alpha/2, stat.Empirical, r, nil)}
}

// clusterSums returns sums[m][k], the sum of metric m over cluster k, and
// the size of each cluster.
func clusterSums(d [][]float64, cluster []int, g int) ([][]float64, []float64) {
	sums := make([][]float64, len(d))
	for m := range d {
		sums[m] = make([]float64, g)
		for i, v := range d[m] {
			sums[m][cluster[i]] += v
		}
	}
	size := make([]float64, g)
	for _, k := range cluster {
		size[k]++
	}
	return sums, size
}

// resample draws the replicates of every metric's ratio mean.
func resample(sums [][]float64, size []float64, opt Bootstrap) [][]float64 {
	g, nrep := len(size), opt.reps()
	r := opt.rng()
	reps := make([][]float64, len(sums))
	for m := range reps {
		reps[m] = make([]float64, 0, nrep)
	}
	acc := make([]float64, len(sums))
	for range nrep {
		clear(acc)
		n := 0.0
		for range g {
			k := r.IntN(g)
			n += size[k]
			for m := range sums {
				acc[m] += sums[m][k]
			}
		}
		if n == 0 {
			continue
		}
		for m := range reps {
			reps[m] = append(reps[m], acc[m]/n)
		}
	}
	return reps
}
