package report

import (
	"math"
	"slices"

	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/stats"
)

// ModelComparison is one arm on a candidate model against the same arm on
// the reference model, paired on question id × repeat (stats.Compare). The
// embedded Comparison's Reference and Candidate are both the arm, its Model
// the reference model; HolmP adjusts over the models compared on the
// dataset × arm, and IdenticalTo names an earlier model with identical
// outcomes.
type ModelComparison struct {
	Arm, RefModel, CandModel string
	stats.Comparison
}

// compareModels compares, on each dataset and for each arm in arm order,
// every model with refModel.
func compareModels(rows []results.QuestionRow, refModel string, arms []string, boot stats.Bootstrap) []ModelComparison {
	by := map[armKey][]results.QuestionRow{}
	var datasets, models []string
	for _, q := range rows {
		k := armKey{q.Dataset, q.Model, q.Arm}
		by[k] = append(by[k], q)
		if !slices.Contains(datasets, q.Dataset) {
			datasets = append(datasets, q.Dataset)
		}
		if !slices.Contains(models, q.Model) {
			models = append(models, q.Model)
		}
	}
	slices.Sort(datasets)
	slices.Sort(models)
	var out []ModelComparison
	for _, d := range datasets {
		for _, a := range arms {
			ref := by[armKey{d, refModel, a}]
			if len(ref) == 0 {
				continue
			}
			var fam []ModelComparison
			var cands [][]results.QuestionRow
			for _, m := range models {
				cand := by[armKey{d, m, a}]
				if m == refModel || len(cand) == 0 {
					continue
				}
				c := stats.Compare(ref, cand, boot)
				fam = append(fam, ModelComparison{Arm: a, RefModel: refModel, CandModel: m, Comparison: c})
				cands = append(cands, cand)
			}
			out = append(out, adjustModels(fam, cands)...)
		}
	}
	return out
}

// adjustModels sets the Holm-adjusted p and the identical models of one
// dataset × arm family.
func adjustModels(fam []ModelComparison, cands [][]results.QuestionRow) []ModelComparison {
	// Models are different by construction: each is a hypothesis of its
	// own, whatever its outcomes (issue 24, item 5).
	same := make([]int, len(cands))
	for i := range same {
		same[i] = i
	}
	p := make([]float64, len(fam))
	for i, c := range fam {
		p[i] = c.Accuracy.McNemarP
		if c.Accuracy.N == 0 {
			p[i] = math.NaN()
		}
		if same[i] != i {
			fam[i].IdenticalTo = fam[same[i]].CandModel
		}
	}
	for i, v := range stats.HolmGrouped(p, same) {
		fam[i].HolmP = v
	}
	return fam
}
