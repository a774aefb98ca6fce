package stats

import (
	"testing"
)

// TestNewcombePairedKnownAnswer checks method 10 against published worked
// example of Fagerland, Lydersen & Laake (2017, ch. 8: Cavo et al. 2012,
// a/b/c/d = 59/6/16/80: −0.0621, 95% CI −0.1186 to −0.0046, as their R
// package contingencytables prints it); that table has ad − bc > N/2, so the
// continuity-reduced φ is exercised.
func TestNewcombePairedKnownAnswer(t *testing.T) {
	for _, tc := range []struct {
		name       string
		a, b, c, d int
		lo, hi     float64
	}{
		{"Cavo 2012", 59, 6, 16, 80, -0.1186, -0.0046},
	} {
		n := float64(tc.a + tc.b + tc.c + tc.d)
		iv := NewcombePaired(tc.a, tc.b, tc.c, tc.d, n, n, ZFor(0.95))
		if !near(iv.Lo, tc.lo, 5e-5) || !near(iv.Hi, tc.hi, 5e-5) {
			t.Errorf("%s: NewcombePaired = [%.4f, %.4f], want [%.4f, %.4f]", tc.name, iv.Lo, iv.Hi, tc.lo, tc.hi)
		}
	}
}

// TestComparePairedNoDiscordant: arms that agree on every pair get an
// interval with width around Δ = 0 (the bootstrap and Wald intervals of
// differences that are all 0 are [0, 0]), wider when the rows are repeats
// of fewer questions.
func TestComparePairedNoDiscordant(t *testing.T) {
	opt := Bootstrap{Seed: 1, Reps: 200}
	mk := func(n, reps int) ([]bool, []int) {
		y, cl := make([]bool, n), make([]int, n)
		for i := range y {
			q := i / reps
			cl[i], y[i] = q, q%4 != 0 // 75% right, a question's repeats alike
		}
		return y, cl
	}
	var widths []float64
	for _, reps := range []int{1, 4} {
		y, cl := mk(400, reps)
		pb := ComparePaired(y, y, cl, opt)
		for name, iv := range map[string]Interval{"boot": pb.Delta.Boot, "wald": pb.Delta.Wald} {
			if !(iv.Lo < 0 && iv.Hi > 0) {
				t.Errorf("reps %d: %s interval %v: want a width around 0 with no discordant pair", reps, name, iv)
			}
		}
		if !pb.NoDiscordant || pb.Delta.Value != 0 {
			t.Errorf("reps %d: NoDiscordant %v, Δ %v; want true, 0", reps, pb.NoDiscordant, pb.Delta.Value)
		}
		widths = append(widths, pb.Delta.Boot.Hi-pb.Delta.Boot.Lo)
	}
	if !(widths[1] > widths[0]) {
		t.Errorf("widths %v: 4 repeats of 100 questions should give a wider interval than 400 questions", widths)
	}
	// A discordant pair: the bootstrap interval is kept.
	y, cl := mk(400, 1)
	c := append([]bool(nil), y...)
	c[0] = !c[0]
	if pb := ComparePaired(y, c, cl, opt); pb.NoDiscordant {
		t.Errorf("one discordant pair: NoDiscordant set")
	}
}
