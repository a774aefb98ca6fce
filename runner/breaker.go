package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/medteam-bench/medteam/llm"
)

// BreakerPolicy is the circuit breaker of one endpoint (model): when units
// keep ending in retryable errors (5xx, 429, timeouts, resets, garbage — what
// the per-call retry could not get past), the endpoint is treated as down:
// no unit of that model starts, the endpoint is probed with exponential
// backoff, and work continues when it answers again. Units that failed
// because of the outage are run again, so an outage leaves no error rows.
// After MaxOutage the run stops cleanly (resumable).
type BreakerPolicy struct {
	// Threshold is the number of units in a row (no success between) that
	// must end in a retryable error to open the breaker.
	Threshold int
	// Backoff is the first wait before probing; it doubles up to MaxBackoff.
	Backoff, MaxBackoff time.Duration
	// MaxOutage is how long the endpoint may stay down before the run stops;
	// a negative value waits forever.
	MaxOutage time.Duration
	// UnitTries is how many times a unit is run while the breaker stays
	// closed before its retryable error is committed as its row (tries that
	// open the breaker, or fail while it is open, do not count).
	UnitTries int
}

// DefaultBreakerPolicy: 3 failing units in a row open the breaker; probes
// after 2 s, 4 s, … up to 15 s apart; give up after 10 min down; a unit is tried
// up to 3 times outside an outage.
func DefaultBreakerPolicy() BreakerPolicy {
	return BreakerPolicy{Threshold: 3, Backoff: 2 * time.Second, MaxBackoff: 15 * time.Second, MaxOutage: 10 * time.Minute, UnitTries: 3}
}

func (p BreakerPolicy) withDefaults() BreakerPolicy {
	d := DefaultBreakerPolicy()
	if p.Threshold <= 0 {
		p.Threshold = d.Threshold
	}
	if p.Backoff <= 0 {
		p.Backoff = d.Backoff
	}
	if p.MaxBackoff < p.Backoff {
		p.MaxBackoff = max(p.Backoff, d.MaxBackoff)
	}
	if p.MaxOutage == 0 {
		p.MaxOutage = d.MaxOutage
	}
	if p.UnitTries <= 0 {
		p.UnitTries = d.UnitTries
	}
	return p
}

// OutageError stops a run whose endpoint stayed down longer than
// BreakerPolicy.MaxOutage. Nothing was lost: the units that failed because of
// the outage were not committed, so rerunning the same command resumes.
type OutageError struct {
	Model string
	Down  time.Duration
	Last  error // the error that opened the breaker, or the last probe's
}

func (e *OutageError) Error() string {
	return fmt.Sprintf("endpoint of %s unavailable for %s (%v); stopped without marking its questions failed — rerun the same command when it is back to resume",
		e.Model, e.Down.Round(time.Second), e.Last)
}

func (e *OutageError) Unwrap() error { return e.Last }

// breaker is the state of one endpoint. The first unit to wait on an open
// breaker probes for everyone; with no probe function, that unit itself is
// the probe (half-open: it runs, and its result closes or reopens the
// breaker).
type breaker struct {
	p     BreakerPolicy
	model string
	probe func(context.Context) error // nil: the next unit is the probe
	now   func() time.Time
	sleep func(context.Context, time.Duration) error

	mu       sync.Mutex
	failures int // units in a row ending in a retryable error
	open     bool
	// since is when the outage began: the first retryable failure after
	// the last unit that succeeded (zero: none since). A probe that
	// answers closes the breaker but does not end the outage; only a unit
	// that succeeds does, so an endpoint whose probe answers while its
	// calls fail cannot reset the clock (or the backoff) by reopening.
	since   time.Time
	backoff time.Duration
	probing bool          // a waiter is probing (or is the half-open trial)
	trial   bool          // the half-open trial unit is running
	changed chan struct{} // closed and replaced when open/probing changes
	last    error
	outage  *OutageError // set once the outage bound is exceeded: final
	opened  int          // times the breaker opened (for the summary)
}

func newBreaker(p BreakerPolicy, model string, probe func(context.Context) error) *breaker {
	return &breaker{p: p.withDefaults(), model: model, probe: probe, now: time.Now, sleep: llm.Sleep, changed: make(chan struct{})}
}

// notify wakes every waiter; called with b.mu held.
func (b *breaker) notify() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// wait returns when a unit may run: at once while the breaker is closed;
// while it is open, after a probe succeeded (or as the half-open trial).
// It returns an *OutageError when the outage outlasted MaxOutage, or the
// context's error.
func (b *breaker) wait(ctx context.Context) error {
	for {
		b.mu.Lock()
		switch {
		case b.outage != nil:
			b.mu.Unlock()
			return b.outage
		case !b.open:
			b.mu.Unlock()
			return nil
		case !b.probing:
			b.probing = true
			delay := b.backoff
			b.mu.Unlock()
			if run, err := b.probeAfter(ctx, delay); run || err != nil {
				return err
			}
		default:
			ch := b.changed
			b.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// probeAfter is the probing waiter's turn: it sleeps delay, then probes the
// endpoint (or, without a probe, lets its own unit run as the half-open
// trial: run is true). An error is the context's; neither means wait again.
func (b *breaker) probeAfter(ctx context.Context, delay time.Duration) (run bool, err error) {
	if err := b.sleep(ctx, delay); err != nil {
		b.endProbe(nil, false)
		return false, err
	}
	if b.probe == nil {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.checkOutage() {
			return false, nil
		}
		b.trial = true // this unit runs; its result decides (done)
		return true, nil
	}
	perr := b.probe(ctx)
	if ctx.Err() != nil {
		b.endProbe(nil, false)
		return false, ctx.Err()
	}
	b.endProbe(perr, true)
	return false, nil
}

// endProbe records a probe's result (when probed) and wakes the waiters.
func (b *breaker) endProbe(err error, probed bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
	switch {
	case !probed:
	case err == nil:
		b.open, b.failures = false, 0
	default:
		b.last = err
		b.backoff = min(2*b.backoff, b.p.MaxBackoff)
		b.checkOutage()
	}
	b.notify()
}

// checkOutage ends the outage for good when it lasted too long; called with
// b.mu held. It reports whether it did.
func (b *breaker) checkOutage() bool {
	if b.p.MaxOutage < 0 || b.since.IsZero() || b.now().Sub(b.since) < b.p.MaxOutage {
		return false
	}
	b.outage = &OutageError{Model: b.model, Down: b.now().Sub(b.since), Last: b.last}
	b.notify()
	return true
}

// done records how a unit that passed wait ended: ok, a retryable failure
// (err), or neither (a non-retryable error, which says nothing about the
// endpoint). It reports whether the breaker is open afterwards, in which case
// the unit's failure is the outage's, not the unit's.
func (b *breaker) done(ok bool, retryable error) (open bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	trial := b.trial
	if trial {
		b.trial, b.probing = false, false
		defer b.notify()
	}
	switch {
	case ok:
		b.failures, b.since, b.backoff = 0, time.Time{}, 0
		if b.open {
			b.open = false
			b.notify()
		}
	case retryable != nil:
		b.failures++
		b.last = retryable
		if b.since.IsZero() {
			b.since = b.now()
		}
		switch {
		case trial:
			b.backoff = min(2*b.backoff, b.p.MaxBackoff)
			b.checkOutage()
		case !b.open && b.failures >= b.p.Threshold:
			b.open = true
			if b.backoff == 0 { // a new outage; a reopening keeps doubling
				b.backoff = b.p.Backoff
			} else {
				b.backoff = min(2*b.backoff, b.p.MaxBackoff)
			}
			b.opened++
			b.notify()
			b.checkOutage()
		}
	default:
		if trial { // inconclusive: let the next waiter probe again
			return b.open
		}
	}
	return b.open
}

// isOpen says whether the endpoint is treated as down (calls are not sent)
// and no half-open trial unit runs.
func (b *breaker) isOpen() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return (b.open && !b.trial) || b.outage != nil
}

// gate is a model's client behind its breaker: while the breaker is open a
// call is not sent (it fails at once, retryable and unsent), so units in
// flight when the endpoint went down stop sending; only the breaker's
// probes reach the endpoint until it answers again.
type gate struct {
	b    *breaker
	next llm.Client
}

func (g *gate) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if g.b.isOpen() {
		return llm.Response{}, &llm.Error{Class: llm.ClassServer, Unsent: true,
			Err: fmt.Errorf("endpoint of %s is down (circuit breaker open): not sent", g.b.model)}
	}
	return g.next.Chat(ctx, req)
}

// errOutageOf unwraps an *OutageError.
func errOutageOf(err error) *OutageError {
	var oe *OutageError
	if errors.As(err, &oe) {
		return oe
	}
	return nil
}
