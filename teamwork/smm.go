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
// at least two agents state it (compared after lower-casing, trimming, joining
// white space and dropping a final period). With a team of two that is the
// strict intersection; with three or four it is "confirmed by a second
// agent", since a strict intersection of free-text facts is almost always
// empty. Facts keep the wording and order of their first mention.
func factIntersection(answers []answer.Answer) []string {
	type entry struct {
		text   string
		agents map[int]bool
	}
	var order []string
	seen := map[string]*entry{}
	for i, a := range answers {
		for _, f := range a.Facts {
			k := normFact(f)
			if k == "" {
				continue
			}
			e, ok := seen[k]
			if !ok {
				e = &entry{text: strings.TrimSpace(f), agents: map[int]bool{}}
				seen[k] = e
				order = append(order, k)
			}
			e.agents[i] = true
		}
	}
	var out []string
	for _, k := range order {
		if len(seen[k].agents) >= 2 {
			out = append(out, seen[k].text)
		}
	}
	return out
}

func normFact(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimSuffix(s, ".")
}
