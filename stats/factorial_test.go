package stats

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// A regression small enough to do by hand: x = 0,1,0,1,1,0; y =
// 1,2,2,4,3,1; clusters {0,1}, {2,3}, {4,5}. β̂ = (4/3, 5/3) (the x = 0 and
// x = 1 means 4/3 and 3); residuals −1/3, −1, 2/3, 1, 0, −1/3; u_g =
// (−4/3, −1), (5/3, 1), (−1/3, 0); Σ u uᵀ = [[14/3, 3], [3, 2]];
// (XᵀX)⁻¹ = [[1/3, −1/3], [−1/3, 2/3]]; bread·meat·bread = [[2/27, 1/27],
// [1/27, 2/27]]; c = (3/2)(5/4) = 15/8 → Var = 5/36 for both, SE = √5/6.
func TestClusteredOLSHand(t *testing.T) {
	cols := [][]float64{{1, 1, 1, 1, 1, 1}, {0, 1, 0, 1, 1, 0}}
	y := []float64{1, 2, 2, 4, 3, 1}
	fit, err := ClusteredOLS(cols, []string{"c", "x"}, y, []int{0, 0, 1, 1, 2, 2}, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{4.0 / 3, 5.0 / 3}
	for j, c := range fit.Coefs {
		if !near(c.Estimate, want[j], 1e-12) || !near(c.SE, math.Sqrt(5)/6, 1e-12) {
			t.Errorf("coef %s = %+v, want %v ± %v", c.Name, c, want[j], math.Sqrt(5)/6)
		}
		// t = (5/3)/(√5/6) = √20, df 2, where P(|T| > t) = 1 − t/√(t² + 2):
		// p = 1 − √(20/22) = 0.046537.
		if c.Name == "x" && !near(c.P, 1-math.Sqrt(20.0/22), 1e-9) {
			t.Errorf("p(x) = %v", c.P)
		}
	}
}

// An intercept-only regression is ClusteredMean: c = G/(G − 1) when K = 1.
func TestClusteredOLSIntercept(t *testing.T) {
	y := []float64{1, 0, 1, 1, 0, 0, 1}
	cl := []int{0, 0, 1, 1, 2, 2, 2}
	ones := []float64{1, 1, 1, 1, 1, 1, 1}
	fit, err := ClusteredOLS([][]float64{ones}, []string{"(intercept)"}, y, cl, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := ClusteredMean(y, cl)
	if c := fit.Coefs[0]; !near(c.Estimate, m.Mean, 1e-12) || !near(c.SE, m.SE, 1e-12) || !near(c.CI.Hi, m.CI(0, 0, 0).Hi, 1e-12) {
		t.Errorf("OLS %+v vs ClusteredMean %+v", c, m)
	}
}

// Noise-free data are recovered exactly; an aliased column (x3 = x1 + x2)
// and an all-zero column are dropped and named.
func TestClusteredOLSAliased(t *testing.T) {
	var c0, x1, x2, x3, z, y []float64
	var cl []int
	for i := range 40 {
		a, b := float64(i%3), float64((i/3)%4)
		c0, x1, x2, x3, z = append(c0, 1), append(x1, a), append(x2, b), append(x3, a+b), append(z, 0)
		y = append(y, 1+2*a-3*b)
		cl = append(cl, i/4)
	}
	fit, err := ClusteredOLS([][]float64{c0, x1, z, x2, x3}, []string{"c", "x1", "z", "x2", "x3"}, y, cl, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fit.Dropped, []string{"z", "x3"}) || len(fit.Coefs) != 3 {
		t.Fatalf("Dropped = %v, coefs %+v", fit.Dropped, fit.Coefs)
	}
	for j, w := range []float64{1, 2, -3} {
		if c := fit.Coefs[j]; !near(c.Estimate, w, 1e-9) || c.SE > 1e-6 {
			t.Errorf("%s = %+v, want %v", c.Name, c, w)
		}
	}
	if _, err := ClusteredOLS([][]float64{z}, []string{"z"}, y, cl, 10, 0); err == nil {
		t.Error("all-zero design should fail")
	}
	if _, err := ClusteredOLS([][]float64{c0}, []string{"c"}, y, make([]int, 40), 1, 0); err == nil {
		t.Error("one cluster should fail")
	}
}

// A simulated factorial design (seeded): all 24 valid combinations × 600
// questions, P(correct) = 0.45 + 0.06·smm + 0.10·l + 0.05·to − 0.04·t +
// 0.03·mm − 0.08·smm·l + a question effect in [−0.2, 0.2] (mean 0, the same
// for every arm), with smm, l, … ∈ {0, 1}. In the effect coding x = 2f − 1,
// f_smm·f_l = (x_smm x_l + x_smm + x_l + 1)/4, so the effects (2β) are
// smm 0.06 − 0.08/2 = 0.02, l 0.10 − 0.04 = 0.06, to 0.05, t −0.04, mm
// 0.03 and smm:l 2·(−0.08/4) = −0.04 (the 0/1 model in the span of the ±1
// columns: OLS is unbiased though the 24 cells are not balanced in l and
// mm). The fit recovers each within its 95% interval, and drops l:mm
// (monitoring requires leadership). With 0/1 columns smm's coefficient is
// 0.06, outside the effect's interval.
func TestFactorialLPMRecovers(t *testing.T) {
	truth := map[string]float64{"smm": 0.02, "l": 0.06, "to": 0.05, "t": -0.04, "mm": 0.03, "smm:l": -0.04}
	p := func(f [5]bool, qe float64) float64 {
		v := 0.45 + qe + 0.06*b2f(f[0]) + 0.10*b2f(f[1]) + 0.05*b2f(f[2]) - 0.04*b2f(f[3]) + 0.03*b2f(f[4])
		// Rows that abstain or fail (3%) are wrong: lift p so the
		// model holds for P(correct) = 0.97·p'.
		return (v - 0.08*b2f(f[0] && f[1])) / 0.97
	}
	rows := synthRows(factorialArms(), 600, 1, 11, p)
	fits, err := FactorialLPM(rows, 0)
	if err != nil || len(fits) != 1 {
		t.Fatalf("FactorialLPM: %v, %d fits", err, len(fits))
	}
	fit := fits[0]
	if fit.Arms != 24 || fit.Clusters != 600 || fit.N != 24*600 || !slices.Equal(fit.Dropped, []string{"l:mm"}) {
		t.Fatalf("fit: arms %d clusters %d n %d dropped %v", fit.Arms, fit.Clusters, fit.N, fit.Dropped)
	}
	effect := func(name string) (Coef, bool) {
		for _, c := range fit.Effects {
			if c.Name == name {
				return c, true
			}
		}
		return Coef{}, false
	}
	for _, name := range []string{"smm", "l", "to", "t", "mm", "smm:l"} {
		w := truth[name]
		c, ok := effect(name)
		if b, _ := fit.Coef(name); !near(c.Estimate, 2*b.Estimate, 1e-12) || !near(c.SE, 2*b.SE, 1e-12) || c.P != b.P || !(c.HolmP >= c.P) {
			t.Errorf("%s: effect %+v is not 2 × coefficient %+v with a Holm p", name, c, b)
		}
		if !ok || !c.CI.Contains(w) {
			t.Errorf("%s: %+v does not cover %v", name, c, w)
		}
		t.Logf("%-6s true %+.3f est %+.4f [%+.4f, %+.4f]", name, w, c.Estimate, c.CI.Lo, c.CI.Hi)
	}
	// The null interactions: at most one of nine outside its interval.
	misses := 0
	for _, c := range fit.Effects {
		if _, ok := truth[c.Name]; !ok && c.Name != "(intercept)" && !c.CI.Contains(0) {
			misses++
		}
	}
	if misses > 1 {
		t.Errorf("%d null interactions exclude 0", misses)
	}
}

// A family with one question cannot be fitted (one cluster): the error names
// it, and the other families are still fitted.
func TestFactorialLPMError(t *testing.T) {
	rows := synthRows(factorialArms(), 30, 1, 2, func([5]bool, float64) float64 { return 0.5 })
	one := synthRows(presetArms()[:2], 1, 1, 2, func([5]bool, float64) float64 { return 0.5 })
	for i := range one {
		one[i].Model = "other"
	}
	fits, err := FactorialLPM(append(rows, one...), 0)
	if err == nil || !strings.Contains(err.Error(), "medqa · other") || len(fits) != 1 || fits[0].Model != "sim/default" {
		t.Errorf("fits %d, err %v", len(fits), err)
	}
}
