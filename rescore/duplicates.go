package rescore

import (
	"sort"
	"strings"
)

// ReasonWithheld is the abstention reason of the medteam arm on a record
// whose reply the file withholds (withheld: true, response null): there is
// no reply to read, which is not a parse failure. The published arm still
// scores the record's extraction, as the published count does.
const ReasonWithheld = "withheld"

// QuestionIDs are the rows' question ids of the scored records, in order:
// Run.QuestionID, except that a content duplicate — a question published
// under two source ids with the same stem and options (MMLU-Pro health: 6036
// and 6037) — is kept as two questions, as the published count keeps it and
// as medteam's loader does: the copy of the smallest source id has the
// content id, every other one the content id, "~" and its source id
// (datasets' keptPrefix rule; the published test file is in source-id
// order, so the ids are the loader's on it whatever order a result file
// has). Records of different models with the same source id share the id.
func (r Run) QuestionIDs(scored []Scored) []string {
	ids := make([]string, len(scored))
	first := map[string]string{} // content id → smallest source id
	for i, s := range scored {
		ids[i] = r.QuestionID(s.Record)
		if strings.TrimSpace(s.Question) == "" {
			continue // no stem: the id is the published one, already distinct
		}
		if f, ok := first[ids[i]]; !ok || idxLess(s.ID, f) {
			first[ids[i]] = s.ID
		}
	}
	for i, s := range scored {
		if f, ok := first[ids[i]]; ok && s.ID != f {
			ids[i] += "~" + s.ID
		}
	}
	return ids
}

// Duplicate is a content duplicate kept as a question of its own.
type Duplicate struct {
	File    string // the file of its first record
	ID, Of  string // its source id; the source id whose question it repeats
	Records int    // its records (one per model)
}

// Duplicates lists the content duplicates QuestionIDs kept apart, in source
// id order: one entry per file and source id however many models answered it, the
// files in the order given.
func (r Run) Duplicates(scored []Scored) []Duplicate {
	ids := r.QuestionIDs(scored)
	plain := map[string]string{} // content id → the source id that has it
	for i, s := range scored {
		if ids[i] == r.QuestionID(s.Record) {
			plain[ids[i]] = s.ID
		}
	}
	at := map[[2]string]int{}
	var out []Duplicate
	for i, s := range scored {
		base := r.QuestionID(s.Record)
		if ids[i] == base {
			continue
		}
		k := [2]string{s.File, s.ID}
		if j, ok := at[k]; ok {
			out[j].Records++
			continue
		}
		at[k] = len(out)
		out = append(out, Duplicate{File: s.File, ID: s.ID, Of: plain[base], Records: 1})
	}
	rank := map[string]int{} // files in the order given
	for _, s := range scored {
		if _, ok := rank[s.File]; !ok {
			rank[s.File] = len(rank)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return rank[out[i].File] < rank[out[j].File]
		}
		return idxLess(out[i].ID, out[j].ID)
	})
	return out
}
