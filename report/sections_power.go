package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/stats"
)

// subjectSection is accuracy per subject (MedQA's step, MMLU's subject),
// one column per arm.
func (r *Report) subjectSection() *Section {
	if len(r.Subjects) == 0 {
		return nil
	}
	s := &Section{ID: SecSubjects, Heading: "Per subject",
		Text: "Accuracy in percent with its design-effect-corrected Wilson 95% interval, per subject (the dataset's subject or step metadata); n = question rows of the subject in the first arm."}
	for _, fam := range subjectFamilies(r.Subjects) {
		t := Table{Header: append([]string{"subject", "n"}, fam.arms...)}
		if r.multi() {
			t.Caption = fam.dataset + " · " + fam.model
		}
		for _, subj := range fam.subjects {
			row := []string{orDash(subj), fmt.Sprint(fam.cells[subj][fam.arms[0]].Rows)}
			for _, a := range fam.arms {
				g, ok := fam.cells[subj][a]
				cell := dash
				if ok {
					cell = strings.TrimSpace(pct(g.Accuracy) + " " + ivPct(g.AccuracyCI))
				}
				row = append(row, cell)
			}
			t.Rows = append(t.Rows, row)
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}

// orDash is s, or a dash for "".
func orDash(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// subjectFamily is the per-subject groups of one dataset × model.
type subjectFamily struct {
	dataset, model string
	arms, subjects []string
	cells          map[string]map[string]stats.Group // subject → arm → group
}

// subjectFamilies splits groups (in report order) by dataset × model.
func subjectFamilies(gs []stats.Group) []subjectFamily {
	var out []subjectFamily
	for _, g := range gs {
		n := len(out)
		if n == 0 || out[n-1].dataset != g.Key.Dataset || out[n-1].model != g.Key.Model {
			out = append(out, subjectFamily{dataset: g.Key.Dataset, model: g.Key.Model, cells: map[string]map[string]stats.Group{}})
			n++
		}
		f := &out[n-1]
		if f.cells[g.Key.Subject] == nil {
			f.cells[g.Key.Subject] = map[string]stats.Group{}
			f.subjects = append(f.subjects, g.Key.Subject)
		}
		f.cells[g.Key.Subject][g.Key.Arm] = g
		if !slices.Contains(f.arms, g.Key.Arm) {
			f.arms = append(f.arms, g.Key.Arm)
		}
	}
	for i := range out {
		slices.Sort(out[i].subjects)
	}
	return out
}

// mdeOrNone is a power row's MDE, "none" when nothing is detectable.
func mdeOrNone(p PowerRow) string {
	if math.IsNaN(p.MDE) && p.Pairs > 0 {
		return "none"
	}
	return mde(p.MDE)
}

// powerSection plans the size of each comparison.
func (r *Report) powerSection() *Section {
	if len(r.Power) == 0 {
		return nil
	}
	h := []string{"arm", "pairs", "questions", "null discordance", "design effect", "MDE"}
	for _, d := range r.PowerDeltas {
		h = append(h, fmt.Sprintf("questions for %s pp", fnum(100*d, 1)))
	}
	t := Table{Header: r.lead("dataset", "model", h...)}
	for _, p := range r.Power {
		row := []string{p.Candidate, fmt.Sprint(p.Pairs), fmt.Sprint(p.Questions), pct(p.Discordance) + "%", fnum(p.Deff, 2), mdeOrNone(p)}
		for _, n := range p.Needed {
			cell := "none"
			if n.OK {
				cell = fmt.Sprint(n.Questions)
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, r.lead(p.Dataset, p.Model, row...))
	}
	text := fmt.Sprintf("For each comparison with `%s`: the null discordance 2·min(b, c)/pairs — the share of pairs on which the two arms "+
		"would disagree were they equally accurate, the observed discordance less what the difference itself made discordant; the convention "+
		"of `medteam check --baseline` — the design effect of repeats, the minimum detectable difference (MDE) at α = 0.05 two-sided and 80%% "+
		"power for the run's size, and the questions needed to detect a difference of the size shown (McNemar, Connor 1987; the discordance "+
		"under a difference δ taken as at least δ); none: too few pairs. `medteam power --delta D --run RUN` plans other sizes.", r.Reference)
	return &Section{ID: SecPower, Heading: "Power", Text: text, Tables: []Table{t}}
}
