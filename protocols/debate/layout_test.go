package debate

import (
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
)

// sharedRun runs spec in the shared layout with peerChars on longScript.
func sharedRun(t *testing.T, spec string, peerChars int) *kittest.Script {
	t.Helper()
	s := longScript()
	set := kittest.Settings(0)
	set.PromptLayout, set.PeerChars = protocol.LayoutShared, peerChars
	kittest.Run(t, Protocol, spec, set, s)
	return s
}

// TestSharedLayoutBoard (issue 37): in the shared layout agent i's round-t
// revision is the first answer's system message and one user message — the
// first answer's user prompt, then for every round 1…t−1 a block with every
// agent's reply as written, in agent order, then its tail naming agent i
// and ending with Du et al.'s request. The agents of a round share the
// request up to their tail, and round t+1's request begins with round t's up
// to its tail (the board is appended to, never rebuilt). Round 1 is the
// shared first-answer request, unchanged.
func TestSharedLayoutBoard(t *testing.T) {
	s := sharedRun(t, "debate:3,3", 0)
	sess := kit.NewSession(nil, kittest.Item, kittest.Unit("debate:n=3,r=3"), true, 0)
	first, err := firstanswer.Call(sess, 0, 0.7)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		c, _ := firstanswer.Call(sess, i, 0.7)
		if got, want := llm.RequestHash(s.Reqs[kittest.Key(kit.KindFirst, 0, i)]), llm.RequestHash(sess.Request(c)); got != want {
			t.Fatalf("agent %d's first answer is not the shared first-answer request", i+1)
		}
	}
	heads := map[int]string{}
	for turn := 1; turn <= 2; turn++ {
		for i := range 3 {
			req := s.Reqs[kittest.Key(kit.KindRevise, turn, i)]
			if len(req.Messages) != 2 || req.Messages[0] != (llm.Message{Role: llm.RoleSystem, Content: first.System}) || req.Messages[1].Role != llm.RoleUser {
				t.Fatalf("round %d agent %d: not the system message and one user message: %+v", turn+1, i+1, req.Messages)
			}
			user := req.Messages[1].Content
			head, tail, ok := strings.Cut(user, "\n\nYou are agent ")
			if !ok || !strings.HasPrefix(tail, string(rune('1'+i))+": agent "+string(rune('1'+i))+"'s solution") {
				t.Fatalf("round %d agent %d: the tail does not name the agent:\n%s", turn+1, i+1, user)
			}
			if !strings.Contains(tail, "\nUsing the reasoning from other agents as additional advice, can you give an updated answer? Examine your solution and that of the other agents step by step") ||
				!strings.HasSuffix(tail, "how likely your first choice is correct>}.") {
				t.Fatalf("round %d agent %d: the tail lacks Du et al.'s request:\n%s", turn+1, i+1, tail)
			}
			want := first.User
			for r := 0; r < turn; r++ {
				kind := kit.KindRevise
				if r == 0 {
					kind = kit.KindFirst
				}
				want += "\n\nThese are the solutions to the problem from all agents in round " + string(rune('1'+r)) + ":"
				for j := range 3 {
					want += "\n\nAgent " + string(rune('1'+j)) + "'s solution: ```\n" + longReply(kind, r, j) + "\n```"
				}
			}
			if head != want {
				t.Fatalf("round %d agent %d: the shared block is\n%s\nwant\n%s", turn+1, i+1, head, want)
			}
			if h, ok := heads[turn]; ok && h != head {
				t.Fatalf("round %d: agents 1 and %d differ before their tail", turn+1, i+1)
			}
			heads[turn] = head
		}
	}
	if !strings.HasPrefix(heads[2], heads[1]+"\n\nThese are the solutions to the problem from all agents in round 2:") {
		t.Fatal("round 3's request does not extend round 2's shared block")
	}
}

// TestSharedLayoutPeerCharsBoundsEveryReply: in the shared layout
// --peer-chars cuts every reply of the block alike, the agent's own
// included (the block is the same bytes for every agent).
func TestSharedLayoutPeerCharsBoundsEveryReply(t *testing.T) {
	s := sharedRun(t, "debate:3,2", 40)
	for i := range 3 {
		user := s.Reqs[kittest.Key(kit.KindRevise, 1, i)].Messages[1].Content
		for j := range 3 {
			full := longReply(kit.KindFirst, 0, j)
			cut := "Agent " + string(rune('1'+j)) + "'s solution: ```\n" + full[:40] + "…\n```"
			if !strings.Contains(user, cut) || strings.Contains(user, full) {
				t.Fatalf("agent %d sees agent %d's reply not cut to 40 bytes:\n%s", i+1, j+1, user)
			}
		}
	}
}

// TestSharedLayoutEmptyReplyStandsIn: an empty reply is "(no reply)" in the
// block, as in the source layout.
func TestSharedLayoutEmptyReplyStandsIn(t *testing.T) {
	s := &kittest.Script{Answers: map[string]string{kittest.Key(kit.KindFirst, 0, 1): " \n"}, Default: func(req llm.Request) string {
		return answerOf("A", 0.6)
	}}
	set := kittest.Settings(0)
	set.PromptLayout = protocol.LayoutShared
	kittest.Run(t, Protocol, "debate:3,2", set, s)
	if p := s.User(t, kittest.Key(kit.KindRevise, 1, 0)); !strings.Contains(p, "Agent 2's solution: ```\n"+emptyReply+"\n```") {
		t.Fatalf("agent 1 sees agent 2's empty reply as:\n%s", p)
	}
}
