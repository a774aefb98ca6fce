package check

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/stats"
)

// Result is one threshold checked on one group or comparison.
type Result struct {
	Name  string // the threshold as written, e.g. "accuracy ci_low >= 0.55"
	Arm   string // the arm (a comparison's candidate): JUnit's classname
	Where string // dataset · model · arm (· subject), or the comparison
	Pos   string // file:line of the threshold; "" for the baseline gate
	// Observed is the number the bound applies to (a point value or an
	// interval end); Bound is the bound's number.
	Observed, Bound float64
	Op              string
	Pass            bool
	// Insufficient marks a check the evidence could not decide (the
	// baseline gate on too few shared questions or units, or an
	// inconclusive interval): neither passed nor failed.
	Insufficient bool
	Detail       string // the estimate with its interval, or why it failed
	// Power is the baseline gate's power to detect a drop of the margin
	// (NaN for a threshold).
	Power float64
	// QuestionsNeeded is the baseline gate's number of questions for 80%
	// power at the null discordance (0 for a threshold or when unknown).
	QuestionsNeeded int
}

// Red is whether the gate fails CI: a check failed, or, with
// requireEvidence, a check could not be decided. Without it an
// inconclusive check passes with a warning.
func Red(rs []Result, requireEvidence bool) bool {
	return Failed(rs) > 0 || (requireEvidence && Insufficient(rs) > 0)
}

// Failed counts the results that failed (not passed, not insufficient).
func Failed(rs []Result) int {
	n := 0
	for _, r := range rs {
		if !r.Pass && !r.Insufficient {
			n++
		}
	}
	return n
}

// Insufficient counts the results the evidence could not decide.
func Insufficient(rs []Result) int {
	n := 0
	for _, r := range rs {
		if r.Insufficient {
			n++
		}
	}
	return n
}

// Validate checks the thresholds against a report before anything is
// evaluated: every selector matches some group, every arm of a comparison is
// in the results and the comparison was made, a cost bound has prices.
// Errors name the threshold's line.
func Validate(r *report.Report, th []Threshold) error {
	for _, t := range th {
		if t.Metric == CostPerQ && !r.Priced {
			return errorf(t.File, t.metricLine, "cost_per_q needs a price table; give --prices (see configs/prices.yaml)")
		}
		if t.Compare != nil {
			for _, a := range t.Compare {
				if !slices.Contains(r.Arms, a) {
					return errorf(t.File, t.compareLine, "unknown arm %q in compare; the results have %s", a, strings.Join(r.Arms, ", "))
				}
			}
			cs := comparisons(r, t)
			if len(cs) == 0 {
				return errorf(t.File, t.Line, "no comparison of %s with %s matches the selectors (dataset %q, model %q)", t.Compare[0], t.Compare[1], t.Dataset, t.Model)
			}
			if slices.Contains(TriageMetrics, t.Metric) && !slices.ContainsFunc(cs, func(c comparisonEstimate) bool { return c.est.detail == "" }) {
				return errorf(t.File, t.metricLine, "metric %s needs triage items, and the comparisons of %s with %s have none; select a triage dataset (dataset: semigran)", t.Metric, t.Compare[0], t.Compare[1])
			}
			continue
		}
		if t.Arm != "" && !slices.Contains(r.Arms, t.Arm) {
			return errorf(t.File, t.armLine, "unknown arm %q; the results have %s", t.Arm, strings.Join(r.Arms, ", "))
		}
		gs := groups(r, t)
		if len(gs) == 0 {
			return errorf(t.File, t.Line, "no group matches the selectors (arm %q, model %q, dataset %q, subject %q); the results have datasets %s and models %s",
				t.Arm, t.Model, t.Dataset, t.Subject, strings.Join(r.Datasets, ", "), strings.Join(r.Models, ", "))
		}
		if err := validateTriage(t, gs); err != nil {
			return err
		}
	}
	return nil
}

// validateTriage refuses a triage metric on groups without triage rows.
func validateTriage(t Threshold, gs []stats.Group) error {
	if !slices.Contains(TriageMetrics, t.Metric) {
		return nil
	}
	if !slices.ContainsFunc(gs, func(g stats.Group) bool { return g.Triage != nil }) {
		return errorf(t.File, t.metricLine, "metric %s needs triage items, and no group the threshold selects has any; select a triage dataset (dataset: semigran)", t.Metric)
	}
	return nil
}

// Evaluate checks every threshold on every group (or comparison) it
// selects, in file order. A threshold that selects nothing gives one failed
// result (Validate reports it up front). A value the data cannot define
// (NaN) fails.
func Evaluate(r *report.Report, th []Threshold) []Result {
	var out []Result
	for _, t := range th {
		n := len(out)
		if t.Compare != nil {
			for _, c := range comparisons(r, t) {
				out = append(out, judge(t, c.est, c.arm, c.where))
			}
		} else {
			for _, g := range groups(r, t) {
				out = append(out, judge(t, groupEstimate(g, t.Metric), g.Key.Arm, groupWhere(g.Key)))
			}
		}
		if len(out) == n {
			out = append(out, Result{Name: t.Name(), Arm: t.Arm, Pos: t.Pos(), Observed: math.NaN(), Bound: t.Bound.Value, Op: t.Bound.Op,
				Detail: "no group or comparison matches the selectors"})
		}
	}
	return out
}

// estimate is a metric's value with its interval (NaN when it has none).
type estimate struct {
	value  float64
	ci     stats.Interval
	detail string // why the value is missing, when it is
}

// judge checks one threshold on one estimate.
func judge(t Threshold, e estimate, arm, where string) Result {
	x := e.value
	switch t.Bound.Side {
	case CILow:
		x = e.ci.Lo
	case CIHigh:
		x = e.ci.Hi
	}
	res := Result{Name: t.Name(), Arm: arm, Where: where, Pos: t.Pos(), Observed: x, Bound: t.Bound.Value, Op: t.Bound.Op, Pass: t.Bound.Holds(x)}
	switch {
	case e.detail != "":
		res.Detail = e.detail
	case math.IsNaN(x):
		res.Detail = "undefined on these rows"
	case e.ci.Defined():
		res.Detail = fmt.Sprintf("%s [%s, %s]", Format(e.value), Format(e.ci.Lo), Format(e.ci.Hi))
	default:
		res.Detail = Format(e.value)
	}
	return res
}

// Format prints a number for the table: 4 significant digits, whole
// numbers from 1000 on.
func Format(x float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case math.Abs(x) >= 1000:
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.4g", x)
}

// groups are the groups a threshold selects: the per-subject groups with a
// subject selector, the overall ones without.
func groups(r *report.Report, t Threshold) []stats.Group {
	src := r.Groups
	if t.Subject != "" {
		src = r.Subjects
	}
	var out []stats.Group
	for _, g := range src {
		k := g.Key
		if match(t.Arm, k.Arm) && match(t.Model, k.Model) && match(t.Dataset, k.Dataset) && match(t.Subject, k.Subject) {
			out = append(out, g)
		}
	}
	return out
}

func match(sel, v string) bool { return sel == "" || sel == v }

func groupWhere(k stats.GroupKey) string {
	s := k.Dataset + " · " + k.Model + " · " + k.Arm
	if k.Subject != "" {
		s += " · " + k.Subject
	}
	return s
}

// groupEstimate is a group's metric.
func groupEstimate(g stats.Group, m Metric) estimate {
	nan := stats.Interval{Lo: math.NaN(), Hi: math.NaN()}
	rate := func(n int) float64 {
		if g.Rows == 0 {
			return math.NaN()
		}
		return float64(n) / float64(g.Rows)
	}
	switch m {
	case Accuracy:
		return estimate{value: g.Accuracy, ci: g.AccuracyCI}
	case SelectiveAccuracy:
		return estimate{value: g.SelectiveAccuracy, ci: g.SelectiveCI}
	case Coverage:
		return estimate{value: g.Coverage, ci: nan}
	case ErrorRate:
		return estimate{value: rate(g.Errors), ci: nan}
	case AbstentionRate:
		return estimate{value: rate(g.Abstained), ci: nan}
	case CallsPerQ:
		return estimate{value: g.Calls.Mean, ci: nan}
	case TokensPerQ:
		return estimate{value: g.Tokens.Mean, ci: nan}
	case LatencyP95:
		return estimate{value: g.WallMS.P95, ci: nan}
	case ECE:
		return estimate{value: g.Calibration.ECE, ci: nan}
	case UnderTriage, OverTriage, Safe, Kappa, DiagnosisMatch:
		return triageEstimate(g.Triage, m)
	case CostPerQ:
		if g.Cost == nil || !g.Cost.Priced {
			return estimate{value: math.NaN(), ci: nan, detail: "not priced: give --prices with every model's price"}
		}
		return estimate{value: g.Cost.PerQuestion, ci: nan}
	}
	return estimate{value: math.NaN(), ci: nan, detail: "unknown metric " + string(m)}
}

// triageEstimate is a triage metric of a group's triage summary.
func triageEstimate(t *stats.Triage, m Metric) estimate {
	nan := stats.Interval{Lo: math.NaN(), Hi: math.NaN()}
	if t == nil {
		return estimate{value: math.NaN(), ci: nan, detail: "no triage rows: " + string(m) + " applies to triage items"}
	}
	rate := func(r stats.Rate) estimate { return estimate{value: r.Value, ci: r.CI} }
	switch m {
	case UnderTriage:
		return rate(t.Under)
	case OverTriage:
		return rate(t.Over)
	case Safe:
		return rate(t.Safe)
	case DiagnosisMatch:
		if t.Diagnosis.N == 0 {
			return estimate{value: math.NaN(), ci: nan, detail: "no row's diagnosis was scored"}
		}
		return rate(t.Diagnosis)
	}
	return estimate{value: t.Kappa, ci: nan}
}

// comparisonEstimate is one comparison a threshold selects.
type comparisonEstimate struct {
	est        estimate
	arm, where string
}

// comparisons are the comparisons of t.Compare[0] with t.Compare[1] on the
// datasets × models the selectors allow. A comparison made the other way
// round (reference against candidate) is negated: the bootstrap percentile
// interval of −Δ is the negated interval of Δ.
func comparisons(r *report.Report, t Threshold) []comparisonEstimate {
	cand, ref := t.Compare[0], t.Compare[1]
	var out []comparisonEstimate
	seen := map[[2]string]bool{}
	for _, c := range r.Comparisons {
		if !match(t.Model, c.Model) || !match(t.Dataset, c.Dataset) || seen[[2]string{c.Dataset, c.Model}] {
			continue
		}
		var sign float64
		switch {
		case c.Candidate == cand && c.Reference == ref:
			sign = 1
		case c.Candidate == ref && c.Reference == cand:
			sign = -1
		default:
			continue
		}
		seen[[2]string{c.Dataset, c.Model}] = true
		e := comparisonMetric(c, t.Metric)
		e.value *= sign
		if sign < 0 {
			e.ci = stats.Interval{Lo: -e.ci.Hi, Hi: -e.ci.Lo}
		}
		out = append(out, comparisonEstimate{est: estimate{value: e.value, ci: e.ci, detail: e.detail}, arm: cand,
			where: fmt.Sprintf("%s · %s · %s − %s (%d pairs)", c.Dataset, c.Model, cand, ref, c.Matched)})
	}
	return out
}

// comparisonMetric is the paired estimate of a metric: the value and the
// question-bootstrap interval.
func comparisonMetric(c stats.Comparison, m Metric) estimate {
	var e stats.Estimate
	switch m {
	case Accuracy:
		e = c.Accuracy.Delta
	case CallsPerQ:
		e = c.Calls
	case TokensPerQ:
		e = c.Tokens
	case Safe, UnderTriage:
		if c.Triage == nil {
			return estimate{value: math.NaN(), ci: stats.Interval{Lo: math.NaN(), Hi: math.NaN()}, detail: "no triage rows in the comparison"}
		}
		e = c.Triage.Safe.Delta
		if m == UnderTriage {
			e = c.Triage.Under.Delta
		}
	default:
		return estimate{value: math.NaN(), ci: stats.Interval{Lo: math.NaN(), Hi: math.NaN()}}
	}
	return estimate{value: e.Value, ci: e.Boot}
}

// References are the reference arms the thresholds' comparisons need, in
// file order, each once: a report built with each of them as its reference
// holds every comparison Evaluate looks for.
func References(th []Threshold) []string {
	var out []string
	for _, t := range th {
		if t.Compare != nil && !slices.Contains(out, t.Compare[1]) {
			out = append(out, t.Compare[1])
		}
	}
	return out
}

// ResolveArms finds the arms the thresholds name among the results' arms
// as 'medteam report' finds its reference arm: an arm named exactly, else
// the one arm whose label without its settings ("full" of "full/n3") or
// without its run ("full/n3" of "full/n3@run-…") is the name. A name that
// matches several arms is an error at its file:line naming them; a name
// that matches none is left for Validate to report. The thresholds are
// returned with the arms' full labels.
func ResolveArms(th []Threshold, arms []string) ([]Threshold, error) {
	out := slices.Clone(th)
	for i := range out {
		t := &out[i]
		a, err := resolveArm(t.Arm, arms)
		if err != nil {
			return nil, errorf(t.File, t.armLine, "%v", err)
		}
		t.Arm = a
		if t.Compare != nil {
			cmp := slices.Clone(t.Compare)
			for j := range cmp {
				if cmp[j], err = resolveArm(cmp[j], arms); err != nil {
					return nil, errorf(t.File, t.compareLine, "%v", err)
				}
			}
			t.Compare = cmp
		}
	}
	return out, nil
}

// resolveArm is ResolveArms for one name.
func resolveArm(name string, arms []string) (string, error) {
	if name == "" || slices.Contains(arms, name) {
		return name, nil
	}
	var found []string
	for _, a := range arms {
		label, _, _ := strings.Cut(a, "@")
		config, _, _ := strings.Cut(label, "/")
		if label == name || config == name {
			found = append(found, a)
		}
	}
	switch len(found) {
	case 0:
		return name, nil
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("arm %q is ambiguous: it names %s; write one of them", name, strings.Join(found, ", "))
}
