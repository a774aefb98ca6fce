package mdagents

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
	"github.com/medteam-bench/medteam/qa"
)

// stubText answers like the dry-run stub.
func stubText(req llm.Request) string {
	resp, _ := Stub(false).Chat(context.Background(), req)
	return resp.Text
}

// scripted is a Script that answers kind by f (when it returns ok) and
// otherwise like the stub.
func scripted(f func(req llm.Request) (string, bool)) *kittest.Script {
	return &kittest.Script{Default: func(req llm.Request) string {
		if f != nil {
			if text, ok := f(req); ok {
				return text
			}
		}
		return stubText(req)
	}}
}

// routeTo makes the router answer route.
func routeTo(route string) func(req llm.Request) (string, bool) {
	return func(req llm.Request) (string, bool) {
		if req.Meta.Kind == KindRoute {
			return `{"reasoning":"r","complexity":"` + route + `"}`, true
		}
		return "", false
	}
}

func runArm(t *testing.T, spec string, s protocol.Settings, c llm.Client, item qa.Item) (*protocol.Outcome, *Details) {
	t.Helper()
	out := kittest.RunOn(t, Protocol, spec, s, c, item)
	if e, ok := out.Details.(kit.Escalated); ok { // a triage item's safe default
		return out, e.Details.(*Details)
	}
	return out, out.Details.(*Details)
}

func countKind(s *kittest.Script, kind string) int {
	n := 0
	for _, k := range s.Keys() {
		if strings.HasPrefix(k, kind+"/") {
			n++
		}
	}
	return n
}

// TestSchemasReasoningFirst: every answer schema puts reasoning first, and
// every text prompt asks for the REASONING line before the answer lines.
func TestSchemasReasoningFirst(t *testing.T) {
	for _, sc := range []*llm.Schema{routeSchema, reasonSchema, answerSchema, recruitSchema, talkSchema, chooseSchema, messageSchema,
		teamsSchema, deliverySchema, investigationSchema} {
		names, err := kit.PropertyOrder(sc.Schema)
		if err != nil || len(names) == 0 || names[0] != "reasoning" {
			t.Errorf("%s: properties %v (%v)", sc.Name, names, err)
		}
	}
	s := kittest.Settings(3)
	s.Structured = false
	c := scripted(nil)
	for _, spec := range []string{"mdagents:route=basic", "mdagents:route=intermediate", "mdagents:route=advanced", "mdagents"} {
		kittest.Run(t, Protocol, spec, s, c)
	}
	for _, k := range c.Keys() {
		u := c.User(t, k)
		r := strings.Index(u, "\nREASONING: <")
		if r < 0 {
			t.Errorf("%s: no REASONING line asked:\n%s", k, u)
			continue
		}
		for _, label := range []string{"\nANSWER: <", "\nCOMPLEXITY: <", "\nTALK: <", "\nEXPERTS: <", "\nEXPERTS:\n", "\nINVESTIGATIONS: <", "\nINVESTIGATION: <"} {
			if i := strings.Index(u, label); i >= 0 && i < r {
				t.Errorf("%s: %q asked before the reasoning", k, label)
			}
		}
		if !strings.HasPrefix(k, KindReason+"/") && strings.Contains(strings.ToLower(u), "sentence") {
			t.Errorf("%s: a sentence cap:\n%s", k, u)
		}
	}
}

// TestForcedRoutes: a forced route makes no router call and takes its path;
// the router's route is followed, strictly read; the calls are the stub's.
func TestForcedRoutes(t *testing.T) {
	for _, tc := range []struct {
		spec, route string
		calls       int
	}{
		{"mdagents:route=basic", RouteBasic, 1},
		// recruiter, 5 opinions, turn 1: 5 × (talk, choice, message), turn 2: 5 × talk (nobody), moderator
		{"mdagents:route=intermediate", RouteIntermediate, 1 + 5 + 15 + 5 + 1},
		// recruiter, 3 teams × (request, 2 investigations, report), decision maker
		{"mdagents:route=advanced", RouteAdvanced, 1 + 3*4 + 1},
		{"mdagents", RouteAdvanced, 1 + 1 + 3*4 + 1},
	} {
		c := scripted(routeTo(RouteAdvanced))
		out, det := runArm(t, tc.spec, kittest.Settings(3), c, kittest.Item)
		router := countKind(c, KindRoute)
		if out.Route != tc.route || det.Route != tc.route || len(c.Keys()) != tc.calls || (router == 1) != (tc.spec == "mdagents") {
			t.Errorf("%s: route %q, %d calls (want %d), %d router calls: %v", tc.spec, out.Route, len(c.Keys()), tc.calls, router, c.Keys())
		}
		if want := map[bool]string{true: "router", false: "forced"}[tc.spec == "mdagents"]; det.RouteSource != want {
			t.Errorf("%s: route source %q", tc.spec, det.RouteSource)
		}
		if out.Predicted != "A" {
			t.Errorf("%s: predicted %q", tc.spec, out.Predicted)
		}
	}
	if _, _, err := Protocol.Parse("mdagents:route=expert", kittest.Settings(3)); err == nil || !strings.Contains(err.Error(), "use basic, intermediate or advanced") {
		t.Errorf("bad route: %v", err)
	}
	if _, _, err := Protocol.Parse("mdagents:n=3", kittest.Settings(3)); err == nil {
		t.Error("unknown option accepted")
	}
	if a, _, err := Protocol.Parse("mdagents:basic", kittest.Settings(3)); err != nil || a.Info().Label != "mdagents:route=basic" {
		t.Errorf("bare route: %v", err)
	}
}

// TestRouterFallbacks: an unreadable router reply takes the basic route by
// default (a recorded parse failure); a reply without the line is read by
// the public code's rule, "basic" first.
func TestRouterFallbacks(t *testing.T) {
	for _, tc := range []struct{ reply, route, parse string }{
		{"I cannot tell from this.", RouteBasic, ReadDefault},
		{"It is advanced, certainly not basic.", RouteBasic, ReadCodeRule},
		{"Several experts: intermediate.", RouteIntermediate, ReadCodeRule},
	} {
		c := scripted(func(req llm.Request) (string, bool) { return tc.reply, req.Meta.Kind == KindRoute })
		out, det := runArm(t, "mdagents", kittest.Settings(3), c, kittest.Item)
		if out.Route != tc.route || det.RouteParse != tc.parse {
			t.Errorf("%q: route %s by %s", tc.reply, out.Route, det.RouteParse)
		}
		if failed := out.ParseFailures() > 0; failed != (tc.parse == ReadDefault) {
			t.Errorf("%q: %d parse failures", tc.reply, out.ParseFailures())
		}
	}
}

// trainSplit is n training questions and, last, a copy of kittest.Item's
// question (which the arm must never show).
func trainSplit(n int) *protocol.Fewshot {
	qs := synthQuestions("train", n)
	it := kittest.Item
	qs = append(qs, qa.Question{ID: "copy-of-item", Stem: it.Stem, Options: it.Options, Gold: "A"})
	return fewshotOf(qs)
}

// TestBasicExemplars: with a training split the basic agent sees 5
// exemplars, each a question and an answer object with the reason the model
// wrote first (one call each) — never the evaluated question itself; the
// draw is seeded; without a split it answers zero-shot and says so.
func TestBasicExemplars(t *testing.T) {
	s := kittest.Settings(3)
	s.Fewshot = trainSplit(8)
	c := scripted(func(req llm.Request) (string, bool) {
		if req.Meta.Kind == KindReason {
			return fmt.Sprintf(`{"reasoning":"Reason %d."}`, req.Meta.Turn), true
		}
		return "", false
	})
	out, det := runArm(t, "mdagents:route=basic", s, c, kittest.Item)
	if len(c.Keys()) != Exemplars+1 || countKind(c, KindReason) != Exemplars || len(det.Exemplars) != Exemplars || det.ZeroShot || det.Fewshot != "train.jsonl" {
		t.Fatalf("calls %v, details %+v", c.Keys(), det)
	}
	for _, id := range det.Exemplars {
		if id == "copy-of-item" {
			t.Fatal("the evaluated question was shown as an exemplar")
		}
	}
	req := c.Reqs[kittest.Key(KindBasic, 0, 0)]
	if len(req.Messages) != 2+2*Exemplars {
		t.Fatalf("%d messages", len(req.Messages))
	}
	byID := map[string]qa.Question{}
	for _, q := range s.Fewshot.Questions {
		byID[q.ID] = q
	}
	for k := range Exemplars {
		user, shot := req.Messages[1+2*k], req.Messages[2+2*k]
		q := byID[det.Exemplars[k]]
		want := fmt.Sprintf(`{"reasoning":"Reason %d.","answer":"%s"}`, k+1, q.Gold)
		if user.Role != llm.RoleUser || !strings.Contains(user.Content, q.Stem) || shot.Role != llm.RoleAssistant || shot.Content != want {
			t.Fatalf("exemplar %d: %q / %q, want %q", k, user.Content, shot.Content, want)
		}
	}
	if out.FirstPrompt == "" || out.Predicted != "A" {
		t.Fatalf("first prompt %q, predicted %q", out.FirstPrompt, out.Predicted)
	}
	c2 := scripted(nil)
	_, det2 := runArm(t, "mdagents:route=basic", s, c2, kittest.Item)
	if strings.Join(det2.Exemplars, ",") != strings.Join(det.Exemplars, ",") {
		t.Fatal("the exemplar draw is not reproducible")
	}

	c3 := scripted(nil)
	_, det3 := runArm(t, "mdagents:route=basic", kittest.Settings(3), c3, kittest.Item)
	if !det3.ZeroShot || det3.Fewshot != "" || len(c3.Keys()) != 1 || len(c3.Reqs[kittest.Key(KindBasic, 0, 0)].Messages) != 2 {
		t.Fatalf("zero-shot: %+v, calls %v", det3, c3.Keys())
	}
	b, _ := json.Marshal(det3)
	if !strings.Contains(string(b), `"zero_shot":true`) {
		t.Fatalf("protocol_json %s", b)
	}
}

// TestIntermediateAsTheCode: the discussion runs as the public code runs it.
// Expert 1 wants to talk (to expert 3) in turns 1–6 and nobody else ever
// does: round 1 runs its 5 turns and ends with every expert's answer; in
// round 2 turn 6 runs, turn 7 has nobody talking, which ends the
// discussion without round 2's answers, and the moderator sees round 1's.
// In round 1 every expert is shown the first opinions; in round 2 the
// messages sent to it earlier in the same turn. Each expert keeps its
// conversation.
func TestIntermediateAsTheCode(t *testing.T) {
	c := scripted(func(req llm.Request) (string, bool) {
		m := req.Meta
		switch m.Kind {
		case KindOpinion:
			return map[bool]string{true: `{"reasoning":"r","answer":"A"}`, false: `{"reasoning":"r","answer":"B"}`}[m.Agent < 3], true
		case KindParticipate:
			return fmt.Sprintf(`{"reasoning":"r","talk":%t}`, m.Agent == 0 && m.Turn <= 6), true
		case KindChoose:
			return `{"reasoning":"r","experts":[3]}`, true
		case KindFinal:
			return `{"reasoning":"r","answer":"C"}`, true
		}
		return "", false
	})
	out, det := runArm(t, "mdagents:route=intermediate", kittest.Settings(3), c, kittest.Item)
	if n := len(c.Keys()); n != 1+5+5*7+5+7+5+1 {
		t.Fatalf("%d calls: %v", n, c.Keys())
	}
	if det.Rounds != 2 || det.TurnsRun != 7 || det.Finals != 1 || !det.EarlyStop || len(det.Messages) != 6 || len(out.Rounds) != 2 {
		t.Fatalf("details %+v, %d rounds", det, len(out.Rounds))
	}
	for _, m := range det.Messages {
		if m.From != 1 || m.To != 3 || m.Answer != "A" {
			t.Fatalf("message %+v", m)
		}
	}
	r1 := c.User(t, kittest.Key(KindParticipate, 1, 2))
	if !strings.Contains(r1, "POSITION agent 1: A") || !strings.Contains(r1, "POSITION agent 4: B") || strings.Contains(r1, "-> Agent 3") {
		t.Fatalf("round 1, expert 3 sees:\n%s", r1)
	}
	if r2 := c.User(t, kittest.Key(KindParticipate, 6, 2)); !strings.Contains(r2, "Agent 1 (Cardiologist) -> Agent 3 (you):\nPOSITION agent 1: A") {
		t.Fatalf("round 2, expert 3 sees:\n%s", r2)
	}
	if r2 := c.User(t, kittest.Key(KindParticipate, 6, 1)); !strings.Contains(r2, "(no expert has written to you in this turn)") || !strings.Contains(r2, "POSITION you: C") {
		t.Fatalf("round 2, expert 2 sees:\n%s", r2)
	}
	// Expert 1's round-1 answer follows its opinion and 5 turns of talk,
	// choice and message: 16 exchanges.
	if req := c.Reqs[kittest.Key(KindFinal, 1, 0)]; len(req.Messages) != 2+2*16 {
		t.Fatalf("expert 1's final answer carries %d messages", len(req.Messages))
	}
	mod := c.User(t, kittest.Key(KindModerator, 0, -1))
	if strings.Count(mod, "POSITION agent") != 5 || !strings.Contains(mod, "POSITION agent 5: C") {
		t.Fatalf("moderator sees:\n%s", mod)
	}
	if out.Predicted != "A" || out.Decision.Rule != RuleModerator || det.Votes["C"] != 5 {
		t.Fatalf("decision %+v votes %v", out.Decision, det.Votes)
	}
}

// TestUnreadableFinalAnswer: the decider's unreadable answer is the safe
// default: abstention with a reason, or the most urgent level on a triage
// item.
func TestUnreadableFinalAnswer(t *testing.T) {
	for _, tc := range []struct{ spec, kind, rule string }{
		{"mdagents:route=basic", KindBasic, RuleBasicUnparsed},
		{"mdagents:route=intermediate", KindModerator, RuleModeratorUnparsed},
		{"mdagents:route=advanced", KindDecision, RuleDecisionUnparsed},
	} {
		c := scripted(func(req llm.Request) (string, bool) {
			return "More history would be needed before committing to one of these options.", req.Meta.Kind == tc.kind
		})
		out, det := runArm(t, tc.spec, kittest.Settings(3), c, kittest.Item)
		if out.Predicted != "" || !strings.HasPrefix(out.AbstainReason, tc.rule+": ") || out.Decision.Rule != tc.rule || det.Rule != tc.rule {
			t.Errorf("%s: predicted %q, reason %q, rule %q", tc.spec, out.Predicted, out.AbstainReason, out.Decision.Rule)
		}
		c = scripted(func(req llm.Request) (string, bool) { return "I cannot say.", req.Meta.Kind == tc.kind })
		out, _ = runArm(t, tc.spec, kittest.Settings(3), c, kittest.TriageShuffled)
		if out.Predicted != kittest.TriageShuffled.MostUrgent() || out.AbstainReason != "" {
			t.Errorf("%s on triage: predicted %q, reason %q", tc.spec, out.Predicted, out.AbstainReason)
		}
	}
}

// TestTriageLevels: on a triage item an answer naming a level is read as
// its option, and the decider's diagnosis is the row's.
func TestTriageLevels(t *testing.T) {
	c := scripted(func(req llm.Request) (string, bool) {
		return `{"reasoning":"r","answer":"Emergency care","diagnosis":"Pneumonia"}`, req.Meta.Kind == KindDecision
	})
	out, _ := runArm(t, "mdagents:route=advanced", kittest.Settings(3), c, kittest.TriageShuffled)
	if out.Predicted != "A" || out.Diagnosis != "Pneumonia" {
		t.Fatalf("predicted %q, diagnosis %q", out.Predicted, out.Diagnosis)
	}
}

// TestPairedRequests: the requests of a path are byte-identical whether the
// router chose it or the arm forced it, so the cache serves them once.
func TestPairedRequests(t *testing.T) {
	s := kittest.Settings(3)
	s.Fewshot = trainSplit(8)
	for _, route := range RouteNames {
		routed, forced := scripted(routeTo(route)), scripted(routeTo(route))
		runArm(t, "mdagents", s, routed, kittest.Item)
		runArm(t, "mdagents:route="+route, s, forced, kittest.Item)
		if len(routed.Keys()) != len(forced.Keys())+1 {
			t.Fatalf("%s: %d routed calls, %d forced", route, len(routed.Keys()), len(forced.Keys()))
		}
		for _, k := range forced.Keys() {
			if llm.RequestHash(routed.Reqs[k]) != llm.RequestHash(forced.Reqs[k]) {
				t.Errorf("%s: request %s differs between the routed and the forced arm", route, k)
			}
		}
	}
}

// TestAdvancedTeams: the lead asks with the question, the assistants see the
// lead's request (not the question, as in the code), the lead answers from
// their investigations, and the decision maker sees every team's report.
func TestAdvancedTeams(t *testing.T) {
	c := scripted(func(req llm.Request) (string, bool) {
		if req.Meta.Kind == KindInvestigate {
			return fmt.Sprintf(`{"reasoning":"r","investigation":"Finding %d."}`, req.Meta.Agent), true
		}
		return "", false
	})
	out, det := runArm(t, "mdagents:route=advanced", kittest.Settings(3), c, kittest.Item)
	if len(det.Teams) != 3 || out.N != 9 || len(out.Rounds) != 1 || len(out.Rounds[0]) != 3 {
		t.Fatalf("teams %+v, N %d", det.Teams, out.N)
	}
	if d := c.User(t, kittest.Key(KindDelivery, 2, 3)); !strings.Contains(d, kittest.Item.Stem) || !strings.Contains(d, "Radiologist\nPathologist") {
		t.Fatalf("delivery:\n%s", d)
	}
	if inv := c.User(t, kittest.Key(KindInvestigate, 2, 4)); strings.Contains(inv, kittest.Item.Stem) {
		t.Fatalf("the investigation shows the question:\n%s", inv)
	}
	if rep := c.User(t, kittest.Key(KindReport, 2, 3)); !strings.Contains(rep, "[Radiologist]\nFinding 4.\n[Pathologist]\nFinding 5.") {
		t.Fatalf("report:\n%s", rep)
	}
	dec := c.User(t, kittest.Key(KindDecision, 0, -1))
	for _, want := range []string{"Group 1 - Initial Assessment Team (IAT)", "Group 3 - Final Review and Decision Team (FRDT)", "POSITION agent 3: A"} {
		if !strings.Contains(dec, want) {
			t.Fatalf("decision prompt lacks %q:\n%s", want, dec)
		}
	}
}

// TestPeerChars: --peer-chars bounds another agent's text in a prompt.
func TestPeerChars(t *testing.T) {
	long := strings.Repeat("word ", 100)
	for _, n := range []int{0, 40} {
		s := kittest.Settings(3)
		s.PeerChars = n
		c := scripted(func(req llm.Request) (string, bool) {
			return `{"reasoning":"` + long + `","answer":"A"}`, req.Meta.Kind == KindFinal || req.Meta.Kind == KindOpinion
		})
		runArm(t, "mdagents:route=intermediate", s, c, kittest.Item)
		mod := c.User(t, kittest.Key(KindModerator, 0, -1))
		line := ""
		for _, l := range strings.Split(mod, "\n") {
			if strings.HasPrefix(l, "REASONING agent 1: ") {
				line = strings.TrimPrefix(l, "REASONING agent 1: ")
			}
		}
		if n == 0 && line != strings.TrimSpace(long) || n > 0 && len(line) > n+len("…") {
			t.Errorf("peer chars %d: %d bytes shown", n, len(line))
		}
	}
}

// TestAccountingTable: 'medteam calls' has a line per arm and exemplar count,
// with each route's calls.
func TestAccountingTable(t *testing.T) {
	var sb strings.Builder
	if err := writeAccounting(&sb); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{"mdagents                     5  1       6      7–787 (17)                              2–14      3–788",
		"mdagents:route=basic         0  0       1      —"} {
		if !strings.Contains(out, want) {
			t.Fatalf("table lacks %q:\n%s", want, out)
		}
	}
}
