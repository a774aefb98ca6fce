package check

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/stats"
)

// DefaultMargin is the default non-inferiority margin of the baseline gate
// (see NonInferior and docs/ci.md for the choice).
const DefaultMargin = 0.065

// BaselineOptions configure Baseline.
type BaselineOptions struct {
	Margin float64 // Δaccuracy may go down to −Margin; 0 = DefaultMargin
	Seed   uint64  // bootstrap seed
	Reps   int     // bootstrap replicates; 0 = stats.DefaultReps
}

// BaselineSummary counts what the baseline gate paired.
type BaselineSummary struct {
	Results []Result
	// Shared are the (question, repeat) pairs present in both runs, over
	// every arm compared; BaseOnly and CandOnly those in one run only.
	Shared, BaseOnly, CandOnly int
	// Unmatched are the dataset · model · arm groups in one run only: not
	// compared.
	Unmatched []string
}

type gkey struct{ dataset, model, arm string }

func (k gkey) String() string {
	if k.model == "*" {
		return k.dataset + " · " + k.arm
	}
	return k.dataset + " · " + k.model + " · " + k.arm
}

// Baseline is the paired non-inferiority gate of a candidate's rows against
// a baseline run's: for each dataset × model × arm present in both, the
// rows are paired by (question id, repeat) (stats.Compare) and judged by
// NonInferior. When each side has a single model, the models need not be
// the same (a model change is gated against the old model's run): groups
// are matched on dataset × arm.
func Baseline(base, cand []results.QuestionRow, o BaselineOptions) BaselineSummary {
	// One model on each side (a model change is what a CI gate is for):
	// pair across the models; else model by model.
	acrossModels := len(models(base)) == 1 && len(models(cand)) == 1
	bg, cg := byGroup(base, acrossModels), byGroup(cand, acrossModels)
	var s BaselineSummary
	for _, k := range sortedKeys(cg) {
		b, ok := bg[k]
		if !ok {
			s.Unmatched = append(s.Unmatched, k.String()+" (candidate only)")
			continue
		}
		c := stats.Compare(b, cg[k], stats.Bootstrap{Seed: o.Seed, Reps: o.Reps})
		s.Shared += c.Matched
		s.BaseOnly += c.RefOnly
		s.CandOnly += c.CandOnly
		r := NonInferior(c, o.Margin)
		r.Arm, r.Where = k.arm, k.String()
		if acrossModels {
			r.Where = fmt.Sprintf("%s · %s · %s", k.dataset, modelChange(b[0].Model, cg[k][0].Model), k.arm)
		}
		s.Results = append(s.Results, r)
	}
	for _, k := range sortedKeys(bg) {
		if _, ok := cg[k]; !ok {
			s.Unmatched = append(s.Unmatched, k.String()+" (baseline only)")
		}
	}
	return s
}

// NonInferior is the decision of the baseline gate on one paired
// comparison (reference = the baseline): it passes when the lower end of the
// question-bootstrap 95% interval of Δaccuracy = candidate − baseline is at
// least −margin, and fails otherwise (and when nothing was paired). Unlike
// a plain "Δ ≥ 0" test, an unchanged but noisy candidate passes as long as
// the run is large enough for its interval to be narrower than the margin;
// a real drop of more than the margin fails.
func NonInferior(c stats.Comparison, margin float64) Result {
	if margin <= 0 {
		margin = DefaultMargin
	}
	lo := c.Accuracy.Delta.Boot.Lo
	r := Result{
		Name:     fmt.Sprintf("baseline: delta(accuracy, candidate, baseline) ci_low >= %s", Format(-margin)),
		Observed: lo, Bound: -margin, Op: ">=",
		Pass: c.Matched > 0 && lo >= -margin,
	}
	if c.Matched == 0 {
		r.Detail = fmt.Sprintf("no shared (question, repeat) pair (%d baseline only, %d candidate only)", c.RefOnly, c.CandOnly)
		return r
	}
	d := c.Accuracy.Delta
	r.Detail = fmt.Sprintf("Δ %+.1f pp [%+.1f, %+.1f] on %d shared pairs (%d baseline only, %d candidate only); margin %.1f pp",
		100*d.Value, 100*d.Boot.Lo, 100*d.Boot.Hi, c.Matched, c.RefOnly, c.CandOnly, 100*margin)
	switch {
	case math.IsNaN(lo):
		r.Detail += "; interval undefined"
	case !r.Pass && d.Boot.Width()/2 > margin:
		r.Detail += "; the interval is wider than the margin: too few questions to show non-inferiority at this margin"
	}
	return r
}

// modelChange names the candidate's model against the baseline's.
func modelChange(base, cand string) string {
	if base == cand {
		return cand
	}
	return cand + " vs baseline " + base
}

func models(rows []results.QuestionRow) map[string]bool {
	m := map[string]bool{}
	for _, r := range rows {
		m[r.Model] = true
	}
	return m
}

// byGroup splits rows by dataset × model × arm (dataset × arm when
// acrossModels: the key's model is then "*").
func byGroup(rows []results.QuestionRow, acrossModels bool) map[gkey][]results.QuestionRow {
	m := map[gkey][]results.QuestionRow{}
	for _, r := range rows {
		k := gkey{r.Dataset, r.Model, r.Arm}
		if acrossModels {
			k.model = "*"
		}
		m[k] = append(m[k], r)
	}
	return m
}

func sortedKeys(m map[gkey][]results.QuestionRow) []gkey {
	ks := make([]gkey, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b gkey) int {
		return cmp.Or(cmp.Compare(a.dataset, b.dataset), cmp.Compare(a.model, b.model), cmp.Compare(a.arm, b.arm))
	})
	return ks
}
