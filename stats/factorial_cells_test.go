package stats

import (
	"math"
	"testing"
)

// TestFactorialCellDiffs: with 24 of the 32 cells the effect 2β is not the
// mean on − off cell difference. By hand: only monitoring matters (7 of 10
// questions right with mm on, 5 of 10 with it off, in every cell). The
// model fits the cell means exactly, so 2β_mm = 0.20 and 2β_l = 0; but the
// 8 cells with leadership off all have mm off (mean 0.50) while the 16 with
// it on have mm on in half (mean 0.60): l's mean cell difference is 0.10,
// mm's (8 cells on at 0.70, 16 off at 0.50) 0.20, smm's 0.
func TestFactorialCellDiffs(t *testing.T) {
	rows := synthRows(factorialArms(), 10, 1, 3, func([5]bool, float64) float64 { return 0.5 })
	for i := range rows {
		r := &rows[i]
		q := int(r.QuestionID[len(r.QuestionID)-1] - '0')
		right := 5
		if r.Monitoring {
			right = 7
		}
		r.Correct, r.Error, r.ErrorClass, r.Abstained = q < right, "", "", false
		r.Predicted = map[bool]string{true: "A", false: "B"}[r.Correct]
	}
	fits, err := FactorialLPM(rows, 0)
	if err != nil || len(fits) != 1 {
		t.Fatalf("FactorialLPM: %v, %d fits", err, len(fits))
	}
	fit := fits[0]
	want := map[string][2]float64{ // effect 2β, mean cell difference
		"smm": {0, 0}, "l": {0, 0.10}, "mm": {0.20, 0.20}, "to": {0, 0}, "t": {0, 0},
	}
	for i, c := range fit.Effects {
		w, ok := want[c.Name]
		if !ok {
			if !math.IsNaN(fit.CellDiffs[i]) {
				t.Errorf("%s: cell difference %v, want NaN (not a component)", c.Name, fit.CellDiffs[i])
			}
			continue
		}
		if !near(c.Estimate, w[0], 1e-9) || !near(fit.CellDiffs[i], w[1], 1e-12) {
			t.Errorf("%s: effect %.4f, cell difference %.4f; want %.2f, %.2f", c.Name, c.Estimate, fit.CellDiffs[i], w[0], w[1])
		}
	}
}
