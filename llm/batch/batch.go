// Package batch is the contract of provider batch APIs: many chat requests
// written to one input file, run by the provider within a completion window
// at a lower price, and answered through output and error files routed back
// by each line's custom id.
//
// It is modelled on database/sql/driver: a small interface, Provider, that a
// backend implements (llm/openai's Batcher does), and optional capabilities
// as extra interfaces a Provider may also implement (Sizer, Limiter). A
// caller — the runner — owns the lockstep: it builds the Lines of the
// current stage of every unfinished question, cuts them with Split at the
// provider's limits, Submits each chunk (recording every Ref before it
// polls, so a killed process polls instead of resubmitting), waits with a
// Poller, and routes each Result by custom id. A Result's error is a
// classified *llm.Error, the same classes the synchronous path reports, so
// the caller retries what is retryable in its next batch.
//
// The package imports only llm and the standard library.
package batch

import (
	"context"
	"errors"
	"time"

	"github.com/medteam-bench/medteam/llm"
)

// Line is one request of a batch: the request and the id its answer comes
// back under. CustomIDs are unique within a batch; the caller chooses them
// (a request hash, so identical requests share one line).
type Line struct {
	CustomID string
	Request  llm.Request
}

// State is a batch's place in the provider's lifecycle:
// validating → in_progress → finalizing → completed, or failed (the input
// was refused), expired (the completion window ended first), cancelling →
// cancelled.
type State string

// Batch states (OpenAI's names).
const (
	Validating State = "validating"
	InProgress State = "in_progress"
	Finalizing State = "finalizing"
	Completed  State = "completed"
	Failed     State = "failed"
	Expired    State = "expired"
	Cancelling State = "cancelling"
	Cancelled  State = "cancelled"
)

// Terminal reports whether the batch will not change any more: its results,
// if any, can be read.
func (s State) Terminal() bool {
	switch s {
	case Completed, Failed, Expired, Cancelled:
		return true
	}
	return false
}

// Known reports whether s is one of the states above.
func (s State) Known() bool {
	switch s {
	case Validating, InProgress, Finalizing, Completed, Failed, Expired, Cancelling, Cancelled:
		return true
	}
	return false
}

// Ref identifies a submitted batch: what a journal records before polling.
type Ref struct {
	ID          string // the provider's batch id
	InputFileID string // the uploaded input file
	Count       int    // lines in the batch
	Bytes       int64  // size of the input file
}

// Counts are a batch's request counts as the provider reports them.
type Counts struct {
	Total     int
	Completed int
	Failed    int
}

// Status is a batch as the provider reports it.
type Status struct {
	ID           string
	State        State
	Counts       Counts
	InputFileID  string
	OutputFileID string // "" until there are answers
	ErrorFileID  string // "" until there are per-request errors
	CreatedAt    time.Time
	// Errors are the provider's reasons for a failed batch (validation
	// errors of the input file), each "code: message (line n)".
	Errors []string
	// Metadata is what the provider stored with the batch at Submit (the
	// provider's own bookkeeping, e.g. how structured output was asked for).
	Metadata map[string]string
}

// Result is the answer to one line: a Response, or an error that is a
// classified *llm.Error (llm.ClassOf says what to do with it; Retryable
// classes go into the next batch). Response.Attempts is 1: every line of a
// batch reached the provider, also one it never ran because the batch
// expired (class expired) or was cancelled (class canceled) first — such a
// line has no tokens and is not billed; Latency is 0 (a provider does not
// time its lines).
type Result struct {
	CustomID string
	Response llm.Response
	Err      error
	// Resubmit asks the caller to send the line again in a later batch
	// whatever Err's class: the provider changed how it encodes the
	// request after the server refused it (as a synchronous backend asks
	// again itself, e.g. a structured-output mode the server rejects).
	Resubmit bool
}

// Provider is a batch API. Implementations are safe for concurrent use, and
// every error they return is a classified *llm.Error.
type Provider interface {
	// Submit uploads lines as one input file and creates a batch of them.
	// The lines must fit the provider's limits (see Split). When the file
	// was uploaded but the batch not created, the Ref holds the file id
	// beside the error.
	Submit(ctx context.Context, lines []Line) (Ref, error)
	// Status reports a batch.
	Status(ctx context.Context, id string) (Status, error)
	// Results reads the output and error files of a terminal batch and
	// returns a Result per custom id found in them. Lines of an expired or
	// cancelled batch the provider did not run are there with a retryable
	// (expired) or canceled error when the provider lists them; see
	// Unfinished for those it does not.
	Results(ctx context.Context, st Status) (map[string]Result, error)
	// Cancel asks the provider to stop a batch; it ends cancelled, with
	// the answers produced so far.
	Cancel(ctx context.Context, id string) (Status, error)
	// List reports the batches of the account, newest first.
	List(ctx context.Context) ([]Status, error)
}

// Tagger is a Provider that can submit in two journaled steps: it uploads
// the input file, calls uploaded with the file's id (the caller journals
// it and tag before the batch exists), then creates the batch with tag in
// its metadata under MetaTag. A run killed between the creation and its
// journaling finds the batch again by its tag in List (and adopts it
// instead of submitting its lines twice). When uploaded fails, no batch
// is created.
type Tagger interface {
	SubmitTagged(ctx context.Context, lines []Line, tag string, uploaded func(fileID string) error) (Ref, error)
}

// MetaTag is the batch metadata key of the client's tag (Tagger).
const MetaTag = "medteam_tag"

// Sizer is a Provider that can tell the encoded size of a line in its input
// file (without the newline), so Split cuts at its byte limit exactly.
type Sizer interface {
	Size(line Line) (int, error)
}

// Limits are a provider's per-batch limits.
type Limits struct {
	MaxRequests int   // lines per batch
	MaxBytes    int64 // bytes per input file
}

// Default limits: OpenAI's 50,000 requests and 200 MB per batch.
const (
	DefaultMaxRequests       = 50_000
	DefaultMaxBytes    int64 = 200 << 20
)

// Limiter is a Provider whose limits differ from the defaults.
type Limiter interface {
	Limits() Limits
}

// LimitsOf is p's limits: Limiter's when p is one (zero fields take the
// defaults), else the defaults.
func LimitsOf(p Provider) Limits {
	var l Limits
	if lp, ok := p.(Limiter); ok {
		l = lp.Limits()
	}
	if l.MaxRequests <= 0 {
		l.MaxRequests = DefaultMaxRequests
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// ErrExpired is in the chain of the error of a line whose batch expired
// before the provider ran it (class expired: retryable, resubmit it).
var ErrExpired = errors.New("batch expired before the request ran")

// ErrCancelled is in the chain of the error of a line whose batch was
// cancelled before the provider ran it (class canceled).
var ErrCancelled = errors.New("batch cancelled before the request ran")

// Unfinished lists, in order, the ids of submitted that have no Result in
// results: lines of an expired, cancelled or failed batch the provider did
// not report. The caller resubmits them (a failed batch ran nothing).
func Unfinished(submitted []string, results map[string]Result) []string {
	var out []string
	for _, id := range submitted {
		if _, ok := results[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}
