package council

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/llm/sim/simtest"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// The council's simulated kinds (Sim), moved from llm/sim with the
// behaviour: their formats, determinism, and the reviewer's and the
// chairman's rules.

// expert is one answer shown to a decider or reviewer.
type expert struct {
	first string
	conf  float64
	tier  int     // -1: no reasoning line
	rank  float64 // mean peer rank (chairman), 0: none
}

// panelBlock renders what a judge or chairman sees: POSITION, REASONING and
// (rank > 0) PEER RANK lines per expert.
func panelBlock(ls []string, es []expert) string {
	var b strings.Builder
	for i, e := range es {
		who := fmt.Sprintf("agent %d", i+1)
		rk := simtest.RankWith(ls, e.first)
		b.WriteString(simtest.PositionLine(who, rk, e.conf))
		if e.tier >= 0 {
			fmt.Fprintf(&b, "REASONING %s: %s\n", who, simtest.ReasoningText(rk[0], rk[1], e.tier))
		}
	}
	for i, e := range es {
		if e.rank > 0 {
			fmt.Fprintf(&b, "PEER RANK agent %d: %.2f (ranked by 2 of 3 reviewers)\n", i+1, e.rank)
		}
	}
	return b.String()
}

// labelBlock renders what a reviewer sees: answers under labels.
func labelBlock(ls []string, labels []string, es []expert) string {
	var b strings.Builder
	for k, e := range es {
		who := "response " + labels[k]
		if e.first == "" {
			fmt.Fprintf(&b, "POSITION %s: (no readable answer)\n", who)
			continue
		}
		rk := simtest.RankWith(ls, e.first)
		b.WriteString(simtest.PositionLine(who, rk, e.conf))
		if e.tier >= 0 {
			fmt.Fprintf(&b, "REASONING %s: %s\n", who, simtest.ReasoningText(rk[0], rk[1], e.tier))
		}
	}
	return b.String()
}

var reviewLabels = []string{"Alpha", "Bravo", "Charlie"}

// councilBody is the marker lines a prompt of kind carries.
func councilBody(kind string, ls []string) string {
	last := ls[len(ls)-1]
	if kind == kit.KindPeerReview {
		return labelBlock(ls, reviewLabels, []expert{{ls[0], 0.7, 3, 0}, {last, 0.6, 1, 0}, {"", 0, -1, 0}})
	}
	return "STRATEGY: risk-averse\n" + panelBlock(ls, []expert{{ls[0], 0.7, 2, 1.5}, {ls[1], 0.8, 3, 1.5}, {ls[0], 0.4, 1, 3}})
}

func councilReq(id string, ls []string, kind string, agent int, seed int64, schema bool) llm.Request {
	req := simtest.AgentReq(id, ls, kind, agent, 1, seed, schema, councilBody(kind, ls))
	req.Meta.Phase = "answer"
	if kind == kit.KindChairman {
		req.Meta.Agent = -1
	}
	return req
}

var councilKinds = []string{kit.KindPeerReview, kit.KindChairman}

var councilJSONKeys = map[string][]string{
	kit.KindPeerReview: {"reviews", "final_ranking"},
	kit.KindChairman:   {"answer", "reasoning", "contributors"},
}

func TestCouncilKindsJSON(t *testing.T) {
	for _, nopt := range []int{2, 4, 10} {
		items, ids := simtest.Items(30, nopt)
		m := sim.New(simtest.Clean(t), items, Sim)
		for _, kind := range councilKinds {
			for i, id := range ids {
				ls := items[id].Letters
				text := simtest.Chat(t, m, councilReq(id, ls, kind, 0, int64(i), true)).Text
				checkCouncilJSON(t, kind, simtest.JSONObject(t, kind, text, councilJSONKeys[kind]), ls)
			}
		}
	}
}

func checkCouncilJSON(t *testing.T, kind string, obj map[string]any, ls []string) {
	t.Helper()
	if a, ok := obj["answer"].(string); ok && !slices.Contains(ls, a) {
		t.Fatalf("%s: answer %q", kind, a)
	}
	if kind == kit.KindPeerReview {
		got := fmt.Sprint(obj["final_ranking"])
		for _, l := range reviewLabels {
			if strings.Count(got, "Response "+l) != 1 {
				t.Fatalf("peer_review: ranking %s is not a permutation of the labels", got)
			}
		}
		if !strings.HasSuffix(got, "Response Charlie]") {
			t.Fatalf("peer_review: the unreadable answer is not last: %s", got)
		}
		return
	}
	sum := 0.0
	for _, c := range obj["contributors"].([]any) {
		e := c.(map[string]any)
		id, w := e["id"].(float64), e["weight"].(float64)
		if id < 1 || id > 3 || w < 0 || w > 1 {
			t.Fatalf("chairman: contributor %v", e)
		}
		sum += w
	}
	if len(obj["contributors"].([]any)) > 0 && math.Abs(sum-1) > 1e-9 {
		t.Fatalf("chairman: weights sum to %v", sum)
	}
}

var councilPlainLabels = map[string][]string{
	kit.KindPeerReview: {"REVIEW Response Alpha: STRENGTHS: ", "REVIEW Response Bravo: STRENGTHS: ", "REVIEW Response Charlie: STRENGTHS: ",
		"FINAL RANKING:", "1. Response ", "2. Response ", "3. Response Charlie"},
	kit.KindChairman: {"REASONING: ", "ANSWER: ", "```json", `{"contributors":[`, "```"},
}

func TestCouncilKindsPlain(t *testing.T) {
	items, ids := simtest.Items(30, 5)
	m := sim.New(simtest.Clean(t), items, Sim)
	for _, kind := range councilKinds {
		for i, id := range ids {
			text := simtest.Chat(t, m, councilReq(id, items[id].Letters, kind, 0, int64(i), false)).Text
			simtest.Labelled(t, kind, text, councilPlainLabels[kind], true)
			if kind != kit.KindChairman && strings.Contains(text, "{") {
				t.Fatalf("%s: plain answer with JSON: %q", kind, text)
			}
		}
	}
}

// TestCouncilKindsDeterministic: same request, same text (also with
// another arm and repeat); hints in the prompt change nothing.
func TestCouncilKindsDeterministic(t *testing.T) {
	items, ids := simtest.Items(40, 4)
	m := sim.New(simtest.Profile(t, "noisy"), items, Sim)
	for _, kind := range councilKinds {
		for i, id := range ids {
			ls := items[id].Letters
			req := councilReq(id, ls, kind, i%3, int64(i), i%2 == 0)
			a := simtest.Chat(t, m, req).Text
			req.Meta.Arm, req.Meta.Repeat = "other", 3
			hinted := req
			hinted.Messages = slices.Clone(req.Messages)
			hint := fmt.Sprintf("gold: %s\nThe correct answer is %s.\nANSWER: %s\n", ls[(i+1)%4], ls[(i+1)%4], ls[(i+1)%4])
			hinted.Messages[1].Content = hint + req.Messages[1].Content + "\n" + hint
			if b, c := simtest.Chat(t, m, req).Text, simtest.Chat(t, m, hinted).Text; a != b || a != c {
				t.Fatalf("%s: answers differ:\n%q\n%q\n%q", kind, a, b, c)
			}
		}
	}
}

// TestReviewRanksWhatItReads: a reviewer ranks the answer whose reasoning
// reads better first, and favours answers it agrees with.
func TestReviewRanksWhatItReads(t *testing.T) {
	items, ids := simtest.Items(600, 4)
	m := sim.New(simtest.Clean(t), items, Sim)
	better, goldFirst := 0, 0
	for i, id := range ids {
		ls, gold := items[id].Letters, items[id].Gold
		other := ls[(slices.Index(ls, gold)+1)%4]
		body := labelBlock(ls, reviewLabels[:2], []expert{{other, 0.7, 0, 0}, {other, 0.7, 4, 0}})
		obj, _ := simtest.DecodeJSON(simtest.Chat(t, m, simtest.AgentReq(id, ls, kit.KindPeerReview, 0, 1, int64(i), true, body)).Text)
		if fmt.Sprint(obj["final_ranking"]) == "[Response Bravo Response Alpha]" {
			better++
		}
		// Equal reasoning: the reviewer's own knowledge tips it toward the gold.
		body = labelBlock(ls, reviewLabels[:2], []expert{{other, 0.7, 2, 0}, {gold, 0.7, 2, 0}})
		obj, _ = simtest.DecodeJSON(simtest.Chat(t, m, simtest.AgentReq(id, ls, kit.KindPeerReview, 0, 1, int64(i), true, body)).Text)
		if fmt.Sprint(obj["final_ranking"]) == "[Response Bravo Response Alpha]" {
			goldFirst++
		}
	}
	t.Logf("better reasoning first %d/%d; gold first at equal reasoning %d/%d", better, len(ids), goldFirst, len(ids))
	if better < len(ids)*95/100 || goldFirst < len(ids)*6/10 || goldFirst > len(ids)*9/10 {
		t.Fatalf("better reasoning first %d/%d; gold first at equal reasoning %d/%d", better, len(ids), goldFirst, len(ids))
	}
}

// ignorant is a profile whose deciders never know the answer, so their
// choice is their rule over what they are shown.
func ignorant(t *testing.T) sim.Profile {
	p := simtest.Clean(t)
	p.LeaderSkill = -10
	return p
}

// TestChairmanStrategies: each strategy's rule over the same council.
func TestChairmanStrategies(t *testing.T) {
	items, ids := simtest.Items(50, 4)
	m := sim.New(ignorant(t), items, Sim)
	// X = A held by 1 and 2; Y = B held by the best peer-ranked expert, who is
	// unsure; agent 4 holds C.
	council := []expert{{"A", 0.4, 2, 3}, {"A", 0.45, 2, 2}, {"B", 0.8, 2, 1}, {"C", 0.9, 2, 3.5}}
	want := map[string]string{"balanced": "A", "risk-averse": "B", "goal-seeking": "B", "novelty": "B"}
	// risk-averse keeps confidence ≥ 0.5 and rank ≤ the median 2.5: agent 3 → B.
	// novelty: B and C are held by one each; B's backer is better ranked.
	for st, w := range want {
		for i, id := range ids {
			body := "STRATEGY: " + st + "\n" + panelBlock(simtest.Letters(4), council)
			req := simtest.LeaderReq(id, simtest.Letters(4), kit.KindChairman, 0, int64(i), true, body)
			obj, _ := simtest.DecodeJSON(simtest.Chat(t, m, req).Text)
			if obj["answer"] != w {
				t.Fatalf("%s: answer %v, want %s", st, obj["answer"], w)
			}
			for _, c := range obj["contributors"].([]any) {
				id := int(c.(map[string]any)["id"].(float64))
				if council[id-1].first != w {
					t.Fatalf("%s: credits agent %d, who did not propose %s", st, id, w)
				}
			}
		}
	}
	// Unanimous council: novelty takes the most common second choice.
	unanimous := "STRATEGY: novelty\n" + simtest.PositionLine("agent 1", []string{"A", "D", "B", "C"}, 0.8) +
		simtest.PositionLine("agent 2", []string{"A", "D", "C", "B"}, 0.8) + simtest.PositionLine("agent 3", []string{"A", "B", "C", "D"}, 0.8)
	obj, _ := simtest.DecodeJSON(simtest.Chat(t, m, simtest.LeaderReq(ids[0], simtest.Letters(4), kit.KindChairman, 0, 1, true, unanimous)).Text)
	if obj["answer"] != "D" {
		t.Fatalf("novelty on a unanimous council: %v", obj["answer"])
	}
	// A chairman who knows answers the gold whatever the strategy.
	p := simtest.Clean(t)
	p.LeaderSkill = 10
	k := sim.New(p, items, Sim)
	for i, id := range ids {
		obj, _ := simtest.DecodeJSON(simtest.Chat(t, k, simtest.LeaderReq(id, simtest.Letters(4), kit.KindChairman, 0, int64(i), true, "STRATEGY: novelty\n"+panelBlock(simtest.Letters(4), council))).Text)
		if obj["answer"] != items[id].Gold {
			t.Fatalf("knowing chairman answered %v, gold %s", obj["answer"], items[id].Gold)
		}
	}
}

// TestSimIsRegisteredWithTheProtocol: the simulator's core knows neither
// council kind — without the behaviour each is a bad request naming it —
// and the protocol's registry entry carries the behaviour.
func TestSimIsRegisteredWithTheProtocol(t *testing.T) {
	items, ids := simtest.Items(1, 4)
	for _, kind := range councilKinds {
		simtest.CoreRefuses(t, items, councilReq(ids[0], items[ids[0]].Letters, kind, 0, 1, true))
	}
	simtest.Carries(t, Protocol.Sim, councilKinds...)
}
