package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A hand-computed paired case: ref = 1,1,0,0,1; cand = 1,0,1,1,1.
// B = 1, C = 2, Δ = (C − B)/N = 0.2. d = 0,−1,1,1,0: Σ(d − 0.2)² = 2.8,
// s² = 0.7, SE = √(0.7/5) = 0.374166 — Agresti's paired Wald variance
// ((B + C) − (C − B)²/N)/N² = 0.112 times N/(N − 1) = 0.14.
func TestComparePairedHand(t *testing.T) {
	ref := []bool{true, true, false, false, true}
	cand := []bool{true, false, true, true, true}
	got := ComparePaired(ref, cand, []int{0, 1, 2, 3, 4}, Bootstrap{Seed: 1})
	if got.N != 5 || got.B != 1 || got.C != 2 || !near(got.Delta.Value, 0.2, 1e-15) ||
		!near(got.RefRate, 0.6, 1e-15) || !near(got.CandRate, 0.8, 1e-15) || !near(got.Discordance, 0.6, 1e-15) {
		t.Errorf("ComparePaired = %+v", got)
	}
	if !near(got.Delta.SE, math.Sqrt(0.14), 1e-15) {
		t.Errorf("SE = %v, want %v", got.Delta.SE, math.Sqrt(0.14))
	}
	// McNemar on (1, 2): 2·P(X ≤ 1 | 3) = 2·4/8 → 1.
	if got.McNemarP != 1 {
		t.Errorf("McNemarP = %v", got.McNemarP)
	}
	// Wald uses t with G − 1 = 4 df: qt(.975, 4) = 2.776445.
	if !near(got.Delta.Wald.Hi, 0.2+2.776445*math.Sqrt(0.14), 1e-6) {
		t.Errorf("Wald = %v", got.Delta.Wald)
	}
	// The bootstrap of 5 pairs takes values in multiples of 1/5.
	if b := got.Delta.Boot; !b.Defined() || b.Lo < -1 || b.Hi > 1 || math.Abs(b.Lo*5-math.Round(b.Lo*5)) > 1e-9 {
		t.Errorf("Boot = %v", b)
	}
}

func TestPairedDiffHand(t *testing.T) {
	// d = 2, 4, 0, 6 in clusters {0,0}, {1,1}: mean 3; cluster residual sums
	// (2−3)+(4−3) = 0 and (0−3)+(6−3) = 0 → SE 0.
	got := PairedDiff([]float64{1, 1, 5, 0}, []float64{3, 5, 5, 6}, []int{0, 0, 1, 1}, Bootstrap{})
	if got.Value != 3 || got.SE != 0 {
		t.Errorf("PairedDiff = %+v", got)
	}
}

// synthPairs draws n paired outcomes with cell probabilities both right
// 0.45, ref only 0.15, cand only 0.20, neither 0.20 (Δ = 0.05), reps
// repeats per question (cluster = i / reps) and, when reps > 1, a question
// effect: with probability 0.2 a question favours the candidate (every
// repeat: cand right, ref wrong), with 0.1 the reference.
func synthPairs(n, reps int, seed uint64) (ref, cand []bool, cl []int) {
	r := rand.New(rand.NewPCG(seed, 7))
	kind := 0.0
	for i := range n {
		if i%reps == 0 {
			kind = 1
			if reps > 1 {
				kind = r.Float64()
			}
		}
		u := r.Float64()
		var a, b bool
		switch {
		case kind < 0.2:
			b = true
		case kind < 0.3:
			a = true
		case u < 0.45:
			a, b = true, true
		case u < 0.60:
			a = true
		case u < 0.80:
			b = true
		}
		ref, cand, cl = append(ref, a), append(cand, b), append(cl, i/reps)
	}
	return ref, cand, cl
}

func TestBootstrapReproducible(t *testing.T) {
	ref, cand, cl := synthPairs(600, 3, 1)
	a := ComparePaired(ref, cand, cl, Bootstrap{Seed: 42})
	b := ComparePaired(ref, cand, cl, Bootstrap{Seed: 42})
	if a.Delta.Boot != b.Delta.Boot {
		t.Errorf("same seed: %v vs %v", a.Delta.Boot, b.Delta.Boot)
	}
	// Seeds matter: on a continuous metric two seeds give different bounds
	// (Δaccuracy moves in steps of 1/N, so its bounds may coincide).
	x, y := make([]float64, len(cl)), make([]float64, len(cl))
	for i := range x {
		x[i], y[i] = float64(i%7)*1.3, float64(i%11)*0.7
	}
	if PairedDiff(x, y, cl, Bootstrap{Seed: 42}).Boot == PairedDiff(x, y, cl, Bootstrap{Seed: 43}).Boot {
		t.Error("seeds 42 and 43 gave the same interval")
	}
	if PairedDiff(x, y, cl, Bootstrap{Seed: 42}).Boot != PairedDiff(x, y, cl, Bootstrap{Seed: 42}).Boot {
		t.Error("seed 42 twice gave different intervals")
	}
	if !a.Delta.Boot.Contains(a.Delta.Value) {
		t.Errorf("Δ %v outside its bootstrap interval %v", a.Delta.Value, a.Delta.Boot)
	}
	// Fewer replicates change the interval but keep it near.
	d := ComparePaired(ref, cand, cl, Bootstrap{Seed: 42, Reps: 500})
	if !near(d.Delta.Boot.Lo, a.Delta.Boot.Lo, 0.02) {
		t.Errorf("500 reps %v vs 2000 reps %v", d.Delta.Boot, a.Delta.Boot)
	}
}

// On a large sample the percentile bootstrap and the analytic interval
// agree: n = 6,000 independent pairs, and 2,000 questions × 3 repeats with
// question effects (where the clustered SE is the right analytic one).
func TestBootstrapMatchesAnalytic(t *testing.T) {
	for _, c := range []struct{ n, reps int }{{6000, 1}, {6000, 3}} {
		ref, cand, cl := synthPairs(c.n, c.reps, 3)
		got := ComparePaired(ref, cand, cl, Bootstrap{Seed: 9})
		w, b := got.Delta.Wald, got.Delta.Boot
		if !near(w.Lo, b.Lo, 0.005) || !near(w.Hi, b.Hi, 0.005) {
			t.Errorf("n=%d reps=%d: Wald %v, bootstrap %v", c.n, c.reps, w, b)
		}
		if !w.Contains(0.05) && c.reps == 1 {
			t.Errorf("true Δ 0.05 outside %v", w)
		}
		t.Logf("n=%d reps=%d Δ=%.4f Wald [%.4f, %.4f] boot [%.4f, %.4f]", c.n, c.reps, got.Delta.Value, w.Lo, w.Hi, b.Lo, b.Hi)
	}
}

// With repeats, an iid SE understates the uncertainty; the clustered SE
// does not: the bootstrap of questions agrees with it, not with s/√N.
func TestClusteredWiderThanIID(t *testing.T) {
	ref, cand, cl := synthPairs(6000, 3, 5)
	got := ComparePaired(ref, cand, cl, Bootstrap{Seed: 1})
	iid := ComparePaired(ref, cand, seqInts(len(cl)), Bootstrap{Seed: 1})
	if !(got.Delta.SE > iid.Delta.SE) {
		t.Errorf("clustered SE %v not above iid %v", got.Delta.SE, iid.Delta.SE)
	}
}

func seqInts(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestBootstrapMeansEdges(t *testing.T) {
	got := BootstrapMeans([][]float64{{}}, nil, 0, Bootstrap{})
	if got[0].Defined() {
		t.Errorf("empty = %v", got)
	}
	// A constant metric has a degenerate interval.
	got = BootstrapMeans([][]float64{{2, 2, 2}, {1, 2, 3}}, []int{0, 1, 2}, 3, Bootstrap{Reps: 100})
	if got[0] != (Interval{2, 2}) || got[1].Lo < 1 || got[1].Hi > 3 {
		t.Errorf("got %v", got)
	}
}
