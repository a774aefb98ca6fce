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
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	den := 1 + z2/nf
	centre := (p + z2/(2*nf)) / den
	half := z / den * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	iv := Interval{clamp01(centre - half), clamp01(centre + half)}
	if k == 0 {
		iv.Lo = 0
	}
	if k == n {
		iv.Hi = 1
	}
	return iv
}
