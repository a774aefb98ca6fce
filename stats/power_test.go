package stats

import (
	"math"
	"testing"
)

// Connor (1987), Biometrics 43:207–211, p. 209: n = (z_{1−α/2}√ψ +
// z_{1−β}√(ψ − δ²))²/δ². Worked example as published with that reference
// by powerandsamplesize.com ("Compare Paired Proportions: McNemar's Z-test,
// 2-Sided Equality"): p₀₁ = 0.45, p₁₀ = 0.05, α = 0.05, β = 0.20 →
// ceiling(n) = 23. By hand: 1.959964·√0.5 = 1.385904, 0.841621·√0.34 =
// 0.490745, (1.876649)² / 0.16 = 22.0113.
// Second case by hand: ψ = 0.3, δ = 0.1: 1.959964·0.547723 = 1.073514,
// 0.841621·√0.29 = 0.453217; (1.526731)²/0.01 = 233.09 → 234.
func TestPairsNeeded(t *testing.T) {
	for _, c := range []struct {
		delta, psi, alpha, power float64
		n                        int
		ok                       bool
	}{
		{-0.4, 0.5, 0.05, 0.8, 23, true},
		{0.4, 0.5, 0.05, 0.8, 23, true},
		{0.1, 0.3, 0.05, 0.8, 234, true},
		{0, 0.3, 0.05, 0.8, 0, false},
		{0.4, 0.3, 0.05, 0.8, 0, false}, // |δ| > ψ: impossible
		{0.1, 0, 0.05, 0.8, 0, false},
		{1e-10, 0.2, 0.05, 0.8, 0, false}, // ~1.6e20 pairs: past MaxPairs (it was int's overflow, a negative n)
		{1e-7, 0.2, 0.05, 0.8, 0, false},  // ~1.6e14 pairs: past MaxPairs
	} {
		n, ok := PairsNeeded(c.delta, c.psi, c.alpha, c.power)
		if n != c.n || ok != c.ok {
			t.Errorf("PairsNeeded(%v, %v) = %d, %v; want %d, %v", c.delta, c.psi, n, ok, c.n, c.ok)
		}
	}
}

// MinDetectableDiff inverts Connor's formula: at the example's exact n it
// returns δ, and its δ needs exactly n pairs again.
func TestMinDetectableDiff(t *testing.T) {
	za, zb := 1.959963984540054, 0.8416212335729143
	exactN := func(d, psi float64) float64 {
		s := za*math.Sqrt(psi) + zb*math.Sqrt(psi-d*d)
		return s * s / (d * d)
	}
	for _, c := range []struct{ d, psi float64 }{{0.4, 0.5}, {0.1, 0.3}, {0.02, 0.15}, {0.05, 0.08}} {
		n := exactN(c.d, c.psi)
		if got := MinDetectableDiff(n, c.psi, 0.05, 0.8); !near(got, c.d, 1e-9) {
			t.Errorf("MinDetectableDiff(%v, %v) = %v, want %v", n, c.psi, got, c.d)
		}
	}
	if n := exactN(0.4, 0.5); !near(n, 22.0113, 1e-3) {
		t.Errorf("Connor example n = %v", n)
	}
	// More pairs, smaller detectable difference; at n = 1273 and ψ = 0.2
	// about 0.035.
	if a, b := MinDetectableDiff(500, 0.2, 0.05, 0.8), MinDetectableDiff(1273, 0.2, 0.05, 0.8); !(b < a) || !near(b, 0.0351, 5e-4) {
		t.Errorf("MDD(500) = %v, MDD(1273) = %v", a, b)
	}
	for _, c := range [][2]float64{{100, 0}, {3, 0.5}, {5, 0.01}} {
		if got := MinDetectableDiff(c[0], c[1], 0.05, 0.8); !math.IsNaN(got) {
			t.Errorf("MinDetectableDiff(%v, %v) = %v, want NaN", c[0], c[1], got)
		}
	}
}
