package stats

import (
	"slices"

	"github.com/medteam-bench/medteam/results"
)

// ComponentNames are the five teamwork components in the order of
// QuestionRow's flags: shared mental model, leadership, team orientation,
// trust, mutual monitoring (the names --config uses).
func ComponentNames() []string { return []string{"smm", "l", "to", "t", "mm"} }

// flags are a row's component indicators in ComponentNames order.
func flags(r *results.QuestionRow) [5]bool {
	return [5]bool{r.SMM, r.Leadership, r.Orientation, r.Trust, r.Monitoring}
}

// setting is what else an arm fixes: two arms' difference is a component's
// effect only when these agree.
type setting struct {
	protocol, discussion, policy string
	turns                        int32
	structured                   bool
}

func settingOf(r *results.QuestionRow) setting {
	return setting{r.Protocol, r.Discussion, r.AgentPolicy, r.Turns, r.StructuredOut}
}

// ComponentEffect is the paired effect of adding one component: the
// comparison of the arm with it (Candidate) against the arm without it
// (Reference), everything else equal.
type ComponentEffect struct {
	Component string
	Comparison
}

// ComponentEffects finds, on each dataset × model, every pair of arms whose
// five component flags differ in exactly one and whose other settings
// (protocol, turns, discussion, agent policy, structured output) agree, and
// compares the arm with the component against the arm without it (Compare:
// Δaccuracy with its bootstrap and Wald intervals, McNemar, Δcalls, Δtokens,
// MDD). An arm's flags and settings are its first row's. When several arms
// share flags and settings (c5 and c7), only the first in arm order takes
// part, so an effect is not counted twice. HolmP adjusts McNemar's p over
// each dataset × model's component effects. Effects are ordered by dataset,
// model, then the order of the arms.
func ComponentEffects(rows []results.QuestionRow, opt Bootstrap) []ComponentEffect {
	var out []ComponentEffect
	names := ComponentNames()
	for _, f := range families(groupRows(rows, false)) {
		arms := distinctConfigs(rows, f.groups)
		var fam []ComponentEffect
		for i, a := range arms {
			for _, b := range arms[i+1:] {
				k, ok := oneDiff(rows, a, b)
				if !ok {
					continue
				}
				without, with := a, b
				if flags(&rows[a.idx[0]])[k] {
					without, with = b, a
				}
				c := compareIdx(rows, without.idx, rows, with.idx, opt)
				fam = append(fam, ComponentEffect{Component: names[k], Comparison: c})
			}
		}
		cs := make([]Comparison, len(fam))
		for i := range fam {
			cs[i] = fam[i].Comparison
		}
		adjustFamily(cs, seq(len(cs)), func(int) string { return "" })
		for i := range fam {
			fam[i].HolmP = cs[i].HolmP
		}
		out = append(out, fam...)
	}
	return out
}

// distinctConfigs keeps the first group of each (flags, setting).
func distinctConfigs(rows []results.QuestionRow, gs []group) []group {
	type conf struct {
		f [5]bool
		s setting
	}
	var seen []conf
	var out []group
	for _, g := range gs {
		if len(g.idx) == 0 {
			continue
		}
		r := &rows[g.idx[0]]
		c := conf{flags(r), settingOf(r)}
		if slices.Contains(seen, c) {
			continue
		}
		seen = append(seen, c)
		out = append(out, g)
	}
	return out
}

// oneDiff returns the one component in which two arms differ, if they
// differ in exactly one and agree on every other setting.
func oneDiff(rows []results.QuestionRow, a, b group) (int, bool) {
	ra, rb := &rows[a.idx[0]], &rows[b.idx[0]]
	if settingOf(ra) != settingOf(rb) {
		return 0, false
	}
	fa, fb := flags(ra), flags(rb)
	k, n := 0, 0
	for i := range fa {
		if fa[i] != fb[i] {
			k, n = i, n+1
		}
	}
	return k, n == 1
}
