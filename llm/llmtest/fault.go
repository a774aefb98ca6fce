package llmtest

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"net/http"
	"time"

	"github.com/medteam-bench/medteam/llm"
)

// FaultKind is a kind of injected failure.
type FaultKind int

// Fault kinds.
const (
	// FaultStatus answers with Fault.Status, Fault.RetryAfter as the
	// Retry-After header when set, and the flavour's error body (or Fault.Body).
	FaultStatus FaultKind = iota + 1
	// FaultMalformed answers 200 with a body that is not the expected JSON
	// (Fault.Body when set).
	FaultMalformed
	// FaultTruncated answers 200 with the normal body cut in half and a
	// Content-Length announcing the whole, then closes the connection.
	FaultTruncated
	// FaultHang sends nothing until the client gives up or, when
	// Fault.Delay > 0, until the delay has passed — then it answers normally.
	FaultHang
	// FaultReset resets the connection (TCP RST) without answering.
	FaultReset
	// FaultNoUsage answers normally but without the token counts (OpenAI
	// "usage"; Ollama prompt_eval_count and eval_count).
	FaultNoUsage
	// FaultEmptyChoices answers 200 with no answer in it: OpenAI "choices":
	// [], Ollama a final message without "message".
	FaultEmptyChoices
	// FaultOversize answers 200 with a well-formed answer whose text is
	// Fault.Size bytes long, streamed without being held in memory.
	FaultOversize
	// FaultEcho echoes the request's credentials — the Authorization header
	// as sent, and for Basic auth the decoded "user:password" and the
	// password — as a careless server does: with Fault.Status 0 in a normal
	// answer's text, else in the error body of that status.
	FaultEcho
)

// faultKindNames are the names FaultKind.String gives the fault kinds.
var faultKindNames = [...]string{
	FaultStatus:       "status",
	FaultMalformed:    "malformed",
	FaultTruncated:    "truncated",
	FaultHang:         "hang",
	FaultReset:        "reset",
	FaultNoUsage:      "no_usage",
	FaultEmptyChoices: "empty_choices",
	FaultOversize:     "oversize",
	FaultEcho:         "echo",
}

// String is the kind's name ("status", "no_usage", …).
func (k FaultKind) String() string {
	if k > 0 && int(k) < len(faultKindNames) {
		return faultKindNames[k]
	}
	return fmt.Sprintf("FaultKind(%d)", int(k))
}

// Fault is one injected failure. Build one with Status, RateLimited,
// Malformed, Truncated, Hang, Slow, Reset, NoUsage, EmptyChoices, Oversize or
// Echo.
type Fault struct {
	Kind       FaultKind
	Status     int           // FaultStatus: the HTTP status; FaultEcho: 0 for a 200 answer, else the error status
	RetryAfter string        // FaultStatus: the Retry-After header value, "" for none
	Body       string        // FaultStatus, FaultMalformed: the body, "" for the default
	Delay      time.Duration // FaultHang: answer normally after this delay (0: never)
	Size       int64         // FaultOversize: the answer's length in bytes
}

// String names the fault: its kind, with the status for status faults
// ("status_503") and a delayed hang as "slow".
func (f Fault) String() string {
	switch {
	case f.Kind == FaultStatus:
		return fmt.Sprintf("status_%d", f.Status)
	case f.Kind == FaultHang && f.Delay > 0:
		return "slow"
	case f.Kind == FaultEcho && f.Status != 0:
		return fmt.Sprintf("echo_%d", f.Status)
	}
	return f.Kind.String()
}

// Class is the error class a client should give an attempt that met f, ""
// when the attempt should succeed (Slow, NoUsage, a 200 Echo). A Hang is a
// timeout only when the client has a per-attempt timeout shorter than the
// test.
func (f Fault) Class() llm.ErrorClass {
	switch f.Kind {
	case FaultStatus:
		return statusClass(f.Status)
	case FaultMalformed, FaultEmptyChoices:
		return llm.ClassMalformed
	case FaultTruncated, FaultReset:
		return llm.ClassNetwork
	case FaultHang:
		if f.Delay > 0 {
			return ""
		}
		return llm.ClassTimeout
	case FaultOversize:
		return llm.ClassOversize
	case FaultEcho:
		if f.Status == 0 {
			return ""
		}
		return statusClass(f.Status)
	}
	return ""
}

// statusClass is the error class of an answer with HTTP status code, as
// the fake server sees it: written out here rather than taken from llm, so
// that the clients' own classification is tested against it.
func statusClass(code int) llm.ErrorClass {
	switch {
	case code == http.StatusTooManyRequests:
		return llm.ClassRateLimited
	case code == http.StatusRequestTimeout:
		return llm.ClassTimeout
	case code == http.StatusUnauthorized, code == http.StatusForbidden:
		return llm.ClassAuth
	case code == http.StatusNotFound:
		return llm.ClassNotFound
	case code >= 500 || code < 100 || code > 999:
		return llm.ClassServer
	}
	return llm.ClassBadRequest
}

// Status is a FaultStatus fault with the given HTTP status.
func Status(code int) Fault { return Fault{Kind: FaultStatus, Status: code} }

// RateLimited is a 429 with the given Retry-After value ("" for none): delay
// seconds ("2") or an HTTP date.
func RateLimited(retryAfter string) Fault {
	return Fault{Kind: FaultStatus, Status: http.StatusTooManyRequests, RetryAfter: retryAfter}
}

// Malformed is a 200 whose body is not the expected JSON.
func Malformed() Fault { return Fault{Kind: FaultMalformed} }

// MalformedBody is a 200 with the given body.
func MalformedBody(body string) Fault { return Fault{Kind: FaultMalformed, Body: body} }

// Truncated is a 200 whose body stops half-way.
func Truncated() Fault { return Fault{Kind: FaultTruncated} }

// Hang never answers; the client must give up.
func Hang() Fault { return Fault{Kind: FaultHang} }

// Slow answers normally after d.
func Slow(d time.Duration) Fault { return Fault{Kind: FaultHang, Delay: d} }

// Reset resets the connection without answering.
func Reset() Fault { return Fault{Kind: FaultReset} }

// NoUsage is a normal answer without token counts.
func NoUsage() Fault { return Fault{Kind: FaultNoUsage} }

// EmptyChoices is a 200 that holds no answer.
func EmptyChoices() Fault { return Fault{Kind: FaultEmptyChoices} }

// Oversize is a 200 whose answer text is size bytes long.
func Oversize(size int64) Fault { return Fault{Kind: FaultOversize, Size: size} }

// Echo echoes the request's credentials in a normal answer.
func Echo() Fault { return Fault{Kind: FaultEcho} }

// EchoError echoes the request's credentials in an error body of status code.
func EchoError(code int) Fault { return Fault{Kind: FaultEcho, Status: code} }

// Served is one request as the server handled it: its path, its body and
// the fault injected into it (Kind 0 when none).
type Served struct {
	Path  string
	Chat  bool
	Body  []byte // as received, with ServerOptions.KeepBodies (shared: do not modify)
	Fault Fault
}

// pendingFault is a FailNext entry: the next n requests get f.
type pendingFault struct {
	n int
	f Fault
}

// FailNext makes the next k requests (after any already queued by FailNext) fail with f.
func (s *Server) FailNext(k int, f Fault) {
	if k <= 0 {
		return
	}
	s.mu.Lock()
	s.next = append(s.next, pendingFault{n: k, f: f})
	s.mu.Unlock()
}

// FailFraction makes a deterministic fraction p of the requests fail with
// f, replacing any earlier fraction rule (p ≤ 0 removes it). A retried
// identical request draws afresh.
func (s *Server) FailFraction(p float64, f Fault) { s.setFraction(p, f, false) }

// FailFractionSticky is FailFraction where the draw depends on the request
// alone: a selected request fails every time it is sent.
func (s *Server) FailFractionSticky(p float64, f Fault) { s.setFraction(p, f, true) }

// setFraction installs the fraction rule of FailFraction and FailFractionSticky.
func (s *Server) setFraction(p float64, f Fault, sticky bool) {
	s.mu.Lock()
	s.frac, s.fracF, s.sticky = p, []Fault{f}, sticky
	s.seen = map[[32]byte]uint64{}
	s.mu.Unlock()
}

// ClearFaults removes every pending fault and the fraction rule.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	s.next = nil
	s.frac = 0
	s.seen = map[[32]byte]uint64{}
	s.mu.Unlock()
}

// pickFault decides whether this request fails; s.mu is held.
func (s *Server) pickFault(path string, body []byte) (Fault, bool) {
	if len(s.next) > 0 {
		f := s.next[0].f
		if s.next[0].n--; s.next[0].n == 0 {
			s.next = s.next[1:]
		}
		return f, true
	}
	if s.frac <= 0 {
		return Fault{}, false
	}
	key := sha256.Sum256(append([]byte(path+"\x00"), body...))
	var n uint64
	if !s.sticky {
		n = s.seen[key]
		s.seen[key] = n + 1
	}
	var b [48]byte
	copy(b[:32], key[:])
	binary.LittleEndian.PutUint64(b[32:], s.opts.FaultSeed)
	binary.LittleEndian.PutUint64(b[40:], n)
	d := sha256.Sum256(b[:])
	u := float64(binary.LittleEndian.Uint64(d[:8])>>11) / (1 << 53)
	if u < s.frac {
		// The same draw picks the fault of the mix: u/frac is uniform on [0,1).
		return s.fracF[min(len(s.fracF)-1, int(u/s.frac*float64(len(s.fracF))))], true
	}
	return Fault{}, false
}

// FailFractionMix is FailFraction with a mix of faults: a selected request
// gets one of faults, each equally likely, chosen by the same reproducible
// draw.
func (s *Server) FailFractionMix(p float64, faults ...Fault) {
	if len(faults) == 0 {
		s.ClearFaults()
		return
	}
	s.mu.Lock()
	s.frac, s.fracF, s.sticky = p, append([]Fault(nil), faults...), false
	s.seen = map[[32]byte]uint64{}
	s.mu.Unlock()
}
