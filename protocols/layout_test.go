package protocols_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/protocol"
)

// TestSharedLayoutSameOutcomes (issue 37): --prompt-layout shared moves
// text, never adds or drops it, so the simulator — which reads marker lines
// wherever they are — decides every arm of every protocol as in the source
// layout: the same outcome, answers, parses and details. The first-answer
// prompt differs only where the layout reorders what the arm adds to it
// (teamwork's analysis and role, with SMM and TO∧L: full).
func TestSharedLayoutSameOutcomes(t *testing.T) {
	for _, spec := range layoutArms {
		for _, structured := range []bool{false, true} {
			src := layoutSettings(structured)
			shared := src
			shared.PromptLayout = protocol.LayoutShared
			a, _ := layoutRun(t, spec, src, 6)
			b, _ := layoutRun(t, spec, shared, 6)
			for i := range a {
				if spec == "full" {
					b[i].FirstPrompt = a[i].FirstPrompt
				}
				if !reflect.DeepEqual(a[i], b[i]) {
					t.Errorf("%s json=%v question %d: the shared layout decides differently:\nsource %+v\nshared %+v", spec, structured, i, a[i], b[i])
				}
			}
		}
	}
}

// TestVetoSharedPrefix: in the shared layout the three agents of a debate
// round after the first, and of the final ballot, share everything up to
// their role — the shared first answer and all three previous ballots — and
// the role is no longer in the system prompt.
func TestVetoSharedPrefix(t *testing.T) {
	set := layoutSettings(true)
	set.PromptLayout = protocol.LayoutShared
	_, reqs := layoutRun(t, "veto", set, 3)
	for _, q := range reqs {
		byTurn := map[int][]string{}
		for _, r := range q {
			if len(r.Messages) != 2 || strings.Contains(r.Messages[0].Content, "You are the") {
				t.Fatalf("turn %d agent %d: the role is in the system prompt or the shape changed: %+v", r.Meta.Turn, r.Meta.Agent, r.Messages)
			}
			byTurn[r.Meta.Turn] = append(byTurn[r.Meta.Turn], r.Messages[1].Content)
		}
		for turn, us := range byTurn {
			if turn < 2 || len(us) != 3 {
				continue
			}
			head, _, ok := strings.Cut(us[0], "You sit on a panel")
			if !ok || strings.Count(head, "BALLOT agent ") != 3 {
				t.Fatalf("turn %d: the shared block does not hold the three ballots:\n%s", turn, us[0])
			}
			for _, u := range us[1:] {
				if !strings.HasPrefix(u, head) {
					t.Errorf("turn %d: agents do not share the block up to their role", turn)
				}
			}
		}
	}
}
