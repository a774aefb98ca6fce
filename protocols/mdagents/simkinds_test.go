package mdagents

import (
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/llm/sim/simtest"
)

var mdKinds = []string{KindRoute, KindReason, KindBasic, KindRecruit, KindOpinion, KindParticipate, KindChoose,
	KindMessage, KindFinal, KindModerator, KindTeams, KindDelivery, KindInvestigate, KindReport, KindDecision}

// mdBody is the marker lines a prompt of kind shows.
func mdBody(kind string, ls []string) string {
	switch kind {
	case KindParticipate, KindChoose, KindMessage, KindFinal:
		return "Your current answer:\n" + simtest.PositionLine("you", simtest.RankWith(ls, ls[1]), 0) + "Agent 1 (Cardiologist):\n" +
			simtest.PositionLine("agent 1", simtest.RankWith(ls, ls[0]), 0) + "Agent 2: Pulmonologist - lungs\nAgent 3: Internist - all\n"
	case KindModerator:
		return simtest.PositionLine("agent 1", simtest.RankWith(ls, ls[0]), 0) + simtest.PositionLine("agent 2", simtest.RankWith(ls, ls[0]), 0) + simtest.PositionLine("agent 3", simtest.RankWith(ls, ls[1]), 0)
	case KindDecision:
		return simtest.PositionLine("agent 1", simtest.RankWith(ls, ls[0]), 0) + "REASONING agent 1: " + simtest.ReasoningText(ls[0], ls[1], 3) + "\n"
	case KindReport:
		return "[Radiologist]\n" + simtest.ReasoningText(ls[0], ls[1], 4) + "\n"
	}
	return ""
}

func mdReq(id string, ls []string, kind string, agent, turn int, seed int64, schema bool) llm.Request {
	req := simtest.AgentReq(id, ls, kind, agent, turn, seed, schema, mdBody(kind, ls))
	req.Meta.Phase = "discussion"
	return req
}

var mdJSONKeys = map[string][]string{
	KindRoute: {"reasoning", "complexity"}, KindReason: {"reasoning"}, KindRecruit: {"reasoning", "experts"},
	KindParticipate: {"reasoning", "talk"}, KindChoose: {"reasoning", "experts"}, KindTeams: {"reasoning", "teams"},
	KindDelivery: {"reasoning", "investigations"}, KindInvestigate: {"reasoning", "investigation"},
}

var mdPlainLabels = map[string][]string{
	KindRoute: {"REASONING: ", "COMPLEXITY: "}, KindReason: {"REASONING: "}, KindParticipate: {"REASONING: ", "TALK: "},
	KindChoose: {"REASONING: ", "EXPERTS: "}, KindDelivery: {"REASONING: ", "INVESTIGATIONS: "},
	KindInvestigate: {"REASONING: ", "INVESTIGATION: "},
	KindRecruit:     {"REASONING: ", "EXPERTS:", "1. ", "2. ", "3. ", "4. ", "5. "},
	KindTeams:       {"REASONING: ", "", "Group 1 - Initial Assessment Team (IAT)", "Member 1: "},
}

// TestMDKindsFormats: every mdagents kind answers in the format its prompt
// asks for (JSON keys, reasoning first; labelled lines), an answer kind with
// one of the question's letters; the same request gives the same text.
func TestMDKindsFormats(t *testing.T) {
	items, ids := simtest.Items(40, 5)
	m := sim.New(simtest.Clean(t), items, Sim)
	for _, kind := range mdKinds {
		for i, id := range ids {
			ls := items[id].Letters
			req := mdReq(id, ls, kind, 1, 3, int64(i), true)
			text := simtest.Chat(t, m, req).Text
			if again := simtest.Chat(t, m, req).Text; again != text {
				t.Fatalf("%s: not deterministic", kind)
			}
			keys := mdJSONKeys[kind]
			if keys == nil {
				keys = []string{"reasoning", "answer"}
			}
			obj := simtest.JSONObject(t, kind, text, keys)
			if !strings.HasPrefix(text, `{"reasoning":`) {
				t.Fatalf("%s: reasoning not first: %q", kind, text)
			}
			if a, ok := obj["answer"].(string); ok && !slices.Contains(ls, a) {
				t.Fatalf("%s: answer %q", kind, a)
			}
			plain := simtest.Chat(t, m, mdReq(id, ls, kind, 1, 3, int64(i), false)).Text
			labels := mdPlainLabels[kind]
			if labels == nil {
				labels = []string{"REASONING: ", "ANSWER: "}
			}
			simtest.Labelled(t, kind, plain, labels, kind != KindTeams)
			if kind == KindTeams && (strings.Count(plain, "\nGroup ") != mdTeams || strings.Count(plain, "(Lead)") != mdTeams) {
				t.Fatalf("teams: %q", plain)
			}
		}
	}
}

// TestMDRouteByDifficultyNotGold: the router's level follows the question's
// difficulty (its perception of it), and the same questions with other gold
// answers are routed alike.
func TestMDRouteByDifficultyNotGold(t *testing.T) {
	items, ids := simtest.Items(600, 4)
	other := map[string]sim.Item{}
	for id, it := range items {
		g := slices.Index(it.Letters, it.Gold)
		other[id] = sim.Item{Letters: it.Letters, Gold: it.Letters[(g+1)%len(it.Letters)]}
	}
	m, m2 := sim.New(simtest.Clean(t), items, Sim), sim.New(simtest.Clean(t), other, Sim)
	sum, n := map[string]float64{}, map[string]int{}
	for i, id := range ids {
		req := mdReq(id, items[id].Letters, KindRoute, -1, 0, int64(i), true)
		text := simtest.Chat(t, m, req).Text
		if simtest.Chat(t, m2, req).Text != text {
			t.Fatalf("%s: the route depends on the gold", id)
		}
		obj, _ := simtest.DecodeJSON(text)
		route := obj["complexity"].(string)
		sum[route] += m.Difficulty(id)
		n[route]++
	}
	b, im, a := sum["basic"]/float64(n["basic"]), sum["intermediate"]/float64(n["intermediate"]), sum["advanced"]/float64(n["advanced"])
	if n["basic"] < 100 || n["intermediate"] < 100 || n["advanced"] < 100 || !(b < im && im < a) {
		t.Fatalf("routes %v, mean difficulty basic %.2f intermediate %.2f advanced %.2f", n, b, im, a)
	}
}

// TestMDTalkByDisagreement: an expert shown peers who disagree with it
// wants to talk more often than one shown peers who agree, and less often
// in later turns.
func TestMDTalkByDisagreement(t *testing.T) {
	items, ids := simtest.Items(2000, 4)
	m := sim.New(simtest.Clean(t), items, Sim)
	rate := func(agree bool, turn int) float64 {
		return simtest.Share(ids, func(i int, id string) bool {
			ls := items[id].Letters
			peer := ls[0]
			if agree {
				peer = ls[1]
			}
			req := simtest.AgentReq(id, ls, KindParticipate, 1, turn, int64(i), true,
				simtest.PositionLine("you", simtest.RankWith(ls, ls[1]), 0)+simtest.PositionLine("agent 1", simtest.RankWith(ls, peer), 0)+simtest.PositionLine("agent 3", simtest.RankWith(ls, peer), 0))
			obj, _ := simtest.DecodeJSON(simtest.Chat(t, m, req).Text)
			return obj["talk"] == true
		})
	}
	dis, agr, late := rate(false, 1), rate(true, 1), rate(false, 10)
	if !(dis > 0.8 && agr < 0.15 && late < dis/3) {
		t.Fatalf("talk rates: disagreeing peers %.2f, agreeing %.2f, disagreeing in turn 10 %.2f", dis, agr, late)
	}
}

// TestSimIsRegisteredWithTheProtocol: the simulator's core knows none of
// MDAgents' kinds — without the behaviour an MDAgents call is a bad request
// naming its kind — and the protocol's registry entry carries the behaviour
// of every kind it sends.
func TestSimIsRegisteredWithTheProtocol(t *testing.T) {
	items, ids := simtest.Items(1, 4)
	simtest.CoreRefuses(t, items, mdReq(ids[0], items[ids[0]].Letters, KindRoute, -1, 0, 1, true))
	simtest.Carries(t, Protocol.Sim, mdKinds...)
	if len(Protocol.Sim.Kinds) != len(mdKinds) {
		t.Fatalf("Protocol.Sim carries %d kinds, MDAgents sends %d", len(Protocol.Sim.Kinds), len(mdKinds))
	}
}
