package debate

import (
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/llm/sim/simtest"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// boardReq is debateReq's revision as the shared layout sends it: one user
// message with the board — an earlier round's block (earlier, which must
// not count) when given, then the latest round's block with the agent's own
// reply in its slot and the peers' in the others, in order — and the tail.
func boardReq(t *testing.T, id string, ls []string, agent, turn int, seed int64, own string, peers, earlier []string) llm.Request {
	t.Helper()
	req := simtest.AgentReq(id, ls, kit.KindRevise, agent, turn, seed, true, "Think the case through step by step, then answer.")
	latest := append(append(append([]string{}, peers[:agent]...), own), peers[agent:]...)
	a, b := Arm{}, &board{}
	round := 1
	for _, replies := range [][]string{earlier, latest} {
		if replies == nil {
			continue
		}
		if err := a.post(b, round, replies); err != nil {
			t.Fatal(err)
		}
		round++
	}
	user, err := a.sharedUser(req.Messages[1].Content, b, agent, round, true)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages[1].Content = user
	return req
}

// TestBoardRevisionIsConversation (issue 37): a shared-layout revision
// answers exactly as the same revision in the source layout — its own reply
// read from its slot of the latest block, the others' as its peers in agent
// order, an earlier round's block ignored: JSON, labelled lines, fenced,
// the bare-letter shapes, prose, empty and cut replies.
func TestBoardRevisionIsConversation(t *testing.T) {
	items, ids := simtest.Items(300, 4)
	m := sim.New(simtest.Clean(t), items, Sim)
	differs := 0
	for i, id := range ids {
		ls := items[id].Letters
		own, peer := simtest.RankWith(ls, ls[3]), simtest.RankWith(ls, ls[i%4])
		agent := i % 3
		for k, tc := range []struct {
			own   string
			peers []string
		}{
			{jsonReply(own, 0.6), []string{jsonReply(simtest.RankWith(ls, ls[0]), 0.7), "Here is my answer:\n\n```json\n" + jsonReply(peer, 0.55) + "\n```"}},
			{plainReply(own, 0.6), []string{plainReply(peer, 0.8), plainReply(simtest.RankWith(ls, ls[0]), 0.7)}},
			{proseAnswers[0], []string{jsonReply(peer, 0.7), proseAnswers[1]}},
			{emptyReply, []string{"**" + ls[1] + "**", "The answer is $" + ls[0] + "$."}},
			{jsonReply(ls, 0.8), []string{jsonReply(peer, 0.9)[:30] + "…", jsonReply(simtest.RankWith(ls, ls[0]), 0.9)}},
		} {
			earlier := []string{plainReply(simtest.RankWith(ls, ls[2]), 0.9), plainReply(simtest.RankWith(ls, ls[2]), 0.9), plainReply(simtest.RankWith(ls, ls[2]), 0.9)}
			if k%2 == 0 {
				earlier = nil
			}
			want := simtest.Chat(t, m, debateReq(id, ls, agent, 1+k%2, int64(i), tc.own, tc.peers)).Text
			got := simtest.Chat(t, m, boardReq(t, id, ls, agent, 1+k%2, int64(i), tc.own, tc.peers, earlier)).Text
			if got != want {
				t.Fatalf("%s agent %d case %d: from the board %q, from the conversation %q", id, agent+1, k, got, want)
			}
			alone := simtest.AgentReq(id, ls, kit.KindRevise, agent, 1+k%2, int64(i), true, "")
			if simtest.Chat(t, m, alone).Text != want {
				differs++
			}
		}
	}
	if differs == 0 {
		t.Fatal("no revision differs from one with no positions: the test cannot tell whether the board is read")
	}
}

// TestSplitBlock: a round block splits into its replies by agent number, in
// order; a line that only looks like an agent's — another number, no fence,
// an earlier agent's line quoted — stays in the reply it is in.
func TestSplitBlock(t *testing.T) {
	const h = "These are the solutions to the problem from all agents in round 1:"
	for _, tt := range []struct {
		block string
		want  map[int]string
	}{
		{h + "\n\nAgent 1's solution: ```\nx\n```\n\nAgent 2's solution: ```\ny\n```", map[int]string{1: "x", 2: "y"}},
		{h + "\n\nAgent 1's solution: ```\na\nAgent two's solution: b\n\nAgent 0's solution: ```\nc\n\nAgent 3's solution: ```\nd\n```",
			map[int]string{1: "a\nAgent two's solution: b\n\nAgent 0's solution: ```\nc\n\nAgent 3's solution: ```\nd"}},
		{h + "\n\nAgent 1's solution: ```\nx\n```\n\nAgent 2's solution: ```\ny\n\nAgent 1's solution: ```\nquoted\n```",
			map[int]string{1: "x", 2: "y\n\nAgent 1's solution: ```\nquoted"}},
		{"no agents here", map[int]string{}},
		{"\n\nAgent 2's solution: ```\nno agent 1", map[int]string{}},
	} {
		got := splitBlock(tt.block)
		if len(got) != len(tt.want) {
			t.Errorf("splitBlock(%q) = %v, want %v", tt.block, got, tt.want)
			continue
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("splitBlock(%q)[%d] = %q, want %q", tt.block, k, got[k], v)
			}
		}
	}
}

// FuzzSplitBlock: a block rendered from any three replies splits back into
// them unless a reply holds the next agent's exact line; it never panics.
func FuzzSplitBlock(f *testing.F) {
	f.Add("x", `{"ranking":["A"]}`, "")
	f.Add("a\nb", "RANKING: A\n\nAgent 1's solution: ```\nno", "**B**")
	f.Fuzz(func(t *testing.T, r1, r2, r3 string) {
		b := &board{}
		if err := (Arm{}).post(b, 1, []string{r1, r2, r3}); err != nil {
			t.Fatal(err)
		}
		got := splitBlock(b.text)
		rs := []string{r1, r2, r3}
		for j, r := range rs {
			if strings.Contains(asWritten(r)+"\n```", agentLineOf(j+2)) {
				return
			}
		}
		for j, r := range rs {
			if got[j+1] != asWritten(r) {
				t.Fatalf("reply %d: got %q, want %q", j+1, got[j+1], asWritten(r))
			}
		}
	})
}
