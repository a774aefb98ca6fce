package stats

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Wilson score intervals. Published values: Newcombe (1998), "Two-sided
// confidence intervals for the single proportion: comparison of seven
// methods", Statistics in Medicine 17:857–872, Table I, method 3 (score
// method without continuity correction), given to 4 decimals with z = 1.96.
// The same numbers are R's prop.test(x, n, correct = FALSE)$conf.int.
func TestWilsonNewcombeTableI(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0, 0.1611},
		{1, 29, 0.0061, 0.1718},
	} {
		for _, iv := range []Interval{WilsonZ(c.k, c.n, 1.96), Wilson(c.k, c.n, 0.95), Wilson(c.k, c.n, 0)} {
			if !near(iv.Lo, c.lo, 5e-5) || !near(iv.Hi, c.hi, 5e-5) {
				t.Errorf("Wilson(%d/%d) = [%.5f, %.5f], want [%.4f, %.4f]", c.k, c.n, iv.Lo, iv.Hi, c.lo, c.hi)
			}
		}
	}
}

func TestWilsonEdges(t *testing.T) {
	if iv := Wilson(29, 29, 0); iv.Hi != 1 || !near(iv.Lo, 0.8830, 5e-5) {
		// 29/29 mirrors 0/29: lower bound 1 − 29·0/… = 29/(29+z²) = 0.88303.
		t.Errorf("Wilson(29/29) = %v", iv)
	}
	for _, c := range [][2]int{{0, 0}, {-1, 5}, {6, 5}} {
		if iv := Wilson(c[0], c[1], 0); iv.Defined() {
			t.Errorf("Wilson(%d/%d) = %v, want undefined", c[0], c[1], iv)
		}
	}
	// A wider level gives a wider interval (99%: z = 2.5758).
	if Wilson(50, 100, 0.99).Width() <= Wilson(50, 100, 0.95).Width() {
		t.Error("99% interval not wider than 95%")
	}
	// 50/100 at z: centre 0.5, half = z/(1+z²/100)·√(0.0025 + z²/40000).
	z := ZFor(0.95)
	half := z / (1 + z*z/100) * math.Sqrt(0.0025+z*z/40000)
	if iv := Wilson(50, 100, 0); !near(iv.Lo, 0.5-half, 1e-12) || !near(iv.Hi, 0.5+half, 1e-12) {
		t.Errorf("Wilson(50/100) = %v, want 0.5 ± %v", iv, half)
	}
}

// Exact McNemar p = min(1, 2·P(X ≤ min(b, c))), X ~ Bin(b + c, ½): the
// values of R's binom.test(b, b + c)$p.value and exact2x2::mcnemar.exact,
// checked by hand:
//   - b=3, c=12: P(X ≤ 3) = (1+15+105+455)/2¹⁵ = 576/32768; p = 0.03515625.
//   - b=10, c=10: 2·P(X ≤ 10 | n=20) > 1 → 1.
//   - b=0, c=5: 2·(1/32) = 0.0625.
//   - b=5, c=15: (1+20+190+1140+4845+15504)/2²⁰ = 21700/1048576; p = 0.041389.
//   - b=12, c=2: (1+14+91)/2¹⁴ = 106/16384; p = 0.012939 — the exact P = 0.0129
//     StatsDirect reports for Armitage & Berry (1994, p. 127)'s two media.
func TestMcNemarExact(t *testing.T) {
	for _, c := range []struct {
		b, c int
		p    float64
	}{
		{3, 12, 576.0 / 32768 * 2},
		{12, 3, 576.0 / 32768 * 2},
		{10, 10, 1},
		{0, 5, 0.0625},
		{5, 15, 2 * 21700.0 / 1048576},
		{12, 2, 2 * 106.0 / 16384},
		{0, 0, 1},
		{1, 0, 1},
		{0, 1, 1},
	} {
		if got := McNemarExact(c.b, c.c); !near(got, c.p, 1e-12) {
			t.Errorf("McNemarExact(%d, %d) = %.10f, want %.10f", c.b, c.c, got, c.p)
		}
	}
	if !math.IsNaN(McNemarExact(-1, 3)) {
		t.Error("negative count should give NaN")
	}
	// A large case against the normal approximation's ballpark: b=400,
	// c=500 has z = 100/√900 = 3.33, two-sided p ≈ 0.00086 (exact ≈ 0.00095).
	if p := McNemarExact(400, 500); p < 0.0005 || p > 0.0015 {
		t.Errorf("McNemarExact(400, 500) = %v", p)
	}
}

// Holm on a hand-checked family: sorted 0.005·4 = 0.02, 0.01·3 = 0.03,
// 0.03·2 = 0.06, 0.04·1 = 0.04 → max(0.06, 0.04) = 0.06 (R: p.adjust(p, "holm")).
func TestHolm(t *testing.T) {
	for _, c := range []struct {
		p, want []float64
	}{
		{[]float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		{[]float64{0.5, 0.6}, []float64{1, 1}},
		{[]float64{0.02}, []float64{0.02}},
		{nil, []float64{}},
		{[]float64{0.01, math.NaN(), 0.02}, []float64{0.02, math.NaN(), 0.02}},
	} {
		got := Holm(c.p)
		if len(got) != len(c.want) {
			t.Fatalf("Holm(%v) = %v", c.p, got)
		}
		for i := range got {
			if !(near(got[i], c.want[i], 1e-12) || math.IsNaN(got[i]) && math.IsNaN(c.want[i])) {
				t.Errorf("Holm(%v) = %v, want %v", c.p, got, c.want)
				break
			}
		}
	}
}

// Identical arms count once: {0.01, 0.04, 0.03(same as 0.04's arm), 0.005}
// is the family {0.01, 0.03, 0.005} of m = 3: 0.005·3 = 0.015, 0.01·2 = 0.02,
// 0.03·1 → 0.03; the group {1, 2} takes its smallest p.
func TestHolmGrouped(t *testing.T) {
	got := HolmGrouped([]float64{0.01, 0.04, 0.03, 0.005}, []int{0, 1, 1, 3})
	want := []float64{0.02, 0.03, 0.03, 0.015}
	for i := range want {
		if !near(got[i], want[i], 1e-12) {
			t.Fatalf("HolmGrouped = %v, want %v", got, want)
		}
	}
	// Without groups it is Holm.
	p := []float64{0.01, 0.04, 0.03, 0.005}
	g, h := HolmGrouped(p, []int{0, 1, 2, 3}), Holm(p)
	for i := range p {
		if g[i] != h[i] {
			t.Fatalf("HolmGrouped with singleton groups = %v, Holm = %v", g, h)
		}
	}
}

// Clustered SE, by hand: y = (1,0 | 1,1 | 0,0,1) in clusters a, b, c.
// ȳ = 4/7; residual sums e_a = 1 − 8/7 = −1/7, e_b = 2 − 8/7 = 6/7,
// e_c = 1 − 12/7 = −5/7; Σe² = 62/49; Var = (3/2)·(62/49)/49 = 93/2401;
// SE = √93/49 = 0.196809.
func TestClusteredMeanHand(t *testing.T) {
	y := []float64{1, 0, 1, 1, 0, 0, 1}
	cl := []string{"a", "a", "b", "b", "c", "c", "c"}
	got := ClusteredMean(y, cl)
	if got.N != 7 || got.Clusters != 3 || !near(got.Mean, 4.0/7, 1e-15) || !near(got.SE, math.Sqrt(93)/49, 1e-15) {
		t.Errorf("ClusteredMean = %+v, want mean 4/7, SE %v", got, math.Sqrt(93)/49)
	}
	// CI = mean ± t_{2}·SE, t_{0.975, 2} = 4.302653.
	if iv := got.CI(0, 0, 0); !near(iv.Hi-got.Mean, 4.302653*got.SE, 1e-6) {
		t.Errorf("CI = %v", iv)
	}
	// Clamped to [0, 1].
	if iv := got.CI(0, 0, 1); iv.Lo != 0 || iv.Hi != 1 {
		t.Errorf("clamped CI = %v", iv)
	}
}

// One observation per cluster: CR1 is s/√N with s² = Σ(y − ȳ)²/(N − 1).
// y = 2, 4, 4, 4, 5, 5, 7, 9: ȳ = 5, Σ(y − ȳ)² = 32, s² = 32/7, SE = √(32/56).
func TestClusteredMeanSingletons(t *testing.T) {
	y := []float64{2, 4, 4, 4, 5, 5, 7, 9}
	got := ClusteredMean(y, []int{0, 1, 2, 3, 4, 5, 6, 7})
	if !near(got.Mean, 5, 1e-15) || !near(got.SE, math.Sqrt(32.0/56), 1e-15) {
		t.Errorf("ClusteredMean = %+v, want SE %v", got, math.Sqrt(32.0/56))
	}
	if one := ClusteredMean([]float64{1, 2}, []int{7, 7}); !math.IsNaN(one.SE) || one.Mean != 1.5 || one.CI(0, 0, 0).Defined() {
		t.Errorf("one cluster = %+v, want NaN SE", one)
	}
	if none := ClusteredMean([]float64{}, []int{}); !math.IsNaN(none.Mean) {
		t.Errorf("no data = %+v", none)
	}
}

// Quantiles are Hyndman & Fan type 1 (R quantile(x, type = 1)):
// quantile(1:10, c(.5, .95), type = 1) = 5, 10.
func TestDescribe(t *testing.T) {
	x := []float64{5, 1, 4, 2, 3, 10, 7, 8, 6, 9}
	got := Describe(x)
	if got != (Dist{N: 10, Mean: 5.5, P50: 5, P95: 10}) {
		t.Errorf("Describe = %+v", got)
	}
	if x[0] != 5 {
		t.Error("Describe modified its input")
	}
	// quantile(c(1, 2, 3, 100), .95, type = 1) = 100; p50 = 2.
	if got := Describe([]float64{100, 3, 2, 1}); got.P50 != 2 || got.P95 != 100 || got.Mean != 26.5 {
		t.Errorf("Describe = %+v", got)
	}
	// 1..20: p95 = x₍₁₉₎ = 19 (19/20 ≥ 0.95).
	var y []float64
	for i := 20; i >= 1; i-- {
		y = append(y, float64(i))
	}
	if got := Describe(y); got.P95 != 19 || got.P50 != 10 {
		t.Errorf("Describe(1..20) = %+v", got)
	}
	if got := Describe(nil); got.N != 0 || !math.IsNaN(got.Mean) || !math.IsNaN(got.P95) {
		t.Errorf("Describe(nil) = %+v", got)
	}
}

func TestCriticalValues(t *testing.T) {
	if z := ZFor(0.95); !near(z, 1.959963984540054, 1e-12) {
		t.Errorf("ZFor(.95) = %v", z)
	}
	if z := ZFor(0.99); !near(z, 2.5758293035489, 1e-9) {
		t.Errorf("ZFor(.99) = %v", z)
	}
	// qt(0.975, 10) = 2.228139, qt(0.975, 1) = 12.7062.
	if tv := TFor(0.95, 10); !near(tv, 2.228139, 1e-6) {
		t.Errorf("TFor(.95, 10) = %v", tv)
	}
	if tv := TFor(0, 1); !near(tv, 12.7062, 1e-4) {
		t.Errorf("TFor(.95, 1) = %v", tv)
	}
	if !math.IsNaN(TFor(0.95, 0)) {
		t.Error("TFor with df 0 should be NaN")
	}
}
