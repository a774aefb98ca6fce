package report

import (
	"fmt"
	"strings"

	"github.com/medteam-bench/medteam/report/plot"
	"github.com/medteam-bench/medteam/stats"
)

// SecTriage is the triage section's ID.
const SecTriage = "triage"

// hasTriage reports whether some group has triage rows.
func hasTriage(gs []stats.Group) bool {
	for _, g := range gs {
		if g.Triage != nil {
			return true
		}
	}
	return false
}

// triageSection is the triage metrics of every group with triage rows,
// the paired safe and under-triage comparisons, the confusion matrices
// and the DuckDB query of the table; nil without triage rows.
func (r *Report) triageSection() *Section {
	if !hasTriage(r.Groups) {
		return nil
	}
	s := &Section{ID: SecTriage, Heading: "Triage", Tables: []Table{r.triageTable()}}
	if t := r.triageComparisonTable(); t != nil {
		s.Tables = append(s.Tables, *t)
	}
	for _, g := range r.Groups {
		if g.Triage != nil {
			s.Tables = append(s.Tables, r.confusionTable(g))
		}
	}
	s.Text = "Triage items: the team routes a case to a level of an ordinal urgency scale (least urgent first). n = question rows; " +
		"accuracy = predicted level = true level; under-triage = predicted less urgent than the truth (the unsafe error); " +
		"over-triage = more urgent; safe = at or above the truth (the published benchmark's \"safe\"); each with a design-effect-corrected Wilson 95% interval (Wilson's with one row per case). " +
		"A row with no level (a failure, or no level named) counts in n as not correct, not safe and neither under- nor over-triaged, " +
		"so accuracy + under + over + no level = 100%. κ_w is Cohen's quadratic-weighted kappa over the rows with a level; " +
		"recall is per true level; the diagnosis match is over the rows whose stated diagnosis was scored."
	if r.hasRepeats() {
		s.Text += " With repeats, the clustered SEs are question-clustered (CR1), as for accuracy."
	}
	if r.hasTriageComparisons() {
		s.Text += fmt.Sprintf("\n\nThe paired comparisons with `%s` are as for accuracy (bootstrap over questions, clustered McNemar on the discordant pairs, "+
			"Holm over the arms of the dataset × model; the intervals are unadjusted): a negative Δ under-triage is fewer unsafe errors.", r.Reference)
	}
	s.Text += "\n\nThe table's point estimates from `questions.parquet` alone:\n\n```sql\n" + strings.TrimRight(r.TriageSQL, "\n") + "\n```"
	return s
}

// triageTable is one row per group with triage rows.
func (r *Report) triageTable() Table {
	rep := r.hasRepeats()
	h := []string{"arm", "n", "accuracy [95% CI]", "under-triage [95% CI]", "over-triage [95% CI]", "safe [95% CI]"}
	if rep {
		h = append(h, "clustered SE (pp) acc. / under / safe")
	}
	t := Table{Header: r.lead("dataset", "model", append(h, "κ_w", "recall by level", "diagnosis match", "no level")...)}
	for _, g := range r.Groups {
		tr := g.Triage
		if tr == nil {
			continue
		}
		rec := make([]string, len(tr.Levels))
		for i, l := range tr.Levels {
			rec[i] = l + " " + pctKN(tr.Recall[i].K, tr.Recall[i].N)
		}
		diag := dash
		if d := tr.Diagnosis; d.N > 0 {
			diag = fmt.Sprintf("%s (%d/%d)", pctCI(d.K, d.N, d.CI), d.K, d.N)
		}
		row := []string{g.Key.Arm, fmt.Sprint(tr.N), rateCI(tr.Accuracy), rateCI(tr.Under), rateCI(tr.Over), rateCI(tr.Safe)}
		if rep {
			row = append(row, fnum(100*tr.Accuracy.ClusteredSE, 1)+" / "+fnum(100*tr.Under.ClusteredSE, 1)+" / "+fnum(100*tr.Safe.ClusteredSE, 1))
		}
		row = append(row, fnum(tr.Kappa, 3), strings.Join(rec, " · "), diag, fmt.Sprint(tr.None))
		t.Rows = append(t.Rows, r.lead(g.Key.Dataset, g.Key.Model, row...))
	}
	return t
}

// rateCI is "69.3% [63.0, 75.0]".
func rateCI(x stats.Rate) string { return pctCI(x.K, x.N, x.CI) }

// hasTriageComparisons reports whether some comparison has a triage part.
func (r *Report) hasTriageComparisons() bool {
	for _, c := range r.Comparisons {
		if c.Triage != nil {
			return true
		}
	}
	return false
}

// triageComparisonTable is every arm's safe and under-triage rates
// against the reference's; nil when there is none.
func (r *Report) triageComparisonTable() *Table {
	if !r.hasTriageComparisons() {
		return nil
	}
	t := Table{Caption: "Paired with " + r.Reference, Header: r.lead("dataset", "model", "arm", "pairs", "safe ref → arm", "Δ safe (pp) [95% CI, unadjusted]", "McNemar p", "Holm p",
		"under-triage ref → arm", "Δ under (pp) [95% CI, unadjusted]", "McNemar p", "Holm p", "note")}
	for _, c := range r.Comparisons {
		tc := c.Triage
		if tc == nil {
			continue
		}
		note := ""
		if c.IdenticalTo != "" {
			note = "same configuration as " + c.IdenticalTo
		}
		t.Rows = append(t.Rows, r.lead(c.Dataset, c.Model, c.Candidate, fmt.Sprint(tc.Safe.N),
			pct(tc.Safe.RefRate)+" → "+pct(tc.Safe.CandRate), pp(tc.Safe.Delta.Value)+" "+deltaCI(tc.Safe), pval(tc.Safe.McNemarP), pval(tc.SafeHolmP),
			pct(tc.Under.RefRate)+" → "+pct(tc.Under.CandRate), pp(tc.Under.Delta.Value)+" "+deltaCI(tc.Under), pval(tc.Under.McNemarP), pval(tc.UnderHolmP),
			note))
	}
	return &t
}

// confusionTable is a group's confusion matrix: true level by row,
// predicted level by column, and the rows with no level.
func (r *Report) confusionTable(g stats.Group) Table {
	tr := g.Triage
	t := Table{Caption: "Confusion: " + r.groupName(g.Key) + " (rows: true level, columns: predicted)",
		Header: append(append([]string{"true \\ predicted"}, tr.Levels...), "no level", "recall")}
	for i, l := range tr.Levels {
		row := []string{l}
		for _, c := range tr.Confusion[i] {
			row = append(row, fmt.Sprint(c))
		}
		t.Rows = append(t.Rows, append(row, pctKN(tr.Recall[i].K, tr.Recall[i].N)))
	}
	return t
}

// groupName is a group's arm, with its dataset and model when the report
// has several.
func (r *Report) groupName(k stats.GroupKey) string {
	if r.multi() {
		return k.Dataset + " · " + k.Model + " · " + k.Arm
	}
	return k.Arm
}

// TriageSQL is the DuckDB query that recomputes the triage table's point
// estimates from the runs' questions.parquet files, with the definitions
// of stats.TriageMetrics: the triage rows (item_kind 'triage'), a row
// having a level when it neither failed nor abstained and its
// predicted_rank is on the scale; every triage row in the denominator,
// the diagnosis match over the rows where it is not null. Arms are
// relabelled arm@run_id as in HeadlineSQL.
func TriageSQL(runs []RunInfo) string {
	var b strings.Builder
	writeSelectRows(&b, runs)
	b.WriteString(",\n    NOT abstained AND coalesce(error, '') = '' AND coalesce(error_class, '') = ''\n")
	b.WriteString("      AND predicted_rank >= 0 AND predicted_rank < urgency_levels AS has_level\n")
	fmt.Fprintf(&b, "  FROM read_parquet([%s])\n", parquetList(runs))
	b.WriteString("  WHERE item_kind = 'triage' AND urgency_rank >= 0\n")
	if len(runs) > 1 {
		b.WriteString("  WINDOW w AS (PARTITION BY dataset, model, arm)\n")
	}
	b.WriteString(")\nSELECT dataset, model, arm,\n  count(*) AS n,\n")
	for _, m := range [][2]string{{"=", "accuracy_pct"}, {"<", "under_triage_pct"}, {">", "over_triage_pct"}, {">=", "safe_pct"}} {
		fmt.Fprintf(&b, "  round(100 * count_if(has_level AND predicted_rank %s urgency_rank) / count(*), 1) AS %s,\n", m[0], m[1])
	}
	b.WriteString("  count_if(NOT has_level) AS no_level,\n")
	b.WriteString("  round(100 * count_if(diagnosis_match) / nullif(count(diagnosis_match), 0), 1) AS diagnosis_match_pct\n")
	b.WriteString("FROM q\nGROUP BY dataset, model, arm\nORDER BY dataset, model, arm;\n")
	return b.String()
}

// triageFigures draws each triage group's confusion matrix (the levels
// most urgent first; rows with no level are left out of the picture and
// named in the caption).
func triageFigures(r *Report, label func(stats.GroupKey) string, add func(sec, name, caption string, f plot.Figure)) {
	for _, g := range r.Groups {
		tr := g.Triage
		if tr == nil {
			continue
		}
		k := len(tr.Levels)
		m := plot.Confusion{Labels: make([]string, k), Counts: make([][]int, k), RowTitle: "true urgency", ColTitle: "predicted urgency"}
		for i := range k {
			m.Labels[i] = tr.Levels[k-1-i]
			m.Counts[i] = make([]int, k)
			for j := range k {
				m.Counts[i][j] = tr.Confusion[k-1-i][k-1-j]
			}
		}
		caption := fmt.Sprintf("%s: true urgency (rows) against predicted (columns), most urgent first; %d of %d rows with no level not drawn.", label(g.Key), tr.None, tr.N)
		add(SecTriage, "confusion-"+fileStem(label(g.Key)), caption, plot.ConfusionMatrixFigure(m))
	}
}
