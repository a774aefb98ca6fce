package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/results"
)

// RunRows is the question rows of one run.
type RunRows struct {
	Info RunInfo
	Rows []results.QuestionRow
}

// Pool joins the rows of several runs into one table for Build.
//
// Rows are told apart by their run_id (a run directory's name; a row
// without one gets its run's Info.Name). Arms of different runs are
// compared like arms of one run — paired on question id × repeat, within
// each dataset × model — so the runs should have run the same questions.
// When one arm label on one dataset and model occurs under more than one
// run id (the same preset run twice, say with other seeds or prompts), its
// rows are relabelled ARM@RUN_ID in every run that has it, so that the
// copies are compared rather than mixed; the DuckDB query of the report
// applies the same rule. Two runs with the same run id are refused (a
// copied directory would be counted twice). Runs on different models keep
// their labels: the model tells them apart, and Build compares the models
// arm by arm. The notes say what was relabelled.
func Pool(runs []RunRows) ([]results.QuestionRow, []RunInfo, []string, error) {
	var rows []results.QuestionRow
	infos := make([]RunInfo, len(runs))
	owner := map[string]int{} // run id → the index of the run that has it
	for i, run := range runs {
		infos[i] = run.Info
		infos[i].Rows = len(run.Rows)
		for _, q := range run.Rows {
			if q.RunID == "" {
				q.RunID = run.Info.Name
			}
			if o, ok := owner[q.RunID]; ok && o != i {
				return nil, nil, nil, fmt.Errorf("report: runs %s and %s both hold run id %q (a copied run directory?); report them separately",
					runs[o].Info.Name, run.Info.Name, q.RunID)
			}
			owner[q.RunID] = i
			rows = append(rows, q)
		}
	}
	return rows, infos, relabel(rows), nil
}

// armKey is one arm on one dataset and model.
type armKey struct{ dataset, model, arm string }

// relabel renames the arms that occur under several run ids ARM@RUN_ID and
// returns a note for each.
func relabel(rows []results.QuestionRow) []string {
	ids := map[armKey][]string{}
	for i := range rows {
		k := armKey{rows[i].Dataset, rows[i].Model, rows[i].Arm}
		if !slices.Contains(ids[k], rows[i].RunID) {
			ids[k] = append(ids[k], rows[i].RunID)
		}
	}
	for i := range rows {
		k := armKey{rows[i].Dataset, rows[i].Model, rows[i].Arm}
		if len(ids[k]) > 1 {
			rows[i].Arm += "@" + rows[i].RunID
		}
	}
	var notes []string
	for _, k := range sortedArmKeys(ids) {
		if runs := ids[k]; len(runs) > 1 {
			slices.Sort(runs)
			notes = append(notes, fmt.Sprintf("arm %s on %s · %s is in %d runs (%s): its rows are labelled %s@RUN",
				k.arm, k.dataset, k.model, len(runs), strings.Join(runs, ", "), k.arm))
		}
	}
	return notes
}

// sortedArmKeys is the keys of m in dataset, model, arm order.
func sortedArmKeys(m map[armKey][]string) []armKey {
	out := make([]armKey, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b armKey) int {
		return strings.Compare(a.dataset+"\x00"+a.model+"\x00"+a.arm, b.dataset+"\x00"+b.model+"\x00"+b.arm)
	})
	return out
}
