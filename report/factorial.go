package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/stats"
)

// FactorialCombinations is the number of valid teamwork component
// combinations: 2⁵ less the 8 with monitoring but no leadership.
const FactorialCombinations = 24

// FactorialFit is the factorial analysis of one dataset × model: whether
// its teamwork arms cover the 24 valid component combinations with
// everything else equal and, if so, the linear probability model of
// correctness on the components and their two-way interactions
// (stats.FactorialLPM), fitted on one arm per combination.
type FactorialFit struct {
	Dataset, Model string
	Combinations   int        // distinct valid component combinations among the teamwork arms
	Arms           []string   // the arms fitted (the first in arm order of each combination)
	Fit            *stats.LPM // nil when not fitted
	Note           string     // why there is no fit
}

// armInfo is what the factorial analysis reads of an arm: its first row.
type armInfo struct {
	name    string
	flags   [5]bool
	setting string
}

// factorialFits checks and fits every dataset × model, arms in arm order.
func factorialFits(rows []results.QuestionRow, lvl float64, arms []string) []FactorialFit {
	fams := map[[2]string]map[string]*armInfo{}
	var keys [][2]string
	for i := range rows {
		q := &rows[i]
		if q.Protocol != "teamwork" && q.Protocol != "" {
			continue
		}
		k := [2]string{q.Dataset, q.Model}
		if fams[k] == nil {
			fams[k] = map[string]*armInfo{}
			keys = append(keys, k)
		}
		if fams[k][q.Arm] == nil {
			fams[k][q.Arm] = &armInfo{name: q.Arm, flags: [5]bool{q.SMM, q.Leadership, q.Orientation, q.Trust, q.Monitoring},
				setting: fmt.Sprintf("turns %d, %s, %s, structured %v", q.Turns, q.Discussion, q.AgentPolicy, q.StructuredOut)}
		}
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1]) })
	out := make([]FactorialFit, 0, len(keys))
	for _, k := range keys {
		f := designOf(k, fams[k], arms)
		if f.Note == "" {
			fitFactorial(&f, rows, lvl)
		}
		out = append(out, f)
	}
	return out
}

// designOf checks one family's arms: one setting, and every valid
// combination.
func designOf(k [2]string, infos map[string]*armInfo, arms []string) FactorialFit {
	f := FactorialFit{Dataset: k[0], Model: k[1]}
	seen := map[[5]bool]bool{}
	settings := map[string]bool{}
	for _, a := range arms {
		in := infos[a]
		if in == nil {
			continue
		}
		settings[in.setting] = true
		if !seen[in.flags] && (!in.flags[4] || in.flags[1]) {
			seen[in.flags] = true
			f.Arms = append(f.Arms, a)
		}
	}
	f.Combinations = len(seen)
	switch {
	case len(settings) > 1:
		f.Note = fmt.Sprintf("the arms differ in more than their components (%s): not one factorial design", strings.Join(sortedKeys(settings), "; "))
	case f.Combinations < FactorialCombinations:
		f.Note = fmt.Sprintf("%d of the %d valid component combinations: not a factorial design; `--config factorial` runs all %d",
			f.Combinations, FactorialCombinations, FactorialCombinations)
	}
	return f
}

// fitFactorial fits the LPM on the rows of the family's chosen arms.
func fitFactorial(f *FactorialFit, rows []results.QuestionRow, lvl float64) {
	var sub []results.QuestionRow
	for i := range rows {
		q := &rows[i]
		if q.Dataset == f.Dataset && q.Model == f.Model && slices.Contains(f.Arms, q.Arm) {
			sub = append(sub, *q)
		}
	}
	fits, err := stats.FactorialLPM(sub, lvl)
	if err != nil || len(fits) != 1 {
		f.Note = fmt.Sprintf("the linear probability model could not be fitted: %v", err)
		return
	}
	f.Fit = &fits[0]
}
