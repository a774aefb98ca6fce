package runner

import (
	"context"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/results"
)

func TestMayStart(t *testing.T) {
	spare := func(n int) func() int { return func() int { return n } }
	for _, tc := range []struct {
		name                    string
		running, floor, ceiling int
		spare                   func() int
		want                    bool
	}{
		{"below the floor", 3, 8, 8, nil, true},
		{"below the floor, no spare", 3, 8, 100, spare(0), true},
		{"at the floor, nothing known", 8, 8, 100, nil, false},
		{"at the floor, spare slots", 8, 8, 100, spare(2), true},
		{"at the floor, no spare", 8, 8, 100, spare(0), false},
		{"at the ceiling, spare slots", 100, 8, 100, spare(50), false},
	} {
		if got := mayStart(tc.running, tc.floor, tc.ceiling, tc.spare); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestUnitsFollowSpareCapacity: with a model reporting spare capacity, the
// units in flight grow past the floor up to the endpoint's capacity; with
// none, they stay at the floor; a fixed plan stays at Parallel.
func TestUnitsFollowSpareCapacity(t *testing.T) {
	for _, tc := range []struct {
		name          string
		capacity      int // calls the fake endpoint serves at once; 0 = no Spare
		maxParallel   int
		wantMin, want int // units in flight at the peak
	}{
		{"follows capacity", 40, -1, 30, 64},
		{"no spare known", 0, -1, 4, 4},
		{"fixed", 40, 0, 4, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := simPlan(t, "default", []string{"base"}, 4)
			p.MaxParallel = tc.maxParallel
			lim := llm.NewLimiter(nil, llm.LimitPolicy{Initial: max(1, tc.capacity), Min: max(1, tc.capacity), Max: max(1, tc.capacity)})
			base := p.Models[0].Client
			slow := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
				time.Sleep(2 * time.Millisecond)
				return base.Chat(ctx, req)
			})
			p.Models[0].Client = llm.NewLimitedRetry(slow, llm.DefaultRetryPolicy(), lim)
			if tc.capacity > 0 {
				p.Models[0].Spare = lim.Spare
			}
			st, err := Execute(context.Background(), p, Options{Sink: discard{}})
			if err != nil || st.Finished != 50 {
				t.Fatalf("finished %d, err %v", st.Finished, err)
			}
			if st.PeakUnits < tc.wantMin || st.PeakUnits > tc.want {
				t.Fatalf("peak units in flight %d, want %d…%d", st.PeakUnits, tc.wantMin, tc.want)
			}
		})
	}
}

type discard struct{}

func (discard) Put(string, int64, results.QuestionRow, []results.CallRow) error { return nil }
