package stats

import "math"

// ClusterMean is a mean over N observations in G clusters with its
// cluster-robust standard error.
type ClusterMean struct {
	N, Clusters int
	Mean        float64
	SE          float64 // CR1 cluster-robust standard error; NaN when Clusters < 2
}

// CI is Mean ± t·SE with t = TFor(level, G − 1), clamped to [lo, hi] when
// lo < hi (pass lo = hi = 0 for no clamp). Undefined when SE is.
func (c ClusterMean) CI(lvl, lo, hi float64) Interval {
	if math.IsNaN(c.SE) {
		return nanInterval()
	}
	t := TFor(lvl, float64(c.Clusters-1))
	iv := Interval{c.Mean - t*c.SE, c.Mean + t*c.SE}
	if lo < hi {
		iv.Lo, iv.Hi = math.Max(lo, iv.Lo), math.Min(hi, iv.Hi)
	}
	return iv
}

// ClusteredMean is the mean of y and its question-clustered standard error,
// cluster[i] naming the cluster (question id) of y[i]. It is the CR1
// cluster-robust ("sandwich") variance of an intercept-only regression
// (Liang & Zeger 1986, Biometrika 73; Cameron & Miller 2015, J. Human
// Resources 50(2)), with the small-sample factor c = G/(G − 1):
//
//	ȳ      = Σᵢ yᵢ / N
//	e_g    = Σ_{i∈g} (yᵢ − ȳ)                 (residual sum of cluster g)
//	Var(ȳ) = G/(G − 1) · Σ_g e_g² / N²
//	SE     = √Var(ȳ)
//
// Stata's CR1 also multiplies by (N − 1)/(N − K); with K = 1 that factor is
// 1 here. With one observation per cluster the formula reduces to the usual
// s/√N (s with the N − 1 denominator). This is the clustered standard error
// of Miller (2024, "Adding Error Bars to Evals") up to the factor
// G/(G − 1). SE is NaN with fewer than 2 clusters; Mean is NaN with no
// observations. It panics when the slices differ in length.
func ClusteredMean[K comparable](y []float64, cluster []K) ClusterMean {
	if len(y) != len(cluster) {
		panic("stats: ClusteredMean: y and cluster differ in length")
	}
	idx, g := denseIndex(cluster)
	mean, se := clusteredSE(y, idx, g)
	return ClusterMean{N: len(y), Clusters: g, Mean: mean, SE: se}
}

// denseIndex numbers the distinct keys 0, 1, … in order of first appearance.
func denseIndex[K comparable](keys []K) ([]int, int) {
	ids := make(map[K]int, len(keys)/2+1)
	out := make([]int, len(keys))
	for i, k := range keys {
		id, ok := ids[k]
		if !ok {
			id = len(ids)
			ids[k] = id
		}
		out[i] = id
	}
	return out, len(ids)
}

// clusteredSE is ClusteredMean over dense cluster indices in [0, g).
func clusteredSE(y []float64, idx []int, g int) (mean, se float64) {
	n := len(y)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	for _, v := range y {
		mean += v
	}
	mean /= float64(n)
	if g < 2 {
		return mean, math.NaN()
	}
	e := make([]float64, g)
	for i, v := range y {
		e[idx[i]] += v - mean
	}
	ss := 0.0
	for _, v := range e {
		ss += v * v
	}
	gf, nf := float64(g), float64(n)
	return mean, math.Sqrt(gf / (gf - 1) * ss / (nf * nf))
}
