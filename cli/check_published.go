package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/check"
	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/results"
)

// baselineArm narrows the baseline's rows to the one arm --baseline-arm
// names (on --baseline-model when several models have it) and copies them
// under each arm of the candidate rows, so that check.Baseline gates every
// arm checked against that arm — a published method of a rescored run, say
// (medteam rescore). Without --baseline-arm the rows are returned as they
// are. The notes say what was gated against what, and that a comparison
// across models compares systems, not protocols.
func baselineArm(base, cand []results.QuestionRow, o *CheckOptions) ([]results.QuestionRow, []string, error) {
	if o.BaselineArm == "" {
		if o.BaselineModel != "" {
			return nil, nil, usagef("--baseline-model %s: give --baseline-arm too (the baseline's arm to gate against)", o.BaselineModel)
		}
		return base, nil, nil
	}
	picked, model, err := pickBaselineArm(base, o)
	if err != nil {
		return nil, nil, err
	}
	var out []results.QuestionRow
	var candArms, candModels []string
	for _, r := range cand {
		if !slices.Contains(candArms, r.Arm) {
			candArms = append(candArms, r.Arm)
		}
		if !slices.Contains(candModels, r.Model) {
			candModels = append(candModels, r.Model)
		}
	}
	for _, a := range candArms {
		for _, r := range picked {
			r.Arm = a
			out = append(out, r)
		}
	}
	notes := []string{fmt.Sprintf("baseline arm %s (%s) of %s: every arm checked (%s) is gated against it", o.BaselineArm, model, o.Baseline, strings.Join(candArms, ", "))}
	for _, m := range candModels {
		if m != model {
			notes = append(notes, fmt.Sprintf("%s vs baseline %s: %s", m, model, report.AcrossModelsNote))
		}
	}
	return out, notes, nil
}

// pickBaselineArm is the baseline's rows of --baseline-arm (on
// --baseline-model), which must be on one model.
func pickBaselineArm(base []results.QuestionRow, o *CheckOptions) ([]results.QuestionRow, string, error) {
	var picked []results.QuestionRow
	var models, arms []string
	for _, r := range base {
		if !slices.Contains(arms, r.Arm) {
			arms = append(arms, r.Arm)
		}
		if r.Arm != o.BaselineArm || (o.BaselineModel != "" && r.Model != o.BaselineModel) {
			continue
		}
		if !slices.Contains(models, r.Model) {
			models = append(models, r.Model)
		}
		picked = append(picked, r)
	}
	switch {
	case len(picked) == 0:
		return nil, "", usagef("--baseline-arm %s%s: the baseline %s has no such rows; its arms: %s", o.BaselineArm, modelSuffix(o.BaselineModel), o.Baseline, strings.Join(arms, ", "))
	case len(models) > 1:
		return nil, "", usagef("--baseline-arm %s: the baseline %s has it on %d models (%s): choose one with --baseline-model", o.BaselineArm, o.Baseline, len(models), strings.Join(models, ", "))
	}
	return picked, models[0], nil
}

func modelSuffix(m string) string {
	if m == "" {
		return ""
	}
	return " --baseline-model " + m
}

// labelBaselineArm names the baseline arm in each result's place.
func labelBaselineArm(rs []check.Result, o *CheckOptions) {
	if o.BaselineArm == "" {
		return
	}
	for i := range rs {
		rs[i].Where += " vs baseline arm " + o.BaselineArm
	}
}
