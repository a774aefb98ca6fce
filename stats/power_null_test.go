package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// connorPower is the two-sided McNemar power of Connor (1987) at n pairs,
// difference d and discordance psi — the equation PairsNeeded and
// MinDetectableDiff solve — computed here directly.
func connorPower(n, d, psi, alpha float64) float64 {
	za := distuv.UnitNormal.Quantile(1 - alpha/2)
	return distuv.UnitNormal.CDF((d*math.Sqrt(n) - za*math.Sqrt(psi)) / math.Sqrt(psi-d*d))
}

func TestNullDiscordance(t *testing.T) {
	for _, tc := range []struct {
		b, c, n int
		want    float64
	}{
		{5, 5, 100, 0.10}, // no difference: the observed discordance
		{1, 20, 50, 0.04}, // a candidate 38 points better: 2 of 50, not 21 of 50
		{20, 1, 50, 0.04}, // symmetric
		{0, 0, 40, 0},     // no discordant pair
		{0, 0, 0, math.NaN()},
	} {
		got := PairedBinary{N: tc.n, B: tc.b, C: tc.c}.NullDiscordance()
		if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("B %d C %d N %d: %v, want %v", tc.b, tc.c, tc.n, got, tc.want)
		}
	}
}

func TestPairsNeededNull(t *testing.T) {
	// Within the null discordance it is PairsNeeded: Connor's worked
	// example, ψ = 0.5, δ = 0.4 → 23 pairs.
	if n, ok := PairsNeededNull(0.4, 0.5, 0.05, 0.8); !ok || n != 23 {
		t.Errorf("δ 0.4, ψ0 0.5: %d %v, want 23", n, ok)
	}
	// Past it, ψ = δ: δ = 0.1 with ψ0 = 0.02 plans at ψ = 0.1:
	// (1.959964·√0.1 + 0.841621·√(0.1 − 0.01))² / 0.01 = 76.1 → 77.
	if n, ok := PairsNeededNull(0.1, 0.02, 0.05, 0.8); !ok || n != 77 {
		t.Errorf("δ 0.1, ψ0 0.02: %d %v, want 77", n, ok)
	}
	if _, ok := PairsNeededNull(0.1, math.NaN(), 0.05, 0.8); ok {
		t.Error("NaN null discordance planned a size")
	}
}

func TestMinDetectableDiffNull(t *testing.T) {
	for _, tc := range []struct{ n, psi0 float64 }{
		{100, 0.15}, {100, 0.02}, {100, 0}, {400, 0.05}, {30, 0.3}, {10, 0},
	} {
		d := MinDetectableDiffNull(tc.n, tc.psi0, DefaultAlpha, DefaultPower)
		if math.IsNaN(d) {
			t.Errorf("n %v ψ0 %v: NaN", tc.n, tc.psi0)
			continue
		}
		// Round trip: at the returned δ the power is 80% with ψ = max(ψ0, δ).
		if p := connorPower(tc.n, d, math.Max(tc.psi0, d), DefaultAlpha); math.Abs(p-DefaultPower) > 1e-6 {
			t.Errorf("n %v ψ0 %v: δ %.4f has power %.6f, want 0.8", tc.n, tc.psi0, d, p)
		}
	}
	// Where the root lies within ψ0 it is MinDetectableDiff's.
	if a, b := MinDetectableDiffNull(22.01, 0.5, 0.05, 0.8), MinDetectableDiff(22.01, 0.5, 0.05, 0.8); a != b {
		t.Errorf("%v != %v", a, b)
	}
	if d := MinDetectableDiffNull(3, 0.1, 0.05, 0.8); !math.IsNaN(d) {
		t.Errorf("3 pairs detect %v; want NaN (n < z²)", d)
	}
}
