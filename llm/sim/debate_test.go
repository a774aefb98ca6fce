package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

// debateReq is a revision as protocols/debate sends it: the first-answer
// conversation with the agent's own reply, then the others' replies as
// written.
func debateReq(id string, ls []string, agent, turn int, seed int64, own string, peers []string) llm.Request {
	req := agentReq(id, ls, kindRevise, agent, turn, seed, true, "Think the case through step by step, then answer.")
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
	items, ids := synthItems(600, 4)
	m := New(cleanProfile(t), items)
	moved := 0
	for i, id := range ids {
		ls := items[id].Letters
		own, peers := rankWith(ls, ls[3]), [][]string{rankWith(ls, ls[0]), rankWith(ls, ls[i%4])}
		confs := []float64{0.6, 0.7, 0.55}
		body := positionLine("you", own, confs[0])
		for j, p := range peers {
			body += positionLine(fmt.Sprintf("agent %d", j+2), p, confs[j+1])
		}
		want := mustChat(t, m, agentReq(id, ls, kindRevise, 0, 1, int64(i), true, body)).Text
		reply := jsonReply
		if i%2 == 1 {
			reply = plainReply
		}
		shown := []string{reply(peers[0], confs[1]), "Here is my answer:\n\n```json\n" + jsonReply(peers[1], confs[2]) + "\n```"}
		got := mustChat(t, m, debateReq(id, ls, 0, 1, int64(i), reply(own, confs[0]), shown)).Text
		if got != want {
			t.Fatalf("%s: from the conversation %q, from POSITION lines %q", id, got, want)
		}
		if f, _, _ := firstChoice(got); f != ls[3] {
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
	items, ids := synthItems(200, 4)
	m := New(cleanProfile(t), items)
	for i, id := range ids[:50] {
		ls := items[id].Letters
		peer := rankWith(ls, ls[1])
		for _, tc := range []struct {
			own   string
			peers []string
			body  string // the same view in POSITION lines
		}{
			{proseAnswers[0], []string{jsonReply(peer, 0.7)}, positionLine("agent 2", peer, 0.7)},
			{"", []string{"**" + ls[1] + "**", proseAnswers[1]}, positionLine("agent 2", ls[1:2], 0)},
			{jsonReply(ls, 0.8), []string{"The answer is $" + ls[1] + "$.", jsonReply(peer, 0.9)[:30] + "…"}, positionLine("you", ls, 0.8) + positionLine("agent 2", ls[1:2], 0)},
		} {
			want := mustChat(t, m, agentReq(id, ls, kindRevise, 2, 1, int64(i), true, tc.body)).Text
			if got := mustChat(t, m, debateReq(id, ls, 2, 1, int64(i), tc.own, tc.peers)).Text; got != want {
				t.Fatalf("%s %q %q: got %q, want %q", id, tc.own, tc.peers, got, want)
			}
		}
	}
}

func TestReadReply(t *testing.T) {
	it := &item{letters: letters(4)}
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
		p, ok := readReply(it, tt.text)
		if ok != (tt.n > 0) || p.rank.first() != tt.first || p.rank.n != tt.n || p.conf != tt.conf {
			t.Errorf("readReply(%q) = %+v %v", tt.text, p, ok)
		}
	}
}
