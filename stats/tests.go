package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// McNemarExact is the exact two-sided McNemar test on the discordant pairs
// b (reference right, candidate wrong) and c (reference wrong, candidate
// right): under H₀ each discordant pair goes either way with probability ½,
// so with X ~ Binomial(b + c, ½)
//
//	p = min(1, 2 · P(X ≤ min(b, c)))
//
// the value of R's mcnemar.exact (package exact2x2) and of
// binom.test(b, b + c, 0.5)$p.value (McNemar 1947, Psychometrika 12;
// Agresti 2013, Categorical Data Analysis, 3rd ed., §11.1). The binomial CDF is gonum's
// distuv.Binomial. p = 1 when there are no discordant pairs; NaN for a
// negative count.
func McNemarExact(b, c int) float64 {
	if b < 0 || c < 0 {
		return math.NaN()
	}
	if b+c == 0 {
		return 1
	}
	x := distuv.Binomial{N: float64(b + c), P: 0.5}
	return math.Min(1, 2*x.CDF(float64(min(b, c))))
}

// Holm is the Holm (1979, Scand. J. Statist. 6:65–70) step-down adjustment
// of a family of m p-values, returned in the input order: with the p-values
// sorted p₍₁₎ ≤ … ≤ p₍ₘ₎,
//
//	p̃₍ᵢ₎ = max_{j ≤ i} min(1, (m − j + 1) · p₍ⱼ₎)
//
// (R's p.adjust(method = "holm")). NaN entries are not members of the family:
// they do not count in m and stay NaN. A family fixed by the design, whose
// untestable members still count, is HolmFamily's.
func Holm(p []float64) []float64 {
	n := 0
	for _, v := range p {
		if !math.IsNaN(v) {
			n++
		}
	}
	return HolmFamily(p, n)
}

// HolmFamily is Holm's adjustment in a family of m ≥ (non-NaN p-values)
// hypotheses fixed by the design: a member that could not be tested (NaN:
// no pair, one question) still counts in m, as a p-value of 1 would
// (R's p.adjust(p, "holm", n = m)), and stays NaN. A smaller m is raised to
// the number of p-values given.
func HolmFamily(p []float64, m int) []float64 {
	out := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	m = max(m, len(idx))
	slices.SortStableFunc(idx, func(a, b int) int { return cmpFloat(p[a], p[b]) })
	run := 0.0
	for j, i := range idx {
		run = math.Max(run, math.Min(1, float64(m-j)*p[i]))
		out[i] = run
	}
	return out
}

// HolmGrouped is Holm over a family fixed by the design in which some
// members are the same hypothesis tested twice (arms whose configurations
// are equivalent, so that they send the same requests: SameConfigGroups):
// members with equal group ids count once, with the smallest p-value of
// the group, and every member gets its group's adjusted p-value. Every
// group counts in the family, a group whose members are all NaN (not
// testable) included (HolmFamily); NaN members stay NaN. group[i] is any
// integer naming the group of p[i]. It panics when the slices differ in
// length.
func HolmGrouped(p []float64, group []int) []float64 {
	if len(p) != len(group) {
		panic("stats: HolmGrouped: p and group differ in length")
	}
	gi, g := denseIndex(group)
	rep := make([]float64, g)
	for i := range rep {
		rep[i] = math.NaN()
	}
	for i, v := range p {
		if !math.IsNaN(v) && (math.IsNaN(rep[gi[i]]) || v < rep[gi[i]]) {
			rep[gi[i]] = v
		}
	}
	adj := HolmFamily(rep, g)
	out := make([]float64, len(p))
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			out[i] = adj[gi[i]]
		}
	}
	return out
}

// cmpFloat orders floats ascending.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
