package runner

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
)

// firstTime records the first of some instants.
type firstTime struct {
	mu sync.Mutex
	t  time.Time
}

func (f *firstTime) mark() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.t.IsZero() {
		f.t = time.Now()
	}
}

func (f *firstTime) get() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

// TestOutageHangEndsWithinBound (issue 35 item 2): every chat and every
// probe hangs. Eight full units are in flight, each call with 4 attempts
// of 200 ms behind the retry loop; the breaker sees every attempt as it
// times out, so the outage clock starts at the first timed-out attempt and
// the run ends (an OutageError, nothing committed) within MaxOutage + one
// per-call timeout of it, not after units × attempts × timeout. Before, the
// breaker heard of a failure only when a unit had spent all its attempts.
func TestOutageHangEndsWithinBound(t *testing.T) {
	const timeout, maxOutage = 200 * time.Millisecond, time.Second
	plan, _ := simPlan(t, "default", []string{"full"}, 8)
	var firstFail firstTime
	var mu sync.Mutex
	sent := 0
	hang := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		mu.Lock()
		sent++
		mu.Unlock()
		<-ctx.Done()
		firstFail.mark()
		return llm.Response{Attempts: 1}, ctx.Err()
	})
	sock := &llm.GateSocket{}
	plan.Models[0].Client = llm.NewGatedRetry(hang, llm.RetryPolicy{MaxAttempts: 4, BaseDelay: 50 * time.Millisecond, PerCallTimeout: timeout}, nil, sock)
	plan.Models[0].Attempts = sock
	probes := 0
	plan.Models[0].Probe = func(ctx context.Context) (llm.Response, error) {
		probes++
		<-ctx.Done() // the probe hangs too, with no timeout of its own
		return llm.Response{Attempts: 1}, ctx.Err()
	}
	plan.Breaker = BreakerPolicy{Backoff: 50 * time.Millisecond, MaxOutage: maxOutage, Grace: timeout}
	sink := &countSink{}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := Execute(ctx, plan, Options{Sink: sink})
	end := time.Now()
	took := end.Sub(firstFail.get())
	t.Logf("stopped %s after the first failure (bound %s + %s); %d attempts sent, %d probes, %d units abandoned, err %v",
		took.Round(time.Millisecond), maxOutage, timeout, sent, probes, st.Abandoned, err)
	if oe := errOutageOf(err); oe == nil || ctx.Err() != nil {
		t.Fatalf("err %v, want an *OutageError", err)
	}
	if slack := 400 * time.Millisecond; took > maxOutage+timeout+slack {
		t.Errorf("the run ended %s after the first failed attempt, want ≤ %s + %s (+%s slack)", took, maxOutage, timeout, slack)
	}
	if took < maxOutage {
		t.Errorf("the run ended %s after the first failure, before --max-outage %s", took, maxOutage)
	}
	if sink.units != 0 || st.StoppedBy != "outage" || st.Abandoned == 0 {
		t.Errorf("committed %d units, stopped by %q, %d abandoned: the outage must commit nothing and be resumable", sink.units, st.StoppedBy, st.Abandoned)
	}
	if st.Probes != probes {
		t.Errorf("stats count %d probes, %d were sent", st.Probes, probes)
	}
}
