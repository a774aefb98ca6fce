package stats

import (
	"maps"
	"math"
	"slices"

	"github.com/medteam-bench/medteam/results"
)

// cellDiffs is, for each term of fit in order, the mean on − off cell
// difference of a component: the mean accuracy over the design cells
// (component combinations, each weighted equally) with component j on
// minus the mean over the cells with it off — NaN for the intercept and
// the interactions. In a full 2⁵ design it equals the effect 2β_j; with
// the 24 valid cells it need not: the effect-coded 2β_j is j's effect at
// the design centre (every other x_k = 0, interactions included), while
// the cells with leadership off all have monitoring off, so the mean
// on − off difference of l mixes in the effect of mm, and that of any
// component interacting with l or mm weighs those interactions at the
// cells' mix of l and mm, not at the centre.
func cellDiffs(rows []results.QuestionRow, idx []int, fit OLSFit) []float64 {
	type cell struct{ k, n float64 }
	cells := map[[5]bool]*cell{}
	for _, i := range idx {
		fl := flags(&rows[i])
		c := cells[fl]
		if c == nil {
			c = &cell{}
			cells[fl] = c
		}
		c.k += b2f(isCorrect(&rows[i]))
		c.n++
	}
	// Cells in a fixed order: float sums in map order differ in their last
	// bits from run to run.
	keys := slices.SortedFunc(maps.Keys(cells), func(a, b [5]bool) int { return cellCode(a) - cellCode(b) })
	pos := map[string]int{}
	for j, name := range ComponentNames() {
		pos[name] = j
	}
	out := make([]float64, len(fit.Coefs))
	for t, c := range fit.Coefs {
		j, ok := pos[c.Name]
		if !ok {
			out[t] = math.NaN()
			continue
		}
		var on, off, non, noff float64
		for _, fl := range keys {
			ce := cells[fl]
			if fl[j] {
				on, non = on+ce.k/ce.n, non+1
			} else {
				off, noff = off+ce.k/ce.n, noff+1
			}
		}
		out[t] = on/non - off/noff // NaN when a side has no cell
	}
	return out
}

// cellCode numbers a component combination (bit j set when component j is
// on), for a fixed order of cells.
func cellCode(fl [5]bool) int {
	c := 0
	for j, on := range fl {
		if on {
			c |= 1 << j
		}
	}
	return c
}
