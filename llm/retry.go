package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Retry defaults (see RetryPolicy).
const (
	DefaultMaxAttempts    = 4
	DefaultBaseDelay      = 500 * time.Millisecond
	DefaultMaxDelay       = 30 * time.Second
	DefaultPerCallTimeout = 120 * time.Second
	// DefaultMaxRetryAfter is the hard cap on a server-requested wait
	// (Retry-After) that the retry middleware honours.
	DefaultMaxRetryAfter = 2 * time.Minute
)

// RetryPolicy configures NewRetry. Zero fields take their defaults, except
// PerCallTimeout, whose zero value means "no per-attempt timeout"; start from
// DefaultRetryPolicy to get the 120 s default.
type RetryPolicy struct {
	// MaxAttempts is the total number of attempts, the first included
	// (default 4). It is never exceeded.
	MaxAttempts int
	// BaseDelay and MaxDelay shape the backoff before attempt k+2 (k = 0 after
	// the first failure): min(MaxDelay, BaseDelay·2^k)·U(0.5, 1).
	// Defaults 500 ms and 30 s.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxRetryAfter caps a server-requested wait (Error.Retry, from
	// Retry-After). The wait before a retry is max(backoff, min(Retry,
	// MaxRetryAfter)), so a Retry-After larger than MaxDelay IS honoured, up
	// to this cap (default 2 min). A larger Retry-After waits the cap, then
	// retries.
	MaxRetryAfter time.Duration
	// PerCallTimeout bounds each attempt with its own context.WithTimeout; an
	// attempt that hits it fails with class timeout (retryable). 0 = none.
	// DefaultRetryPolicy sets 120 s.
	PerCallTimeout time.Duration
	// Sleep waits d or until ctx is done (returning ctx's error). Tests
	// replace it; the default uses a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a uniform float in [0, 1) for the jitter; default
	// math/rand/v2.Float64.
	Rand func() float64
}

// DefaultRetryPolicy returns the defaults: 4 attempts, 500 ms base delay,
// 30 s max delay, Retry-After honoured up to 2 min, 120 s per attempt.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{
		MaxAttempts:    DefaultMaxAttempts,
		BaseDelay:      DefaultBaseDelay,
		MaxDelay:       DefaultMaxDelay,
		MaxRetryAfter:  DefaultMaxRetryAfter,
		PerCallTimeout: DefaultPerCallTimeout,
	}
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.MaxDelay < p.BaseDelay {
		p.MaxDelay = p.BaseDelay
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if p.PerCallTimeout < 0 {
		p.PerCallTimeout = 0
	}
	if p.Sleep == nil {
		p.Sleep = Sleep
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	return p
}

// Backoff is the wait before the next attempt after failed attempt number
// failed (1-based), given the server-requested wait retryAfter (0 when none).
// u is a uniform draw in [0, 1).
func (p RetryPolicy) Backoff(failed int, retryAfter time.Duration, u float64) time.Duration {
	p = p.withDefaults()
	d := p.BaseDelay
	for i := 1; i < failed && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	d = time.Duration(float64(d) * (0.5 + 0.5*u))
	if retryAfter > 0 {
		d = max(d, min(retryAfter, p.MaxRetryAfter))
	}
	return d
}

type retry struct {
	next    Client
	p       RetryPolicy
	limiter *Limiter    // nil: attempts are not limited
	gate    AttemptGate // nil: every attempt is admitted
}

// NewRetry wraps next with bounded retries of retryable failures
// (ClassOf(err).Retryable(): rate_limited, server, timeout, network,
// malformed); every other class fails after one attempt.
//
// Each attempt runs under its own PerCallTimeout; an attempt that hits it
// becomes a class timeout error and is retried. When the caller's ctx is done
// (before, during or between attempts) the call stops at once with a class
// canceled error wrapping ctx's cause.
//
// The Response (on success and on failure) carries Attempts, the number of
// requests sent, and AttemptErrors, the class of each that failed. A try the
// backend reports as Unsent (its request never reached the wire: canceled
// or timed out first, no connection) is not an attempt; a backend that
// reports no count on a failure made one. MaxAttempts bounds the tries. A final failure after more
// than one attempt is the last error wrapped with "after N attempts", so
// ClassOf still gives its class.
//
// NewRetry is NewLimitedRetry without a limiter.
func NewRetry(next Client, p RetryPolicy) Client { return NewLimitedRetry(next, p, nil) }

// NewLimitedRetry is NewRetry whose attempts each hold a slot of l (the order
// limiter ▸ retry ▸ backend): it takes a slot before every attempt, hands it
// back while it sleeps, and reports every attempt's outcome to l, so a call in
// backoff holds no slot, every 429 is seen by the limiter, and waiting for a
// slot does not count against PerCallTimeout. l's own next is not used (make
// it with NewLimiter(nil, policy)); a nil l limits nothing.
func NewLimitedRetry(next Client, p RetryPolicy, l *Limiter) Client {
	return NewGatedRetry(next, p, l, nil)
}

// NewGatedRetry is NewLimitedRetry whose attempts each pass g (nil: none):
// g.Admit is asked before every attempt, once its limiter slot is held, and
// a refusal ends the call at once with g's error (not retried: the
// endpoint's breaker refuses while it is down, and a retry loop must not
// spin on it); g.Observe hears how every admitted attempt ended, timeouts
// included, as it ends.
func NewGatedRetry(next Client, p RetryPolicy, l *Limiter, g AttemptGate) Client {
	return &retry{next: next, p: p.withDefaults(), limiter: l, gate: g}
}

func (r *retry) Chat(ctx context.Context, req Request) (Response, error) {
	var s *slot // nil: attempts are not limited
	if r.limiter != nil {
		s = &slot{l: r.limiter}
		defer s.release()
	}
	var t tally
	for try := 1; ; try++ {
		if ctx.Err() != nil || s.acquire(ctx) != nil {
			return t.response(), canceledErr(ctx, req, t.last, t.attempts)
		}
		if r.gate != nil {
			if err := r.gate.Admit(ctx); err != nil {
				return t.response(), finalErr(err, t.attempts)
			}
		}
		resp, err := r.attempt(ctx, req)
		if r.gate != nil {
			r.gate.Observe(err)
		}
		s.observe(err)
		t.add(resp, err)
		if err == nil {
			resp.Attempts, resp.AttemptErrors = t.attempts, t.failed
			return resp, nil
		}
		if ctx.Err() != nil {
			return t.response(), canceledErr(ctx, req, err, t.attempts)
		}
		t.last = err
		if !ClassOf(err).Retryable() || try >= r.p.MaxAttempts {
			return t.response(), finalErr(err, t.attempts)
		}
		s.release() // no slot is held in backoff
		if err := r.p.Sleep(ctx, r.p.Backoff(try, retryAfter(err), r.p.Rand())); err != nil || ctx.Err() != nil {
			return t.response(), canceledErr(ctx, req, t.last, t.attempts)
		}
	}
}

// tally is what the tries of one call have come to so far.
type tally struct {
	attempts int          // requests sent
	failed   []ErrorClass // class of every failed attempt, in order
	last     error        // the last try's error
}

// add counts one try. The backend says how many requests it sent (more
// than one when it asked again itself, 0 when the caller's cancellation
// came first); a backend that does not say made one, unless its error says
// the request was never sent.
func (t *tally) add(resp Response, err error) {
	n := Sent(resp, err)
	t.attempts += n
	t.failed = append(t.failed, resp.AttemptErrors...)
	if err != nil && n > 0 {
		t.failed = append(t.failed, ClassOf(err))
	}
}

// response is the Response of a call that failed: its attempts and their
// errors.
func (t *tally) response() Response {
	return Response{Attempts: t.attempts, AttemptErrors: t.failed}
}

// retryAfter is the server-requested wait carried by err (Error.Retry), 0
// when none.
func retryAfter(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.Retry
	}
	return 0
}

// attempt makes one backend call under the per-attempt timeout and turns that
// timeout firing into a class timeout error.
func (r *retry) attempt(ctx context.Context, req Request) (Response, error) {
	if r.p.PerCallTimeout <= 0 {
		return r.next.Chat(ctx, req)
	}
	actx, cancel := context.WithTimeout(ctx, r.p.PerCallTimeout)
	defer cancel()
	resp, err := r.next.Chat(actx, req)
	if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		e := whereOf(err, req)
		e.Class = ClassTimeout
		e.Status = 0
		e.Retry = 0
		e.Unsent = unsent(err)
		e.Err = fmt.Errorf("no response within the per-call timeout of %s: %w", r.p.PerCallTimeout, err)
		err = e
	}
	return resp, err
}

// whereOf returns a new *Error carrying the provider/model/endpoint of the
// *Error in err's chain, or the request's model when there is none.
func whereOf(err error, req Request) *Error {
	var e *Error
	if errors.As(err, &e) {
		return &Error{Provider: e.Provider, Model: e.Model, Endpoint: e.Endpoint}
	}
	return &Error{Provider: "llm", Model: req.Model}
}

// canceledErr is the error returned when the caller's ctx is done.
func canceledErr(ctx context.Context, req Request, last error, attempts int) error {
	e := whereOf(last, req)
	e.Class = ClassCanceled
	e.Err = context.Cause(ctx)
	if e.Err == nil {
		e.Err = context.Canceled
	}
	if attempts > 1 {
		return fmt.Errorf("after %d attempts: %w", attempts, e)
	}
	return e
}

func finalErr(err error, attempts int) error {
	if attempts > 1 {
		return fmt.Errorf("after %d attempts: %w", attempts, err)
	}
	return err
}

// Sleep waits d or until ctx is done (ctx's error then); a d ≤ 0 returns at
// once. The retry loop, the runner's outage breaker and the batch poller
// wait with it.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
