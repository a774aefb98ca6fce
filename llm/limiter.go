package llm

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"
)

// LimitPolicy configures a Limiter. Zero fields take their defaults.
type LimitPolicy struct {
	// Initial is the starting in-flight cap (default 8).
	Initial int
	// Min and Max bound the cap (defaults 1 and max(Initial, 512)). Min ==
	// Max fixes the cap: nothing adapts.
	Min, Max int
	// Decrease is the factor applied to the cap on a 429 (default 0.8, a 20%
	// cut as in Inspect AI); the cap drops by at least one, never below Min.
	Decrease float64
	// RecoverAfter is, once a 429 has been seen, the number of successes
	// after which the cap grows by one, up to Max. 0 = 4 × the current cap.
	// (Before the first 429 the latency gradient grows it; see controller.)
	RecoverAfter int
	// MaxPause caps the pause a 429's Retry-After imposes on new calls
	// (default 2 min, like RetryPolicy.MaxRetryAfter).
	MaxPause time.Duration
}

// Unlimited is the cap DefaultLimitPolicy gives the simulator.
const Unlimited = 1 << 20

// wallCuts is how many cuts in a row, with no success between them, make a
// rate-limit wall: the limiter then pauses new calls for the Retry-After.
const wallCuts = 5

// DefaultMaxInFlight is the default ceiling of the cap for hosted
// OpenAI-compatible endpoints (--max-in-flight).
const DefaultMaxInFlight = 512

// DefaultLimitPolicy returns the policy for one endpoint of provider:
//   - "ollama": Initial 4, Min 1, Max 16 (Ollama serves OLLAMA_NUM_PARALLEL
//     requests at once, 4 by default, and queues the rest: the latency
//     gradient keeps the cap a little above what it serves);
//   - "sim": effectively unlimited (Unlimited);
//   - anything else (hosted OpenAI-compatible APIs): Initial 8, Min 1,
//     Max DefaultMaxInFlight (512): the controller finds the endpoint's
//     capacity below that, from latency and 429s.
func DefaultLimitPolicy(provider string) LimitPolicy {
	p := LimitPolicy{Initial: 8, Min: 1, Max: DefaultMaxInFlight, Decrease: 0.8}
	switch strings.ToLower(provider) {
	case "ollama":
		p.Initial, p.Max = 4, 16
	case "sim":
		p.Initial, p.Max = Unlimited, Unlimited
	}
	return p
}

func (p LimitPolicy) withDefaults() LimitPolicy {
	if p.Initial <= 0 {
		p.Initial = 8
	}
	if p.Min <= 0 {
		p.Min = 1
	}
	if p.Max <= 0 {
		p.Max = max(p.Initial, DefaultMaxInFlight)
	}
	if p.Max < p.Min {
		p.Max = p.Min
	}
	p.Initial = min(max(p.Initial, p.Min), p.Max)
	if p.Decrease <= 0 || p.Decrease >= 1 {
		p.Decrease = 0.8
	}
	if p.RecoverAfter < 0 {
		p.RecoverAfter = 0
	}
	if p.MaxPause <= 0 {
		p.MaxPause = DefaultMaxRetryAfter
	}
	return p
}

// LimiterStats describes a Limiter's state and history.
type LimiterStats struct {
	Limit    int // current cap
	InFlight int // calls holding a slot now
	Waiting  int // calls waiting for a slot now
	Peak     int // most calls ever in flight at once
	Cuts     int // times the cap was cut (429, 5xx, timeout)
	Raises   int // times the cap grew by one
	Pauses   int // 429s carrying a Retry-After that paused new calls
	// Attempts and RateLimited count the attempts observed and how many of
	// them the endpoint answered 429.
	Attempts, RateLimited int64
	// Overloaded counts the attempts that failed with a server error or a
	// timeout (each burst cuts the cap, as a 429's does).
	Overloaded int64
	// SlotTime is the time slots were held, summed over slots: over an
	// interval, its growth divided by the interval is the mean number of
	// calls in flight.
	SlotTime time.Duration
}

// Limiter is middleware holding an adaptive cap on the calls in flight to one
// backend endpoint (use one Limiter per endpoint, shared by every question).
// The cap follows the endpoint's capacity: a latency-gradient controller
// grows it fast from a cold start and holds it a little above what the
// endpoint serves at once, and a 429 (class rate_limited) cuts it
// multiplicatively, after which it grows additively (the rule is the
// controller's; see its doc). Waiting for a slot is FIFO and honours ctx.
//
// A 429's Retry-After is honoured by the retry of the request that got it.
// It pauses every new call only when 429s persist: a fifth cut in a row
// with no success between them (a rate-limit wall, where cutting
// concurrency does not help), until the Retry-After passes.
//
// Wiring: cache ▸ meter ▸ limiter ▸ retry ▸ backend, built as
// NewLimitedRetry(backend, retryPolicy, NewLimiter(nil, limitPolicy)): the
// retry holds a slot of the limiter per attempt, not for the whole logical
// call — it releases the slot while sleeping in backoff and acquires it again
// (behind the queue and any Retry-After pause) before the next attempt, and
// reports each attempt's outcome and latency, so each 429 is seen here. The
// per-attempt timeout starts only once the slot is held. Used as middleware
// itself (NewLimiter(next, p).Chat), the limiter holds the slot for the whole
// call and observes its result.
type Limiter struct {
	next Client
	p    LimitPolicy
	now  func() time.Time

	mu          sync.Mutex
	ctl         controller
	limit       int // ctl.cap(), kept for the hot path
	inFlight    int
	queue       []*waiter
	epoch       uint64 // incremented at each cut
	dryCuts     int    // cuts since the last success
	pausedUntil time.Time
	timer       *time.Timer
	stats       LimiterStats
	lastChange  time.Time // when inFlight last changed (for SlotTime)
}

type waiter struct {
	ready   chan struct{}
	granted bool // guarded by Limiter.mu
	epoch   uint64
}

// NewLimiter wraps next with an adaptive in-flight cap. next may be nil for
// a limiter that only gates a NewLimitedRetry.
func NewLimiter(next Client, p LimitPolicy) *Limiter {
	p = p.withDefaults()
	ctl := newController(p)
	return &Limiter{next: next, p: p, now: time.Now, ctl: ctl, limit: ctl.cap()}
}

// Spare is how many more calls the limiter would let through at once now:
// the cap minus the calls in flight and waiting (0 during a pause). A
// scheduler keeps starting work while it is positive.
func (l *Limiter) Spare() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pausedLocked() {
		return 0
	}
	return max(0, l.limit-l.inFlight-len(l.queue))
}

// Limit is the current cap.
func (l *Limiter) Limit() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit
}

// InFlight is the number of calls holding a slot.
func (l *Limiter) InFlight() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inFlight
}

// Stats returns the current state and counters.
func (l *Limiter) Stats() LimiterStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.accrueLocked()
	s := l.stats
	s.Limit, s.InFlight, s.Waiting = l.limit, l.inFlight, len(l.queue)
	return s
}

// Chat waits for a slot, forwards the call and releases the slot. A ctx done
// while waiting gives a class canceled error without calling next.
func (l *Limiter) Chat(ctx context.Context, req Request) (Response, error) {
	s := &slot{l: l}
	if err := s.acquire(ctx); err != nil {
		return Response{}, canceledErr(ctx, req, nil, 0)
	}
	defer s.release()
	resp, err := l.next.Chat(ctx, req)
	s.observe(err)
	return resp, err
}

// acquire takes a slot, returning the cut epoch it was granted under.
func (l *Limiter) acquire(ctx context.Context) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	l.mu.Lock()
	if len(l.queue) == 0 && l.inFlight < l.limit && !l.pausedLocked() {
		l.takeLocked()
		e := l.epoch
		l.mu.Unlock()
		return e, nil
	}
	w := &waiter{ready: make(chan struct{})}
	l.queue = append(l.queue, w)
	l.mu.Unlock()

	select {
	case <-w.ready:
		return w.epoch, nil
	case <-ctx.Done():
		l.mu.Lock()
		defer l.mu.Unlock()
		if w.granted { // granted just as ctx ended: give the slot back
			l.accrueLocked()
			l.inFlight--
			l.grantLocked()
			return 0, ctx.Err()
		}
		for i, q := range l.queue {
			if q == w {
				l.queue = append(l.queue[:i], l.queue[i+1:]...)
				break
			}
		}
		l.grantLocked() // a waiter behind us may fit now
		return 0, ctx.Err()
	}
}

func (l *Limiter) release() {
	l.mu.Lock()
	l.accrueLocked()
	l.inFlight--
	l.grantLocked()
	l.mu.Unlock()
}

func (l *Limiter) pausedLocked() bool {
	return !l.pausedUntil.IsZero() && l.now().Before(l.pausedUntil)
}

func (l *Limiter) takeLocked() {
	l.accrueLocked()
	l.inFlight++
	l.stats.Peak = max(l.stats.Peak, l.inFlight)
}

// accrueLocked adds the slot time since the last change of inFlight.
func (l *Limiter) accrueLocked() {
	now := l.now()
	if !l.lastChange.IsZero() {
		l.stats.SlotTime += time.Duration(l.inFlight) * now.Sub(l.lastChange)
	}
	l.lastChange = now
}

// grantLocked hands free slots to waiters in FIFO order.
func (l *Limiter) grantLocked() {
	if l.pausedLocked() {
		return
	}
	for len(l.queue) > 0 && l.inFlight < l.limit {
		w := l.queue[0]
		l.queue[0] = nil
		l.queue = l.queue[1:]
		l.takeLocked()
		w.granted, w.epoch = true, l.epoch
		close(w.ready)
	}
}

// observe records the outcome of one attempt that took rtt under a slot
// granted at epoch.
func (l *Limiter) observe(err error, rtt time.Duration, epoch uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stats.Attempts++
	switch ClassOf(err) {
	case "": // success
		l.dryCuts = 0
		if l.ctl.success(rtt, l.inFlight) {
			l.setLimitLocked()
		}
	case ClassRateLimited:
		l.stats.RateLimited++
		cut := epoch == l.epoch // later 429s of the same burst don't cut again
		if cut {
			l.epoch++
			l.dryCuts++
		}
		wall := cut && l.dryCuts >= wallCuts
		if l.ctl.rateLimited(cut) {
			l.setLimitLocked()
		}
		if wall {
			l.pauseLocked(err)
		}
	case ClassServer, ClassTimeout: // a 5xx storm or a hanging endpoint: fewer at once, not more
		l.stats.Overloaded++
		cut := epoch == l.epoch
		if cut {
			l.epoch++
		}
		if l.ctl.overloaded(cut) {
			l.setLimitLocked()
		}
	}
}

// setLimitLocked takes the controller's new cap.
func (l *Limiter) setLimitLocked() {
	n := l.ctl.cap()
	switch {
	case n > l.limit:
		l.stats.Raises++
		l.limit = n
		l.grantLocked()
	case n < l.limit:
		l.stats.Cuts++
		l.limit = n
	}
}

// pauseLocked holds new calls until err's Retry-After has passed.
func (l *Limiter) pauseLocked(err error) {
	var e *Error
	if !errors.As(err, &e) || e.Retry <= 0 {
		return
	}
	until := l.now().Add(min(e.Retry, l.p.MaxPause))
	if !until.After(l.pausedUntil) {
		return
	}
	l.pausedUntil = until
	l.stats.Pauses++
	d := until.Sub(l.now())
	if l.timer == nil {
		l.timer = time.AfterFunc(d, l.wake)
	} else {
		l.timer.Reset(d)
	}
}

// wake runs when a pause ends.
func (l *Limiter) wake() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pausedLocked() { // extended meanwhile (or fired early): wait the rest
		l.timer.Reset(l.pausedUntil.Sub(l.now()))
		return
	}
	l.grantLocked()
}

// slot is one call's hold on a Limiter: taken by Limiter.Chat for the whole
// call, or by a retry made with NewLimitedRetry for each attempt (released
// while it sleeps). It is used by one goroutine at a time. A nil slot (a
// retry without a limiter) takes, holds and reports nothing.
type slot struct {
	l     *Limiter
	held  bool
	epoch uint64
	t0    time.Time // when the slot was taken
}

func (s *slot) acquire(ctx context.Context) error {
	if s == nil || s.held {
		return nil
	}
	return s.take(ctx)
}

// take waits for a slot of the limiter and holds it.
func (s *slot) take(ctx context.Context) error {
	e, err := s.l.acquire(ctx)
	if err != nil {
		return err
	}
	s.held, s.epoch, s.t0 = true, e, time.Now()
	return nil
}

func (s *slot) release() {
	if s != nil && s.held {
		s.held = false
		s.l.release()
	}
}

// observe reports an attempt's outcome and its latency (the time since the
// slot was taken).
func (s *slot) observe(err error) {
	if s != nil {
		s.l.observe(err, time.Since(s.t0), s.epoch)
	}
}
