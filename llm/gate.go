package llm

import (
	"context"
	"sync"
)

// AttemptGate is consulted by a retry loop (NewGatedRetry) around every
// attempt it makes: Admit before the attempt is sent — an error ends the
// call at once with that error, the attempt unsent and not retried — and
// Observe after, with the attempt's error (nil: answered). The runner's
// per-endpoint circuit breaker is one: it sees every attempt as it ends, so
// an endpoint whose attempts time out or fail is known to be down before
// any call has spent its attempts.
type AttemptGate interface {
	Admit(ctx context.Context) error
	Observe(err error)
}

// GateSocket is where an endpoint's AttemptGate plugs into its retry loop:
// the client stack is built before the run whose breaker gates it, so the
// stack holds the socket and the run plugs its gate in. Empty, it admits
// every attempt. It is safe for concurrent use.
type GateSocket struct {
	mu sync.RWMutex
	g  AttemptGate
}

// Plug puts g in the socket (replacing any gate) until unplug is called.
func (s *GateSocket) Plug(g AttemptGate) (unplug func()) {
	s.mu.Lock()
	s.g = g
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.g == g {
			s.g = nil
		}
	}
}

func (s *GateSocket) gate() AttemptGate {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.g
}

// Admit asks the plugged gate (none: admitted).
func (s *GateSocket) Admit(ctx context.Context) error {
	if g := s.gate(); g != nil {
		return g.Admit(ctx)
	}
	return nil
}

// Observe tells the plugged gate how an attempt ended (none: nothing).
func (s *GateSocket) Observe(err error) {
	if g := s.gate(); g != nil {
		g.Observe(err)
	}
}

// Sent is the number of requests a call that returned resp and err put on
// the wire: what the backend reports, else one unless err says the request
// never left the client (Error.Unsent).
func Sent(resp Response, err error) int {
	if resp.Attempts == 0 && !unsent(err) {
		return 1
	}
	return resp.Attempts
}
