package debate

import (
	"testing"

	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/llm/sim/simtest"
)

// TestBoardQuotedAgentLineStaysThePeers (review of issue 37): a peer's
// reply holding a line "Agent 1's solution: …" (a model discussing the
// block it was shown writes such lines) stays that peer's: the revision
// decides as in the source layout. The first board reader let it overwrite
// agent 1's own slot (300 of 300 revisions decided differently).
func TestBoardQuotedAgentLineStaysThePeers(t *testing.T) {
	items, ids := simtest.Items(300, 4)
	m := sim.New(simtest.Clean(t), items, Sim)
	differ, n := 0, 0
	for i, id := range ids {
		ls := items[id].Letters
		own := plainReply(simtest.RankWith(ls, ls[0]), 0.9)
		quoting := plainReply(simtest.RankWith(ls, ls[1]), 0.6) + "\nAgent 1's solution: RANKING: " + ls[3] + ", " + ls[2] + "\nCONFIDENCE: 0.05"
		peers := []string{plainReply(simtest.RankWith(ls, ls[1]), 0.6), quoting}
		src := simtest.Chat(t, m, debateReq(id, ls, 0, 1, int64(i), own, peers)).Text
		brd := simtest.Chat(t, m, boardReq(t, id, ls, 0, 1, int64(i), own, peers, nil)).Text
		n++
		if src != brd {
			differ++
			if differ == 1 {
				t.Logf("%s: source layout %q\nshared layout %q", id, src, brd)
			}
		}
	}
	if differ > 0 {
		t.Fatalf("%d of %d revisions decide differently in the two layouts when agent 3's reply quotes \"Agent 1's solution:\"", differ, n)
	}
}

// TestBoardEchoedRoundHeaderIsNoBlock (review of issue 37): a peer's reply
// echoing the round header line does not move the block read, so the
// agent's own slot before it is still read (the first reader searched for
// the last header and answered afresh: 300 of 300 differed).
func TestBoardEchoedRoundHeaderIsNoBlock(t *testing.T) {
	items, ids := simtest.Items(300, 4)
	m := sim.New(simtest.Clean(t), items, Sim)
	differ := 0
	for i, id := range ids {
		ls := items[id].Letters
		own := plainReply(simtest.RankWith(ls, ls[0]), 0.9)
		echo := "Recap:\n" + roundMarker + "1:\n" + plainReply(simtest.RankWith(ls, ls[1]), 0.6)
		peers := []string{plainReply(simtest.RankWith(ls, ls[1]), 0.6), echo}
		if simtest.Chat(t, m, debateReq(id, ls, 0, 1, int64(i), own, peers)).Text != simtest.Chat(t, m, boardReq(t, id, ls, 0, 1, int64(i), own, peers, nil)).Text {
			differ++
		}
	}
	if differ > 0 {
		t.Fatalf("%d of %d revisions decide differently in the two layouts when agent 3's reply echoes the round header", differ, len(ids))
	}
}
