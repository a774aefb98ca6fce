package llm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
)

var allClasses = []llm.ErrorClass{
	llm.ClassRateLimited, llm.ClassServer, llm.ClassTimeout, llm.ClassNetwork, llm.ClassMalformed,
	llm.ClassAuth, llm.ClassNotFound, llm.ClassBadRequest, llm.ClassContextLength,
	llm.ClassCanceled, llm.ClassInternal, llm.ClassOversize,
}

// sleeps records the waits asked of RetryPolicy.Sleep without sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) get() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// failing fails the first n calls with err (all calls when n < 0), then
// answers "ok". It counts calls.
type failing struct {
	n     int64
	err   error
	calls atomic.Int64
}

func (f *failing) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	c := f.calls.Add(1)
	if f.n < 0 || c <= f.n {
		return llm.Response{}, f.err
	}
	return llm.Response{Text: "ok", Usage: llm.Usage{PromptTokens: 3, CompletionTokens: 2}, Latency: time.Millisecond}, nil
}

func classErr(c llm.ErrorClass) error {
	return &llm.Error{Class: c, Provider: "fake", Model: "m", Err: errors.New("boom")}
}

func fastPolicy(s *sleeps) llm.RetryPolicy {
	p := llm.DefaultRetryPolicy()
	p.Sleep = s.sleep
	p.Rand = func() float64 { return 0.5 }
	return p
}

func TestRetryAttemptsPerClass(t *testing.T) {
	for _, class := range allClasses {
		t.Run(string(class), func(t *testing.T) {
			var s sleeps
			be := &failing{n: -1, err: classErr(class)}
			resp, err := llm.NewRetry(be, fastPolicy(&s)).Chat(context.Background(), llm.Request{Model: "m"})
			want := 1
			if class.Retryable() {
				want = llm.DefaultMaxAttempts
			}
			if got := int(be.calls.Load()); got != want {
				t.Fatalf("backend calls = %d, want %d", got, want)
			}
			if resp.Attempts != want {
				t.Fatalf("Attempts = %d, want %d", resp.Attempts, want)
			}
			if got := llm.ClassOf(err); got != class {
				t.Fatalf("ClassOf = %q, want %q (err %v)", got, class, err)
			}
			if len(s.get()) != want-1 {
				t.Fatalf("slept %d times, want %d", len(s.get()), want-1)
			}
			if want > 1 && !strings.Contains(err.Error(), fmt.Sprintf("after %d attempts", want)) {
				t.Fatalf("error %q does not say after %d attempts", err, want)
			}
			if want == 1 && err != be.err {
				t.Fatalf("single-attempt error should be returned as is, got %v", err)
			}
		})
	}
}

func TestRetryNeverExceedsMaxAttempts(t *testing.T) {
	for _, max := range []int{1, 2, 3, 7} {
		for _, fails := range []int64{0, 1, 2, 6, 100} {
			t.Run(fmt.Sprintf("max%d/fails%d", max, fails), func(t *testing.T) {
				var s sleeps
				p := fastPolicy(&s)
				p.MaxAttempts = max
				be := &failing{n: fails, err: classErr(llm.ClassServer)}
				resp, err := llm.NewRetry(be, p).Chat(context.Background(), llm.Request{})
				calls := int(be.calls.Load())
				if calls > max {
					t.Fatalf("%d backend calls > MaxAttempts %d", calls, max)
				}
				if int(fails) < max {
					if err != nil || resp.Text != "ok" || resp.Attempts != int(fails)+1 {
						t.Fatalf("want success after %d attempts, got %+v, %v", fails+1, resp, err)
					}
				} else if err == nil || resp.Attempts != max || calls != max {
					t.Fatalf("want failure after %d attempts, got %+v, %v (calls %d)", max, resp, err, calls)
				}
			})
		}
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	p := llm.DefaultRetryPolicy()
	for _, tc := range []struct {
		name       string
		retryAfter time.Duration
		want       time.Duration // exact wait with Rand = 0.5 (backoff 375ms on the first retry)
	}{
		{"none", 0, 375 * time.Millisecond},
		{"shorter than backoff", 100 * time.Millisecond, 375 * time.Millisecond},
		{"longer than backoff", 5 * time.Second, 5 * time.Second},
		{"longer than MaxDelay is honoured", 45 * time.Second, 45 * time.Second},
		{"capped at MaxRetryAfter", time.Hour, p.MaxRetryAfter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s sleeps
			e := &llm.Error{Class: llm.ClassRateLimited, Status: 429, Retry: tc.retryAfter}
			be := &failing{n: 1, err: e}
			resp, err := llm.NewRetry(be, fastPolicy(&s)).Chat(context.Background(), llm.Request{})
			if err != nil || resp.Attempts != 2 {
				t.Fatalf("got %+v, %v", resp, err)
			}
			if got := s.get(); len(got) != 1 || got[0] != tc.want {
				t.Fatalf("slept %v, want [%v]", got, tc.want)
			}
		})
	}
}

func TestBackoffJitterBounds(t *testing.T) {
	p := llm.RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: 3 * time.Second}
	for failed := 1; failed <= 12; failed++ {
		ceil := min(p.MaxDelay, p.BaseDelay<<(failed-1))
		for _, u := range []float64{0, 0.1, 0.5, 0.9, 0.999999} {
			d := p.Backoff(failed, 0, u)
			if d < ceil/2 || d > ceil {
				t.Fatalf("failed=%d u=%v: backoff %v outside [%v, %v]", failed, u, d, ceil/2, ceil)
			}
		}
	}
	// The waits NewRetry actually uses with the default random source.
	var s sleeps
	q := llm.RetryPolicy{MaxAttempts: 200, BaseDelay: 10 * time.Millisecond, MaxDelay: 80 * time.Millisecond, Sleep: s.sleep}
	be := &failing{n: -1, err: classErr(llm.ClassNetwork)}
	_, _ = llm.NewRetry(be, q).Chat(context.Background(), llm.Request{})
	got := s.get()
	if len(got) != 199 {
		t.Fatalf("slept %d times, want 199", len(got))
	}
	distinct := map[time.Duration]bool{}
	for k, d := range got {
		ceil := min(q.MaxDelay, q.BaseDelay<<min(k, 10))
		if d < ceil/2 || d > ceil {
			t.Fatalf("wait %d = %v outside [%v, %v]", k, d, ceil/2, ceil)
		}
		distinct[d] = true
	}
	if len(distinct) < 50 {
		t.Fatalf("only %d distinct waits: no jitter?", len(distinct))
	}
}

// hanging blocks until its ctx is done for the first n calls, then answers.
type hanging struct {
	n     int64
	calls atomic.Int64
}

func (h *hanging) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if h.calls.Add(1) <= h.n || h.n < 0 {
		<-ctx.Done()
		return llm.Response{}, fmt.Errorf("reading body: %w", ctx.Err())
	}
	return llm.Response{Text: "late but fine"}, nil
}

func TestRetryPerCallTimeout(t *testing.T) {
	t.Run("hang then answer", func(t *testing.T) {
		var s sleeps
		p := fastPolicy(&s)
		p.PerCallTimeout = 20 * time.Millisecond
		be := &hanging{n: 2}
		resp, err := llm.NewRetry(be, p).Chat(context.Background(), llm.Request{})
		if err != nil || resp.Attempts != 3 || resp.Text != "late but fine" {
			t.Fatalf("got %+v, %v", resp, err)
		}
	})
	t.Run("always hangs", func(t *testing.T) {
		var s sleeps
		p := fastPolicy(&s)
		p.PerCallTimeout = 10 * time.Millisecond
		be := &hanging{n: -1}
		resp, err := llm.NewRetry(be, p).Chat(context.Background(), llm.Request{Model: "m"})
		if llm.ClassOf(err) != llm.ClassTimeout || resp.Attempts != llm.DefaultMaxAttempts {
			t.Fatalf("got %+v, %v (class %q)", resp, err, llm.ClassOf(err))
		}
		if !strings.Contains(err.Error(), "per-call timeout") || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error %q should name the per-call timeout and wrap DeadlineExceeded", err)
		}
	})
	t.Run("backend misclassifies its own deadline", func(t *testing.T) {
		// A backend that reports the attempt deadline as canceled (not
		// retryable) still gets class timeout and a retry.
		var s sleeps
		p := fastPolicy(&s)
		p.PerCallTimeout = 10 * time.Millisecond
		var calls atomic.Int64
		be := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
			if calls.Add(1) == 1 {
				<-ctx.Done()
				return llm.Response{}, &llm.Error{Class: llm.ClassCanceled, Provider: "fake", Err: ctx.Err()}
			}
			return llm.Response{Text: "ok"}, nil
		})
		resp, err := llm.NewRetry(be, p).Chat(context.Background(), llm.Request{})
		if err != nil || resp.Attempts != 2 {
			t.Fatalf("got %+v, %v", resp, err)
		}
	})
	t.Run("zero means none", func(t *testing.T) {
		p := llm.RetryPolicy{Sleep: (&sleeps{}).sleep}
		be := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
			if _, ok := ctx.Deadline(); ok {
				t.Error("attempt has a deadline with PerCallTimeout 0")
			}
			return llm.Response{}, nil
		})
		_, _ = llm.NewRetry(be, p).Chat(context.Background(), llm.Request{})
	})
}

func TestRetryParentCancelStopsAtOnce(t *testing.T) {
	t.Run("during an attempt", func(t *testing.T) {
		p := llm.DefaultRetryPolicy()
		be := &hanging{n: -1}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		start := time.Now()
		resp, err := llm.NewRetry(be, p).Chat(ctx, llm.Request{})
		if llm.ClassOf(err) != llm.ClassCanceled || !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v (class %q), want canceled", err, llm.ClassOf(err))
		}
		if resp.Attempts != 1 || be.calls.Load() != 1 {
			t.Fatalf("attempts %d, calls %d; want 1, 1", resp.Attempts, be.calls.Load())
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Fatalf("took %v", el)
		}
	})
	t.Run("during backoff", func(t *testing.T) {
		p := llm.DefaultRetryPolicy()
		p.BaseDelay, p.MaxDelay = time.Hour, time.Hour // real sleep, would never end
		be := &failing{n: -1, err: classErr(llm.ClassServer)}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		start := time.Now()
		resp, err := llm.NewRetry(be, p).Chat(ctx, llm.Request{})
		if llm.ClassOf(err) != llm.ClassCanceled || resp.Attempts != 1 || be.calls.Load() != 1 {
			t.Fatalf("got %+v, %v (class %q, calls %d)", resp, err, llm.ClassOf(err), be.calls.Load())
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Fatalf("took %v", el)
		}
	})
	t.Run("parent deadline is canceled, not retried", func(t *testing.T) {
		p := llm.DefaultRetryPolicy()
		be := &hanging{n: -1}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		resp, err := llm.NewRetry(be, p).Chat(ctx, llm.Request{})
		if llm.ClassOf(err) != llm.ClassCanceled || resp.Attempts != 1 || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %+v, %v (class %q)", resp, err, llm.ClassOf(err))
		}
	})
	t.Run("already done", func(t *testing.T) {
		be := &failing{n: 0}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := llm.NewRetry(be, llm.DefaultRetryPolicy()).Chat(ctx, llm.Request{})
		if llm.ClassOf(err) != llm.ClassCanceled || be.calls.Load() != 0 {
			t.Fatalf("err %v, calls %d", err, be.calls.Load())
		}
	})
}

func TestRetryMeterSeesAttempts(t *testing.T) {
	var s sleeps
	m := llm.NewMeter(llm.NewRetry(&failing{n: 2, err: classErr(llm.ClassRateLimited)}, fastPolicy(&s)), false)
	if _, err := m.Chat(context.Background(), llm.Request{}); err != nil {
		t.Fatal(err)
	}
	m2 := llm.NewMeter(llm.NewRetry(&failing{n: -1, err: classErr(llm.ClassServer)}, fastPolicy(&s)), false)
	if _, err := m2.Chat(context.Background(), llm.Request{}); err == nil {
		t.Fatal("want error")
	}
	if a := m.Totals().Attempts; a != 3 {
		t.Fatalf("meter attempts after 2 failures = %d, want 3", a)
	}
	if a := m2.Totals().Attempts; a != llm.DefaultMaxAttempts {
		t.Fatalf("meter attempts of a failed call = %d, want %d", a, llm.DefaultMaxAttempts)
	}
}

func BenchmarkRetryOverhead(b *testing.B) {
	ok := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return llm.Response{Text: "A"}, nil
	})
	for _, tc := range []struct {
		name    string
		timeout time.Duration
	}{{"no-timeout", 0}, {"per-call-timeout", llm.DefaultPerCallTimeout}} {
		b.Run(tc.name, func(b *testing.B) {
			p := llm.DefaultRetryPolicy()
			p.PerCallTimeout = tc.timeout
			c := llm.NewRetry(ok, p)
			ctx := context.Background()
			req := llm.Request{Model: "m"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Chat(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRetryCountsRequestsSent: the attempts a call reports are the requests
// its backend says it sent, on success and failure; a try canceled before its
// request left (Unsent) is none, and a backend that reports nothing made one.
func TestRetryCountsRequestsSent(t *testing.T) {
	server := classErr(llm.ClassServer)
	unsent := &llm.Error{Class: llm.ClassCanceled, Provider: "fake", Unsent: true, Err: context.Canceled}
	sentCanceled := &llm.Error{Class: llm.ClassCanceled, Provider: "fake", Err: context.Canceled}
	type try struct {
		resp llm.Response
		err  error
	}
	tests := []struct {
		name       string
		tries      []try
		cancelAt   int // cancel the caller's ctx during this try (1-based), 0 = never
		wantN      int
		wantErrors []llm.ErrorClass
	}{
		{"unreported success", []try{{llm.Response{Text: "ok"}, nil}}, 0, 1, nil},
		{"unreported failure then success", []try{{llm.Response{}, server}, {llm.Response{Text: "ok"}, nil}}, 0,
			2, []llm.ErrorClass{llm.ClassServer}},
		{"backend asked twice itself", []try{{llm.Response{Text: "ok", Attempts: 2, AttemptErrors: []llm.ErrorClass{llm.ClassBadRequest}}, nil}}, 0,
			2, []llm.ErrorClass{llm.ClassBadRequest}},
		{"canceled after sending", []try{{llm.Response{}, server}, {llm.Response{Attempts: 1}, sentCanceled}}, 2,
			2, []llm.ErrorClass{llm.ClassServer, llm.ClassCanceled}},
		{"canceled before sending", []try{{llm.Response{}, server}, {llm.Response{}, unsent}}, 2,
			1, []llm.ErrorClass{llm.ClassServer}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			n := 0
			be := llm.ClientFunc(func(context.Context, llm.Request) (llm.Response, error) {
				tr := tt.tries[n]
				n++
				if n == tt.cancelAt {
					cancel()
				}
				return tr.resp, tr.err
			})
			var s sleeps
			m := llm.NewMeter(llm.NewRetry(be, fastPolicy(&s)), false)
			resp, _ := m.Chat(ctx, llm.Request{})
			rec := m.Calls()[0]
			if resp.Attempts != tt.wantN || rec.Attempts != tt.wantN {
				t.Errorf("attempts: response %d, meter %d; want %d", resp.Attempts, rec.Attempts, tt.wantN)
			}
			if fmt.Sprint(rec.AttemptErrors) != fmt.Sprint(tt.wantErrors) {
				t.Errorf("attempt errors %v, want %v", rec.AttemptErrors, tt.wantErrors)
			}
		})
	}
}

// TestMeterCountsNoAttemptForCanceledCall: a call canceled before any request
// (queued behind a limiter, say) is recorded with 0 attempts, not 1.
func TestMeterCountsNoAttemptForCanceledCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var s sleeps
	be := &failing{n: 0}
	m := llm.NewMeter(llm.NewLimitedRetry(be, fastPolicy(&s), llm.NewLimiter(nil, llm.LimitPolicy{Initial: 1})), false)
	if _, err := m.Chat(ctx, llm.Request{}); llm.ClassOf(err) != llm.ClassCanceled {
		t.Fatalf("err %v", err)
	}
	if a := m.Totals().Attempts; a != 0 || be.calls.Load() != 0 {
		t.Fatalf("meter attempts %d (backend calls %d), want 0", a, be.calls.Load())
	}
}
