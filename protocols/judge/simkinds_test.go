package judge

import (
	"math"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/llm/sim/simtest"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// judgeInput renders the seed's input object as protocols/judge does: one
// agent's output (its members given) per line.
func judgeInput(members ...string) string {
	var b strings.Builder
	b.WriteString("**Your Input**: ...\n{\"agent_outputs\": [\n")
	for i, m := range members {
		b.WriteString("  {" + m + "}")
		if i < len(members)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]}\n**Your Tasks**: ...\n")
	return b.String()
}

const triageScale = "Urgency scale, least urgent first: 1 = sc (Self-care, option A), 2 = ne (Non-emergency care, option B), 3 = em (Emergency care, option C).\n"

// TestConsensusJudge: the simulated consensus judge executes seed 003's
// algorithm on the outputs it is shown — known answers for the plurality,
// its tie, the average (null as 0), the weighted urgency (half up, Σc = 0,
// no urgency), the specialty vote and the 0.70 rule — in JSON and in
// lines, and never reads the gold.
func TestConsensusJudge(t *testing.T) {
	items, ids := simtest.Items(40, 4)
	p := simtest.Clean(t)
	m := sim.New(p, items, Sim)
	for _, tc := range []struct {
		name string
		body string
		want map[string]any
	}{
		{"plurality", judgeInput(`"answer": "B", "confidence": 0.9, "reasoning": "r"`, `"answer": "B", "confidence": 0.8, "reasoning": "r"`, `"answer": "C", "confidence": 0.7, "reasoning": "r"`),
			map[string]any{"consensus_answer": "B", "average_confidence": 0.8, "is_low_confidence": false}},
		{"tie", judgeInput(`"answer": "B", "confidence": 0.9, "reasoning": "r"`, `"answer": "C", "confidence": 0.9, "reasoning": "r"`),
			map[string]any{"consensus_answer": "NONE", "average_confidence": 0.9, "is_low_confidence": false}},
		{"no answers", judgeInput(`"answer": null, "confidence": null, "reasoning": null`, `"answer": null, "confidence": 0.9, "reasoning": null`),
			map[string]any{"consensus_answer": "NONE", "average_confidence": 0.45}},
		{"triage weighted urgency", triageScale + judgeInput(`"confidence": 0.9, "urgency": 3, "reasoning": "r"`, `"confidence": 0.3, "urgency": 1, "reasoning": "r"`, `"confidence": 0.9, "urgency": 2, "reasoning": "r"`),
			map[string]any{"consensus_urgency": 2.0, "average_confidence": 0.7, "is_low_confidence": false}},
		{"triage half up", triageScale + judgeInput(`"confidence": 0.8, "urgency": 3, "reasoning": "r"`, `"confidence": 0.8, "urgency": 2, "reasoning": "r"`),
			map[string]any{"consensus_urgency": 3.0, "average_confidence": 0.8, "is_low_confidence": false}},
		{"triage zero weights", triageScale + judgeInput(`"confidence": 0, "urgency": 3, "reasoning": "r"`, `"confidence": null, "urgency": 1, "reasoning": "r"`),
			map[string]any{"consensus_urgency": 2.0, "average_confidence": 0.0}},
		{"triage no urgency", triageScale + judgeInput(`"confidence": 0.9, "urgency": null, "reasoning": "r"`),
			map[string]any{"consensus_urgency": 3.0, "average_confidence": 0.9, "is_low_confidence": false}},
		{"specialty", triageScale + judgeInput(`"specialty": "Cardiology", "confidence": 0.9, "urgency": 3, "reasoning": "r"`, `"specialty": "cardiology", "confidence": 0.9, "urgency": 3, "reasoning": "r"`, `"specialty": "Neurology", "confidence": 0.9, "urgency": 3, "reasoning": "r"`),
			map[string]any{"consensus_specialty": "Cardiology", "consensus_urgency": 3.0, "is_low_confidence": false}},
		{"specialty tie", triageScale + judgeInput(`"specialty": "Cardiology", "confidence": 0.9, "urgency": 3, "reasoning": "r"`, `"specialty": "Neurology", "confidence": 0.9, "urgency": 3, "reasoning": "r"`),
			map[string]any{"consensus_specialty": "General Practice", "consensus_urgency": 3.0}},
	} {
		for i, id := range ids {
			obj, ok := simtest.DecodeJSON(simtest.Chat(t, m, simtest.LeaderReq(id, simtest.Letters(4), kit.KindJudge, 0, int64(i), true, tc.body)).Text)
			if !ok {
				t.Fatalf("%s: not JSON", tc.name)
			}
			for k, v := range tc.want {
				if obj[k] != v {
					t.Fatalf("%s: %s = %v, want %v (%v)", tc.name, k, obj[k], v, obj)
				}
			}
			if _, ok := obj["reasoning"]; !ok {
				t.Fatalf("%s: no reasoning: %v", tc.name, obj)
			}
		}
	}
	// Low confidence: NONE (the specialty General Practice, the urgency
	// kept), except for the slip, at about SimSlip.
	low := judgeInput(`"answer": "B", "confidence": 0.6, "reasoning": "r"`, `"answer": "B", "confidence": 0.6, "reasoning": "r"`)
	lowTriage := triageScale + judgeInput(`"specialty": "Cardiology", "confidence": 0.5, "urgency": 3, "reasoning": "r"`)
	slips := 0
	for i, id := range ids {
		obj, _ := simtest.DecodeJSON(simtest.Chat(t, m, simtest.LeaderReq(id, simtest.Letters(4), kit.KindJudge, 0, int64(i), true, low)).Text)
		tri, _ := simtest.DecodeJSON(simtest.Chat(t, m, simtest.LeaderReq(id, simtest.Letters(4), kit.KindJudge, 0, int64(i), true, lowTriage)).Text)
		switch {
		case obj["is_low_confidence"] == true && obj["consensus_answer"] == "NONE" && tri["is_low_confidence"] == true && tri["consensus_specialty"] == "General Practice" && tri["consensus_urgency"] == 3.0:
		case obj["is_low_confidence"] == false && obj["consensus_answer"] == "B":
			slips++
		default:
			t.Fatalf("low confidence: %v / %v", obj, tri)
		}
	}
	if rate := float64(slips) / float64(len(ids)); math.Abs(rate-SimSlip) > 0.15 {
		t.Fatalf("slip rate %v, want about %v", rate, SimSlip)
	}
	// The text form.
	text := simtest.Chat(t, m, simtest.LeaderReq(ids[0], simtest.Letters(4), kit.KindJudge, 0, 1, false, triageScale+judgeInput(`"specialty": "Cardiology", "confidence": 0.9, "urgency": 3, "reasoning": "r"`))).Text
	lines := strings.Split(text, "\n")
	for k, lab := range []string{"REASONING: ", "CONSENSUS SPECIALTY: Cardiology", "CONSENSUS URGENCY: 3", "AVERAGE CONFIDENCE: 0.90", "IS LOW CONFIDENCE: no"} {
		if len(lines) != 5 || !strings.HasPrefix(lines[k], lab) {
			t.Fatalf("text answer %q, line %d want %q", text, k+1, lab)
		}
	}
}

// TestSimIsRegisteredWithTheProtocol: the simulator's core knows not the
// judge kind — without the behaviour it is a bad request naming it — and
// the protocol's registry entry carries the behaviour; the same request
// gets the same text.
func TestSimIsRegisteredWithTheProtocol(t *testing.T) {
	items, ids := simtest.Items(1, 4)
	req := simtest.LeaderReq(ids[0], simtest.Letters(4), kit.KindJudge, 0, 1, true, judgeInput(`"answer": "B", "confidence": 0.9, "reasoning": "r"`))
	simtest.CoreRefuses(t, items, req)
	simtest.Carries(t, Protocol.Sim, kit.KindJudge)
	m := sim.New(simtest.Profile(t, "noisy"), items, *Protocol.Sim)
	if a, b := simtest.Chat(t, m, req).Text, simtest.Chat(t, m, req).Text; a != b {
		t.Fatalf("not deterministic: %q then %q", a, b)
	}
}
