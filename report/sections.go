package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/medteam-bench/medteam/escape"
	"github.com/medteam-bench/medteam/stats"
)

// Section is one part of a rendered report: a heading, text, then tables.
// Text uses the small Markdown subset report/htmlpage reads too:
// paragraphs separated by blank lines, lines starting with "- " form a
// list, lines between ``` fences are code, `backticks` mark inline code.
// The same sections render as report.md (WriteMarkdown), as the tables of
// report.html, and in part on the terminal (WriteText).
type Section struct {
	ID      string // stable name: "summary", "headline", "sql", "comparisons", …
	Heading string
	Text    string
	Tables  []Table
}

// Table is a header and rows of cells, all text.
type Table struct {
	Caption string
	Header  []string
	Rows    [][]string
}

// Section IDs.
const (
	SecSummary     = "summary"
	SecHeadline    = "headline"
	SecSQL         = "sql"
	SecComparisons = "comparisons"
	SecModels      = "models"
	SecCost        = "cost"
	SecErrors      = "errors"
	SecCalibration = "calibration"
	SecConvergence = "convergence"
	SecComponents  = "components"
	SecFactorial   = "factorial"
	SecSubjects    = "subjects"
	SecPower       = "power"
)

// Sections lays the report out for reading, in order; a section without
// content is left out.
func Sections(r *Report) []Section {
	out := []Section{r.summarySection(), r.headlineSection(), r.sqlSection()}
	for _, s := range []*Section{
		r.comparisonSection(), r.triageSection(), r.modelSection(), r.publishedSection(), r.rescoredSection(), r.costSection(), r.errorSection(),
		r.calibrationSection(), r.convergenceSection(), r.componentSection(),
		r.factorialSection(), r.subjectSection(), r.positionSection(), r.powerSection(),
		r.routeSection(), r.smmSection(),
	} {
		if s != nil {
			out = append(out, *s)
		}
	}
	return out
}

// Title is the report's title.
func (r *Report) Title() string {
	t := "medteam report"
	if r.Simulated {
		t += " (SIMULATED)"
	}
	if len(r.NotComplete()) > 0 {
		t += " (INCOMPLETE RUN)"
	}
	return t
}

// NotComplete lists the runs whose status says they are not complete
// (stopped, killed, failed, or the manifest records no status), each as
// "name: status". A run given without a status (State "", as in-memory
// reports are) is not listed.
func (r *Report) NotComplete() []string {
	var out []string
	for _, run := range r.Runs {
		if run.Status.State != "" && !run.Status.Complete() {
			out = append(out, run.Name+": "+run.Status.String())
		}
	}
	return out
}

// IncompleteText is the warning a report of runs not all complete opens
// with, as plain text ("" when none is listed by NotComplete): the terminal
// says what report.md and report.html say.
func (r *Report) IncompleteText() string {
	nc := r.NotComplete()
	if len(nc) == 0 {
		return ""
	}
	return fmt.Sprintf("INCOMPLETE run. Not every planned unit of the run is in these figures, so they describe only the units done (%s). Resume the run and export it again before relying on them.",
		strings.Join(nc, ", "))
}

// mdList is names, each escaped as Markdown text, joined by ", ".
func mdList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = escape.Markdown(n)
	}
	return strings.Join(out, ", ")
}

// summarySection says what was run and how it is analysed.
func (r *Report) summarySection() Section {
	var b strings.Builder
	if nc := r.NotComplete(); len(nc) > 0 {
		fmt.Fprintf(&b, "**INCOMPLETE run.** Not every planned unit of the run is in these figures, so they describe only the units done (%s). Resume the run and export it again before relying on them.\n\n", mdList(nc))
	}
	if r.Simulated {
		b.WriteString("**SIMULATED results.** These rows come from medteam's simulated team (`sim/…` models), not from a language model: the numbers test the harness and its statistics, they are not model results.\n\n")
	}
	names := make([]string, len(r.Runs))
	for i, run := range r.Runs {
		names[i] = "`" + escape.Code(run.Name) + "`"
	}
	if len(names) > 0 {
		fmt.Fprintf(&b, "- runs: %s\n", strings.Join(names, ", "))
	}
	fmt.Fprintf(&b, "- datasets: %s; models: %s\n", mdList(r.Datasets), mdList(r.Models))
	fmt.Fprintf(&b, "- %d arms, %d question rows over %d questions\n", len(r.Arms), r.Rows, r.Questions)
	fmt.Fprintf(&b, "- reference arm: `%s`", escape.Code(r.Reference))
	if r.ReferenceModel != "" {
		fmt.Fprintf(&b, "; reference model: `%s`", escape.Code(r.ReferenceModel))
	}
	fmt.Fprintf(&b, "\n- intervals: %g%%; paired bootstrap over questions with %d replicates, seed %d\n", 100*r.Level, r.Reps, r.Seed)
	b.WriteString("- a failed or abstained row counts as not correct and stays in every denominator\n")
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "- note: %s\n", escape.Markdown(n))
	}
	return Section{ID: SecSummary, Heading: "Summary", Text: strings.TrimRight(b.String(), "\n")}
}

// multi reports whether the rows span several datasets or models, so that
// tables name them.
func (r *Report) multi() bool { return len(r.Datasets) > 1 || len(r.Models) > 1 }

// lead prefixes a header or row with the dataset and model when the
// report has several.
func (r *Report) lead(dataset, model string, cells ...string) []string {
	if r.multi() {
		return append([]string{dataset, model}, cells...)
	}
	return cells
}

// hasRepeats reports whether any group has a question with several rows.
func (r *Report) hasRepeats() bool {
	for _, g := range r.Groups {
		if g.Repeats > 1 {
			return true
		}
	}
	return false
}

// headlineSection is the table every reader starts with.
func (r *Report) headlineSection() Section {
	rep := r.hasRepeats()
	h := []string{"arm", "n", "accuracy [95% CI]"}
	if rep {
		h = append(h, "clustered SE (pp)", "deff")
	}
	h = append(h, "coverage", "selective acc.", "calls/q", "tokens/q", "cost/q")
	t := Table{Header: r.lead("dataset", "model", h...)}
	for _, g := range r.Groups {
		row := []string{g.Key.Arm, fmt.Sprint(g.Rows), pctCI(g.Correct, g.Rows, g.AccuracyCI)}
		if rep {
			row = append(row, fnum(100*g.ClusteredSE, 1), deffCell(g))
		}
		row = append(row, pctKN(g.Answered, g.Rows), pctKN(g.Correct, g.Answered),
			fnum(g.Calls.Mean, 2), fnum(g.Tokens.Mean, 0), costCell(g.Cost))
		t.Rows = append(t.Rows, r.lead(g.Key.Dataset, g.Key.Model, row...))
	}
	text := "n = question rows (questions × repeats). Accuracy = correct / n with a design-effect-corrected Wilson 95% interval " +
		"(Wilson's score interval on the effective n = n / deff, deff the question-cluster design effect, at least 1: " +
		"exactly Wilson's with one row per question); " +
		"coverage = answered / n; selective accuracy = correct / answered; calls and tokens (prompt + completion, as the API reported them) per question row."
	if rep {
		text += " With repeats, the clustered SE is the question-clustered (CR1) standard error of accuracy and deff its variance over that of as many independent rows: " +
			"repeats of a question are not independent draws, the question is the unit."
		if r.hasDeffBound() {
			text += fmt.Sprintf(" A deff marked \"bound\" is not estimated: with fewer than %d questions (or every row alike) the variance ratio is noise, "+
				"so deff is the conservative bound rows per question (each question's repeats counted as one draw).", stats.MinDeffClusters)
		}
	}
	return Section{ID: SecHeadline, Heading: "Headline", Text: text, Tables: []Table{t}}
}

// deffCell is a group's design effect, "(bound)" when it is the
// conservative rows-per-question bound rather than an estimate.
func deffCell(g stats.Group) string {
	if g.DeffBound {
		return fnum(g.DesignEffect, 2) + " (bound)"
	}
	return fnum(g.DesignEffect, 2)
}

// hasDeffBound is true when some group's deff is the bound.
func (r *Report) hasDeffBound() bool {
	for _, g := range r.Groups {
		if g.DeffBound {
			return true
		}
	}
	return false
}

// costCell is a group's cost per question row.
func costCell(c *stats.Cost) string {
	if c == nil || c.Total == 0 && !c.Priced {
		return dash
	}
	s := usd(c.PerQuestion)
	if !c.Priced {
		s += fmt.Sprintf(" (%d rows unpriced)", c.Unpriced)
	}
	return s
}

// sqlSection shows the DuckDB query under the headline table.
func (r *Report) sqlSection() Section {
	return Section{ID: SecSQL, Heading: "Recompute the headline with DuckDB",
		Text: "The point estimates of the headline table, from `questions.parquet` alone (rows in name order):\n\n```sql\n" + strings.TrimRight(r.SQL, "\n") + "\n```"}
}

// comparisonSection is every arm against the reference.
func (r *Report) comparisonSection() *Section {
	if len(r.Comparisons) == 0 {
		return nil
	}
	t := Table{Header: r.lead("dataset", "model", "arm", "pairs", "accuracy ref → arm", "Δ (pp)", "95% CI (bootstrap, unadjusted)",
		"McNemar p", "Holm p", "MDE", "b / c", "Δ calls/q [95% CI]", "Δ tokens/q [95% CI]", "note")}
	for _, c := range r.Comparisons {
		t.Rows = append(t.Rows, r.lead(c.Dataset, c.Model, comparisonCells(c.Candidate, c)...))
	}
	text := fmt.Sprintf("Each arm against `%s` on the same questions, paired on question × repeat. "+
		"Δ = arm − %s in percentage points; its interval is a paired bootstrap that resamples questions (%d replicates, seed %d). "+
		"p is the clustered McNemar test on the discordant pairs b (%s right, arm wrong) and c (%s wrong, arm right): "+
		"Durkalski et al.'s (2003) statistic with its exact sign-flip distribution over questions, the exact McNemar test with one repeat. "+
		"Holm p adjusts it over every arm compared on the dataset × model, arms of equivalent configuration counted once (see note); "+
		"the intervals are unadjusted (each holds at 95%% on its own, not jointly over the arms). "+
		"With no discordant pair (b = c = 0) every paired difference is 0 and the bootstrap interval would be [0, 0]: "+
		"the interval is then Newcombe's (1998) paired interval on the question-clustered effective sample size, marked \"no discordant pairs\". "+
		"MDE is the minimum detectable |Δ| at α = 0.05 (two-sided) and 80%% power for these pairs' size and discordance (the design effect of repeats included): "+
		"a |Δ| below it is not evidence of no effect; \"none\" means no difference reaches that power at this size and discordance. "+
		"Δ calls and Δ tokens per question row with bootstrap intervals.",
		r.Reference, r.Reference, r.Reps, r.Seed, r.Reference, r.Reference)
	return &Section{ID: SecComparisons, Heading: "Comparisons with " + r.Reference, Text: text, Tables: []Table{t}}
}

// comparisonCells are the cells of one comparison after its name.
func comparisonCells(name string, c stats.Comparison) []string {
	pb := c.Accuracy
	note := ""
	if c.IdenticalTo != "" {
		note = "same configuration as " + c.IdenticalTo
	}
	return []string{name, fmt.Sprint(c.Matched), pct(pb.RefRate) + " → " + pct(pb.CandRate), pp(pb.Delta.Value), deltaCI(pb),
		pval(pb.McNemarP), pval(c.HolmP), mdeCell(c), fmt.Sprintf("%d / %d", pb.B, pb.C),
		estNum(c.Calls, 2), estNum(c.Tokens, 0), note}
}

// mdeCell is a comparison's MDE, "none" when its pairs are too few or too
// rarely discordant for any difference to reach the power.
func mdeCell(c stats.Comparison) string {
	if math.IsNaN(c.MDD) && c.Matched > 0 {
		return "none"
	}
	return mde(c.MDD)
}

// modelSection is every model against the reference model, arm by arm.
func (r *Report) modelSection() *Section {
	if len(r.ModelComparisons) == 0 {
		return nil
	}
	h := []string{"dataset", "arm", "model", "pairs", "accuracy ref → model", "Δ (pp)", "95% CI (bootstrap, unadjusted)",
		"McNemar p", "Holm p", "MDE", "b / c", "Δ calls/q [95% CI]", "Δ tokens/q [95% CI]", "note"}
	t := Table{Header: h}
	for _, c := range r.ModelComparisons {
		t.Rows = append(t.Rows, append([]string{c.Dataset, c.Arm}, comparisonCells(c.CandModel, c.Comparison)...))
	}
	text := fmt.Sprintf("Each model against `%s` with the same arm on the same questions, paired on question × repeat; "+
		"Holm p adjusts over the models compared for the dataset × arm. Columns as above.", r.ReferenceModel)
	return &Section{ID: SecModels, Heading: "Comparisons across models", Text: text, Tables: []Table{t}}
}
