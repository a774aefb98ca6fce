// Package llm is the model contract every protocol talks through and every
// backend implements: a single Chat call carrying messages, sampling
// parameters, an optional JSON schema and call metadata, answered with text,
// the API's own token usage, latency and a cached flag, or failing with a
// classified *Error (its ErrorClass says whether to retry, to stop the run or
// to fail one question).
//
// It also owns what the backends and protocols share around that call:
//   - the middleware, each of which wraps a Client and is itself a Client, so
//     the caller assembles the stack: Meter (records every call), Limiter
//     (adaptive in-flight cap per endpoint) and NewRetry / NewLimitedRetry
//     (bounded retries with backoff); the response cache, outermost, is
//     llm/cache;
//   - what HTTP backends classify failures with (BodyError, ContextError,
//     TransportClass, RetryAfter, the response cap), tell whether a request
//     reached the wire with (Wire, CountingTransport), and keep credentials
//     out of every text with (Redactor);
//   - the identity of a call: RequestHash and DeriveSeed.
//
// The backends are llm/openai, llm/ollama and llm/sim, and llm/llmtest is the
// conformance suite they pass. llm/batch is the contract of provider batch
// APIs (many calls in one file, answered later at a lower price), whose
// results carry this package's Response and classified *Error. Meta's Phase and Kind are the protocol's own
// labels: this package knows no protocol's vocabulary.
package llm

import (
	"context"
	"encoding/json"
	"time"
)

// Client is the one method a protocol needs from a model.
type Client interface {
	Chat(ctx context.Context, req Request) (Response, error)
}

// ClientFunc adapts a function to Client.
type ClientFunc func(ctx context.Context, req Request) (Response, error)

// Chat calls f.
func (f ClientFunc) Chat(ctx context.Context, req Request) (Response, error) { return f(ctx, req) }

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one logical model call.
type Request struct {
	// Model is the backend-specific model name (without the provider prefix).
	Model    string
	Messages []Message
	// Temperature is always sent, including 0 (backends must not drop it).
	Temperature float64
	// TopP is sent when > 0.
	TopP float64
	// MaxTokens caps the completion when > 0.
	MaxTokens int
	// Seed is the per-call seed, derived by the protocol (see DeriveSeed).
	Seed int64
	// Schema, when non-nil, asks for structured output matching this JSON schema.
	Schema *Schema
	// Meta describes the call. Of it only Repeat enters a cache key (see
	// llm/cache) and RequestHash leaves it out; it never carries a gold answer.
	Meta Meta
}

// Schema is a named JSON schema for structured output.
type Schema struct {
	Name   string
	Schema json.RawMessage
}

// Meta is call metadata used by middleware, transcripts and the simulator.
// Phase and Kind are the protocol's own labels for the call, opaque to this
// package (teamwork's are listed in teamwork/FORMATS.md); Order places the
// call among the question's calls in the order a sequential run would make
// them, so records sort the same whatever the concurrency. The protocol sets
// all three.
type Meta struct {
	QuestionID string
	Arm        string
	Repeat     int
	Phase      string
	Kind       string
	Order      int
	Turn       int // the protocol's turn (1-based), 0 for a call outside any turn
	Agent      int // index (0-based) of the agent the call speaks for; -1 when none
	Role       string
	// RequestHash is RequestHash of the request, set by the outermost layer
	// that computes it (the meter) so the layers below (memo, cache) do not
	// hash the prompt again; see HashOf. "" = not computed yet.
	RequestHash string
}

// Usage is token usage as reported by the API itself (never estimated).
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	// CachedTokens is the part of PromptTokens the provider served from its
	// prompt (prefix) cache, billed at its cached-input rate; it means
	// something only with CachedReported.
	CachedTokens int
	// CachedReported is true when the API reported a cached count, 0
	// included (OpenAI's and vLLM's prompt_tokens_details.cached_tokens,
	// DeepSeek's prompt_cache_hit_tokens, Anthropic's
	// cache_read_input_tokens). False — Ollama, the simulator, a server
	// that sends no such field — means unknown, never "none cached".
	CachedReported bool
	// Missing is true when the API did not report the counts (no usage in
	// the answer, Ollama without prompt_eval_count or eval_count): the
	// counts are 0 and mean "unknown", never "free".
	Missing bool
}

// Total is prompt + completion tokens.
func (u Usage) Total() int { return u.PromptTokens + u.CompletionTokens }

// Finish reasons the harness acts on (Response.FinishReason).
const (
	FinishLength        = "length"         // cut off at the token limit
	FinishContentFilter = "content_filter" // withheld (in part) by the provider's content filter
)

// Response is the answer to one logical call.
type Response struct {
	Text string
	// FinishReason is why the backend stopped generating, as it reports it:
	// "stop", "length" (the reply reached its token limit and is cut off:
	// see answer.MarkCut), "content_filter", …; "" when it reports none.
	FinishReason string
	// ServedModel is the model name the server echoes in its answer (it may
	// differ from the requested one: an alias resolved to a snapshot, a
	// proxy's substitute); "" when it names none.
	ServedModel string
	// Refusal is the model's refusal message when it declined to answer
	// (OpenAI's message.refusal); "" when it did not. A refusal is an
	// abstention with reason refusal (see answer.MarkReply), never an answer.
	Refusal string
	Usage   Usage
	Latency time.Duration
	// Cached is true when the response was served from the response cache.
	Cached bool
	// Attempts is the number of requests sent to the backend for the call: 1
	// for a plain backend call, more with retries (or a backend that asked
	// again itself), 0 when served from a cache or when the call ended before
	// any request left. A Client returns its Response alongside an error too,
	// with Attempts and AttemptErrors filled in, so the attempts of a failed
	// or canceled call are counted like any other.
	Attempts int
	// AttemptErrors lists the error class of every failed attempt, in order
	// (set by the retry middleware and by backends that ask again
	// themselves), so retried faults stay visible even when a later attempt
	// succeeded.
	AttemptErrors []ErrorClass
}
