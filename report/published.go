package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/stats"
)

// PublishedProtocol is the protocol of rows rescored from a published run
// (medteam rescore): their arms are the publishers' methods, not medteam's.
const PublishedProtocol = "rescore"

// AcrossModelsNote labels a comparison of two different models.
const AcrossModelsNote = "across models: compares systems, not protocols"

// PublishedComparison is an arm of a medteam run against an arm of a
// published run (rows of protocol rescore) on the same dataset, paired on
// question id × repeat; the published arm is the reference. When the two
// models differ the comparison is across models: it compares systems
// (model and protocol together), not protocols.
type PublishedComparison struct {
	Arm, Model       string // the medteam arm and its model
	PubArm, PubModel string // the published arm and its model
	AcrossModels     bool
	stats.Comparison
}

// comparePublished compares every arm of the rows that are not rescored
// with every published arm on the same dataset; Holm p adjusts over the
// published arms one medteam arm is compared with. Nil when the rows hold
// no published arm or nothing else.
func comparePublished(rows []results.QuestionRow, armOrder []string, boot stats.Bootstrap) []PublishedComparison {
	by := map[armKey][]results.QuestionRow{}
	var mine, pub []armKey
	for _, q := range rows {
		k := armKey{q.Dataset, q.Model, q.Arm}
		if _, ok := by[k]; !ok {
			if q.Protocol == PublishedProtocol {
				pub = append(pub, k)
			} else {
				mine = append(mine, k)
			}
		}
		by[k] = append(by[k], q)
	}
	if len(mine) == 0 || len(pub) == 0 {
		return nil
	}
	order := func(a, b armKey) int {
		if a.dataset != b.dataset {
			return strings.Compare(a.dataset, b.dataset)
		}
		if a.model != b.model {
			return strings.Compare(a.model, b.model)
		}
		return slices.Index(armOrder, a.arm) - slices.Index(armOrder, b.arm)
	}
	slices.SortFunc(mine, order)
	slices.SortFunc(pub, order)
	var out []PublishedComparison
	for _, m := range mine {
		var fam []PublishedComparison
		for _, p := range pub {
			if p.dataset != m.dataset {
				continue
			}
			c := stats.Compare(by[p], by[m], boot)
			if c.Matched == 0 {
				continue
			}
			fam = append(fam, PublishedComparison{Arm: m.arm, Model: m.model, PubArm: p.arm, PubModel: p.model, AcrossModels: p.model != m.model, Comparison: c})
		}
		out = append(out, holmPublished(fam)...)
	}
	return out
}

// holmPublished sets the Holm-adjusted p over one medteam arm's family.
func holmPublished(fam []PublishedComparison) []PublishedComparison {
	p := make([]float64, len(fam))
	same := make([]int, len(fam))
	for i, c := range fam {
		p[i], same[i] = c.Accuracy.McNemarP, i
		if c.Accuracy.N == 0 {
			p[i] = math.NaN()
		}
	}
	for i, v := range stats.HolmGrouped(p, same) {
		fam[i].HolmP = v
	}
	return fam
}

// publishedSection is every medteam arm against every published arm.
func (r *Report) publishedSection() *Section {
	if len(r.Published) == 0 {
		return nil
	}
	cost := map[stats.GroupKey]string{}
	for _, g := range r.Groups {
		cost[g.Key] = costCell(g.Cost)
	}
	t := Table{Header: []string{"dataset", "arm (model)", "published arm (model)", "pairs", "accuracy published → arm", "Δ (pp)", "95% CI (bootstrap, unadjusted)",
		"McNemar p", "Holm p", "b / c", "cost/q published", "cost/q arm", "note"}}
	across := 0
	for _, c := range r.Published {
		pb := c.Accuracy
		note := ""
		if c.AcrossModels {
			note, across = AcrossModelsNote, across+1
		}
		t.Rows = append(t.Rows, []string{c.Dataset, c.Arm + " (" + c.Model + ")", c.PubArm + " (" + c.PubModel + ")", fmt.Sprint(c.Matched),
			pct(pb.RefRate) + " → " + pct(pb.CandRate), pp(pb.Delta.Value), deltaCI(pb), pval(pb.McNemarP), pval(c.HolmP),
			fmt.Sprintf("%d / %d", pb.B, pb.C), cost[stats.GroupKey{Dataset: c.Dataset, Model: c.PubModel, Arm: c.PubArm}],
			cost[stats.GroupKey{Dataset: c.Dataset, Model: c.Model, Arm: c.Arm}], note})
	}
	text := "Each arm of the medteam runs against each arm of the published runs (rows rescored by `medteam rescore`: the publishers' methods) " +
		"on the same dataset, paired on question × repeat (the question ids medteam's loader gives the published question file). " +
		"Δ = arm − published arm in percentage points with its paired bootstrap interval; p is the clustered McNemar test (b: published right, arm wrong; c: the reverse); " +
		"Holm p adjusts over the published arms one arm is compared with; the intervals are unadjusted. Cost per question at the price table (`--prices`), a published record's own cost where it has one."
	if across > 0 {
		text += fmt.Sprintf(" %d of these comparisons are **across models** (the arm's model is not the published arm's): "+
			"they compare systems — a model with a protocol — not protocols; a difference may be the model's.", across)
	}
	if r.Simulated {
		text += " The medteam side is SIMULATED (sim/… models): these are not model results."
	}
	return &Section{ID: SecPublished, Heading: "Against published runs", Text: text, Tables: []Table{t}}
}

// noteOwnCost notes the arms whose cost counts published records' own
// cost (protocol_json cost_usd: MedAgentsBench's AFlow and SPO record a cost,
// not tokens), which the DuckDB query, from the tokens alone, leaves out.
func (r *Report) noteOwnCost(rows []results.QuestionRow, prices Prices) {
	if len(prices) == 0 {
		return
	}
	var arms []string
	for i := range rows {
		q := &rows[i]
		if q.Protocol != PublishedProtocol || !strings.Contains(q.ProtocolJSON, `"cost_usd"`) {
			continue
		}
		if a := q.Arm + " (" + q.Model + ")"; !slices.Contains(arms, a) {
			arms = append(arms, a)
		}
	}
	if len(arms) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("cost/q of %s counts the published records' own cost (their cost field; they record no tokens), as the publishers' scorer does; the DuckDB query, from the tokens alone, gives 0 for them",
			strings.Join(arms, ", ")))
	}
}

// SecPublished is the ID of the section of comparisons with published runs.
const SecPublished = "published"
