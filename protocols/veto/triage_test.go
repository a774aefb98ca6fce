package veto

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
	"github.com/medteam-bench/medteam/qa"
)

// TestTriageBranches: seed 004's rule on a triage item, every branch, by
// level in both option orders: a veto (the Safety agent's emergency flag,
// which its prompt asks for), a majority REFUSE and a split escalate to the
// most urgent level with the reason in protocol_json; unanimity and a strong
// majority on a level keep it, less urgent ones included; a VETO from
// another agent and an unreadable ballot are that agent's REFUSE.
func TestTriageBranches(t *testing.T) {
	const unreadable = "?"
	for _, tc := range []struct {
		name   string
		finals []string // level codes, REFUSE, VETO or unreadable; Utility, Accuracy, Safety
		want   string   // level code
		rule   string
		escal  string // prefix of the escalation reason, "" = none
		levels map[string]int
	}{
		{"unanimous self-care", []string{"sc", "sc", "sc"}, "sc", "unanimous", "", map[string]int{"sc": 3}},
		{"strong majority ne despite an em dissent", []string{"ne", "em", "ne"}, "ne", "strong_majority", "", map[string]int{"ne": 2, "em": 1}},
		{"strong majority sc despite a refusal", []string{"sc", "REFUSE", "sc"}, "sc", "strong_majority", "", map[string]int{"sc": 2, "REFUSE": 1}},
		{"Safety's veto escalates a unanimous sc", []string{"sc", "sc", "VETO"}, "em", "veto", "veto: the Safety agent vetoed", map[string]int{"sc": 2, "VETO": 1}},
		{"Utility's VETO is no emergency flag", []string{"VETO", "sc", "sc"}, "sc", "strong_majority", "", map[string]int{"sc": 2, "REFUSE": 1}},
		{"a majority REFUSE escalates", []string{"ne", "REFUSE", "REFUSE"}, "em", "refuse", "refuse: 2 of 3", map[string]int{"ne": 1, "REFUSE": 2}},
		{"a split escalates", []string{"sc", "ne", "em"}, "em", "split", "split: agreement 33%", map[string]int{"sc": 1, "ne": 1, "em": 1}},
		{"a split without an em ballot still escalates", []string{"sc", "ne", "REFUSE"}, "em", "split", "split", map[string]int{"sc": 1, "ne": 1, "REFUSE": 1}},
		{"an unreadable ballot is its agent's REFUSE", []string{"sc", unreadable, "sc"}, "sc", "strong_majority", "", map[string]int{"sc": 2, "REFUSE": 1}},
	} {
		for _, item := range []qa.Item{kittest.TriageItem, kittest.TriageShuffled} {
			var finals []string
			for _, f := range tc.finals {
				switch f {
				case unreadable:
					finals = append(finals, "I would rather not say.")
				case aggregator.Refuse, aggregator.Veto:
					finals = append(finals, ballot(item, f, 0.6, 0.7))
				default:
					finals = append(finals, ballot(item, letterOf(item, f), 0.8, 0.2))
				}
			}
			out := kittest.RunOn(t, Protocol, "veto", kittest.Settings(3), finalScript(item, SeedRounds, finals), item)
			if item.Code(out.Predicted) != tc.want || out.Decision.Rule != tc.rule || out.AbstainReason != "" {
				t.Fatalf("%s on %s: %q (%s) by %s, reason %q; want %s by %s", tc.name, item.ID, out.Predicted, item.Code(out.Predicted),
					out.Decision.Rule, out.AbstainReason, tc.want, tc.rule)
			}
			b, _ := json.Marshal(out.Details)
			var rec struct {
				Escalation string         `json:"escalation"`
				Rule       string         `json:"rule"`
				Levels     map[string]int `json:"levels"`
			}
			if err := json.Unmarshal(b, &rec); err != nil || rec.Rule != tc.rule || !strings.HasPrefix(rec.Escalation, tc.escal) ||
				(tc.escal == "") != (rec.Escalation == "") || len(rec.Levels) != len(tc.levels) {
				t.Fatalf("%s: protocol_json %s (%v)", tc.name, b, err)
			}
			for k, n := range tc.levels {
				if rec.Levels[k] != n {
					t.Fatalf("%s: levels %v, want %v", tc.name, rec.Levels, tc.levels)
				}
			}
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

// TestTriageVetoIsAskedFor: a veto escalates a triage case only because the
// prompt asks for it as an emergency flag — the Safety agent's role names
// VETO as the flag and the most urgent level (by rank, in both option
// orders) it sends the case to; no other agent is offered VETO, and on a
// multiple-choice item no emergency flag is mentioned.
func TestTriageVetoIsAskedFor(t *testing.T) {
	for _, item := range []qa.Item{kittest.TriageItem, kittest.TriageShuffled, kittest.Item} {
		s := finalScript(item, 0, []string{"?", "?", "?"})
		kittest.RunOn(t, Protocol, "veto:rounds=0", kittest.Settings(3), s, item)
		for i, role := range Roles {
			req := s.Reqs[kittest.Key(KindBallot, 1, i)]
			sys, user := req.Messages[0].Content, req.Messages[1].Content
			flag := "it is an emergency flag: cast VETO when sending the patient to any level less urgent than " +
				item.MostUrgent() + " (em — Emergency care)"
			asked := item.IsTriage() && role == RoleSafety
			if strings.Contains(sys, flag) != asked || strings.Contains(sys, "emergency flag") != asked ||
				strings.Contains(user, "VETO") != (role == RoleSafety) {
				t.Fatalf("%s, %s:\nSYSTEM %s\nUSER %s", item.ID, role, sys, user)
			}
			if item.IsTriage() && !strings.Contains(user, "sends the case to "+item.MostUrgent()+" (em — Emergency care)") {
				t.Fatalf("%s, %s: the rule's escalation is not stated:\n%s", item.ID, role, user)
			}
		}
	}
}
