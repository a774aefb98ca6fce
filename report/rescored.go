package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/stats"
)

// SecRescored is the ID of the section of published replies read twice.
const SecRescored = "rescored"

// Arms of a rescore of published replies (rescore.ArmPublished and
// rescore.ArmMedteam; package rescore imports nothing of report's).
const (
	rescoredPublished = "published"
	rescoredMedteam   = "medteam"
)

// RescoredRow is one model's published replies scored both ways by
// medteam rescore: the published extraction with the publishers' random
// fill (as the published figure counts), and medteam's reading.
type RescoredRow struct {
	Dataset, Model               string
	N                            int // replies (records)
	Published, Filled, FillHits  int // correct by the published scorer; its fills; fills that hit
	Medteam, Abstained, Withheld int // correct by medteam's reading; its abstentions; of them, withheld replies
	Interval                     stats.Interval
	Disagreements                []Disagreement
}

// Disagreement is a reply the published extraction and medteam's reading
// read differently.
type Disagreement struct {
	SourceID, Published, Medteam, Gold, Why string
}

// rescoredMeta is what a rescore row's meta_json says of the reply.
type rescoredMeta struct {
	PublishedPred *string `json:"published_pred"`
	Fill          bool    `json:"published_fill"`
	Method        string  `json:"parse_method"`
	Withheld      bool    `json:"withheld"`
}

// rescoredReplies sums, per dataset × model, the rows of protocol rescore
// that have both arms published and medteam (MMLU-Pro's layout), pairing
// them on question id. Nil when no rows are such.
func rescoredReplies(rows []results.QuestionRow, level float64) []RescoredRow {
	type key struct{ d, m, q string }
	med := map[key]*results.QuestionRow{}
	by := map[[2]string]*RescoredRow{}
	get := func(q *results.QuestionRow) *RescoredRow {
		k := [2]string{q.Dataset, q.Model}
		if by[k] == nil {
			by[k] = &RescoredRow{Dataset: q.Dataset, Model: q.Model}
		}
		return by[k]
	}
	for i := range rows {
		q := &rows[i]
		if q.Protocol == PublishedProtocol && q.Arm == rescoredMedteam {
			med[key{q.Dataset, q.Model, q.QuestionID}] = q
		}
	}
	for i := range rows {
		q := &rows[i]
		m := med[key{q.Dataset, q.Model, q.QuestionID}]
		if q.Protocol != PublishedProtocol || q.Arm != rescoredPublished || m == nil {
			continue
		}
		rr := get(q)
		rr.add(q, m)
	}
	var out []RescoredRow
	for _, rr := range by {
		rr.Interval = stats.Wilson(rr.Medteam, rr.N, level)
		out = append(out, *rr)
	}
	slices.SortFunc(out, func(a, b RescoredRow) int {
		return cmp.Or(cmp.Compare(a.Dataset, b.Dataset), cmp.Compare(a.Model, b.Model))
	})
	return out
}

// add counts one reply: its published row p and its medteam row m.
func (rr *RescoredRow) add(p, m *results.QuestionRow) {
	var pm, mm rescoredMeta
	_ = json.Unmarshal([]byte(p.MetaJSON), &pm) // rows rescore wrote; a missing field reads as none
	_ = json.Unmarshal([]byte(m.MetaJSON), &mm)
	rr.N++
	if p.Correct {
		rr.Published++
	}
	if pm.Fill {
		rr.Filled++
		if p.Correct {
			rr.FillHits++
		}
	}
	if m.Correct {
		rr.Medteam++
	}
	if m.Abstained {
		rr.Abstained++
	}
	if mm.Withheld {
		rr.Withheld++
		return // no reply to read: nothing to compare
	}
	extracted := ""
	if pm.PublishedPred != nil {
		extracted = *pm.PublishedPred
	}
	if m.Predicted == extracted {
		return
	}
	d := Disagreement{SourceID: p.SourceID, Published: extracted, Medteam: m.Predicted, Gold: p.Gold, Why: mm.Method}
	if extracted == "" {
		d.Published = "none (filled " + p.Predicted + ")"
	}
	if m.Predicted == "" {
		d.Medteam, d.Why = "none", m.AbstainReason
	}
	rr.Disagreements = append(rr.Disagreements, d)
}

// countPct is "590/818 (72.13%)": the form published figures take.
func countPct(k, n int) string {
	if n == 0 {
		return dash
	}
	return fmt.Sprintf("%d/%d (%.2f%%)", k, n, 100*float64(k)/float64(n))
}

// rescoredSection is the published replies read both ways, per model, and
// every reply read differently.
func (r *Report) rescoredSection() *Section {
	if len(r.Rescored) == 0 {
		return nil
	}
	t := Table{Header: []string{"dataset", "model", "replies", "published extraction (with its random fill)", "fills (hits)",
		fmt.Sprintf("medteam's reading [%g%% CI]", 100*r.Level), "medteam abstained (withheld)", "read differently"}}
	list := Table{Caption: "Replies read differently", Header: []string{"dataset", "model", "question", "published extraction", "medteam's reading", "gold", "medteam's method or reason"}}
	withheld := 0
	for _, rr := range r.Rescored {
		t.Rows = append(t.Rows, []string{rr.Dataset, rr.Model, fmt.Sprint(rr.N), countPct(rr.Published, rr.N),
			fmt.Sprintf("%d (%d)", rr.Filled, rr.FillHits), countPct(rr.Medteam, rr.N) + " " + ivPct(rr.Interval),
			fmt.Sprintf("%d (%d)", rr.Abstained, rr.Withheld), fmt.Sprint(len(rr.Disagreements))})
		withheld += rr.Withheld
		for _, d := range rr.Disagreements {
			list.Rows = append(list.Rows, []string{rr.Dataset, rr.Model, d.SourceID, d.Published, d.Medteam, d.Gold, strings.ReplaceAll(d.Why, "|", "/")})
		}
	}
	text := "Published replies rescored by `medteam rescore`, each read twice: the published extraction (the file's `pred`) with the publishers' " +
		"random fill where it found none (MMLU-Pro: `random.seed(12345); randint(0, len(options)-1)`, the same option every time), " +
		"as the published figure counts; and medteam's reading of the reply (the parser every protocol uses), an abstention counted wrong, " +
		"with its Wilson interval. Read differently: the extraction (a fill counts as none) is not medteam's reading."
	if withheld > 0 {
		text += fmt.Sprintf(" Withheld replies: %d (the files keep them apart as a test set): the published arm scores their extraction, "+
			"the medteam arm abstains with reason `withheld` (counted wrong), and they are not compared.", withheld)
	}
	tables := []Table{t}
	if len(list.Rows) > 0 {
		tables = append(tables, list)
	}
	return &Section{ID: SecRescored, Heading: "Published replies rescored", Text: text, Tables: tables}
}
