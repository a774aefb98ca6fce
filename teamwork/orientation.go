package teamwork

import (
	"fmt"

	"github.com/medteam-bench/medteam/aggregator"
)

// Team orientation (TO), seed 002 §2.3 and §3: with leadership, agents get
// specialist roles — the recruiter's specialties are shown to each agent as
// its role (shownRole) — and the recruiter's ranking of the specialties sets
// fixed hierarchical weights (N=2 {0.6,0.4}; N=3 {0.5,0.3,0.2}; N=4
// {0.4,0.3,0.2,0.1}), hidden from the agents and used by the aggregation;
// the leader also writes a formal medical report that agents see in
// discussion. Without leadership the agents are generic "Expert N" and see
// no role (seed §3's ELSE branch), and every weight is 1/N.
func teamWeights(c Config, n int) []float64 {
	if c.hierarchical() {
		return aggregator.HierarchicalWeights(n)
	}
	return aggregator.EqualWeights(n)
}

// fillRoles makes exactly n role names from the recruiter's answer: missing
// ones become "Expert i", extra ones are dropped. It reports whether the
// recruiter's list was usable as given.
func fillRoles(specs []RoleSpec, n int) (names, focus []string, complete bool) {
	names = make([]string, n)
	focus = make([]string, n)
	complete = len(specs) >= n
	for i := range n {
		if i < len(specs) && specs[i].Name != "" {
			names[i], focus[i] = specs[i].Name, specs[i].Focus
		} else {
			names[i] = fmt.Sprintf("Expert %d", i+1)
			complete = false
		}
	}
	return names, focus, complete
}

// HiddenRole marks, in the roles column, a role the recruiter named that the
// agents never saw: without TO∧L the agents are generic experts (seed 002
// §3), yet recruitment runs in every arm (paired requests).
const HiddenRole = " (hidden)"

// recordedRoles are the roles a row records: the recruiter's names, each
// marked HiddenRole when the arm shows no role to the agents (shownRole), so
// the roles column says the names were recruited but not seen (issue 36).
// A generic "Expert i" filled in for a missing name stays unmarked.
func recordedRoles(c Config, roles []string) []string {
	if c.Orientation && c.Leadership {
		return roles
	}
	out := make([]string, len(roles))
	for i, r := range roles {
		out[i] = r
		if r != fmt.Sprintf("Expert %d", i+1) {
			out[i] += HiddenRole
		}
	}
	return out
}
