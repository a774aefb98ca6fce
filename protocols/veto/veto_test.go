package veto

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
	"github.com/medteam-bench/medteam/qa"
)

// ballot is a JSON ballot on item: decision is an option letter, REFUSE or
// VETO; the ranking is led by the decision when it is a letter.
func ballot(item qa.Item, decision string, conf, risk float64) string {
	rank := []string{}
	if item.Rank(decision) >= 0 || slices.Contains(item.Letters(), decision) {
		rank = append(rank, `"`+decision+`"`)
	}
	for _, l := range item.Letters() {
		if l != decision {
			rank = append(rank, `"`+l+`"`)
		}
	}
	return fmt.Sprintf(`{"reasoning":"From my role, %s.","ranking":[%s],"confidence":%g,"risk":%g,"decision":"%s"}`,
		decision, strings.Join(rank, ","), conf, risk, decision)
}

// finalScript answers the final ballots of veto:rounds=rounds with finals
// (by agent) and every debate round with a vote for the first option.
func finalScript(item qa.Item, rounds int, finals []string) *kittest.Script {
	s := &kittest.Script{Answers: map[string]string{}, Default: func(llm.Request) string {
		return ballot(item, item.Letters()[0], 0.8, 0.2)
	}}
	for i, f := range finals {
		s.Answers[kittest.Key(KindBallot, rounds+1, i)] = f
	}
	return s
}

func spec(rounds int) string {
	if rounds == SeedRounds {
		return "veto"
	}
	return fmt.Sprintf("veto:rounds=%d", rounds)
}

func decode(t *testing.T, out *protocol.Outcome) Details {
	t.Helper()
	b, err := json.Marshal(out.Details)
	if err != nil {
		t.Fatal(err)
	}
	var det Details
	if err := json.Unmarshal(b, &det); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return det
}

// TestRuleTable: seed 004's rule on the final ballots of a multiple-choice
// item, every branch, with no debate rounds and with the seed's four.
func TestRuleTable(t *testing.T) {
	it := kittest.Item
	ok := func(l string) string { return ballot(it, l, 0.8, 0.2) }
	refuse := ballot(it, aggregator.Refuse, 0.6, 0.5)
	veto := ballot(it, aggregator.Veto, 0.3, 0.85)
	tests := []struct {
		name      string
		finals    []string // Utility, Accuracy, Safety
		predicted string
		rule      string
		typ       string
		reason    string   // prefix of abstain_reason
		agreement *float64 // nil: the veto applied
	}{
		{"unanimous", []string{ok("A"), ok("A"), ok("A")}, "A", "unanimous", "unanimous", "", ptr(100)},
		{"strong majority on an option", []string{ok("B"), ok("C"), ok("B")}, "B", "strong_majority", "strong_majority", "", ptr(66.67)},
		{"strong majority despite a refusal", []string{ok("D"), refuse, ok("D")}, "D", "strong_majority", "strong_majority", "", ptr(66.67)},
		{"majority REFUSE", []string{ok("A"), refuse, refuse}, "", "refuse", "strong_majority", "refuse: 2 of 3 ballots REFUSE (Accuracy and Safety)", ptr(66.67)},
		{"unanimous REFUSE", []string{refuse, refuse, refuse}, "", "refuse", "unanimous", "refuse: 3 of 3", ptr(100)},
		{"split over options", []string{ok("A"), ok("B"), ok("C")}, "", "split", "split", "split: agreement 33% < 2/3 (A 1, B 1, C 1)", ptr(33.33)},
		{"split with a refusal", []string{ok("A"), ok("B"), refuse}, "", "split", "split", "split: agreement 33% < 2/3 (A 1, B 1, REFUSE 1)", ptr(33.33)},
		{"Safety's veto overrides unanimity", []string{ok("A"), ok("A"), veto}, "", "veto", "veto", "veto: the Safety agent vetoed (risk 85%)", nil},
		{"Utility's VETO is its REFUSE", []string{veto, ok("A"), ok("A")}, "A", "strong_majority", "strong_majority", "", ptr(66.67)},
		{"Accuracy's VETO is its REFUSE", []string{refuse, veto, ok("A")}, "", "refuse", "strong_majority", "refuse: 2 of 3 ballots REFUSE (Utility and Accuracy)", ptr(66.67)},
		{"an unreadable ballot is that agent's REFUSE", []string{ok("C"), "I cannot say.", ok("C")}, "C", "strong_majority", "strong_majority", "", ptr(66.67)},
		{"two unreadable ballots are a majority REFUSE", []string{"", `{"ranking":["A"],"confidence":0.9,"risk":0.1}`, ok("A")}, "", "refuse", "strong_majority", "refuse: 2 of 3", ptr(66.67)},
		{"an unreadable Safety ballot is no veto", []string{ok("B"), ok("B"), "VETO?"}, "B", "strong_majority", "strong_majority", "", ptr(66.67)},
	}
	for _, rounds := range []int{0, SeedRounds} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("R=%d/%s", rounds, tt.name), func(t *testing.T) {
				out := kittest.RunOn(t, Protocol, spec(rounds), kittest.Settings(3), finalScript(it, rounds, tt.finals), it)
				if out.Predicted != tt.predicted || out.Decision.Rule != tt.rule || !strings.HasPrefix(out.AbstainReason, tt.reason) ||
					(tt.predicted == "") != (out.AbstainReason != "") {
					t.Fatalf("predicted %q rule %q reason %q; want %q %q %q", out.Predicted, out.Decision.Rule, out.AbstainReason, tt.predicted, tt.rule, tt.reason)
				}
				det := decode(t, out)
				if det.Rule != tt.rule || det.ConsensusType != tt.typ || det.Rounds != rounds || len(det.Ballots) != rounds+1 ||
					(tt.agreement == nil) != (det.AgreementPct == nil) || tt.agreement != nil && *det.AgreementPct != *tt.agreement ||
					det.VetoApplied != (tt.rule == "veto") || (det.Decision == aggregator.Refuse) != (tt.predicted == "") {
					t.Fatalf("details %+v", det)
				}
			})
		}
	}
}

// TestRecord: the seed's metadata — agreement, vote breakdown, max risk
// (highlighted above 75), average confidence on the 0–100 scale with a
// warning below 60, each agent's counted ballot, every round's ballots.
func TestRecord(t *testing.T) {
	it := kittest.Item
	s := finalScript(it, 1, []string{ballot(it, "A", 0.7, 0.1), ballot(it, "B", 0.4, 0.8), ballot(it, "A", 0.5, 0.3)})
	s.Answers[kittest.Key(KindDebate, 1, 1)] = "no idea"
	out := kittest.RunOn(t, Protocol, "veto:rounds=1", kittest.Settings(3), s, it)
	det := decode(t, out)
	want := Details{Rounds: 1, ConsensusType: "strong_majority", Rule: "strong_majority", Decision: "A", AgreementPct: ptr(66.67),
		VoteBreakdown: map[string]int{"A": 2, "B": 1}, MaxRisk: 80, HighRisk: true, AvgConfidence: 53.33,
		Warnings:        []string{"low_confidence: mean confidence 53% < 60%", "high_risk: an agent stated a risk of 80% > 75%"},
		IndividualVotes: []Vote{{"Utility", "A", 70, 10, true, ""}, {"Accuracy", "B", 40, 80, true, ""}, {"Safety", "A", 50, 30, true, ""}},
		Ballots:         [][]string{{"A", aggregator.Refuse, "A"}, {"A", "B", "A"}}}
	if got, _ := json.Marshal(det); string(got) != string(must(json.Marshal(want))) {
		t.Fatalf("protocol_json\n%s\nwant\n%s", got, must(json.Marshal(want)))
	}
	if out.Predicted != "A" || out.N != 3 || !slices.Equal(out.Roles, Roles[:]) || len(out.Rounds) != 2 ||
		out.Rounds[0][1].First() != "" || out.Rounds[1][1].First() != "B" {
		t.Fatalf("outcome %+v", out)
	}
	b, _ := json.Marshal(out.Details)
	for _, k := range []string{`"agreement_percentage":66.67`, `"avg_confidence":53.33`, `"vote_breakdown":{"A":2,"B":1}`, `"rule":"strong_majority"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("protocol_json %s lacks %s", b, k)
		}
	}
	// The seed's parse-failure ballots: REFUSE, confidence 50, risk 75 (not above 75).
	out = kittest.RunOn(t, Protocol, "veto:rounds=0", kittest.Settings(3), finalScript(it, 0, []string{"?", "?", "?"}), it)
	det = decode(t, out)
	if det.AvgConfidence != 50 || det.MaxRisk != 75 || det.HighRisk || det.Rule != "refuse" || det.IndividualVotes[2].Readable ||
		!strings.Contains(det.IndividualVotes[2].Note, "parse-failure") || len(det.Warnings) != 1 {
		t.Fatalf("unreadable ballots: %+v", det)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestCalls: 3·(R+1) calls — R debate rounds (phase debate, turns 1…R),
// then the final ballots (phase decision, turn R+1) — each agent's with its
// role; the formula is Calls.
func TestCalls(t *testing.T) {
	for _, rounds := range []int{0, 1, 2, SeedRounds} {
		s := finalScript(kittest.Item, rounds, nil)
		a, _, err := parseArm(spec(rounds), kittest.Settings(5))
		if err != nil {
			t.Fatal(err)
		}
		out := kittest.RunOn(t, Protocol, spec(rounds), kittest.Settings(5), s, kittest.Item)
		var want []string
		for turn := 1; turn <= rounds+1; turn++ {
			for i := range 3 {
				want = append(want, kittest.Key(kindOf(turn, rounds), turn, i))
			}
		}
		slices.Sort(want)
		if calls, _ := a.Calls(5); !slices.Equal(s.Keys(), want) || calls != 3*(rounds+1) || len(out.Parses) != calls {
			t.Fatalf("R=%d: calls %v (Calls %d, parses %d), want %v", rounds, s.Keys(), calls, len(out.Parses), want)
		}
		for k, req := range s.Reqs {
			phase := kit.PhaseDebate
			if req.Meta.Kind == KindBallot {
				phase = kit.PhaseDecision
			}
			if req.Meta.Phase != phase || req.Meta.Role != Roles[req.Meta.Agent] || req.Temperature != 0.7 {
				t.Fatalf("%s: meta %+v temperature %v", k, req.Meta, req.Temperature)
			}
		}
	}
}

func TestArms(t *testing.T) {
	for _, tt := range []struct {
		spec   string
		agents int
		label  string
		calls  int
		err    string
	}{
		{"veto", 0, "veto", 15, ""},
		{"veto", 5, "veto", 15, ""},
		{"VETO:rounds=4", 3, "veto", 15, ""},
		{"veto:rounds=0", 3, "veto:rounds=0", 3, ""},
		{"veto:rounds=2", 2, "veto:rounds=2", 9, ""},
		{"veto:rounds=11", 3, "", 0, "from 0 to 10"},
		{"veto:n=5", 3, "", 0, "three agents"},
		{"veto:3", 3, "", 0, "unknown option"},
		{"veto:k=3", 3, "", 0, "unknown option"},
	} {
		a, ok, err := Protocol.Parse(tt.spec, kittest.Settings(tt.agents))
		if !ok || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Fatalf("%s: ok %v err %v, want %q", tt.spec, ok, err, tt.err)
		}
		if err != nil {
			continue
		}
		if c, _ := a.Calls(tt.agents); a.Info().Label != tt.label || c != tt.calls || a.Info().AgentPolicy != "fixed:3" {
			t.Fatalf("%s: label %q calls %d info %+v", tt.spec, a.Info().Label, c, a.Info())
		}
	}
	if _, ok, _ := Protocol.Parse("vote", kittest.Settings(3)); ok {
		t.Fatal("veto claims vote's spec")
	}
}

// TestPrompts: every call is the shared first-answer request with the role
// appended to the system prompt and the ballot to the user prompt; only the
// Safety agent is offered VETO; from round 2 each agent sees the panel's
// previous ballots — the others' reasoning as written, or bounded by
// --peer-chars; the schema lists reasoning first.
func TestPrompts(t *testing.T) {
	long := strings.Repeat("the tracing shows it; ", 40)
	for _, structured := range []bool{true, false} {
		for _, peer := range []int{0, 60} {
			set := kittest.Settings(3)
			set.Structured, set.PeerChars = structured, peer
			s := &kittest.Script{Default: func(req llm.Request) string {
				return strings.Replace(ballot(kittest.Item, "B", 0.7, 0.2), "From my role, B.", req.Meta.Role+": "+long, 1)
			}}
			kittest.RunOn(t, Protocol, "veto:rounds=1", set, s, kittest.Item)
			for i, role := range Roles {
				sess := kit.NewSession(nil, kittest.Item, kittest.Unit("veto:rounds=1"), structured, 0)
				first, err := firstanswer.Call(sess, i, 0.7)
				if err != nil {
					t.Fatal(err)
				}
				for _, k := range []string{kittest.Key(KindDebate, 1, i), kittest.Key(KindBallot, 2, i)} {
					req := s.Reqs[k]
					sys, user := req.Messages[0].Content, req.Messages[1].Content
					if !strings.HasPrefix(sys, first.System+"\n\n") || !strings.Contains(sys, "You are the "+role+" agent.") ||
						!strings.HasPrefix(user, first.User+"\n\n") || strings.Contains(user, "VETO (see your role)") != (role == RoleSafety) ||
						strings.Contains(sys, "You alone hold a veto") != (role == RoleSafety) {
						t.Fatalf("%s (structured %v):\nSYSTEM %s\nUSER %s", k, structured, sys, user)
					}
					if structured != (req.Schema != nil) {
						t.Fatalf("%s: schema %v", k, req.Schema)
					}
					if structured {
						if order, _ := kit.PropertyOrder(req.Schema.Schema); !slices.Equal(order, []string{"reasoning", "ranking", "confidence", "risk", "decision"}) {
							t.Fatalf("%s: schema order %v", k, order)
						}
					}
				}
				round1 := s.User(t, kittest.Key(KindDebate, 1, i))
				final := s.User(t, kittest.Key(KindBallot, 2, i))
				if strings.Contains(round1, "BALLOT agent") || !strings.Contains(round1, "PANEL DEBATE ROUND 1") || !strings.Contains(final, "PANEL FINAL BALLOT") {
					t.Fatalf("agent %d: round 1 %q / final %q", i, round1, final)
				}
				for j, other := range Roles {
					who := fmt.Sprintf("agent %d", j+1)
					if j == i {
						who = "you"
					}
					if !strings.Contains(final, "POSITION "+who+": B > A > C > D (confidence 0.70)\nBALLOT "+who+" ("+other+"): B (risk 0.20)\n") {
						t.Fatalf("agent %d's final prompt lacks %s's ballot:\n%s", i, who, final)
					}
					full := "REASONING " + who + ": " + other + ": " + strings.TrimSpace(long) + "\n"
					if cut := peer > 0 && j != i; strings.Contains(final, full) == cut {
						t.Fatalf("agent %d, peer chars %d: %s's reasoning cut %v:\n%s", i, peer, who, !cut, final)
					}
				}
			}
		}
	}
}
