package stats

import (
	"cmp"
	"slices"

	"github.com/medteam-bench/medteam/results"
)

// GroupKey names a group of rows: one arm on one model and dataset, and
// optionally one subject ("" when not grouped by subject).
type GroupKey struct {
	Dataset, Model, Arm, Subject string
}

// compareKeys orders keys by dataset, model, arm, subject.
func compareKeys(a, b GroupKey) int {
	return cmp.Or(cmp.Compare(a.Dataset, b.Dataset), cmp.Compare(a.Model, b.Model),
		cmp.Compare(a.Arm, b.Arm), cmp.Compare(a.Subject, b.Subject))
}

// group is the indices of the rows of one key, sorted by (question, repeat).
type group struct {
	key GroupKey
	idx []int
}

// groupRows groups rows by key (with the subject when bySubject), groups
// sorted by key and each group's rows by (question id, repeat, input
// position).
func groupRows(rows []results.QuestionRow, bySubject bool) []group {
	at := map[GroupKey]int{}
	var gs []group
	for i := range rows {
		r := &rows[i]
		k := GroupKey{Dataset: r.Dataset, Model: r.Model, Arm: r.Arm}
		if bySubject {
			k.Subject = r.Subject
		}
		j, ok := at[k]
		if !ok {
			j = len(gs)
			at[k] = j
			gs = append(gs, group{key: k})
		}
		gs[j].idx = append(gs[j].idx, i)
	}
	slices.SortFunc(gs, func(a, b group) int { return compareKeys(a.key, b.key) })
	for _, g := range gs {
		sortByQuestion(rows, g.idx)
	}
	return gs
}

// sortByQuestion sorts row indices by (question id, repeat, dataset,
// model, arm, index): rows of one unit across arms keep an order that does
// not depend on the input's.
func sortByQuestion(rows []results.QuestionRow, idx []int) {
	slices.SortFunc(idx, func(a, b int) int {
		ra, rb := &rows[a], &rows[b]
		return cmp.Or(cmp.Compare(ra.QuestionID, rb.QuestionID), cmp.Compare(ra.Repeat, rb.Repeat),
			cmp.Compare(ra.Dataset, rb.Dataset), cmp.Compare(ra.Model, rb.Model), cmp.Compare(ra.Arm, rb.Arm),
			cmp.Compare(a, b))
	})
}

// family is the groups of one dataset × model.
type family struct {
	dataset, model string
	groups         []group
}

// families splits sorted groups into dataset × model families.
func families(gs []group) []family {
	var out []family
	for _, g := range gs {
		if n := len(out); n == 0 || out[n-1].dataset != g.key.Dataset || out[n-1].model != g.key.Model {
			out = append(out, family{dataset: g.key.Dataset, model: g.key.Model})
		}
		out[len(out)-1].groups = append(out[len(out)-1].groups, g)
	}
	return out
}

// clusterOf numbers the questions of rows sorted by question id 0, 1, …
func clusterOf(rows []results.QuestionRow, idx []int) ([]int, int) {
	out := make([]int, len(idx))
	g := 0
	for j, i := range idx {
		if j > 0 && rows[i].QuestionID != rows[idx[j-1]].QuestionID {
			g++
		}
		out[j] = g
	}
	if len(idx) == 0 {
		return out, 0
	}
	return out, g + 1
}

// answered reports whether the team gave an answer (no abstention, no error).
func answered(r *results.QuestionRow) bool { return !r.Abstained && !errored(r) }

// errored reports whether the unit failed.
func errored(r *results.QuestionRow) bool { return r.Error != "" || r.ErrorClass != "" }

// isCorrect is the row's correctness with errors and abstentions counted as
// not correct whatever the Correct column says.
func isCorrect(r *results.QuestionRow) bool { return r.Correct && answered(r) }
