package stats

import (
	"errors"
	"fmt"

	"github.com/medteam-bench/medteam/results"
)

// LPM is a linear probability model of correctness on the teamwork
// components of one dataset × model.
type LPM struct {
	Dataset, Model string
	Arms           int // distinct component combinations among the rows
	OLSFit
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

// FactorialLPM fits, on each dataset × model, the linear probability model
//
//	P(correct) = β₀ + Σ_j β_j x_j + Σ_{j<k} γ_jk x_j x_k
//
// over every row (errors and abstentions as 0), x_j the five component
// indicators of the row's arm, by OLS with question-clustered CR1 standard
// errors and t_{G−1} intervals at the given level (ClusteredOLS). β_j is
// component j's effect where the components it interacts with are off; γ_jk
// is the two-way interaction. Terms the design cannot separate are dropped
// and listed in Dropped — with the 24 valid combinations of --config
// factorial, "l:mm" (monitoring requires leadership, so l·mm = mm); a
// component never switched on or always on is dropped too. Rows should be
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
		out = append(out, LPM{Dataset: f.dataset, Model: f.model, Arms: len(arms), OLSFit: fit})
	}
	return out, errors.Join(errs...)
}

// factorialColumns builds the intercept, main-effect and interaction
// columns and the 0/1 outcome of rows idx.
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
			cols[1+a][i] = b2f(fl[a])
			for b := a + 1; b < k; b++ {
				cols[c][i] = b2f(fl[a] && fl[b])
				c++
			}
		}
	}
	return cols, y
}
