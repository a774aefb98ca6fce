package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/medteam-bench/medteam/llm"
)

// BreakerPolicy is the circuit breaker of one endpoint (model). The breaker
// sees every attempt as it ends (through the retry loop's llm.AttemptGate,
// or each call when the client has no such loop): when attempts keep
// failing with retryable errors (5xx, 429, timeouts, resets, garbage), the
// endpoint is treated as down: no attempt of that model is sent, the
// endpoint is probed with exponential backoff, and work continues when it
// answers again. Units that failed because of the outage are run again, so
// an outage leaves no error rows. The outage runs from the first failed
// attempt until an attempt is answered; after MaxOutage (and at most Grace
// more for attempts in flight) the run stops cleanly (resumable), whatever
// is in flight or hangs.
type BreakerPolicy struct {
	// Threshold is the number of attempts in a row (none answered between)
	// that must fail with a retryable error to open the breaker.
	Threshold int
	// Backoff is the first wait before probing; it doubles up to MaxBackoff.
	Backoff, MaxBackoff time.Duration
	// MaxOutage is how long the endpoint may stay down (from its first
	// failed attempt, none answered since) before the run stops; a negative
	// value waits forever.
	MaxOutage time.Duration
	// Grace is how long attempts in flight when MaxOutage passes may still
	// answer (and end the outage) before the run stops; no new attempt is
	// sent meanwhile. The per-call timeout; 0: none.
	Grace time.Duration
	// UnitTries is how many times a unit is run while the breaker stays
	// closed before its retryable error is committed as its row (tries that
	// open the breaker, or fail while it is open, do not count).
	UnitTries int
}

// DefaultBreakerPolicy: 8 failed attempts in a row open the breaker; probes
// after 2 s, 4 s, … up to 15 s apart; give up after 10 min down; a unit is
// tried up to 3 times outside an outage.
func DefaultBreakerPolicy() BreakerPolicy {
	return BreakerPolicy{Threshold: 8, Backoff: 2 * time.Second, MaxBackoff: 15 * time.Second, MaxOutage: 10 * time.Minute, UnitTries: 3}
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
	p.Grace = max(p.Grace, 0)
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
// breaker). It is the llm.AttemptGate of its endpoint's retry loop.
type breaker struct {
	p     BreakerPolicy
	model string
	probe Probe // nil: the next unit is the probe
	now   func() time.Time
	sleep func(context.Context, time.Duration) error
	after func(time.Duration, func()) (stop func() bool) // time.AfterFunc

	// stop is canceled when the outage is final: the calls of the model in
	// flight (bound to it by bind) end at once.
	stop   context.Context
	cancel context.CancelCauseFunc

	mu       sync.Mutex
	failures int // attempts in a row failing with a retryable error
	open     bool
	// since is when the outage began: the first retryable failure after
	// the last answered attempt (zero: none since). A probe that answers
	// closes the breaker but does not end the outage; only an answered
	// attempt does, so an endpoint whose probe answers while its calls
	// fail cannot reset the clock (or the backoff) by reopening.
	since   time.Time
	backoff time.Duration
	probing bool          // a waiter is probing (or is the half-open trial)
	trial   bool          // the half-open trial unit is running
	changed chan struct{} // closed and replaced when open/probing changes
	last    error
	outage  *OutageError // set once the outage bound is exceeded: final
	opened  int          // times the breaker opened (for the summary)

	inflight int  // attempts admitted and not yet observed
	probeOut bool // a probe's request is in flight: like an attempt, it gets Grace
	expired  bool // MaxOutage has passed: the attempts in flight have Grace to answer
	// probation: a probe answered within the Grace: attempts may be sent
	// for what is left of it, and one answered ends the outage; the clock
	// and the backoff are kept (a probe's answer alone never resets them).
	probation bool
	epoch     int // bumped when an outage ends: its timers are stale
	stopTime  func() bool
	answered  int64 // attempts and probes answered so far
	// parked: the calls are parked in provider batches (batch mode), so a
	// call in flight is a batch being worked on, never an outage's hang.
	parked   bool
	probes   int   // requests the probes sent
	probeTok int64 // their tokens
}

// Probe checks cheaply that an endpoint answers: nil when it does. Its
// Response says what it cost: Attempts the requests it sent (0 when none
// left the client), Usage their tokens.
type Probe func(context.Context) (llm.Response, error)

func newBreaker(p BreakerPolicy, model string, probe Probe) *breaker {
	b := &breaker{p: p.withDefaults(), model: model, probe: probe, now: time.Now, sleep: llm.Sleep, changed: make(chan struct{})}
	b.after = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	b.stop, b.cancel = context.WithCancelCause(context.Background())
	return b
}

// notify wakes every waiter; called with b.mu held.
func (b *breaker) notify() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// bind returns ctx canceled also when the outage becomes final, and the
// function that releases it.
func (b *breaker) bind(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	unhook := context.AfterFunc(b.stop, func() { cancel(context.Cause(b.stop)) })
	return ctx, func() { unhook(); cancel(nil) }
}

// final is the outage that ended the run, nil while there is none.
func (b *breaker) final() *OutageError {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.outage
}

// close stops the breaker's timer at the end of the run.
func (b *breaker) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.epoch++
	if b.stopTime != nil {
		b.stopTime()
	}
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
		case !b.open && (!b.expired || b.probation):
			b.mu.Unlock()
			return nil
		case !b.probing && !b.expired:
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
	b.mu.Lock()
	if b.checkOutage() || b.expired {
		b.mu.Unlock()
		b.endProbe(nil, false)
		return false, nil
	}
	if b.probe == nil {
		defer b.mu.Unlock()
		b.trial = true // this unit runs; its result decides (done)
		return true, nil
	}
	b.probeOut = true
	b.mu.Unlock()
	resp, perr := b.probe(ctx)
	b.mu.Lock()
	b.probeOut = false
	b.probes += resp.Attempts
	b.probeTok += int64(resp.Usage.PromptTokens + resp.Usage.CompletionTokens)
	b.mu.Unlock()
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
		b.probation = b.expired // answered in the Grace: calls may try for the rest of it
		b.open, b.failures = false, 0
		b.answered++ // the endpoint answers: a unit's next failed try is its own
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
	if b.outage != nil {
		return true
	}
	if b.p.MaxOutage < 0 || b.since.IsZero() || b.now().Sub(b.since) < b.p.MaxOutage {
		return false
	}
	b.finalize()
	return true
}

// finalize makes the outage final: every waiter gets it and the model's
// calls in flight are canceled. Called with b.mu held.
func (b *breaker) finalize() {
	if b.outage != nil {
		return
	}
	b.outage = &OutageError{Model: b.model, Down: b.now().Sub(b.since), Last: b.last}
	if b.stopTime != nil {
		b.stopTime()
	}
	b.notify()
	b.cancel(b.outage)
}

// expire is the outage timer of epoch: MaxOutage after the first failure
// with no attempt answered since, the attempts in flight — a probe's
// included — get Grace to answer (none is sent meanwhile); then the outage
// is final. Called by the timer.
func (b *breaker) expire(epoch int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if epoch != b.epoch || b.outage != nil {
		return
	}
	if b.parked && b.inflight > 0 {
		// Batch mode: a call in flight is parked in a provider batch that
		// may take hours to complete; the endpoint is working on it, so the
		// outage is not final while one is pending. Look again later.
		b.stopTime = b.after(b.p.MaxOutage, func() { b.expire(epoch) })
		return
	}
	if b.expired || b.inflight == 0 && !b.probeOut || b.p.Grace <= 0 {
		b.finalize()
		return
	}
	b.expired = true
	b.notify()
	b.stopTime = b.after(b.p.Grace, func() { b.expire(epoch) })
}

// Admit lets an attempt of the endpoint be sent unless the breaker is open
// (or the outage is over its bound): then it refuses, retryable and unsent,
// so calls in flight stop sending and only the probes reach the endpoint.
// It implements llm.AttemptGate.
func (b *breaker) Admit(context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closedLocked() {
		b.inflight++
		return nil
	}
	return b.refusal()
}

func (b *breaker) refusal() error {
	return &llm.Error{Class: llm.ClassServer, Unsent: true,
		Err: fmt.Errorf("endpoint of %s is down (circuit breaker open): not sent", b.model)}
}

// closedLocked says whether attempts may be sent; called with b.mu held.
func (b *breaker) closedLocked() bool {
	return b.outage == nil && (!b.expired || b.probation) && (!b.open || b.trial)
}

// Observe records how an admitted attempt ended: answered (err nil) ends
// the outage; a retryable error counts towards opening the breaker and
// starts the outage clock; anything else (a refusal of the request, a
// cancellation) says nothing about the endpoint. It implements
// llm.AttemptGate.
func (b *breaker) Observe(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.inflight = max(0, b.inflight-1)
	switch {
	case err == nil || serverAnswered(err):
		b.answered++
		b.recovered()
	case llm.ClassOf(err).Retryable():
		b.failed(err)
	}
}

// serverAnswered says whether err is a reply the server sent with a success
// status whose body could not be used (malformed, cut, not final): the
// endpoint is up — it is the reply that is bad, which the retry loop and
// the unit's tries handle — so it is no outage's failure. An endpoint that
// answers every call with an unusable body ends its questions as error rows
// after their tries, as before the breaker saw attempts, instead of an
// "outage" that never ends (a real Ollama server in e2e-ollama.sh (h2)).
func serverAnswered(err error) bool {
	var e *llm.Error
	return errors.As(err, &e) && e.Status >= 200 && e.Status < 300
}

// recovered ends an outage: an attempt was answered. Called with b.mu held.
func (b *breaker) recovered() {
	if b.outage != nil {
		return
	}
	if !b.since.IsZero() || b.open || b.expired {
		b.epoch++
		if b.stopTime != nil {
			b.stopTime()
		}
		b.notify()
	}
	b.failures, b.since, b.backoff, b.open, b.expired, b.probation = 0, time.Time{}, 0, false, false, false
}

// failed counts a failed attempt. Called with b.mu held.
func (b *breaker) failed(err error) {
	b.failures++
	b.last = err
	if b.since.IsZero() {
		b.since = b.now()
		if b.p.MaxOutage >= 0 {
			epoch := b.epoch
			b.stopTime = b.after(b.p.MaxOutage, func() { b.expire(epoch) })
		}
	}
	if b.open || b.failures < b.p.Threshold {
		return
	}
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

// done records how a unit that passed wait ended: ok, a retryable failure
// (err), or neither (a non-retryable error). Its attempts were observed as
// they ended; done ends a half-open trial (a failed one doubles the probe
// backoff). It reports whether the endpoint is down afterwards, in which
// case the unit's failure is the outage's, not the unit's.
func (b *breaker) done(ok bool, retryable error) (open bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.trial {
		b.trial, b.probing = false, false
		if !ok && retryable != nil && b.open {
			b.backoff = min(2*b.backoff, b.p.MaxBackoff)
			b.checkOutage()
		}
		b.notify()
	}
	return !b.closedLocked()
}

// answers is the number of attempts and probes answered so far.
func (b *breaker) answers() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.answered
}

// isOpen says whether the endpoint is treated as down (calls are not sent)
// and no half-open trial unit runs.
func (b *breaker) isOpen() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.closedLocked()
}

// stats are the requests the probes sent and their tokens.
func (b *breaker) stats() (probes int, tokens int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.probes, b.probeTok
}

// gate is a model's client behind its breaker: while the breaker is open a
// call is not sent (it fails at once, retryable and unsent), so units in
// flight when the endpoint went down stop sending; only the breaker's
// probes reach the endpoint until it answers again. With attempts set, the
// gate also reports each call to the breaker as one attempt (a client
// without a retry loop that tells the breaker of its attempts).
type gate struct {
	b        *breaker
	next     llm.Client
	attempts bool
}

func (g *gate) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if !g.attempts {
		if g.b.isOpen() {
			return llm.Response{}, g.b.refusal()
		}
		return g.next.Chat(ctx, req)
	}
	if err := g.b.Admit(ctx); err != nil {
		return llm.Response{}, err
	}
	resp, err := g.next.Chat(ctx, req)
	if resp.Cached { // a cache hit says nothing of the endpoint
		g.b.Observe(errCacheHit)
	} else {
		g.b.Observe(err)
	}
	return resp, err
}

// errCacheHit is what a call served by the cache tells the breaker: not an
// attempt's outcome (not retryable, so nothing is counted).
var errCacheHit = &llm.Error{Class: llm.ClassCanceled, Err: errors.New("served by the cache")}

// errOutageOf unwraps an *OutageError.
func errOutageOf(err error) *OutageError {
	var oe *OutageError
	if errors.As(err, &oe) {
		return oe
	}
	return nil
}
