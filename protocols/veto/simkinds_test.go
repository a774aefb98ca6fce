package veto

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/llm/sim/simtest"
)

// vetoReq is agent's ballot request of a veto kind with role; later rounds
// show its own previous position and the peers'.
func vetoReq(id string, ls []string, kind, role string, agent int, seed int64, schema bool, body string) llm.Request {
	req := simtest.AgentReq(id, ls, kind, agent, 1, seed, schema, body)
	req.Meta.Phase, req.Meta.Role = "debate", role
	return req
}

// TestVetoBallots: veto's kinds answer in the ballot format — the ranked
// answer, then a risk in [0.01, 0.99] and a decision: the first choice below
// risk 0.5, else VETO for the Safety agent and REFUSE for the others — as
// JSON and as labelled lines.
func TestVetoBallots(t *testing.T) {
	items, ids := simtest.Items(200, 4)
	m := sim.New(simtest.Clean(t), items, Sim)
	vetoes, refusals := 0, 0
	for _, kind := range []string{KindDebate, KindBallot} {
		for _, role := range []string{"Utility", "Accuracy", "Safety"} {
			for i, id := range ids {
				ls := items[id].Letters
				obj, ok := simtest.DecodeJSON(simtest.Chat(t, m, vetoReq(id, ls, kind, role, i%3, int64(i), true, "")).Text)
				if !ok || !slices.Equal(sortedKeys(obj), []string{"confidence", "decision", "ranking", "reasoning", "risk"}) {
					t.Fatalf("%s %s: %v", kind, role, obj)
				}
				risk, d := obj["risk"].(float64), obj["decision"].(string)
				first := obj["ranking"].([]any)[0].(string)
				want := first
				switch {
				case risk >= 0.5 && role == "Safety":
					want, vetoes = "VETO", vetoes+1
				case risk >= 0.5:
					want, refusals = "REFUSE", refusals+1
				}
				if risk < 0.01 || risk > 0.99 || d != want {
					t.Fatalf("%s %s: risk %v decision %q, want %q", kind, role, risk, d, want)
				}
				text := simtest.Chat(t, m, vetoReq(id, ls, kind, role, i%3, int64(i), false, "")).Text
				lines := strings.Split(text, "\n")
				if len(lines) != 5 || !strings.HasPrefix(lines[3], "RISK: ") || lines[4] != "DECISION: "+d ||
					lines[3] != "RISK: "+strconv.FormatFloat(risk, 'f', 2, 64) {
					t.Fatalf("%s %s plain: %q (JSON: risk %v decision %s)", kind, role, text, risk, d)
				}
			}
		}
	}
	if vetoes == 0 || refusals == 0 {
		t.Fatalf("vetoes %d, refusals %d: the risk rule never fired", vetoes, refusals)
	}
}

// TestBallotRiskTracksCorrectness: an opening ballot's stated risk tracks
// 1 − confidence, so wrong answers carry more risk and the Safety agent
// vetoes them more often (a veto iff risk ≥ 0.5): the rule the simulator's
// core applied to a first answer asking for a veto before it moved here.
func TestBallotRiskTracksCorrectness(t *testing.T) {
	items, ids := simtest.Items(1500, 4)
	m := sim.New(simtest.Clean(t), items, Sim)
	var risk, vetoes, n [2]float64 // by correctness
	for i, id := range ids {
		obj, _ := simtest.DecodeJSON(simtest.Chat(t, m, vetoReq(id, items[id].Letters, KindDebate, RoleSafety, i%3, 1, true, "")).Text)
		c := 0
		if obj["ranking"].([]any)[0].(string) == items[id].Gold {
			c = 1
		}
		r, veto := obj["risk"].(float64), obj["decision"] == "VETO"
		if veto != (r >= 0.5) {
			t.Fatalf("risk %v decision %v", r, obj["decision"])
		}
		risk[c] += r
		n[c]++
		if veto {
			vetoes[c]++
		}
	}
	t.Logf("wrong: risk %.2f veto %.2f; correct: risk %.2f veto %.2f", risk[0]/n[0], vetoes[0]/n[0], risk[1]/n[1], vetoes[1]/n[1])
	if risk[0]/n[0] < risk[1]/n[1]+0.15 || vetoes[0]/n[0] < 2*vetoes[1]/n[1] {
		t.Fatalf("wrong answers: risk %.2f veto %.2f; correct: risk %.2f veto %.2f", risk[0]/n[0], vetoes[0]/n[0], risk[1]/n[1], vetoes[1]/n[1])
	}
}

// TestVetoDebateFollowsThePeers: a later round's ballot (with "POSITION
// you") moves toward the peers' majority as a debate revision does; the
// opening ballot does not read the peers.
func TestVetoDebateFollowsThePeers(t *testing.T) {
	items, ids := simtest.Items(1500, 4)
	m := sim.New(simtest.Clean(t), items, Sim)
	moved := func(you bool) float64 {
		return simtest.Share(ids, func(i int, id string) bool {
			ls := items[id].Letters
			body := simtest.PositionLine("agent 2", simtest.RankWith(ls, ls[0]), 0.7) + simtest.PositionLine("agent 3", simtest.RankWith(ls, ls[0]), 0.8)
			if you {
				body = simtest.PositionLine("you", simtest.RankWith(ls, ls[3]), 0.6) + body
			}
			req := vetoReq(id, ls, KindBallot, "Utility", 0, int64(i), true, body)
			f, _, _ := simtest.FirstChoice(simtest.Chat(t, m, req).Text)
			return f == ls[0]
		})
	}
	later, opening := moved(true), moved(false)
	t.Logf("first choice A with both peers on A: later round %.2f, opening %.2f", later, opening)
	if later < 0.4 || later > 0.9 || opening > 0.45 {
		t.Fatalf("later round %.2f, opening %.2f", later, opening)
	}
}

func sortedKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestSimIsRegisteredWithTheProtocol: the simulator's core knows neither
// ballot kind — without the behaviour each is a bad request naming it — and
// the protocol's registry entry carries the behaviour.
func TestSimIsRegisteredWithTheProtocol(t *testing.T) {
	items, ids := simtest.Items(1, 4)
	kinds := []string{KindDebate, KindBallot}
	for _, kind := range kinds {
		simtest.CoreRefuses(t, items, vetoReq(ids[0], items[ids[0]].Letters, kind, "Safety", 0, 1, true, ""))
	}
	simtest.Carries(t, Protocol.Sim, kinds...)
}
