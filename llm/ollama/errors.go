package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/medteam-bench/medteam/llm"
)

// exchange is what the transport saw of one HTTP exchange (the chat call
// only; api.Client calls leave it empty).
type exchange struct {
	status  int
	header  http.Header
	bodyErr error // error reading the body, nil when it was read to its end
}

// mapError classifies a failed call. err is the failure, ctxErr the call
// context's error after it, ex what the transport saw and now the time
// against which an HTTP-date Retry-After is measured. The result has Class,
// Status, Retry and Err set (not Provider, Model, Endpoint). In order:
//
//   - the call's context is done: canceled, or timeout for a deadline;
//   - api.AuthorizationError: auth;
//   - api.StatusError (an HTTP error status with Ollama's message): 429
//     rate_limited (Retry from Retry-After), 408 timeout, 401/403 auth, 404
//     or "model … not found" model_not_found, 413 or a message about the
//     context ("the input length exceeds the context length", "too long",
//     …) context_length, other 4xx bad_request, 5xx server;
//   - an error the server put in a 2xx body: by its wording as above, else server;
//   - the body could not be read to its end: network;
//   - a 2xx body that is not a finished answer, undecodable JSON: malformed;
//   - transport failures: timeout for a timeout, network for a refused or
//     reset connection, EOF and the like; anything else: internal.
func mapError(err, ctxErr error, ex exchange, now time.Time) *llm.Error {
	e := &llm.Error{Err: err}
	if e.Err == nil {
		e.Err = errors.New("unknown failure")
	}
	if ctxErr != nil {
		e.Class = llm.ClassCanceled
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			e.Class = llm.ClassTimeout
		}
		if err == nil || !errors.Is(err, ctxErr) {
			e.Err = fmt.Errorf("%w (%v)", ctxErr, e.Err)
		}
		return e
	}

	var ae api.AuthorizationError
	var se api.StatusError
	var re *reportedError
	var me *malformedError
	switch {
	case errors.As(err, &ae):
		e.Status = ae.StatusCode
		e.Class = llm.ClassAuth
		return e
	case errors.As(err, &se):
		e.Status = se.StatusCode
		e.Class = classifyStatus(se.StatusCode, se.ErrorMessage)
		if e.Class.Retryable() {
			e.Retry = retryAfter(ex.header, now)
		}
		return e
	case errors.As(err, &re):
		e.Status = ex.status
		e.Class = classifyMessage(re.msg, llm.ClassServer)
		return e
	case errors.As(err, &me):
		e.Status = ex.status
		e.Class = llm.ClassMalformed
		return e
	}

	if ex.bodyErr != nil {
		e.Class = llm.ClassNetwork
		if c, ok := transportClass(ex.bodyErr); ok && c == llm.ClassTimeout {
			e.Class = c
		}
		if errors.Is(err, ex.bodyErr) {
			e.Err = fmt.Errorf("reading response body: %w", err)
		} else {
			e.Err = fmt.Errorf("reading response body: %w (%v)", ex.bodyErr, err)
		}
		return e
	}
	if c, ok := transportClass(err); ok {
		e.Class = c
		return e
	}
	var jse *json.SyntaxError
	var jte *json.UnmarshalTypeError
	if errors.As(err, &jse) || errors.As(err, &jte) {
		e.Class = llm.ClassMalformed
		return e
	}
	e.Class = llm.ClassInternal
	return e
}

// classifyStatus is the class of an HTTP error status with Ollama's message msg.
func classifyStatus(status int, msg string) llm.ErrorClass {
	switch {
	case status == http.StatusTooManyRequests:
		return llm.ClassRateLimited
	case status == http.StatusRequestTimeout:
		return llm.ClassTimeout
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return llm.ClassAuth
	case status == http.StatusNotFound:
		return llm.ClassNotFound
	case status == http.StatusRequestEntityTooLarge:
		return llm.ClassContextLength
	case status >= 500:
		return classifyMessage(msg, llm.ClassServer)
	case status >= 400:
		return classifyMessage(msg, llm.ClassBadRequest)
	}
	return llm.ClassServer
}

// classifyMessage classifies by an error message's wording, def when it says
// nothing recognisable.
func classifyMessage(msg string, def llm.ErrorClass) llm.ErrorClass {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "not found") && (strings.Contains(m, "model") || strings.Contains(m, "pull")):
		return llm.ClassNotFound
	case def == llm.ClassBadRequest && contextWording(m),
		strings.Contains(m, "context length"), strings.Contains(m, "context size"), strings.Contains(m, "context window"):
		// Broad wording ("too long", "exceeds") only for client errors; a
		// server error must name the context.
		return llm.ClassContextLength
	}
	return def
}

// contextWording reports whether a (lower-case) message says the prompt
// does not fit the model's context.
func contextWording(m string) bool {
	for _, w := range []string{
		"maximum context length", "context length", "context_length", "context window",
		"context size", "too long", "exceeds", "exceed_context", "reduce the length",
	} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// maxRetryAfter caps a server-requested wait.
const maxRetryAfter = 24 * time.Hour

// retryAfter is the wait a response asks for: Retry-After-Ms (milliseconds),
// else Retry-After in delay seconds or as an HTTP date (relative to now).
// 0 when absent, unparsable or in the past.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			return clampWait(ms / 1e3)
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		return clampWait(secs)
	}
	if t, err := http.ParseTime(v); err == nil {
		return clampWait(t.Sub(now).Seconds())
	}
	return 0
}

func clampWait(secs float64) time.Duration {
	switch {
	case math.IsNaN(secs) || secs <= 0:
		return 0
	case secs >= maxRetryAfter.Seconds():
		return maxRetryAfter
	}
	return time.Duration(secs * float64(time.Second))
}

// transportClass classifies a failure below HTTP.
func transportClass(err error) (llm.ErrorClass, bool) {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return llm.ClassTimeout, true
	case errors.As(err, &ne) && ne.Timeout():
		return llm.ClassTimeout, true
	case errors.Is(err, context.Canceled):
		return llm.ClassCanceled, true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH),
		errors.Is(err, net.ErrClosed):
		return llm.ClassNetwork, true
	}
	var oe *net.OpError
	var de *net.DNSError
	var ue *url.Error
	switch {
	case errors.As(err, &oe), errors.As(err, &de), errors.As(err, &ue):
		return llm.ClassNetwork, true
	}
	return "", false
}
