package kit

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
)

// branchingClient is a client that is also an llm.Brancher, as batch
// mode's unit client is.
type branchingClient struct {
	llm.Client
	told, ended atomic.Int32
}

func (b *branchingClient) Branch(n int) func() {
	b.told.Add(int32(n))
	return func() { b.ended.Add(1) }
}

// TestSessionParallelTellsTheClientsBrancher: Session.Parallel tells the
// session's client of the branches when it is an llm.Brancher (passed
// explicitly, no context value), each branch ends once, and a plain client
// or no branch tells nothing.
func TestSessionParallelTellsTheClientsBrancher(t *testing.T) {
	item := qa.Item{ID: "q", Options: []qa.Option{{Letter: "A", Text: "a"}, {Letter: "B", Text: "b"}}}
	for _, tc := range []struct {
		name              string
		n                 int
		brancher          bool
		wantTold, wantEnd int32
	}{
		{"brancher, 3 branches", 3, true, 3, 3},
		{"brancher, no branch", 0, true, 0, 0},
		{"plain client", 3, false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bc := &branchingClient{Client: Stub(false)}
			var c llm.Client = bc
			if !tc.brancher {
				c = Stub(false)
			}
			s := NewSession(c, item, protocol.Unit{}, false, 0)
			var ran atomic.Int32
			if err := s.Parallel(context.Background(), tc.n, func(context.Context, int) error { ran.Add(1); return nil }); err != nil {
				t.Fatal(err)
			}
			if int(ran.Load()) != tc.n || bc.told.Load() != tc.wantTold || bc.ended.Load() != tc.wantEnd {
				t.Errorf("ran %d, told %d, ended %d; want %d, %d, %d", ran.Load(), bc.told.Load(), bc.ended.Load(), tc.n, tc.wantTold, tc.wantEnd)
			}
		})
	}
}
