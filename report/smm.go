package report

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/medteam-bench/medteam/results"
)

// SecSMM is the shared mental model section's ID.
const SecSMM = "smm"

// SMMRow is what the shared mental model's facts step gave the agents on
// one dataset × model × arm with SMM (issue 36 item 5): the rows with a
// facts step, the facts the agents stated, the facts verified (shown to
// them as VERIFIED FACTS) and the rows where none was.
type SMMRow struct {
	Dataset, Model, Arm string
	Method              string // how facts were verified: intersection, leader (or both, "intersection, leader")
	Rows                int
	// Stated and Verified are sums over the rows; StatedRows counts the rows
	// that record Stated (runs before issue 36 record only the facts).
	Stated, StatedRows int
	Verified           int
	NoneVerified       int
}

// noteSMM fills r.SMM from the rows with a facts step and notes the arms
// whose leaderless SMM verified no fact on any question.
func (r *Report) noteSMM(rows []results.QuestionRow) {
	by := map[[3]string]*SMMRow{}
	methods := map[[3]string]map[string]bool{}
	for i := range rows {
		q := &rows[i]
		if q.FactsMethod == "" {
			continue
		}
		k := [3]string{q.Dataset, q.Model, q.Arm}
		s := by[k]
		if s == nil {
			s = &SMMRow{Dataset: q.Dataset, Model: q.Model, Arm: q.Arm}
			by[k], methods[k] = s, map[string]bool{}
		}
		methods[k][q.FactsMethod] = true
		s.Rows++
		verified := len(q.Facts)
		if q.FactsVerified != nil {
			verified = int(*q.FactsVerified)
		}
		s.Verified += verified
		if verified == 0 {
			s.NoneVerified++
		}
		if q.FactsStated != nil {
			s.Stated += int(*q.FactsStated)
			s.StatedRows++
		}
	}
	rank := r.armRank()
	for k, s := range by {
		ms := make([]string, 0, len(methods[k]))
		for m := range methods[k] {
			ms = append(ms, m)
		}
		slices.Sort(ms)
		for i, m := range ms {
			if i > 0 {
				s.Method += ", "
			}
			s.Method += m
		}
		r.SMM = append(r.SMM, *s)
	}
	slices.SortFunc(r.SMM, func(a, b SMMRow) int {
		return cmp.Or(cmp.Compare(a.Dataset, b.Dataset), cmp.Compare(a.Model, b.Model), cmp.Compare(rank(a.Arm), rank(b.Arm)), cmp.Compare(a.Arm, b.Arm))
	})
	for _, s := range r.SMM {
		if s.Method != "intersection" || s.NoneVerified < s.Rows {
			continue
		}
		where := ""
		if r.multi() {
			where = fmt.Sprintf(" (%s, %s)", s.Dataset, s.Model)
		}
		r.Notes = append(r.Notes, fmt.Sprintf("Arm %s%s: its shared mental model verified no fact on any of its %d rows (column facts_verified): "+
			"the agents saw only the question analysis, so its difference from the arm without SMM measures the analysis, not shared facts.", s.Arm, where, s.Rows))
	}
}

// smmSection is the facts step of every arm with SMM; nil when none has one.
func (r *Report) smmSection() *Section {
	if len(r.SMM) == 0 {
		return nil
	}
	t := Table{Header: r.lead("dataset", "model", "arm", "facts verified by", "rows", "facts stated/q", "verified/q", "rows with none verified")}
	for _, s := range r.SMM {
		stated := dash
		if s.StatedRows > 0 {
			stated = fnum(float64(s.Stated)/float64(s.StatedRows), 2)
		}
		t.Rows = append(t.Rows, r.lead(s.Dataset, s.Model, s.Arm, s.Method, fmt.Sprint(s.Rows), stated,
			fnum(float64(s.Verified)/float64(s.Rows), 2), fmt.Sprintf("%d (%s)", s.NoneVerified, pctKN(s.NoneVerified, s.Rows))))
	}
	return &Section{ID: SecSMM, Heading: "Shared mental model: verified facts",
		Text: "Arms with SMM: the facts the agents stated in their initial answers and those verified and shown to every agent as VERIFIED FACTS " +
			"(columns facts_stated, facts_verified), per question row. Without a leader a fact is verified when two agents state it, " +
			"matched by content words (docs/protocols.md, teamwork); with a leader it is the leader's extraction. " +
			"An arm whose SMM verifies nothing on most rows adds only the question analysis to the arm without SMM. " +
			"Facts stated is — for runs written before issue 36, which record only the verified facts.",
		Tables: []Table{t}}
}
