package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/teamwork"
)

// checkTeamFlags checks the team settings shared by every arm, so that a bad
// value names its own flag and the values allowed (teamwork's validation
// would name the --config entry it was combined with).
func (p planFlags) checkTeamFlags() error {
	if p.Turns != 2 && p.Turns != 3 {
		return usagef("--turns %d: the protocol defines 2 or 3 discussion turns; use --turns 2 or --turns 3", p.Turns)
	}
	if p.Agents != 0 && (p.Agents < 2 || p.Agents > 4) {
		return usagef("--agents %d: use 0 for a dynamic team (the recruiter decides) or a fixed size from 2 to 4", p.Agents)
	}
	if d := teamwork.DiscussionMode(p.Discussion); d != teamwork.RoundRobin && d != teamwork.Parallel {
		return usagef("--discussion %q: use %s or %s", p.Discussion, teamwork.RoundRobin, teamwork.Parallel)
	}
	for _, t := range []struct {
		flag string
		v    float64
	}{{"--agent-temperature", p.AgentTemp}, {"--leader-temperature", p.LeaderTemp}} {
		if t.v < 0 || t.v > 2 {
			return usagef("%s %g: use a temperature from 0 to 2", t.flag, t.v)
		}
	}
	return nil
}

// noQuestions explains why a dataset that loaded gave no question to run.
func noQuestions(spec string, res datasets.LoadResult) error {
	where := strings.Join(res.Files, ", ")
	if where == "" {
		where = spec
	}
	switch {
	case res.Skipped > 0:
		var reasons []string
		for _, code := range slices.Sorted(maps.Keys(res.Reasons)) {
			reasons = append(reasons, fmt.Sprintf("%s %d", code, res.Reasons[code]))
		}
		first := ""
		if len(res.Problems) > 0 {
			first = "; the first: " + res.Problems[0].Error()
		}
		return usagef("no valid record was found in %s: %d records read, %d invalid (%s)%s\nnothing to run: fix the file ('medteam datasets validate %s' lists every problem)",
			where, res.Records, res.Skipped, strings.Join(reasons, ", "), first, spec)
	case res.Filtered > 0:
		return usagef("no question of %s is in the selected split or filter (%d records outside it); nothing to run", where, res.Filtered)
	}
	return usagef("no record was found in %s; nothing to run", where)
}
