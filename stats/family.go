package stats

import (
	"math"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/results"
)

// armConfig is what an arm's rows say of its configuration: two arms whose
// configs are equal send the same requests (call seeds do not depend on the
// arm) and are one hypothesis, whatever their outcomes.
type armConfig struct {
	protocol string
	flags    [5]bool
	setting  setting
	// options are the arm options the columns do not record, as the
	// teamwork label spells them after its name ("n3/trust-hidden" of
	// "c4/n3/trust-hidden"; temperatures, leaning, trust view): c5/n3 and
	// c7/n3 are one configuration, c4/n3 and c4/n3/trust-hidden two.
	options string
}

// configOf is a row's configuration; ok is false for a protocol whose
// parameters the rows do not record: only teamwork arms are known to be
// equal by their columns (rows without a protocol name say nothing).
func configOf(r *results.QuestionRow) (armConfig, bool) {
	if r.Protocol != "teamwork" {
		return armConfig{}, false
	}
	return armConfig{r.Protocol, flags(r), settingOf(r), labelOptions(r.Arm)}, true
}

// labelOptions is a teamwork arm label without its name (the first
// segment) and without a pooled report's "@RUN" suffix.
func labelOptions(label string) string {
	label, _, _ = strings.Cut(label, "@")
	_, opts, _ := strings.Cut(label, "/")
	return opts
}

// SameConfigGroups groups arms (each one arm's rows) by equivalent
// configuration: out[i] is the index of the first arm whose configuration
// (protocol, the five component flags, turns, discussion, agent policy,
// structured output of its first row; the team a dynamic policy recruits
// is an outcome, not configuration) equals arm i's,
// i itself when none before it does. Arms of another protocol than
// teamwork (or none), whose parameters the rows do not hold, and empty
// arms are never merged. Outcomes play no part: two arms that happen to agree on
// every question are still two hypotheses (issue 24, item 5). Pass the
// result to HolmGrouped.
func SameConfigGroups(arms [][]results.QuestionRow) []int {
	out := make([]int, len(arms))
	cfg := make([]armConfig, len(arms))
	known := make([]bool, len(arms))
	for i, a := range arms {
		out[i] = i
		if len(a) == 0 {
			continue
		}
		cfg[i], known[i] = configOf(&a[0])
		if !known[i] {
			continue
		}
		for j := range i {
			if out[j] == j && known[j] && cfg[j] == cfg[i] {
				out[i] = j
				break
			}
		}
	}
	return out
}

// sameConfigGroups is SameConfigGroups over groups of rows.
func sameConfigGroups(rows []results.QuestionRow, gs []group) []int {
	arms := make([][]results.QuestionRow, len(gs))
	for i, g := range gs {
		if len(g.idx) > 0 {
			arms[i] = rows[g.idx[0] : g.idx[0]+1]
		}
	}
	return SameConfigGroups(arms)
}

// CompareToReference compares every arm with the reference arm on each
// dataset × model (Compare), and adjusts McNemar's p with Holm within each
// dataset × model family: every arm compared counts in the family, one
// without pairs included. Arms whose configurations are equivalent
// (SameConfigGroups: c5 and c7) are one hypothesis: they count once in the
// family, share its adjusted p, and the later ones (in arm order) name the
// first in IdenticalTo; arms are never merged because their outcomes
// happened to match. A family without the reference arm yields no comparison.
// Comparisons are ordered by dataset, model, candidate arm.
func CompareToReference(rows []results.QuestionRow, reference string, opt Bootstrap) []Comparison {
	var out []Comparison
	for _, f := range families(groupRows(rows, false)) {
		ref := slices.IndexFunc(f.groups, func(g group) bool { return g.key.Arm == reference })
		if ref < 0 {
			continue
		}
		cands := slices.Delete(slices.Clone(f.groups), ref, ref+1)
		cs := make([]Comparison, len(cands))
		for i, g := range cands {
			cs[i] = compareIdx(rows, f.groups[ref].idx, rows, g.idx, opt)
		}
		adjustFamily(cs, sameConfigGroups(rows, cands), func(i int) string { return cands[i].key.Arm })
		out = append(out, cs...)
	}
	return out
}

// adjustFamily sets HolmP over the family and IdenticalTo from the
// equivalent-configuration groups.
func adjustFamily(cs []Comparison, same []int, name func(int) string) {
	p := make([]float64, len(cs))
	for i := range cs {
		p[i] = cs[i].Accuracy.McNemarP
		if cs[i].Accuracy.N == 0 {
			p[i] = math.NaN()
		}
		if same[i] != i {
			cs[i].IdenticalTo = name(same[i])
		}
	}
	for i, v := range HolmGrouped(p, same) {
		cs[i].HolmP = v
	}
	adjustTriage(cs, same)
}
