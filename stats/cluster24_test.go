package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func nearIv(a, b Interval, tol float64) bool { return near(a.Lo, b.Lo, tol) && near(a.Hi, b.Hi, tol) }

// With one row per question the design effect is 1 and the interval is
// Wilson's, bit for bit, whatever the data (issue 24, item 1).
func TestClusteredWilsonOneRepeatIsWilson(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1))
	for n := 1; n <= 60; n++ {
		for range 5 {
			y := make([]bool, n)
			q := make([]int, n)
			k := 0
			for i := range y {
				y[i], q[i] = rng.Float64() < 0.7, i
				k += int(b2f(y[i]))
			}
			p := ClusteredWilson(y, q, 0)
			if p.CI != Wilson(k, n, 0) || p.DesignEffect != 1 || p.EffectiveN != float64(n) {
				t.Fatalf("n=%d k=%d: %+v, Wilson %+v", n, k, p, Wilson(k, n, 0))
			}
		}
	}
}

// Known answers by hand.
//
// Rows y = (1,0 | 0,0 | 1) in questions q1, q2, q3 (aggregate_test's
// handRows): p̂ = 0.4, Var_CR1 = (3/2)·1.04/25 = 0.0624, Var_iid = 0.24/4 =
// 0.06, deff = 1.04, n_eff = 4.8077; Wilson at z = 1.959964:
// centre = (0.4 + z²/(2n))/(1 + z²/n) = 0.444421, half = 0.329502 →
// [0.114919, 0.773923] (recomputed with Python's math module).
//
// A run of G questions copied into 3 identical repeats: e_g = 3(y_g − p̂),
// Var_CR1 = p̂(1 − p̂)/(G − 1) and Var_iid = p̂(1 − p̂)/(3G − 1), deff =
// (3G − 1)/(G − 1) > 3 is limited to N/G = 3: n_eff = G, the interval of
// the run without copies (the example, where Wilson on 3G rows
// gave a √3-times narrower interval).
func TestClusteredWilsonKnown(t *testing.T) {
	p := ClusteredWilson([]bool{true, false, false, false, true}, []string{"q1", "q1", "q2", "q2", "q3"}, 0)
	if d := estimatedDeff(p.Value, p.SE, p.N, p.Clusters); !near(d, 1.04, 1e-12) {
		t.Errorf("hand rows: estimated deff %v, want 1.04", d)
	}
	if iv := wilsonP(0.4, 4.8077, ZFor(0)); !near(iv.Lo, 0.114919, 5e-6) || !near(iv.Hi, 0.773909, 5e-6) {
		t.Errorf("hand rows: Wilson on n_eff 4.8077 = %v, want [0.114919, 0.773909]", iv)
	}
	// 3 questions are below MinDeffClusters: deff is the bound 5/3, flagged.
	if !near(p.DesignEffect, 5.0/3, 1e-12) || !p.DeffBound || !nearIv(p.CI, wilsonP(0.4, 3, ZFor(0)), 1e-12) {
		t.Errorf("hand rows: %+v, want deff 5/3 (bound), Wilson on n = 3", p)
	}
	rng := rand.New(rand.NewPCG(24, 2))
	var y, y3 []bool
	var q, q3 []int
	k := 0
	for i := range 200 {
		v := rng.Float64() < 0.6
		y, q = append(y, v), append(q, i)
		k += int(b2f(v))
		for range 3 {
			y3, q3 = append(y3, v), append(q3, i)
		}
	}
	c := ClusteredWilson(y3, q3, 0)
	if c.DesignEffect != 3 || !nearIv(c.CI, Wilson(k, 200, 0), 1e-12) {
		t.Errorf("copied ×3: deff %v, %+v; want 3 and the single run's %+v", c.DesignEffect, c.CI, Wilson(k, 200, 0))
	}
	if w := Wilson(3*k, 600, 0); c.CI.Width() < 1.7*w.Width() {
		t.Errorf("copied ×3: width %v, naive Wilson %v: want ≈ √3 wider", c.CI.Width(), w.Width())
	}
	// One question: one row keeps its Wilson interval; three rows are one
	// draw (n_eff = 1), not three.
	if one := ClusteredWilson([]bool{true}, []string{"q"}, 0); one.CI != Wilson(1, 1, 0) {
		t.Errorf("one row: %+v, want Wilson(1, 1) %+v", one.CI, Wilson(1, 1, 0))
	}
	if three := ClusteredWilson([]bool{true, true, false}, []string{"q", "q", "q"}, 0); three.EffectiveN != 1 || !three.CI.Defined() {
		t.Errorf("one question, 3 rows: %+v, want n_eff 1", three)
	}
	if none := ClusteredWilson([]bool{}, []string{}, 0); none.CI.Defined() || !math.IsNaN(none.Value) {
		t.Errorf("no rows: %+v, want NaN", none)
	}
}

// The clustered McNemar test (issue 24, item 1).
//
// Fixture (pairs: reference, candidate) in 5 questions:
//
//	q1: (0,1) (0,1)          d = c − b = +2
//	q2: (0,1) (1,0)          d = 0
//	q3: (0,1) (1,1)          d = +1
//	q4: (0,1)                d = +1
//	q5: (0,1) (0,1) (0,1)    d = +3
//
// b = 1, c = 8. The exact McNemar test on the 9 discordant pairs as if
// independent: 2·P(Bin(9, ½) ≤ 1) = 2·10/512 = 0.0390625. Durkalski et al.
// (2003): X² = (Σd)²/Σd² = 7²/(4 + 0 + 1 + 1 + 9) = 49/15 = 3.26667, p =
// P(χ²₁ > 3.26667) = erfc(√(3.26667/2)) = 0.0707011 (Python's math.erfc).
// The exact sign-flip distribution of T = ±2 ± 1 ± 1 ± 3 (16 equally likely
// sign patterns): |T| ≥ 7 only for all + and all −, p = 2/16 = 0.125.
func TestMcNemarClusteredKnown(t *testing.T) {
	type pr struct {
		q         int
		ref, cand bool
	}
	fix := []pr{{1, false, true}, {1, false, true}, {2, false, true}, {2, true, false}, {3, false, true}, {3, true, true},
		{4, false, true}, {5, false, true}, {5, false, true}, {5, false, true}}
	var ref, cand []bool
	var cl []int
	for _, p := range fix {
		ref, cand, cl = append(ref, p.ref), append(cand, p.cand), append(cl, p.q)
	}
	if got := McNemarExact(1, 8); !near(got, 0.0390625, 1e-12) {
		t.Errorf("naive exact McNemar = %v, want 0.0390625", got)
	}
	if got := McNemarClustered(ref, cand, cl); !near(got, 0.125, 1e-12) {
		t.Errorf("McNemarClustered = %v, want 0.125", got)
	}
	if pb := ComparePaired(ref, cand, cl, Bootstrap{Seed: 1, Reps: 100}); pb.B != 1 || pb.C != 8 || !near(pb.McNemarP, 0.125, 1e-12) {
		t.Errorf("ComparePaired: b/c %d/%d, p %v; want 1/8, 0.125", pb.B, pb.C, pb.McNemarP)
	}
	if got := DurkalskiP([]int{2, 0, 1, 1, 3}); !near(got, 0.0707011, 1e-6) {
		t.Errorf("DurkalskiP = %v, want 0.0707011", got)
	}
}

// With one pair per question the clustered test is the exact McNemar test,
// bit for bit; a run copied into 3 identical repeats keeps the single
// run's p (the c4-vs-base example went from 0.25 to 0.0039 with
// the rows taken as independent).
func TestMcNemarClusteredReduces(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	for range 50 {
		n := 1 + rng.IntN(300)
		var ref, cand, ref3, cand3 []bool
		var cl, cl3 []int
		b, c := 0, 0
		for i := range n {
			r, k := rng.Float64() < 0.7, rng.Float64() < 0.72
			ref, cand, cl = append(ref, r), append(cand, k), append(cl, i)
			if r && !k {
				b++
			}
			if !r && k {
				c++
			}
			for range 3 {
				ref3, cand3, cl3 = append(ref3, r), append(cand3, k), append(cl3, i)
			}
		}
		if got := McNemarClustered(ref, cand, cl); got != McNemarExact(b, c) {
			t.Fatalf("one repeat: %v, exact McNemar %v", got, McNemarExact(b, c))
		}
		if got := McNemarClustered(ref3, cand3, cl3); !near(got, McNemarExact(b, c), 1e-9) {
			t.Fatalf("copied ×3: %v, want the single run's %v (naive: %v)", got, McNemarExact(b, c), McNemarExact(3*b, 3*c))
		}
	}
}

// A paired difference over one question is undefined, not a zero-width
// interval (issue 24, item 2).
func TestPairedOneQuestionUndefined(t *testing.T) {
	pb := ComparePaired([]bool{false, false, false}, []bool{true, true, true}, []int{7, 7, 7}, Bootstrap{Seed: 1, Reps: 200})
	if pb.Delta.Value != 1 || pb.Delta.Boot.Defined() || pb.Delta.Wald.Defined() || !math.IsNaN(pb.Delta.SE) {
		t.Errorf("one question: %+v, want Δ 1 with undefined intervals", pb.Delta)
	}
	pb = ComparePaired([]bool{false, true}, []bool{true, true}, []int{1, 2}, Bootstrap{Seed: 1, Reps: 200})
	if !pb.Delta.Boot.Defined() {
		t.Errorf("two questions: %+v, want a defined interval", pb.Delta)
	}
}

// Triage rates (medteam triage score, the report's triage table) are
// clustered by case: three identical lines per case give the interval of
// one line per case, not a √3-times narrower one; lines without a case are
// each their own.
func TestTriageRatesClustered(t *testing.T) {
	var one, three []TriageObs
	for q := range 40 {
		o := TriageObs{Cluster: string(rune('A'+q%26)) + string(rune('a'+q/26)), Truth: 2, Pred: 2 - q%3}
		one = append(one, o)
		for range 3 {
			three = append(three, o)
		}
	}
	levels := []string{"sc", "ne", "em"}
	a, b := TriageMetrics(one, levels, 0), TriageMetrics(three, levels, 0)
	if a.Safe.CI != Wilson(a.Safe.K, a.Safe.N, 0) {
		t.Errorf("one line per case: %+v, want Wilson", a.Safe)
	}
	if !nearIv(b.Under.CI, a.Under.CI, 1e-12) || !nearIv(b.Accuracy.CI, a.Accuracy.CI, 1e-12) {
		t.Errorf("3 lines per case: under %+v accuracy %+v, want %+v %+v", b.Under.CI, b.Accuracy.CI, a.Under.CI, a.Accuracy.CI)
	}
	for i := range one {
		one[i].Cluster = ""
	}
	if c := TriageMetrics(one, levels, 0); c.Repeats != 1 || c.Safe.CI != Wilson(c.Safe.K, c.Safe.N, 0) {
		t.Errorf("no case ids: repeats %d, %+v", c.Repeats, c.Safe)
	}
}
