// Package numfmt formats numbers the way the report prints them, for every
// place that shows a run's numbers (the report, the viewer): one rounding,
// half away from zero, and one dash for what the data cannot define.
package numfmt

import (
	"fmt"
	"math"
)

// Dash stands for a statistic the data cannot define.
const Dash = "—"

// Round1 rounds to one decimal half away from zero, as DuckDB's round does.
func Round1(x float64) float64 { return math.Round(x*10) / 10 }

// Pct is a proportion in percent with one decimal, without the sign: 0.5625
// is "56.3"; NaN is Dash.
func Pct(x float64) string {
	if math.IsNaN(x) {
		return Dash
	}
	return fmt.Sprintf("%.1f", Round1(100*x))
}

// Fnum formats x with prec decimals, rounded half away from zero; NaN is
// Dash.
func Fnum(x float64, prec int) string {
	if math.IsNaN(x) {
		return Dash
	}
	m := math.Pow(10, float64(prec))
	return fmt.Sprintf("%.*f", prec, math.Round(x*m)/m)
}
