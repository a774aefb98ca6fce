package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// exactLimit bounds the work of the exact clustered McNemar test: beyond
// Σ|d_g| = exactLimit discordance units it uses Durkalski's χ².
const exactLimit = 200000

// McNemarClustered is McNemar's test of paired 0/1 outcomes in clusters
// (repeats of one question): ref[i] and cand[i] are the two arms' results
// on pair i, cluster[i] its question. Per cluster g let
//
//	d_g = c_g − b_g
//
// (c_g: pairs of g where only the candidate is right; b_g: only the
// reference). Under H₀ (within a cluster, "reference right, candidate
// wrong" and the reverse are exchangeable) each d_g is as likely to be
// −d_g, independently across clusters. The test statistic is Durkalski,
// Palesch, Lipsitz & Rust's (2003, "Analysis of clustered matched-pair
// data", Statistics in Medicine 22:2417–2428, eq. 3; the statistic of
// Obuchowski 1998, Statistics in Medicine 17:1495–1507, under H₀):
//
//	X² = (Σ_g d_g)² / Σ_g d_g²
//
// and the p-value is that of the exact sign-flip (randomisation)
// distribution of T = Σ_g ε_g d_g with ε_g = ±1 fair and independent:
//
//	p = P(|T| ≥ |Σ_g d_g|)
//
// computed exactly by convolution over the clusters. When no cluster holds
// more than one discordant pair (always with one repeat) every |d_g| ≤ 1,
// T is 2X − (b + c) with X ~ Binomial(b + c, ½), and p is the exact
// McNemar p (McNemarExact(b, c), which is returned then). Beyond 200,000
// discordance units p is Durkalski's asymptotic χ²₁ p. p = 1 without a
// discordant pair. It panics when the slices differ in length.
func McNemarClustered(ref, cand []bool, cluster []int) float64 {
	if len(ref) != len(cand) || len(ref) != len(cluster) {
		panic("stats: McNemarClustered: slices differ in length")
	}
	idx, g := denseIndex(cluster)
	d := make([]int, g)
	b, c := 0, 0
	for i := range ref {
		switch {
		case ref[i] && !cand[i]:
			d[idx[i]]--
			b++
		case !ref[i] && cand[i]:
			d[idx[i]]++
			c++
		}
	}
	return signFlipP(d, b, c)
}

// signFlipP is McNemarClustered's p from the cluster differences d and the
// discordant counts b, c.
func signFlipP(d []int, b, c int) float64 {
	total, abs, big := 0, 0, false
	for _, v := range d {
		total += v
		abs += iabs(v)
		big = big || iabs(v) > 1
	}
	if !big {
		return McNemarExact(b, c)
	}
	if abs > exactLimit {
		return DurkalskiP(d)
	}
	// dist[s + abs] = P(T = s), convolved one cluster at a time.
	dist := make([]float64, 2*abs+1)
	next := make([]float64, len(dist))
	dist[abs] = 1
	reach := 0
	for _, v := range d {
		v = iabs(v)
		if v == 0 {
			continue
		}
		clear(next[abs-reach-v : abs+reach+v+1])
		for s := abs - reach; s <= abs+reach; s++ {
			if dist[s] == 0 {
				continue
			}
			next[s-v] += dist[s] / 2
			next[s+v] += dist[s] / 2
		}
		reach += v
		dist, next = next, dist
	}
	t := iabs(total)
	p := 0.0
	for s := -reach; s <= reach; s++ {
		if iabs(s) >= t {
			p += dist[s+abs]
		}
	}
	return math.Min(1, p)
}

// DurkalskiP is the asymptotic p-value of Durkalski et al.'s (2003)
// clustered McNemar statistic X² = (Σ d_g)² / Σ d_g² against χ²₁, d_g =
// c_g − b_g the discordance of cluster g (see McNemarClustered); 1 when no
// cluster is discordant on balance (Σ d_g² = 0).
func DurkalskiP(d []int) float64 {
	num, den := 0.0, 0.0
	for _, v := range d {
		num += float64(v)
		den += float64(v) * float64(v)
	}
	if den == 0 {
		return 1
	}
	return distuv.ChiSquared{K: 1}.Survival(num * num / den)
}

func iabs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
