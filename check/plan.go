package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/stats"
)

// Plan is what a run will write, as a thresholds file sees it: the arm
// labels, model names and datasets of its rows, and how many units each
// group (dataset × model × arm) will hold. 'medteam run --check' builds it
// from the resolved plan before anything is sent.
type Plan struct {
	Arms, Models []string
	Datasets     []PlanDataset
	Repeats      int
	// Priced is true when every model has a price (cost_per_q is defined).
	Priced bool
}

// PlanDataset is one dataset of a plan.
type PlanDataset struct {
	Name      string
	Questions int
	Triage    bool     // some question is a triage item
	Subjects  []string // the questions' subjects, each once ("" left out)
}

// shareMetrics are the metrics that are shares (0–1) of a group's rows.
var shareMetrics = []Metric{Accuracy, Coverage, SelectiveAccuracy, ErrorRate, AbstentionRate, UnderTriage, OverTriage, Safe, DiagnosisMatch}

// ValidatePlan lists every reason the thresholds cannot apply to a run of
// p, each an *Error at the line of the value at fault: an arm, model,
// dataset or subject the plan has not, an ambiguous arm, a triage metric on
// a plan without triage items, cost_per_q without prices, and a bound no
// result of the plan's size can meet (a share beyond 0–1, or an interval
// end beyond what even all or none of the units correct gives). It is
// pure: the same thresholds and plan give the same problems. nil: the
// thresholds apply.
func ValidatePlan(th []Threshold, p Plan) []error {
	var out []error
	for _, t := range th {
		out = append(out, planProblems(t, p)...)
	}
	return out
}

// planProblems is ValidatePlan for one threshold.
func planProblems(t Threshold, p Plan) []error {
	var out []error
	add := func(line int, format string, a ...any) {
		if line == 0 {
			line = t.Line
		}
		out = append(out, errorf(t.File, line, format, a...))
	}
	selectorProblems(t, p, add)
	ds := selectDatasets(t, p.Datasets)
	if t.Metric == CostPerQ && !p.Priced {
		add(t.metricLine, "cost_per_q needs a price for every model of the plan (%s); give --prices FILE (see configs/prices.yaml)", strings.Join(p.Models, ", "))
	}
	if slices.Contains(TriageMetrics, t.Metric) && len(ds) > 0 && !slices.ContainsFunc(ds, func(d PlanDataset) bool { return d.Triage }) {
		add(t.metricLine, "metric %s needs triage items, and the plan's datasets %s have none; select a triage dataset (dataset: semigran) or run one", t.Metric, strings.Join(datasetNames(ds), ", "))
	}
	if msg := unreachable(t, ds, p.Repeats); msg != "" {
		add(t.boundLine, "bound %q %s", t.Bound, msg)
	}
	return out
}

// selectorProblems reports, through add, the arms, model, dataset and
// subject the threshold names that the plan has not.
func selectorProblems(t Threshold, p Plan, add func(line int, format string, a ...any)) {
	names, line := []string{t.Arm}, t.armLine
	if t.Compare != nil {
		names, line = t.Compare, t.compareLine
	}
	for _, name := range names {
		if err := planArm(name, p.Arms); err != "" {
			add(line, "%s", err)
		}
	}
	if t.Model != "" && !slices.Contains(p.Models, t.Model) {
		add(t.modelLine, "unknown model %q; the plan runs %s", t.Model, strings.Join(p.Models, ", "))
	}
	ds := selectDatasets(t, p.Datasets)
	if t.Dataset != "" && len(ds) == 0 {
		add(t.datasetLine, "unknown dataset %q; the plan runs %s", t.Dataset, strings.Join(datasetNames(p.Datasets), ", "))
	}
	if t.Subject != "" && len(ds) > 0 && !slices.ContainsFunc(ds, func(d PlanDataset) bool { return slices.Contains(d.Subjects, t.Subject) }) {
		add(t.Line, "no question of the plan has subject %q; its subjects are %s", t.Subject, subjectList(ds))
	}
}

// planArm says why name is not one arm of the plan ("" when it is).
func planArm(name string, arms []string) string {
	if name == "" {
		return ""
	}
	a, err := resolveArm(name, arms)
	if err != nil {
		return err.Error()
	}
	if !slices.Contains(arms, a) {
		return fmt.Sprintf("unknown arm %q; the plan runs %s (add the arm to --config, or drop the threshold)", name, strings.Join(arms, ", "))
	}
	return ""
}

// selectDatasets are the plan's datasets the threshold's dataset selector
// picks.
func selectDatasets(t Threshold, ds []PlanDataset) []PlanDataset {
	var out []PlanDataset
	for _, d := range ds {
		if match(t.Dataset, d.Name) {
			out = append(out, d)
		}
	}
	return out
}

func datasetNames(ds []PlanDataset) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Name
	}
	return out
}

func subjectList(ds []PlanDataset) string {
	var all []string
	for _, d := range ds {
		for _, s := range d.Subjects {
			if !slices.Contains(all, s) {
				all = append(all, s)
			}
		}
	}
	if len(all) == 0 {
		return "none (no question has a subject, step or category)"
	}
	slices.Sort(all)
	if len(all) > 8 {
		return strings.Join(all[:8], ", ") + fmt.Sprintf(", … (%d in all)", len(all))
	}
	return strings.Join(all, ", ")
}

// unreachable says why no result of a run over the datasets ds (with
// repeats) can meet the threshold's bound ("" when one can): a share
// bounded beyond 0–1, or an interval end beyond the Wilson interval of
// all (ci_low) or none (ci_high) of a group's units. The interval the gate
// uses is no narrower (the design effect of repeats widens it, and a group
// holds at most every unit of its dataset), so a bound that fails here
// fails on every run of the plan.
func unreachable(t Threshold, ds []PlanDataset, repeats int) string {
	if !slices.Contains(shareMetrics, t.Metric) {
		return ""
	}
	if t.Compare != nil {
		return ""
	}
	if t.Bound.Side == Value {
		if !shareReachable(t.Bound) {
			return fmt.Sprintf("cannot hold: %s is a share between 0 and 1", t.Metric)
		}
		return ""
	}
	n := 0
	for _, d := range ds {
		n = max(n, d.Questions*max(1, repeats))
	}
	if n == 0 {
		return ""
	}
	best, when := stats.Wilson(n, n, 0.95).Lo, "all"
	if t.Bound.Side == CIHigh {
		best, when = stats.Wilson(0, n, 0.95).Hi, "none"
	}
	if t.Bound.Holds(best) {
		return ""
	}
	return fmt.Sprintf("cannot hold on this plan: a group has at most %d units, and its 95%% interval's %s is %s when %s of them count; lower the bound or run more questions (--limit, --repeats)",
		n, t.Bound.Side, strconv.FormatFloat(best, 'f', 3, 64), when)
}

// shareReachable reports whether some share in [0, 1] meets b.
func shareReachable(b Bound) bool {
	switch b.Op {
	case ">=":
		return b.Value <= 1
	case ">":
		return b.Value < 1
	case "<=":
		return b.Value >= 0
	}
	return b.Value > 0 // <
}
