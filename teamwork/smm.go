package teamwork

import (
	"strings"

	"github.com/medteam-bench/medteam/answer"
)

// Shared mental model (SMM), seed 002 §2.1: a passive knowledge repository
// that every agent sees. It is filled at three points: after recruitment the
// recruiter's question analysis (tricks, key qualifiers); after the initial
// prediction the verified facts — extracted by the leader when leadership is
// on, otherwise computed without a call by fact intersection (below); after
// each monitoring exchange the debated point. With SMM off, agents see none of
// it.
type sharedModel struct {
	Analysis string
	Facts    []string
	Debated  []string
}

// factIntersection is the leaderless fact rule: a fact counts as verified when
// at least two agents state it, "the same fact" read by factsMatch (the
// content-word rule of factmatch.go; it was the same normalised string
// before issue 36). Each fact joins the first earlier fact it matches (its
// group's first mention, so groups do not drift by chaining), else starts a
// group; a group is verified when two or more agents stated a fact in it.
// With a team of two that is the strict intersection; with three or four it
// is "confirmed by a second agent", since a strict intersection of free-text
// facts is almost always empty (the reference's extract_facts_intersection
// asks 3 agents when N ≥ 4). Facts keep the wording and order of their
// first mention.
func factIntersection(answers []answer.Answer) (verified []string) {
	type group struct {
		key    factKey
		text   string
		agents map[int]bool
	}
	var groups []*group
	for i, a := range answers {
		for _, f := range a.Facts {
			k := factKeyOf(f)
			if k.norm == "" {
				continue
			}
			var g *group
			for _, h := range groups {
				if factsMatch(h.key, k) {
					g = h
					break
				}
			}
			if g == nil {
				g = &group{key: k, text: strings.TrimSpace(f), agents: map[int]bool{}}
				groups = append(groups, g)
			}
			g.agents[i] = true
		}
	}
	for _, g := range groups {
		if len(g.agents) >= 2 {
			verified = append(verified, g.text)
		}
	}
	return verified
}

// statedFacts counts the facts the agents stated (non-empty after
// normalisation), the pool SMM's verified facts are drawn from.
func statedFacts(answers []answer.Answer) int {
	n := 0
	for _, a := range answers {
		for _, f := range a.Facts {
			if normFact(f) != "" {
				n++
			}
		}
	}
	return n
}

func normFact(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimSuffix(s, ".")
}
