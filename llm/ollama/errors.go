package ollama

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
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
	if ctxErr != nil {
		return llm.ContextError(err, ctxErr)
	}
	e := &llm.Error{Err: err}
	if e.Err == nil {
		e.Err = errors.New("unknown failure")
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
			e.Retry = llm.RetryAfter(ex.header, now)
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
		e.Class, e.Err = llm.BodyError(err, ex.bodyErr)
		return e
	}
	if c, ok := llm.TransportClass(err); ok {
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
	case def == llm.ClassBadRequest && llm.ContextLengthWording(m),
		strings.Contains(m, "context length"), strings.Contains(m, "context size"), strings.Contains(m, "context window"):
		// Broad wording ("too long", "exceeds") only for client errors; a
		// server error must name the context.
		return llm.ClassContextLength
	}
	return def
}
