package stats

import "math"

// NewcombePaired is the square-and-add ("hybrid score") interval for the
// difference θ = p₁ − p₂ of two paired proportions, method 10 of Newcombe
// (1998, "Improved confidence intervals for the difference between binomial
// proportions based on paired data", Statistics in Medicine 17:2635–2650),
// as given by Fagerland, Lydersen & Laake (2017, Statistical Analysis of
// Contingency Tables, §8.5.4). The paired 2×2 table has a (both
// successes), b (first only), c (second only), d (neither), N = a+b+c+d;
// p₁ = (a+b)/N, p₂ = (a+c)/N, and [l₁, u₁], [l₂, u₂] are their Wilson
// intervals on the sample sizes n1, n2 (N, or a clustered effective sample
// size N/deff: see pairedNoDiscordant). With
//
//	φ = C / √((a+b)(c+d)(a+c)(b+d)),  C = ad − bc − N/2 if ad − bc > N/2,
//	                                      ad − bc       if ad − bc < 0,
//	                                      0             otherwise
//	                                  (φ = 0 when a margin is empty)
//	L = θ − √((p₁ − l₁)² − 2φ(p₁ − l₁)(u₂ − p₂) + (u₂ − p₂)²)
//	U = θ + √((u₁ − p₁)² − 2φ(u₁ − p₁)(p₂ − l₂) + (p₂ − l₂)²)
//
// Unlike the Wald interval its width stays positive with no discordant pair
// (b = c = 0): the continuity-reduced φ is below 1. NaN when N = 0 or n1, n2
// are not positive.
func NewcombePaired(a, b, c, d int, n1, n2, z float64) Interval {
	n := a + b + c + d
	if n <= 0 || !(n1 > 0) || !(n2 > 0) {
		return nanInterval()
	}
	nf := float64(n)
	p1, p2 := float64(a+b)/nf, float64(a+c)/nf
	w1, w2 := wilsonP(p1, n1, z), wilsonP(p2, n2, z)
	phi := pairedPhi(a, b, c, d)
	theta := p1 - p2
	lo := theta - math.Sqrt(math.Max(0, sq(p1-w1.Lo)-2*phi*(p1-w1.Lo)*(w2.Hi-p2)+sq(w2.Hi-p2)))
	hi := theta + math.Sqrt(math.Max(0, sq(w1.Hi-p1)-2*phi*(w1.Hi-p1)*(p2-w2.Lo)+sq(p2-w2.Lo)))
	return Interval{math.Max(-1, lo), math.Min(1, hi)}
}

// pairedPhi is NewcombePaired's continuity-reduced φ.
func pairedPhi(a, b, c, d int) float64 {
	den := float64(a+b) * float64(c+d) * float64(a+c) * float64(b+d)
	if den == 0 {
		return 0
	}
	num := float64(a)*float64(d) - float64(b)*float64(c)
	half := float64(a+b+c+d) / 2
	switch {
	case num > half:
		num -= half
	case num >= 0:
		num = 0
	}
	return num / math.Sqrt(den)
}

func sq(x float64) float64 { return x * x }

// pairedNoDiscordant replaces the bootstrap and Wald intervals of a paired
// comparison without a discordant pair (b = c = 0), which are [0, 0] — every
// paired difference is 0 — by NewcombePaired of the candidate's and the
// reference's proportions on their question-clustered effective sample
// sizes (ClusteredWilson: Wilson on N/deff, the way this package widens an
// interval for repeats of a question). ref and cand are the two arms'
// outcomes (identical without a discordant pair, so ref alone is read), idx
// their dense question indices in [0, g). Comparisons with a discordant pair
// are returned unchanged.
func pairedNoDiscordant(pb PairedBinary, ref []bool, idx []int, g int, lvl float64) PairedBinary {
	if pb.B+pb.C != 0 || pb.N == 0 {
		return pb
	}
	f := make([]float64, len(ref))
	for i, v := range ref {
		f[i] = b2f(v)
	}
	pr := clusteredProportion(f, idx, g, lvl)
	both := pr.K // no discordant pair: the arms agree on every row
	iv := NewcombePaired(both, 0, 0, pb.N-both, pr.EffectiveN, pr.EffectiveN, ZFor(lvl))
	pb.Delta.Boot, pb.Delta.Wald = iv, iv
	pb.NoDiscordant = true
	return pb
}
