package protocols_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
	"github.com/medteam-bench/medteam/qa"
)

// tieScript answers every call of sc, debate, vote and teamwork so that
// agent (or sample) 0 holds option lo and agent 1 option hi, each ranking
// the other second: a two-way tie of plurality and of Borda alike.
func tieScript(item qa.Item, lo, hi string) *kittest.Script {
	ranking := func(first, second string) string {
		r := []string{`"` + first + `"`, `"` + second + `"`}
		for _, l := range item.Letters() {
			if l != first && l != second {
				r = append(r, `"`+l+`"`)
			}
		}
		return "[" + strings.Join(r, ",") + "]"
	}
	return &kittest.Script{Default: func(req llm.Request) string {
		mine, other := lo, hi
		if req.Meta.Agent == 1 {
			mine, other = hi, lo
		}
		switch req.Meta.Kind {
		case "assess":
			return `{"agents": 2, "analysis": "Weigh the timing."}`
		case "recruit":
			return `{"roles": [{"name": "Internist", "focus": "history"}, {"name": "Emergency physician", "focus": "red flags"}]}`
		case "mediate":
			return `{"summary": "The team is split.", "leaning": "` + lo + `"}`
		case "tiebreak":
			return "I am not sure." // unreadable: the leader's tie-break falls back to the tie rule
		}
		return fmt.Sprintf(`{"reasoning": "%s fits.", "ranking": %s, "confidence": 0.8, "risk": 0.1, "veto": false}`, mine, ranking(mine, other))
	}}
}

// TestOneTieRule: every protocol that breaks a tie without a model call —
// sc, debate's last round, teamwork without a leader or with a leader whose
// tie-break cannot be read — breaks a tie on a
// triage item by escalating to the more urgent tied level (kit.BreakTie;
// tie_broken_by "escalated"), by rank in both option orders, and on a
// multiple-choice item by the seeded draw. vote never draws: on triage its
// urgency is seed 000's confidence-weighted mean, whose exact midpoint
// rounds toward the more urgent level (the same direction), and a
// multiple-choice tie is the safe default (abstention).
func TestOneTieRule(t *testing.T) {
	type want struct {
		level, by string // on triage: the predicted level and tie_broken_by
	}
	for _, tc := range []struct {
		spec    string
		lo, hi  string // level codes of agents 0 and 1
		triage  want
		mcqBy   string // tie_broken_by on the multiple-choice item ("" = abstains)
		mcqRule string
	}{
		{"sc:k=2", "sc", "em", want{"em", kit.TieEscalated}, kit.TieSeededDraw, ""},
		{"sc:k=2", "ne", "sc", want{"ne", kit.TieEscalated}, kit.TieSeededDraw, ""},
		{"debate:n=2,r=1", "sc", "em", want{"em", kit.TieEscalated}, kit.TieSeededDraw, ""},
		{"debate:n=2,r=1", "em", "ne", want{"em", kit.TieEscalated}, kit.TieSeededDraw, ""},
		{"base", "sc", "em", want{"em", kit.TieEscalated}, kit.TieSeededDraw, ""},
		{"base", "ne", "sc", want{"ne", kit.TieEscalated}, kit.TieSeededDraw, ""},
		{"l", "sc", "em", want{"em", kit.TieEscalated + "_leader_unparsed"}, kit.TieSeededDraw + "_leader_unparsed", ""},
		{"vote:n=2", "ne", "em", want{"em", ""}, "", "tie"}, // mean rank 1.5 → 2 (half up)
		{"vote:n=2", "sc", "em", want{"ne", ""}, "", "tie"}, // mean rank 1: the seed's weighted mean, not a tie
	} {
		for _, item := range []qa.Item{kittest.TriageItem, kittest.TriageShuffled} {
			lo, hi := letterOf(item, tc.lo), letterOf(item, tc.hi)
			out := kittest.RunOn(t, mustProtocol(t, tc.spec), tc.spec, settings(2, true), tieScript(item, lo, hi), item)
			if item.Code(out.Predicted) != tc.triage.level || out.TieBrokenBy != tc.triage.by || out.AbstainReason != "" {
				t.Errorf("%s on %s, %s vs %s: predicted %s (%s) by %q; want %s by %q", tc.spec, item.ID, tc.lo, tc.hi,
					out.Predicted, item.Code(out.Predicted), out.TieBrokenBy, tc.triage.level, tc.triage.by)
			}
		}
		out := kittest.RunOn(t, mustProtocol(t, tc.spec), tc.spec, settings(2, true), tieScript(kittest.Item, "A", "C"), kittest.Item)
		switch {
		case tc.mcqBy != "" && (out.TieBrokenBy != tc.mcqBy || (out.Predicted != "A" && out.Predicted != "C")):
			t.Errorf("%s on multiple choice: predicted %q by %q; want A or C by %q", tc.spec, out.Predicted, out.TieBrokenBy, tc.mcqBy)
		case tc.mcqBy == "" && (out.Predicted != "" || out.Decision.Rule != tc.mcqRule):
			t.Errorf("%s on multiple choice: predicted %q by rule %q; want an abstention by %q", tc.spec, out.Predicted, out.Decision.Rule, tc.mcqRule)
		}
	}
}

// letterOf is the letter of level code on item.
func letterOf(item qa.Item, code string) string {
	for _, o := range item.Options {
		if item.Code(o.Letter) == code {
			return o.Letter
		}
	}
	return ""
}

// mustProtocol is the registered protocol that claims spec.
func mustProtocol(t *testing.T, spec string) *protocol.Protocol {
	t.Helper()
	a, err := protocols.All().Parse(spec, settings(2, true))
	if err != nil {
		t.Fatal(err)
	}
	return a.Protocol()
}
