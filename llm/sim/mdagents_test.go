package sim

import (
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

var mdKinds = []string{kindMDRoute, kindMDReason, kindMDBasic, kindMDRecruit, kindMDOpinion, kindMDParticipate, kindMDChoose,
	kindMDMessage, kindMDFinal, kindMDModerator, kindMDTeams, kindMDDelivery, kindMDInvestigate, kindMDReport, kindMDDecision}

// mdBody is the marker lines a prompt of kind shows.
func mdBody(kind string, ls []string) string {
	switch kind {
	case kindMDParticipate, kindMDChoose, kindMDMessage, kindMDFinal:
		return "Your current answer:\n" + positionLine("you", rankWith(ls, ls[1]), 0) + "Agent 1 (Cardiologist):\n" +
			positionLine("agent 1", rankWith(ls, ls[0]), 0) + "Agent 2: Pulmonologist - lungs\nAgent 3: Internist - all\n"
	case kindMDModerator:
		return positionLine("agent 1", rankWith(ls, ls[0]), 0) + positionLine("agent 2", rankWith(ls, ls[0]), 0) + positionLine("agent 3", rankWith(ls, ls[1]), 0)
	case kindMDDecision:
		return positionLine("agent 1", rankWith(ls, ls[0]), 0) + "REASONING agent 1: " + reasoningText(ls[0], ls[1], 3) + "\n"
	case kindMDReport:
		return "[Radiologist]\n" + reasoningText(ls[0], ls[1], 4) + "\n"
	}
	return ""
}

func mdReq(id string, ls []string, kind string, agent, turn int, seed int64, schema bool) llm.Request {
	req := agentReq(id, ls, kind, agent, turn, seed, schema, mdBody(kind, ls))
	req.Meta.Phase = "discussion"
	return req
}

var mdJSONKeys = map[string][]string{
	kindMDRoute: {"reasoning", "complexity"}, kindMDReason: {"reasoning"}, kindMDRecruit: {"reasoning", "experts"},
	kindMDParticipate: {"reasoning", "talk"}, kindMDChoose: {"reasoning", "experts"}, kindMDTeams: {"reasoning", "teams"},
	kindMDDelivery: {"reasoning", "investigations"}, kindMDInvestigate: {"reasoning", "investigation"},
}

var mdPlainLabels = map[string][]string{
	kindMDRoute: {"REASONING: ", "COMPLEXITY: "}, kindMDReason: {"REASONING: "}, kindMDParticipate: {"REASONING: ", "TALK: "},
	kindMDChoose: {"REASONING: ", "EXPERTS: "}, kindMDDelivery: {"REASONING: ", "INVESTIGATIONS: "},
	kindMDInvestigate: {"REASONING: ", "INVESTIGATION: "},
	kindMDRecruit:     {"REASONING: ", "EXPERTS:", "1. ", "2. ", "3. ", "4. ", "5. "},
	kindMDTeams:       {"REASONING: ", "", "Group 1 - Initial Assessment Team (IAT)", "Member 1: "},
}

// TestMDKindsFormats: every mdagents kind answers in the format its prompt
// asks for (JSON keys, reasoning first; labelled lines), an answer kind with
// one of the question's letters; the same request gives the same text.
func TestMDKindsFormats(t *testing.T) {
	items, ids := synthItems(40, 5)
	m := New(cleanProfile(t), items)
	for _, kind := range mdKinds {
		for i, id := range ids {
			ls := items[id].Letters
			req := mdReq(id, ls, kind, 1, 3, int64(i), true)
			text := mustChat(t, m, req).Text
			if again := mustChat(t, m, req).Text; again != text {
				t.Fatalf("%s: not deterministic", kind)
			}
			obj, ok := decodeJSON(text)
			keys := mdJSONKeys[kind]
			if keys == nil {
				keys = []string{"reasoning", "answer"}
			}
			if !ok || len(obj) != len(keys) || !strings.HasPrefix(text, `{"reasoning":`) {
				t.Fatalf("%s: %q", kind, text)
			}
			for _, k := range keys {
				if _, ok := obj[k]; !ok {
					t.Fatalf("%s: no %q in %q", kind, k, text)
				}
			}
			if a, ok := obj["answer"].(string); ok && !slices.Contains(ls, a) {
				t.Fatalf("%s: answer %q", kind, a)
			}
			plain := mustChat(t, m, mdReq(id, ls, kind, 1, 3, int64(i), false)).Text
			labels := mdPlainLabels[kind]
			if labels == nil {
				labels = []string{"REASONING: ", "ANSWER: "}
			}
			lines := strings.Split(plain, "\n")
			if kind != kindMDTeams && len(lines) != len(labels) {
				t.Fatalf("%s: %d lines, want %d: %q", kind, len(lines), len(labels), plain)
			}
			for k, lab := range labels {
				if !strings.HasPrefix(lines[k], lab) {
					t.Fatalf("%s: line %d = %q, want %q", kind, k+1, lines[k], lab)
				}
			}
			if kind == kindMDTeams && (strings.Count(plain, "\nGroup ") != mdTeams || strings.Count(plain, "(Lead)") != mdTeams) {
				t.Fatalf("teams: %q", plain)
			}
		}
	}
}

// TestMDRouteByDifficultyNotGold: the router's level follows the question's
// difficulty (its perception of it), and the same questions with other gold
// answers are routed alike.
func TestMDRouteByDifficultyNotGold(t *testing.T) {
	items, ids := synthItems(600, 4)
	other := map[string]Item{}
	for id, it := range items {
		g := slices.Index(it.Letters, it.Gold)
		other[id] = Item{Letters: it.Letters, Gold: it.Letters[(g+1)%len(it.Letters)]}
	}
	m, m2 := New(cleanProfile(t), items), New(cleanProfile(t), other)
	sum, n := map[string]float64{}, map[string]int{}
	for i, id := range ids {
		req := mdReq(id, items[id].Letters, kindMDRoute, -1, 0, int64(i), true)
		text := mustChat(t, m, req).Text
		if mustChat(t, m2, req).Text != text {
			t.Fatalf("%s: the route depends on the gold", id)
		}
		obj, _ := decodeJSON(text)
		route := obj["complexity"].(string)
		sum[route] += m.items[id].difficulty
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
	items, ids := synthItems(2000, 4)
	m := New(cleanProfile(t), items)
	rate := func(agree bool, turn int) float64 {
		yes := 0
		for i, id := range ids {
			ls := items[id].Letters
			peer := ls[0]
			if agree {
				peer = ls[1]
			}
			req := agentReq(id, ls, kindMDParticipate, 1, turn, int64(i), true,
				positionLine("you", rankWith(ls, ls[1]), 0)+positionLine("agent 1", rankWith(ls, peer), 0)+positionLine("agent 3", rankWith(ls, peer), 0))
			obj, _ := decodeJSON(mustChat(t, m, req).Text)
			if obj["talk"] == true {
				yes++
			}
		}
		return float64(yes) / float64(len(ids))
	}
	dis, agr, late := rate(false, 1), rate(true, 1), rate(false, 10)
	if !(dis > 0.8 && agr < 0.15 && late < dis/3) {
		t.Fatalf("talk rates: disagreeing peers %.2f, agreeing %.2f, disagreeing in turn 10 %.2f", dis, agr, late)
	}
}
