package stats

import "testing"

// TestClusteredWilsonFewQuestions: below MinDeffClusters questions the
// design effect is the bound rows per question, flagged, not an estimate
// (2 questions × 5 repeats used to give deff 1.00 and the interval of 10
// independent rows); from MinDeffClusters questions on it is estimated.
func TestClusteredWilsonFewQuestions(t *testing.T) {
	mk := func(q int) ([]bool, []int) {
		var y []bool
		var cl []int
		for g := range q {
			right := 3 - g%2 // 3 or 2 of 5 right: little between-question spread
			for r := range 5 {
				y, cl = append(y, r < right), append(cl, g)
			}
		}
		return y, cl
	}
	for _, tc := range []struct {
		questions int
		deff      float64
		bound     bool
	}{
		{2, 5, true},
		{9, 5, true},
		{10, 1, false}, // estimated: below 1, limited to 1
		{40, 1, false},
	} {
		y, cl := mk(tc.questions)
		pr := ClusteredWilson(y, cl, 0.95)
		if !near(pr.DesignEffect, tc.deff, 1e-12) || pr.DeffBound != tc.bound {
			t.Errorf("%d questions × 5: deff %.2f bound %v, want %.2f %v", tc.questions, pr.DesignEffect, pr.DeffBound, tc.deff, tc.bound)
		}
		if tc.questions == 2 && !nearIv(pr.CI, wilsonP(pr.Value, 2, ZFor(0.95)), 1e-12) {
			t.Errorf("2 questions: CI %v, want Wilson on the effective n = 2", pr.CI)
		}
	}
	// One row per question: the bound is 1 and nothing is flagged.
	y, cl := []bool{true, false, true}, []int{1, 2, 3}
	if pr := ClusteredWilson(y, cl, 0.95); pr.DesignEffect != 1 || pr.DeffBound {
		t.Errorf("3 questions × 1: deff %v bound %v, want 1 false", pr.DesignEffect, pr.DeffBound)
	}
}
