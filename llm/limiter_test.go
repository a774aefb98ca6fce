package llm_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
)

// tracker is a fake backend that measures its own concurrency. Each call
// sleeps hold, then returns the error result(n) gives for the n-th call (nil
// for success).
type tracker struct {
	hold   time.Duration
	result func(n int64) error

	calls, cur, peak atomic.Int64
}

func (tr *tracker) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	n := tr.calls.Add(1)
	c := tr.cur.Add(1)
	defer tr.cur.Add(-1)
	for {
		p := tr.peak.Load()
		if c <= p || tr.peak.CompareAndSwap(p, c) {
			break
		}
	}
	if tr.hold > 0 {
		select {
		case <-time.After(tr.hold):
		case <-ctx.Done():
			return llm.Response{}, ctx.Err()
		}
	}
	if tr.result != nil {
		if err := tr.result(n); err != nil {
			return llm.Response{}, err
		}
	}
	return llm.Response{Text: "ok"}, nil
}

func rateLimited(retry time.Duration) error {
	return &llm.Error{Class: llm.ClassRateLimited, Provider: "fake", Status: 429, Retry: retry, Err: errors.New("slow down")}
}

func runConcurrent(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { f(i) })
	}
	wg.Wait()
}

func TestLimiterNeverExceedsLimit(t *testing.T) {
	for _, limit := range []int{1, 3, 8} {
		tr := &tracker{hold: 2 * time.Millisecond}
		l := llm.NewLimiter(tr, llm.LimitPolicy{Initial: limit, Min: limit, Max: limit})
		runConcurrent(100, func(int) {
			if _, err := l.Chat(context.Background(), llm.Request{}); err != nil {
				t.Error(err)
			}
		})
		if p := tr.peak.Load(); p > int64(limit) {
			t.Fatalf("limit %d: backend saw %d in flight", limit, p)
		}
		st := l.Stats()
		if st.Peak != limit || st.InFlight != 0 || st.Waiting != 0 {
			t.Fatalf("limit %d: stats %+v", limit, st)
		}
		if tr.calls.Load() != 100 {
			t.Fatalf("calls %d", tr.calls.Load())
		}
	}
}

func TestLimiterCutsOn429(t *testing.T) {
	t.Run("single", func(t *testing.T) {
		l := llm.NewLimiter(&tracker{result: func(int64) error { return rateLimited(0) }}, llm.LimitPolicy{Initial: 10, Min: 2, Max: 10})
		want := []int{8, 6, 4, 3, 2, 2, 2}
		for i, w := range want {
			_, err := l.Chat(context.Background(), llm.Request{})
			if llm.ClassOf(err) != llm.ClassRateLimited {
				t.Fatalf("err %v", err)
			}
			if got := l.Limit(); got != w {
				t.Fatalf("after 429 #%d: limit %d, want %d", i+1, got, w)
			}
		}
		if st := l.Stats(); st.Cuts != 5 {
			t.Fatalf("cuts %d, want 5", st.Cuts)
		}
	})
	t.Run("a burst counts once", func(t *testing.T) {
		// Ten calls issued under the same limit all get 429: one cut.
		gate := make(chan struct{})
		var arrived atomic.Int64
		be := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
			arrived.Add(1)
			<-gate
			return llm.Response{}, rateLimited(0)
		})
		l := llm.NewLimiter(be, llm.LimitPolicy{Initial: 10, Max: 10})
		go func() {
			for arrived.Load() < 10 {
				time.Sleep(time.Millisecond)
			}
			close(gate)
		}()
		runConcurrent(10, func(int) { _, _ = l.Chat(context.Background(), llm.Request{}) })
		if got := l.Limit(); got != 8 {
			t.Fatalf("limit %d after a burst, want 8", got)
		}
	})
}

func TestLimiterRecovers(t *testing.T) {
	// After a 429, RecoverAfter successes at a full cap grow it by one.
	// Calls hold their slots until all have arrived, so the cap is in use
	// (the controller does not grow a cap the caller leaves idle): each
	// holds it 20 ms.
	var fail atomic.Bool
	fail.Store(true)
	be := &tracker{hold: 20 * time.Millisecond, result: func(int64) error {
		if fail.Load() {
			return rateLimited(0)
		}
		return nil
	}}
	l := llm.NewLimiter(be, llm.LimitPolicy{Initial: 5, Min: 1, Max: 6, RecoverAfter: 3})
	_, _ = l.Chat(context.Background(), llm.Request{}) // 5 → 4
	if l.Limit() != 4 {
		t.Fatalf("limit %d, want 4", l.Limit())
	}
	fail.Store(false)
	for range 4 {
		runConcurrent(l.Limit(), func(int) {
			if _, err := l.Chat(context.Background(), llm.Request{}); err != nil {
				t.Error(err)
			}
		})
	}
	if st := l.Stats(); st.Limit != 6 || st.Raises != 2 || st.Cuts != 1 {
		t.Fatalf("stats %+v, want limit 6 after 2 raises", st)
	}
}

func TestLimiterRetryAfterPause(t *testing.T) {
	// A 429 only cuts the cap (its own retry honours Retry-After); a fifth
	// cut in a row with no success between them is a rate-limit wall: new
	// calls wait for its Retry-After.
	const pause = 150 * time.Millisecond
	be := &tracker{result: func(n int64) error {
		if n <= 5 {
			return rateLimited(pause)
		}
		return nil
	}}
	l := llm.NewLimiter(be, llm.LimitPolicy{Initial: 9, Max: 9})
	start := time.Now()
	for i, want := range []int{7, 5, 4, 3} {
		if _, err := l.Chat(context.Background(), llm.Request{}); llm.ClassOf(err) != llm.ClassRateLimited {
			t.Fatalf("err %v", err)
		}
		if st := l.Stats(); st.Pauses != 0 || st.Cuts != i+1 || st.Limit != want {
			t.Fatalf("after %d 429s: stats %+v, want a cut to %d and no pause", i+1, st, want)
		}
	}
	if _, err := l.Chat(context.Background(), llm.Request{}); llm.ClassOf(err) != llm.ClassRateLimited {
		t.Fatalf("err %v", err)
	}
	if l.Spare() != 0 {
		t.Fatalf("spare %d during a pause, want 0", l.Spare())
	}
	var mu sync.Mutex
	var first time.Duration
	runConcurrent(2, func(int) {
		if _, err := l.Chat(context.Background(), llm.Request{}); err != nil {
			t.Error(err)
		}
		mu.Lock()
		if el := time.Since(start); first == 0 || el < first {
			first = el
		}
		mu.Unlock()
	})
	if first < pause-5*time.Millisecond { // timers may be a hair early on coarse clocks
		t.Fatalf("a call finished %v after the 429, want ≥ %v", first, pause)
	}
	if st := l.Stats(); st.Pauses != 1 || st.Cuts != 5 || st.Limit != 2 {
		t.Fatalf("stats %+v", st)
	}
}

func TestLimiterCancelWhileWaiting(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int64
	be := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if calls.Add(1) == 1 {
			<-release
		}
		return llm.Response{Text: "ok"}, nil
	})
	l := llm.NewLimiter(be, llm.LimitPolicy{Initial: 1, Min: 1, Max: 1})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = l.Chat(context.Background(), llm.Request{})
	}()
	for l.InFlight() != 1 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := l.Chat(ctx, llm.Request{})
	if llm.ClassOf(err) != llm.ClassCanceled || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v (class %q), want canceled", err, llm.ClassOf(err))
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("waited %v", el)
	}
	if calls.Load() != 1 {
		t.Fatalf("backend called %d times; the canceled call must not reach it", calls.Load())
	}
	if st := l.Stats(); st.Waiting != 0 || st.InFlight != 1 {
		t.Fatalf("stats %+v", st)
	}
	close(release)
	<-done
	// No slot leaked: a fresh call goes through at once.
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Second)
	defer cancel2()
	if _, err := l.Chat(ctx2, llm.Request{}); err != nil {
		t.Fatal(err)
	}
	if l.InFlight() != 0 {
		t.Fatalf("in flight %d", l.InFlight())
	}
}

func TestLimiterCancelRace(t *testing.T) {
	// Many waiters canceled at random moments while slots free up: no slot
	// may leak and the cap must hold.
	tr := &tracker{hold: 200 * time.Microsecond}
	l := llm.NewLimiter(tr, llm.LimitPolicy{Initial: 3, Min: 3, Max: 3})
	runConcurrent(200, func(i int) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%7)*300*time.Microsecond)
		defer cancel()
		_, _ = l.Chat(ctx, llm.Request{})
	})
	if st := l.Stats(); st.InFlight != 0 || st.Waiting != 0 || tr.peak.Load() > 3 {
		t.Fatalf("stats %+v, backend peak %d", st, tr.peak.Load())
	}
	if _, err := l.Chat(context.Background(), llm.Request{}); err != nil {
		t.Fatal(err)
	}
}

func TestLimiterWithRetryReleasesSlotWhileSleeping(t *testing.T) {
	// limiter ▸ retry ▸ backend: the retry hands the slot back while it
	// sleeps, and every 429 reaches the limiter even though the call succeeds.
	var l *llm.Limiter
	var sleptInFlight []int
	var mu sync.Mutex
	p := llm.DefaultRetryPolicy()
	p.Sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		sleptInFlight = append(sleptInFlight, l.InFlight())
		mu.Unlock()
		return nil
	}
	be := &tracker{result: func(n int64) error {
		if n <= 2 {
			return rateLimited(0)
		}
		return nil
	}}
	l = llm.NewLimiter(nil, llm.LimitPolicy{Initial: 10, Max: 10})
	resp, err := llm.NewLimitedRetry(be, p, l).Chat(context.Background(), llm.Request{})
	if err != nil || resp.Attempts != 3 {
		t.Fatalf("got %+v, %v", resp, err)
	}
	if len(sleptInFlight) != 2 || sleptInFlight[0] != 0 || sleptInFlight[1] != 0 {
		t.Fatalf("in flight while sleeping: %v, want [0 0]", sleptInFlight)
	}
	// Two 429s on slots taken under different limits: two cuts, 10 → 8 → 6.
	if st := l.Stats(); st.Cuts != 2 || st.Limit != 6 || st.InFlight != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestLimiterWithRetryPerCallTimeoutExcludesQueue(t *testing.T) {
	// With limit 1 and calls of 30 ms, the fifth caller waits ~120 ms for its
	// slot; a per-attempt timeout of 60 ms must not fire while it waits.
	p := llm.DefaultRetryPolicy()
	p.PerCallTimeout = 60 * time.Millisecond
	tr := &tracker{hold: 30 * time.Millisecond}
	l := llm.NewLimitedRetry(tr, p, llm.NewLimiter(nil, llm.LimitPolicy{Initial: 1, Min: 1, Max: 1}))
	runConcurrent(5, func(int) {
		resp, err := l.Chat(context.Background(), llm.Request{})
		if err != nil || resp.Attempts != 1 {
			t.Errorf("got %+v, %v", resp, err)
		}
	})
	if tr.calls.Load() != 5 || tr.peak.Load() != 1 {
		t.Fatalf("calls %d, peak %d", tr.calls.Load(), tr.peak.Load())
	}
}

func TestLimiterWithRetryUnderLoad(t *testing.T) {
	// Random 429s under heavy concurrency: the backend never sees more than
	// the initial cap, all calls finish, no slot leaks.
	var s sleeps
	p := fastPolicy(&s)
	p.MaxAttempts = 10
	tr := &tracker{hold: 100 * time.Microsecond, result: func(n int64) error {
		if n%5 == 0 {
			return rateLimited(time.Millisecond)
		}
		return nil
	}}
	l := llm.NewLimiter(nil, llm.LimitPolicy{Initial: 6, Min: 2, Max: 6, RecoverAfter: 5})
	c := llm.NewLimitedRetry(tr, p, l)
	runConcurrent(300, func(int) {
		if _, err := c.Chat(context.Background(), llm.Request{}); err != nil {
			t.Error(err)
		}
	})
	st := l.Stats()
	if tr.peak.Load() > 6 || st.InFlight != 0 || st.Waiting != 0 || st.Cuts == 0 {
		t.Fatalf("stats %+v, backend peak %d", st, tr.peak.Load())
	}
	if st.Limit < 2 || st.Limit > 6 {
		t.Fatalf("limit %d outside [2, 6]", st.Limit)
	}
}

func TestDefaultLimitPolicy(t *testing.T) {
	for _, tc := range []struct {
		provider              string
		initial, minimum, max int
	}{
		{"openai", 8, 1, 512},
		{"openrouter", 8, 1, 512},
		{"ollama", 4, 1, 16},
		{"Ollama", 4, 1, 16},
		{"sim", llm.Unlimited, 1, llm.Unlimited},
	} {
		p := llm.DefaultLimitPolicy(tc.provider)
		if p.Initial != tc.initial || p.Min != tc.minimum || p.Max != tc.max || p.Decrease != 0.8 {
			t.Errorf("%s: %+v", tc.provider, p)
		}
		if l := llm.NewLimiter(&tracker{}, p); l.Limit() != tc.initial {
			t.Errorf("%s: limit %d", tc.provider, l.Limit())
		}
	}
}

func TestLimiterCountsAttemptsRateLimitsAndSlotTime(t *testing.T) {
	// 20 calls of at least 5 ms, 2 at a time, every fourth a 429: the
	// limiter counts 20 attempts and 5 rate limits, and slots were held at
	// least 20 × 5 ms in total (mean in flight = SlotTime / wall ≤ 2).
	tr := &tracker{hold: 5 * time.Millisecond, result: func(n int64) error {
		if n%4 == 0 {
			return rateLimited(0)
		}
		return nil
	}}
	l := llm.NewLimiter(tr, llm.LimitPolicy{Initial: 2, Min: 2, Max: 2})
	start := time.Now()
	runConcurrent(20, func(int) { _, _ = l.Chat(context.Background(), llm.Request{}) })
	wall := time.Since(start)
	st := l.Stats()
	if st.Attempts != 20 || st.RateLimited != 5 {
		t.Fatalf("attempts %d, rate limited %d; want 20 and 5", st.Attempts, st.RateLimited)
	}
	if st.SlotTime < 100*time.Millisecond || st.SlotTime > 2*wall+time.Millisecond {
		t.Fatalf("slot time %s: want at least 100ms and at most 2 × wall (%s)", st.SlotTime, wall)
	}
}

// TestLimiterCutsOn5xxStorm (issue 28 item 5): a storm of 503s (and
// timeouts: a hanging endpoint) cuts the cap like 429s do, one cut per
// burst; before, only 429s cut it and the cap stayed (or grew) while the
// endpoint failed.
func TestLimiterCutsOn5xxStorm(t *testing.T) {
	for _, class := range []llm.ErrorClass{llm.ClassServer, llm.ClassTimeout} {
		t.Run(string(class), func(t *testing.T) {
			l := llm.NewLimiter(&tracker{result: func(int64) error { return &llm.Error{Class: class, Status: 503, Err: errors.New("unavailable")} }},
				llm.LimitPolicy{Initial: 32, Min: 1, Max: 100})
			for range 20 {
				_, _ = l.Chat(context.Background(), llm.Request{})
			}
			if st := l.Stats(); st.Limit != 1 || st.Overloaded != 20 {
				t.Fatalf("after 20 %s errors: limit %d, overloaded %d; want 1, 20", class, st.Limit, st.Overloaded)
			}
		})
	}
}
