package debate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/llm/sim/simtest"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// proseAnswers are the simulator's prose answers (malformed: no option).
var proseAnswers = [...]string{
	"More history would be needed before committing to one of these options; the findings are not specific enough.",
	"Several of the options could fit this presentation, and the decisive test is not described in the stem.",
}

// debateReq is a revision as protocols/debate sends it: the first-answer
// conversation with the agent's own reply, then the others' replies as
// written.
func debateReq(id string, ls []string, agent, turn int, seed int64, own string, peers []string) llm.Request {
	req := simtest.AgentReq(id, ls, kit.KindRevise, agent, turn, seed, true, "Think the case through step by step, then answer.")
	var b strings.Builder
	b.WriteString("These are the solutions to the problem from other agents:\n")
	for _, p := range peers {
		b.WriteString("\nOne agent solution: ```\n" + p + "\n```\n")
	}
	b.WriteString("\nUsing the reasoning from other agents as additional advice, can you give an updated answer? Examine your solution and that of the other agents step by step, then rank every option from most to least likely.\n")
	b.WriteString(`Reply with one JSON object only: {"reasoning": "<your step-by-step reasoning>", "ranking": [<every option letter, best first>], "confidence": <0 to 1>}.`)
	req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant, Content: own}, llm.Message{Role: llm.RoleUser, Content: b.String()})
	return req
}

func jsonReply(rank []string, conf float64) string {
	return fmt.Sprintf(`{"reasoning":"The findings fit.","ranking":["%s"],"confidence":%.2f}`, strings.Join(rank, `","`), conf)
}

func plainReply(rank []string, conf float64) string {
	return fmt.Sprintf("REASONING: The findings fit.\nRANKING: %s\nCONFIDENCE: %.2f", strings.Join(rank, ", "), conf)
}

// TestConversationRevisionIsDiscuss: a revision that reads its own previous
// answer from its conversation and the peers' from their replies as written
// answers exactly as the same revision shown "POSITION you" and "POSITION
// agent N" lines: the same persuadability, the same draws, the same text —
// in JSON and text replies, fenced or not.
func TestConversationRevisionIsDiscuss(t *testing.T) {
	items, ids := simtest.Items(600, 4)
	m := sim.New(simtest.Clean(t), items, Sim)
	moved := 0
	for i, id := range ids {
		ls := items[id].Letters
		own, peers := simtest.RankWith(ls, ls[3]), [][]string{simtest.RankWith(ls, ls[0]), simtest.RankWith(ls, ls[i%4])}
		confs := []float64{0.6, 0.7, 0.55}
		body := simtest.PositionLine("you", own, confs[0])
		for j, p := range peers {
			body += simtest.PositionLine(fmt.Sprintf("agent %d", j+2), p, confs[j+1])
		}
		want := simtest.Chat(t, m, simtest.AgentReq(id, ls, kit.KindRevise, 0, 1, int64(i), true, body)).Text
		reply := jsonReply
		if i%2 == 1 {
			reply = plainReply
		}
		shown := []string{reply(peers[0], confs[1]), "Here is my answer:\n\n```json\n" + jsonReply(peers[1], confs[2]) + "\n```"}
		got := simtest.Chat(t, m, debateReq(id, ls, 0, 1, int64(i), reply(own, confs[0]), shown)).Text
		if got != want {
			t.Fatalf("%s: from the conversation %q, from POSITION lines %q", id, got, want)
		}
		if f, _, _ := simtest.FirstChoice(got); f != ls[3] {
			moved++
		}
	}
	if moved == 0 || moved == len(ids) {
		t.Fatalf("moved %d of %d: the peers do not persuade, or always do", moved, len(ids))
	}
}

// TestConversationRevisionReadsWhatItCan: an unreadable own reply makes the
// agent answer afresh (as with no POSITION you line); an unreadable peer
// reply does not count; the bare-letter shapes count as one-letter rankings;
// a peer reply cut before its ranking (--peer-chars) does not count.
func TestConversationRevisionReadsWhatItCan(t *testing.T) {
	items, ids := simtest.Items(200, 4)
	m := sim.New(simtest.Clean(t), items, Sim)
	for i, id := range ids[:50] {
		ls := items[id].Letters
		peer := simtest.RankWith(ls, ls[1])
		for _, tc := range []struct {
			own   string
			peers []string
			body  string // the same view in POSITION lines
		}{
			{proseAnswers[0], []string{jsonReply(peer, 0.7)}, simtest.PositionLine("agent 2", peer, 0.7)},
			{"", []string{"**" + ls[1] + "**", proseAnswers[1]}, simtest.PositionLine("agent 2", ls[1:2], 0)},
			{jsonReply(ls, 0.8), []string{"The answer is $" + ls[1] + "$.", jsonReply(peer, 0.9)[:30] + "…"}, simtest.PositionLine("you", ls, 0.8) + simtest.PositionLine("agent 2", ls[1:2], 0)},
		} {
			want := simtest.Chat(t, m, simtest.AgentReq(id, ls, kit.KindRevise, 2, 1, int64(i), true, tc.body)).Text
			if got := simtest.Chat(t, m, debateReq(id, ls, 2, 1, int64(i), tc.own, tc.peers)).Text; got != want {
				t.Fatalf("%s %q %q: got %q, want %q", id, tc.own, tc.peers, got, want)
			}
		}
	}
}

func TestReadReply(t *testing.T) {
	ls := simtest.Letters(4)
	for _, tt := range []struct {
		text  string
		first int8
		n     int
		conf  float64
	}{
		{`{"reasoning":"x","ranking":["C","A","B","D"],"confidence":0.62}`, 2, 4, 0.62},
		{"Sure.\n\n```json\n{\"reasoning\": \"x\", \"ranking\" : [ \"B\" ], \"confidence\": 1.5}\n```", 1, 1, -1},
		{"REASONING: x\nRANKING: D, A\nCONFIDENCE: 0.40\nFACTS: y", 3, 2, 0.4},
		{"**A**", 0, 1, -1},
		{"The answer is $C$.", 2, 1, -1},
		{`{"reasoning":"x","ranking":["C","A"`, -1, 0, -1},
		{"", -1, 0, -1},
		{proseAnswers[0], -1, 0, -1},
	} {
		p, ok := readReply(ls, tt.text)
		if ok != (tt.n > 0) || p.rank.First() != tt.first || p.rank.Len() != tt.n || p.conf != tt.conf {
			t.Errorf("readReply(%q) = %+v %v", tt.text, p, ok)
		}
	}
}

// TestRevisionFollowsThePeers: a debate revision moves to the peers'
// majority with a probability that grows with its share, as discuss does.
func TestRevisionFollowsThePeers(t *testing.T) {
	items, ids := simtest.Items(1500, 4)
	m := sim.New(simtest.Clean(t), items, Sim)
	switched := func(peers []string) float64 {
		return simtest.Share(ids, func(i int, id string) bool {
			ls := items[id].Letters
			body := simtest.PositionLine("you", simtest.RankWith(ls, ls[3]), 0.6)
			for j, p := range peers {
				body += simtest.PositionLine(fmt.Sprintf("agent %d", j+2), simtest.RankWith(ls, p), 0.7)
			}
			req := simtest.AgentReq(id, ls, kit.KindRevise, 0, 1, int64(i), true, body)
			f, _, _ := simtest.FirstChoice(simtest.Chat(t, m, req).Text)
			return f == ls[0]
		})
	}
	alone, half, all := switched(nil), switched([]string{"A", "C"}), switched([]string{"A", "A"})
	t.Logf("moved to A: alone %.2f, one of two peers %.2f, both peers %.2f", alone, half, all)
	if !(alone < 0.1 && half > alone+0.05 && all > half+0.1 && all < 0.9) {
		t.Fatalf("moved to A: alone %.2f, one of two peers %.2f, both peers %.2f", alone, half, all)
	}
}

// TestSimIsRegisteredWithTheProtocol: the simulator's core knows not the
// revise kind — without the behaviour it is a bad request naming it — and
// the protocol's registry entry carries the behaviour.
func TestSimIsRegisteredWithTheProtocol(t *testing.T) {
	items, ids := simtest.Items(1, 4)
	simtest.CoreRefuses(t, items, simtest.AgentReq(ids[0], items[ids[0]].Letters, kit.KindRevise, 0, 1, 1, true, ""))
	simtest.Carries(t, Protocol.Sim, kit.KindRevise)
}
