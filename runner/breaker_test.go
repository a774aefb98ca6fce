package runner

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
)

// fakeClock drives a breaker without real waiting: sleep advances now.
type fakeClock struct {
	mu  sync.Mutex
	t   time.Time
	log []time.Duration
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	c.log = append(c.log, d)
	return nil
}

func testBreaker(p BreakerPolicy, probe func(context.Context) error) (*breaker, *fakeClock) {
	var pr Probe
	if probe != nil {
		pr = func(ctx context.Context) (llm.Response, error) { return llm.Response{Attempts: 1}, probe(ctx) }
	}
	b := newBreaker(p, "openai/m", pr)
	c := &fakeClock{t: time.Unix(1e9, 0)}
	b.now, b.sleep = c.now, c.sleep
	return b, c
}

var errDown = &llm.Error{Class: llm.ClassServer, Err: errors.New("server error (HTTP 503)")}

// fail is a failed attempt: admitted, then observed with errDown; it
// reports whether the breaker is open afterwards.
func fail(b *breaker) bool {
	b.Admit(context.Background())
	b.Observe(errDown)
	return b.isOpen()
}

func TestBreakerOpensAfterThresholdAndClosesOnProbe(t *testing.T) {
	probes := 0
	b, clock := testBreaker(BreakerPolicy{Threshold: 3, Backoff: time.Second, MaxBackoff: 4 * time.Second, MaxOutage: time.Hour},
		func(context.Context) error {
			probes++
			if probes >= 4 { // the endpoint is back at the fourth probe
				return nil
			}
			return errDown
		})
	ctx := context.Background()
	for i := range 2 {
		if open := fail(b); open {
			t.Fatalf("open after %d failures, threshold 3", i+1)
		}
	}
	b.Observe(nil) // an answered attempt resets the count
	for i := range 3 {
		open := fail(b)
		if open != (i == 2) {
			t.Fatalf("failure %d: open=%v", i+1, open)
		}
	}
	// Probes back off 1 s, 2 s, 4 s, 4 s; the endpoint is back at the fourth.
	if err := b.wait(ctx); err != nil {
		t.Fatalf("wait: %v", err)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second}
	if len(clock.log) < 4 || !equalDurations(clock.log[:4], want) {
		t.Fatalf("probe delays %v, want %v…", clock.log, want)
	}
	if b.open || probes != 4 || b.opened != 1 {
		t.Fatalf("after recovery: open=%v probes=%d opened=%d", b.open, probes, b.opened)
	}
	if err := b.wait(ctx); err != nil {
		t.Fatalf("closed breaker waits: %v", err)
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBreakerGivesUpAfterMaxOutage(t *testing.T) {
	b, _ := testBreaker(BreakerPolicy{Threshold: 1, Backoff: time.Minute, MaxBackoff: time.Minute, MaxOutage: 5 * time.Minute},
		func(context.Context) error { return errDown })
	fail(b)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs { // every waiter gets the same outage
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = b.wait(context.Background()) }()
	}
	wg.Wait()
	for i, err := range errs {
		oe := errOutageOf(err)
		if oe == nil || oe.Down < 5*time.Minute || !errors.Is(err, errDown) {
			t.Fatalf("waiter %d: %v, want an outage of ≥ 5 min wrapping the last error", i, err)
		}
	}
}

// TestBreakerHalfOpenTrial: without a probe function, one unit at a time is
// let through; its success closes the breaker, its failure reopens it.
func TestBreakerHalfOpenTrial(t *testing.T) {
	b, _ := testBreaker(BreakerPolicy{Threshold: 1, Backoff: time.Second, MaxOutage: time.Hour}, nil)
	fail(b)
	if err := b.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !b.trial {
		t.Fatal("the first waiter is not the trial unit")
	}
	// A second waiter must block while the trial runs.
	released := make(chan struct{})
	go func() { b.wait(context.Background()); close(released) }()
	select {
	case <-released:
		t.Fatal("a second unit passed during the half-open trial")
	case <-time.After(20 * time.Millisecond):
	}
	fail(b) // the trial's attempt fails
	if open := b.done(false, errDown); !open {
		t.Fatal("a failed trial closed the breaker")
	}
	// The blocked waiter becomes the next trial; its success closes it.
	<-released
	if !b.trial {
		t.Fatal("the next waiter is not the trial unit")
	}
	b.Observe(nil) // the trial's attempt is answered
	if open := b.done(true, nil); open {
		t.Fatal("a successful trial left the breaker open")
	}
}

// TestRunTriesDoNotBurnOnOutage: a unit that fails while the breaker opens
// is not charged a try.
func TestBreakerChargesTriesOnlyWhenClosed(t *testing.T) {
	b, _ := testBreaker(BreakerPolicy{Threshold: 2, UnitTries: 3, MaxOutage: time.Hour}, nil)
	if fail(b); b.done(false, errDown) {
		t.Fatal("open after 1 of 2")
	}
	if fail(b); !b.done(false, errDown) {
		t.Fatal("closed after 2 of 2")
	}
	if open := b.done(false, errors.New("bad request")); !open {
		t.Fatal("a non-retryable failure outside a trial closed the breaker")
	}
}

// TestBreakerProbeAnswersCallsFail (issue 28 item 5): the probe answers but
// every unit fails: each reopening keeps the outage clock (from the first
// failure) and keeps doubling the backoff, so the outage bound fires;
// before, each reopening restarted both and the run never stopped.
func TestBreakerProbeAnswersCallsFail(t *testing.T) {
	b, clock := testBreaker(BreakerPolicy{Threshold: 3, Backoff: time.Second, MaxBackoff: 8 * time.Second, MaxOutage: 30 * time.Second},
		func(context.Context) error { return nil })
	ctx := context.Background()
	var err error
	for round := 0; round < 100 && err == nil; round++ {
		if err = b.wait(ctx); err != nil {
			break
		}
		clock.sleep(ctx, time.Second) // a failing unit's try takes a second
		fail(b)
		b.done(false, errDown)
	}
	oe := errOutageOf(err)
	if oe == nil || oe.Down < 30*time.Second || oe.Down > 45*time.Second {
		t.Fatalf("err %v; want an outage of 30–45 s", err)
	}
	if slices.Max(clock.log) < 8*time.Second {
		t.Errorf("probe waits %v: the backoff did not keep doubling over reopenings", clock.log)
	}
	if !b.isOpen() {
		t.Error("the gate lets calls through after the outage ended the run")
	}
	b2, _ := testBreaker(BreakerPolicy{Threshold: 1, Backoff: time.Second, MaxOutage: time.Hour}, nil)
	g := &gate{b: b2, next: nil}
	fail(b2)
	if _, err := g.Chat(ctx, llm.Request{}); err == nil || !llm.ClassOf(err).Retryable() {
		t.Errorf("a call through an open breaker: %v, want a retryable unsent error", err)
	}
}

// timers collects the breaker's timers so a test fires them by hand.
type timers struct {
	mu sync.Mutex
	d  []time.Duration
	f  []func()
}

func (ts *timers) after(d time.Duration, f func()) func() bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.d, ts.f = append(ts.d, d), append(ts.f, f)
	return func() bool { return true }
}

func (ts *timers) fire(t *testing.T, i int, want time.Duration) {
	t.Helper()
	ts.mu.Lock()
	if len(ts.f) <= i || ts.d[i] != want {
		ts.mu.Unlock()
		t.Fatalf("timer %d: have %v, want one of %s", i, ts.d, want)
	}
	f := ts.f[i]
	ts.mu.Unlock()
	f()
}

// TestBreakerOutageTimer (issue 35 item 2): the outage clock starts at the
// first failed attempt; MaxOutage later no attempt is admitted and those in
// flight get Grace; then the outage is final whatever hangs: waiters get
// it and the calls bound to the breaker are canceled. An attempt answered
// during the grace ends the outage instead.
func TestBreakerOutageTimer(t *testing.T) {
	const maxOutage, grace = 10 * time.Second, 2 * time.Second
	for _, answered := range []bool{false, true} {
		b, clock := testBreaker(BreakerPolicy{Threshold: 8, Backoff: time.Second, MaxOutage: maxOutage, Grace: grace}, nil)
		ts := &timers{}
		b.after = ts.after
		ctx, release := b.bind(context.Background())
		fail(b) // the first failure: the clock starts (the breaker stays closed: 1 of 8)
		if err := b.Admit(ctx); err != nil {
			t.Fatalf("a closed breaker refused: %v", err)
		} // an attempt in flight, hanging
		clock.sleep(ctx, maxOutage)
		ts.fire(t, 0, maxOutage)
		if err := b.Admit(ctx); err == nil || !llm.ClassOf(err).Retryable() {
			t.Fatalf("after MaxOutage an attempt was admitted (err %v)", err)
		}
		if answered {
			b.Observe(nil)
			ts.fire(t, 1, grace)
			if b.final() != nil || b.isOpen() || ctx.Err() != nil {
				t.Fatalf("an attempt answered in the grace did not end the outage: final %v", b.final())
			}
			release()
			continue
		}
		clock.sleep(ctx, grace)
		ts.fire(t, 1, grace)
		oe := errOutageOf(b.wait(context.Background()))
		if oe == nil || oe.Down != maxOutage+grace {
			t.Fatalf("wait: %v, want an outage of %s", oe, maxOutage+grace)
		}
		select { // the cancellation runs in its own goroutine
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
		if errOutageOf(context.Cause(ctx)) == nil {
			t.Fatalf("the calls bound to the breaker were not canceled: %v", context.Cause(ctx))
		}
		release()
	}
}

// TestBreakerProbeInFlightGetsGrace: a probe whose request is in flight
// when MaxOutage passes gets Grace, like an attempt. Answered within it, the
// calls may try for the rest of the Grace (probation): one answered ends the
// outage; if they fail, the outage is final, because a probe's answer alone
// never resets the clock (an endpoint whose probes answer while its calls
// fail must still stop the run). A probe still hanging after the Grace: final.
// Before, the outage was final the moment MaxOutage passed, so a run
// stopped with exit 5 just as the endpoint answered its probe.
func TestBreakerProbeInFlightGetsGrace(t *testing.T) {
	const maxOutage, grace = 10 * time.Second, 2 * time.Second
	for _, then := range []string{"an attempt answers", "the attempts fail", "the probe hangs"} {
		in, out := make(chan struct{}), make(chan error)
		b, _ := testBreaker(BreakerPolicy{Threshold: 8, Backoff: time.Second, MaxBackoff: time.Second, MaxOutage: maxOutage, Grace: grace},
			func(ctx context.Context) error {
				in <- struct{}{}
				select {
				case err := <-out:
					return err
				case <-ctx.Done():
					return ctx.Err()
				}
			})
		ts := &timers{}
		b.after = ts.after
		for range 8 {
			fail(b)
		}
		ctx, release := b.bind(context.Background()) // a unit's context: the final outage cancels it
		waited := make(chan error, 1)
		go func() { waited <- b.wait(ctx) }()
		recv(t, in) // the probe's request is in flight
		ts.fire(t, 0, maxOutage)
		if oe := b.final(); oe != nil {
			t.Fatalf("%s: final at MaxOutage while the probe was in flight: %v", then, oe)
		}
		if then != "the probe hangs" {
			out <- nil // the probe answers in the grace
			if err := recv(t, waited); err != nil {
				t.Fatalf("%s: wait after the probe answered in the grace: %v", then, err)
			}
			if err := b.Admit(ctx); err != nil {
				t.Fatalf("%s: a probe answered in the grace, yet an attempt was refused: %v", then, err)
			}
			if then == "an attempt answers" {
				b.Observe(nil)
				ts.fire(t, 1, grace)
				if b.final() != nil || b.isOpen() {
					t.Fatalf("an attempt answered in the grace did not end the outage: final %v, open %v", b.final(), b.isOpen())
				}
				release()
				continue
			}
			b.Observe(errDown)
			ts.fire(t, 1, grace)
			if b.final() == nil {
				t.Fatal("the probe answered but the calls failed: the outage is not final after the grace (a probe's answer reset the clock)")
			}
			release()
			continue
		}
		ts.fire(t, 1, grace)
		if b.final() == nil {
			t.Fatal("a probe still hanging after the grace: the outage is not final")
		}
		if err := recv(t, waited); err == nil || errOutageOf(context.Cause(ctx)) == nil {
			t.Fatalf("wait: %v (cause %v), want the outage", err, context.Cause(ctx))
		}
		release()
	}
}

// recv receives from ch, failing the test after 10 s.
func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("nothing received in 10 s")
		panic("unreachable")
	}
}
