package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/medteam-bench/medteam/check"
	"github.com/medteam-bench/medteam/plan"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/runner"
)

// thresholds loads the thresholds file of --check (nil without one).
func (o *RunOptions) thresholds() ([]check.Threshold, error) {
	if o.Check == "" {
		return nil, nil
	}
	th, err := check.Load(o.Check)
	if err != nil {
		return nil, usageError{err}
	}
	return th, nil
}

// checkPlan validates the thresholds of --check against the loaded plan
// before anything is created or sent: every problem, each at its
// file:line, as one usage error (exit exitUsage); nil when they apply (a
// dry run says so on w) or without --check.
func (o *RunOptions) checkPlan(w io.Writer, th []check.Threshold, r *plan.Resolved, prices priceTable) error {
	if o.Check == "" {
		return nil
	}
	if problems := check.ValidatePlan(th, checkShape(r, prices)); len(problems) > 0 {
		problems = append(problems, errors.New("the thresholds of --check cannot apply to this run's plan; fix them or the plan (nothing was run)"))
		return usageError{errors.Join(problems...)}
	}
	if o.DryRun {
		fmt.Fprintf(w, "--check %s: its %d threshold(s) apply to this plan\n", o.Check, len(th))
	}
	return nil
}

// checkShape is what the run of r (loaded, its models not yet opened)
// will write, as thresholds see it.
func checkShape(r *plan.Resolved, prices priceTable) check.Plan {
	p := check.Plan{Repeats: r.Spec.Repeats, Priced: len(r.Spec.Models) > 0}
	for _, a := range r.Arms {
		p.Arms = append(p.Arms, a.Label)
	}
	for _, m := range r.Spec.Models { // the rows' model names (the endpoints are not open yet)
		p.Models = append(p.Models, m)
		p.Priced = p.Priced && prices.price(m) != nil
	}
	for _, s := range r.Sets {
		p.Datasets = append(p.Datasets, planDataset(s))
	}
	return p
}

// planDataset is one question set as thresholds see it.
func planDataset(s runner.QuestionSet) check.PlanDataset {
	d := check.PlanDataset{Name: s.Name, Questions: len(s.Questions)}
	for _, q := range s.Questions {
		d.Triage = d.Triage || q.Kind == qa.KindTriage
		if sub := runner.Subject(q.Meta); sub != "" && !slices.Contains(d.Subjects, sub) {
			d.Subjects = append(d.Subjects, sub)
		}
	}
	return d
}
