package stats

import (
	"errors"
	"fmt"
	"math"

	"github.com/medteam-bench/medteam/results"
)

// LPM is a linear probability model of correctness on the teamwork
// components of one dataset × model.
type LPM struct {
	Dataset, Model string
	Arms           int // distinct component combinations among the rows
	// OLSFit holds the coefficients β of the effect-coded model.
	OLSFit
	// Effects are the terms as effects, in Coefs' order: the intercept as
	// fitted (the model's mean over the cells), every other term 2β with
	// SE and interval doubled, p unchanged and HolmP adjusted over the
	// family of effects (the intercept excluded). A main effect is the
	// mean difference "on − off" over the other components' levels; an
	// interaction jk half the difference between j's effect with k on and
	// with k off (Box, Hunter & Hunter 2005, Statistics for
	// Experimenters, §5.5).
	Effects []Coef
	// CellDiffs are, in Effects' order, each component's mean on − off
	// difference over the design cells (cellDiffs; NaN for the intercept
	// and interactions): what 2β is often taken for, and equals only in a
	// full 2⁵ design.
	CellDiffs []float64
}

// FactorialTerms are the LPM's columns in priority order: "(intercept)",
// the five components (ComponentNames), then the ten two-way interactions
// "a:b" in the order (smm,l), (smm,to), …, (t,mm).
func FactorialTerms() []string {
	names := ComponentNames()
	out := append([]string{"(intercept)"}, names...)
	for a := range names {
		for b := a + 1; b < len(names); b++ {
			out = append(out, names[a]+":"+names[b])
		}
	}
	return out
}

// FactorialLPM fits, on each dataset × model, the effect-coded linear
// probability model
//
//	P(correct) = β₀ + Σ_j β_j x_j + Σ_{j<k} γ_jk x_j x_k,   x_j = +1 (on), −1 (off)
//
// over every row (errors and abstentions as 0), x_j the five components of
// the row's arm, by OLS with question-clustered CR1 standard errors and
// t_{G−1} intervals at the given level (ClusteredOLS). With the ±1 coding
// (issue 24, item 6), β_j is half of component j's main effect averaged
// over the other components' levels — not its effect where the others are
// off, as 0/1 indicators would give — and γ_jk half the two-way
// interaction; Effects holds them doubled, Holm-adjusted over the terms.
// Terms the design cannot separate are dropped and listed in Dropped —
// with the 24 valid combinations of --config factorial, "l:mm"
// (monitoring requires leadership, so x_l·x_mm = 1 − x_l + x_mm on the
// valid cells); a component never switched on or always on is dropped
// too. Rows should be
// one arm per component combination (the caller's design); fits are in
// dataset, model order, and an error names each family that could not be
// fitted (the others are still returned).
func FactorialLPM(rows []results.QuestionRow, lvl float64) ([]LPM, error) {
	var out []LPM
	var errs []error
	for _, f := range families(groupRows(rows, false)) {
		var idx []int
		arms := map[[5]bool]bool{}
		for _, g := range f.groups {
			idx = append(idx, g.idx...)
			if len(g.idx) > 0 {
				arms[flags(&rows[g.idx[0]])] = true
			}
		}
		sortByQuestion(rows, idx)
		cols, y := factorialColumns(rows, idx)
		cl, g := clusterOf(rows, idx)
		fit, err := ClusteredOLS(cols, FactorialTerms(), y, cl, g, lvl)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s · %s: %w", f.dataset, f.model, err))
			continue
		}
		out = append(out, LPM{Dataset: f.dataset, Model: f.model, Arms: len(arms), OLSFit: fit, Effects: effectsOf(fit), CellDiffs: cellDiffs(rows, idx, fit)})
	}
	return out, errors.Join(errs...)
}

// effectsOf doubles the effect-coded coefficients (not the intercept) and
// Holm-adjusts their p over the terms.
func effectsOf(fit OLSFit) []Coef {
	out := make([]Coef, len(fit.Coefs))
	p := make([]float64, len(out))
	for i, c := range fit.Coefs {
		p[i] = math.NaN()
		if c.Name != "(intercept)" {
			c.Estimate, c.SE, c.CI = 2*c.Estimate, 2*c.SE, Interval{2 * c.CI.Lo, 2 * c.CI.Hi}
			p[i] = c.P
		}
		out[i] = c
	}
	for i, h := range Holm(p) {
		out[i].HolmP = h
	}
	return out
}

// pm is +1 for true, −1 for false: the effect coding.
func pm(b bool) float64 { return 2*b2f(b) - 1 }

// factorialColumns builds the intercept, the effect-coded (±1) main-effect
// and interaction columns and the 0/1 outcome of rows idx.
func factorialColumns(rows []results.QuestionRow, idx []int) ([][]float64, []float64) {
	const k = 5
	cols := make([][]float64, 1+k+k*(k-1)/2)
	for j := range cols {
		cols[j] = make([]float64, len(idx))
	}
	y := make([]float64, len(idx))
	for i, ri := range idx {
		r := &rows[ri]
		fl := flags(r)
		y[i] = b2f(isCorrect(r))
		cols[0][i] = 1
		c := 1 + k
		for a := range k {
			cols[1+a][i] = pm(fl[a])
			for b := a + 1; b < k; b++ {
				cols[c][i] = pm(fl[a]) * pm(fl[b])
				c++
			}
		}
	}
	return cols, y
}
