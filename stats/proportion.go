package stats

import "math"

// Wilson is the Wilson score interval for k successes in n trials at a
// two-sided confidence level (0 = 0.95): WilsonZ(k, n, ZFor(level)).
func Wilson(k, n int, lvl float64) Interval { return WilsonZ(k, n, ZFor(lvl)) }

// WilsonZ is the Wilson (1927) score interval with critical value z, the
// interval R's prop.test(correct = FALSE) and binom::binom.wilson report and
// method 3 of Newcombe (1998, Statistics in Medicine 17:857–872):
//
//	p̂ = k/n
//	centre = (p̂ + z²/(2n)) / (1 + z²/n)
//	half   = z/(1 + z²/n) · √(p̂(1 − p̂)/n + z²/(4n²))
//	[centre − half, centre + half]
//
// The bounds are exactly 0 when k = 0 and 1 when k = n; undefined (NaN) when
// n ≤ 0 or k is outside [0, n].
func WilsonZ(k, n int, z float64) Interval {
	if n <= 0 || k < 0 || k > n {
		return nanInterval()
	}
	return wilsonP(float64(k)/float64(n), float64(n), z)
}

// wilsonP is the Wilson interval of a proportion p over a (possibly
// effective, non-integer) sample size n > 0; the bounds are exactly 0 at
// p = 0 and 1 at p = 1.
func wilsonP(p, nf, z float64) Interval {
	z2 := z * z
	den := 1 + z2/nf
	centre := (p + z2/(2*nf)) / den
	half := z / den * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	iv := Interval{clamp01(centre - half), clamp01(centre + half)}
	if p == 0 {
		iv.Lo = 0
	}
	if p == 1 {
		iv.Hi = 1
	}
	return iv
}

// Proportion is a share of 0/1 outcomes clustered by question, with its
// design-effect-corrected Wilson interval (ClusteredWilson).
type Proportion struct {
	K, N, Clusters int
	Value          float64 // K/N; NaN when N = 0
	// DesignEffect is the variance of Value under question clustering
	// over its variance had the N rows been independent (1 with one row
	// per question); EffectiveN = N / DesignEffect.
	DesignEffect, EffectiveN float64
	CI                       Interval
	// SE is the CR1 question-clustered standard error of Value
	// (ClusteredMean); NaN with fewer than 2 questions.
	SE float64
	// DeffBound is true when DesignEffect is the conservative bound N/G
	// (the mean number of rows per question) because the data cannot
	// estimate it — fewer than MinDeffClusters questions, or every row
	// alike — and N > G (with one row per question the bound is 1, exact).
	DeffBound bool
}

// MinDeffClusters is the fewest questions from which ClusteredWilson
// estimates a design effect. Its CR1 variance rests on G − 1 degrees of
// freedom: the relative standard error of a variance estimate is about
// √(2/(G − 1)), 100% at 3 questions, 47% at 10 — and CR1 is biased down
// with few clusters (Cameron & Miller 2015, J. Human Resources 50:317–372,
// §VI) — so below 10 questions an estimate of 1.00 (as 2 questions gave)
// is noise, and deff is the bound N/G instead.
const MinDeffClusters = 10

// ClusteredWilson is the Wilson interval of the share of true outcomes
// y[i] with the sample size replaced by the effective sample size of a
// question-clustered sample: the "modified Wilson" interval of the survey
// literature (Kish 1965, Survey Sampling, §8.2, for the design effect;
// Korn & Graubard 1998, Survey Methodology 24:193–201, and Franco, Little,
// Louis & Slud 2019, J. Survey Statistics and Methodology 7:334–364, for
// Wilson and Clopper–Pearson intervals on n/deff). cluster[i] names the
// question of y[i]. With N rows in G questions and p̂ = K/N:
//
//	V_CR1 = G/(G − 1) · Σ_g e_g² / N²      e_g = Σ_{i∈g} (yᵢ − p̂)  (ClusteredMean)
//	V_iid = p̂(1 − p̂)/(N − 1)              (s²/N of the N rows taken as independent)
//	deff  = V_CR1 / V_iid, limited to [1, N/G]
//	CI    = Wilson(p̂, n = N/deff)
//
// With one row per question V_CR1 = V_iid term by term, N/G = 1 and the
// interval is Wilson(K, N) exactly. deff is never below 1 (an interval is
// not narrowed below the independent-rows one by a chance negative
// within-question correlation; Korn & Graubard truncate n_eff at n) nor
// above N/G (every question's rows identical: the effective sample is the
// G questions). When the data cannot estimate it — fewer than 2 questions,
// or every row alike (p̂ = 0 or 1) — deff is N/G, the most conservative
// value, so that one question with one row keeps its Wilson interval; so
// it is below MinDeffClusters questions, too few to estimate a variance
// ratio (DeffBound says so).
// Undefined (NaN) when there is no row. It panics when the slices differ
// in length.
func ClusteredWilson[K comparable](y []bool, cluster []K, lvl float64) Proportion {
	if len(y) != len(cluster) {
		panic("stats: ClusteredWilson: y and cluster differ in length")
	}
	idx, g := denseIndex(cluster)
	f := make([]float64, len(y))
	for i, v := range y {
		f[i] = b2f(v)
	}
	return clusteredProportion(f, idx, g, lvl)
}

// clusteredProportion is ClusteredWilson over 0/1 values and dense
// cluster indices in [0, g).
func clusteredProportion(y []float64, idx []int, g int, lvl float64) Proportion {
	n := len(y)
	pr := Proportion{N: n, Clusters: g, Value: math.NaN(), DesignEffect: math.NaN(), EffectiveN: math.NaN(), CI: nanInterval(), SE: math.NaN()}
	if n == 0 {
		return pr
	}
	for _, v := range y {
		if v != 0 {
			pr.K++
		}
	}
	p := float64(pr.K) / float64(n)
	_, pr.SE = clusteredSE(y, idx, g)
	pr.Value = p
	pr.DesignEffect = designEffect(p, pr.SE, n, g)
	pr.DeffBound = n > g && deffUnestimable(p, pr.SE, n, g)
	pr.EffectiveN = float64(n) / pr.DesignEffect
	pr.CI = wilsonP(p, pr.EffectiveN, ZFor(lvl))
	return pr
}

// designEffect is ClusteredWilson's deff of a proportion p over n rows in
// g clusters with CR1 standard error se.
func designEffect(p, se float64, n, g int) float64 {
	worst := float64(n) / float64(max(g, 1))
	if deffUnestimable(p, se, n, g) {
		return worst
	}
	return estimatedDeff(p, se, n, g)
}

// estimatedDeff is the variance ratio V_CR1 / V_iid limited to [1, N/G]
// (designEffect's estimate when the data can give one).
func estimatedDeff(p, se float64, n, g int) float64 {
	worst := float64(n) / float64(max(g, 1))
	iid := p * (1 - p) / float64(n-1)
	return math.Min(worst, math.Max(1, se*se/iid))
}

// deffUnestimable is true when designEffect takes its bound N/G: fewer than
// MinDeffClusters questions, under 2 rows, every row alike, or no SE.
func deffUnestimable(p, se float64, n, g int) bool {
	return g < MinDeffClusters || n < 2 || p == 0 || p == 1 || math.IsNaN(se)
}
