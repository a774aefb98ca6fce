package mdagents

import (
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzParseReplies: no reply crashes a parser or breaks its promises: the
// route is always one of the three with a method; chosen experts are
// distinct, in 1…n and never the speaker; at most 5 experts, each with a
// role; the selected teams are at most 3 of at most 3 members, led by their
// first; free texts stay valid UTF-8 when the reply is.
func FuzzParseReplies(f *testing.F) {
	for _, s := range []string{
		`{"reasoning":"x","complexity":"intermediate"}`, "COMPLEXITY: 3) advanced", "not basic", "",
		`{"reasoning":"x","talk":true,"experts":[1,2,2,7]}`, "TALK: yes\nEXPERTS: 2, 3", "1,2.3",
		"EXPERTS:\n1. Cardiologist - Heart. - Hierarchy: Independent\n2. **Pulmonologist** - Lungs",
		`{"experts":[{"role":"A","description":"b","hierarchy":"A > B"},{"name":""}]}`,
		"Group 1 - IAT\nMember 1: X (Lead) - y\nMember 2: Z - w\nGroup 2 - FRDT\nMember 1: Q - r",
		`{"teams":[{"name":"Initial","members":[{"role":"lead","lead":true,"expertise":"e"}]},{"name":"x","members":"oops"}]}`,
		"{\"complexity\": \"1", "Member 1: orphan", "```json\n{\"investigation\": \"a\"}\n```",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := ParseRoute(s)
		if !slices.Contains(RouteNames, r.Route) || r.Method == "" {
			t.Fatalf("route %+v", r)
		}
		_ = ParseTalk(s)
		for self := 1; self <= 5; self++ {
			c := ParseChosen(s, 5, self)
			seen := map[int]bool{}
			for _, x := range c.Experts {
				if x < 1 || x > 5 || x == self || seen[x] {
					t.Fatalf("chosen %v (self %d)", c.Experts, self)
				}
				seen[x] = true
			}
		}
		l := ParseExperts(s)
		if len(l.Experts) > Experts {
			t.Fatalf("%d experts", len(l.Experts))
		}
		for _, e := range l.Experts {
			if e.Role == "" {
				t.Fatalf("expert without a role: %+v", e)
			}
		}
		teams, _ := Select(ParseTeams(s).Teams)
		if len(teams) > Teams {
			t.Fatalf("%d teams", len(teams))
		}
		for _, tm := range teams {
			if len(tm.Members) == 0 || len(tm.Members) > Members || !tm.Members[0].Lead || tm.Members[0].Role == "" {
				t.Fatalf("team %+v", tm)
			}
		}
		if utf8.ValidString(s) {
			for _, txt := range []string{first(ParseReason(s)), first(ParseDelivery(s)), first(ParseInvestigation(s))} {
				if !utf8.ValidString(txt) {
					t.Fatalf("invalid UTF-8 from valid input: %q", txt)
				}
			}
		}
	})
}

func first[A, B any](a A, _ B) A { return a }
