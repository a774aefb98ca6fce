package llm

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrorClass is how a caller decides what to do with a failed call.
type ErrorClass string

// Error classes. Retryable classes may succeed on another attempt; fatal
// classes stop a run (the same request will fail for every question);
// per-question classes fail only the question at hand.
const (
	ClassRateLimited   ErrorClass = "rate_limited" // 429
	ClassServer        ErrorClass = "server"       // 5xx
	ClassTimeout       ErrorClass = "timeout"      // per-call deadline exceeded
	ClassNetwork       ErrorClass = "network"      // reset, refused, truncated body
	ClassMalformed     ErrorClass = "malformed"    // undecodable response body
	ClassAuth          ErrorClass = "auth"         // 401/403
	ClassNotFound      ErrorClass = "model_not_found"
	ClassBadRequest    ErrorClass = "bad_request"    // 400
	ClassContextLength ErrorClass = "context_length" // prompt longer than the model's context
	ClassCanceled      ErrorClass = "canceled"       // the caller's context was canceled
	// ClassOversize is a response body larger than the client's cap
	// (--max-response-bytes). Not retryable: the answer to the same request
	// and seed is the same size again, and every attempt would read the cap
	// in full. Not fatal either: other questions get shorter answers. Raise
	// the cap or lower the max tokens.
	ClassOversize ErrorClass = "oversize"
	ClassInternal ErrorClass = "internal" // a bug or unclassified failure
	// ClassExpired is a line of a provider batch (batch mode) that the
	// provider received but had not run when the batch's completion window
	// ended: an attempt (the server got the request) with no tokens, not
	// billed. Retryable: the line goes into a later batch.
	ClassExpired ErrorClass = "expired"
)

// Retryable reports whether another attempt of the same request may succeed.
func (c ErrorClass) Retryable() bool {
	switch c {
	case ClassRateLimited, ClassServer, ClassTimeout, ClassNetwork, ClassMalformed, ClassExpired:
		return true
	}
	return false
}

// Fatal reports whether the error will recur for every request to the same
// endpoint and model, so a run should stop instead of failing every question.
func (c ErrorClass) Fatal() bool {
	return c == ClassAuth || c == ClassNotFound
}

// Error is a classified model-call error.
type Error struct {
	Class    ErrorClass
	Provider string
	Model    string
	Endpoint string
	Status   int           // HTTP status, 0 when none
	Retry    time.Duration // server-requested wait (Retry-After), 0 when none
	// Unsent is true when the request never reached the wire: the call
	// ended before it was written to a connection (its context was done, a
	// per-attempt timeout fired, the request was refused locally as
	// invalid) or no connection could be made (refused, DNS). Nothing
	// reached the server, so the failure is not an attempt (see NewRetry);
	// the call's error still says what happened.
	Unsent bool
	Err    error
}

func (e *Error) Error() string {
	where := e.Provider
	if e.Model != "" {
		where += "/" + e.Model
	}
	if e.Endpoint != "" {
		where += " at " + e.Endpoint
	}
	msg := fmt.Sprintf("%s error", e.Class)
	if where != "" {
		msg = where + ": " + msg
	}
	if e.Status != 0 {
		msg += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// ClassOf returns the class of err: the class of an *Error in its chain,
// ClassCanceled/ClassTimeout for context errors, ClassInternal otherwise.
// A nil error has the empty class.
func ClassOf(err error) ErrorClass {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	switch {
	case errors.Is(err, context.Canceled):
		return ClassCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return ClassTimeout
	}
	return ClassInternal
}

// unsent reports whether err says its request never left the client.
func unsent(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Unsent
}
