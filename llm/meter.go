package llm

import (
	"context"
	"slices"
	"sync"
	"time"
)

// CallRecord is what the meter saw of one logical call.
type CallRecord struct {
	Meta        Meta
	Seed        int64
	RequestHash string
	Usage       Usage
	Latency     time.Duration // wall time of the call as seen by the meter
	Attempts    int
	// AttemptErrors are the classes of failed attempts (retried or final).
	AttemptErrors []ErrorClass
	Cached        bool
	Err           error
	Class         ErrorClass // empty on success
	FinishReason  string     // the backend's finish reason ("stop", "length", …; "" when none)
	ServedModel   string     // the model name the server echoed ("" when none)
	Refusal       string     // the model's refusal message ("" when it did not refuse)
	Prompt        string     // the messages, rendered (kept only when the meter keeps transcripts)
	Response      string     // kept only when the meter keeps transcripts
	// Transcript is the id under which a streaming meter's TranscriptSink
	// stored Prompt and Response (then both are empty here); 0 when none.
	Transcript int64
}

// Totals sums a set of calls.
type Totals struct {
	Calls       int // logical calls
	Attempts    int // backend attempts (retries included; 0 for cache hits)
	CachedCalls int
	Errors      int
	// UsageMissing counts the answered calls whose usage the API did not
	// report; Usage sums the others only, so it is a lower bound when this
	// is not 0.
	UsageMissing int
	// CachedUnreported counts the answered calls with usage that reached
	// the model (not Cached) whose API did not report a cached-token count; Usage.CachedTokens sums the others
	// (Usage.CachedReported: at least one did).
	CachedUnreported int
	// Truncated, Filtered and Refused count the answered calls the backend
	// cut off at their token limit (finish reason "length"), withheld by its
	// content filter (finish reason "content_filter"), and the model refused
	// (a refusal message; counted as refused only, whatever its finish
	// reason).
	Truncated, Filtered, Refused int
	Usage                        Usage
	// Paid sums the usage of the calls that reached the model: not served
	// from the response cache or shared from another arm's identical
	// request (both are Cached) — what the provider billed.
	Paid    Usage
	Latency time.Duration // sum of call latencies
}

// Add accumulates one record.
func (t *Totals) Add(r CallRecord) {
	t.Calls++
	t.Attempts += r.Attempts
	if r.Cached {
		t.CachedCalls++
	}
	if r.Err != nil {
		t.Errors++
	}
	if r.Usage.Missing && r.Err == nil {
		t.UsageMissing++
	}
	if r.Err == nil {
		switch {
		case r.Refusal != "":
			t.Refused++
		case r.FinishReason == FinishLength:
			t.Truncated++
		case r.FinishReason == FinishContentFilter:
			t.Filtered++
		}
	}
	if r.Err == nil && !r.Cached && !r.Usage.Missing && !r.Usage.CachedReported {
		t.CachedUnreported++
	}
	t.Usage.add(r.Usage)
	if !r.Cached {
		t.Paid.add(r.Usage)
	}
	t.Latency += r.Latency
}

// add sums u into t (the cached count only where reported).
func (t *Usage) add(u Usage) {
	t.PromptTokens += u.PromptTokens
	t.CompletionTokens += u.CompletionTokens
	if u.CachedReported {
		t.CachedTokens += u.CachedTokens
		t.CachedReported = true
	}
}

// Meter is middleware that records every call passing through it. Use one
// Meter per question (it is cheap): the runner reads its records when the
// question is done. It is safe for concurrent use (a protocol's parallel
// calls).
type Meter struct {
	next        Client
	transcripts bool
	unhashed    bool
	now         func() time.Time

	sink TranscriptSink // nil: transcripts stay in the records

	mu    sync.Mutex
	calls []CallRecord
}

// TranscriptSink stores one call's prompt and response texts as the call
// ends and returns the id they are stored under (never 0). It must be safe
// for concurrent use.
type TranscriptSink interface {
	Transcript(prompt, response string) (int64, error)
}

// NewMeter wraps next. With transcripts the prompt and response texts are kept.
func NewMeter(next Client, transcripts bool) *Meter {
	return &Meter{next: next, transcripts: transcripts, now: time.Now}
}

// NewStreamingMeter wraps next keeping transcripts, but hands each call's
// texts to sink as the call ends: its record keeps only the id (Transcript),
// so a unit's texts do not stay in memory until the unit ends. When sink
// fails the texts are kept in the record instead (they then reach the
// journal with the unit's calls): no text is lost.
func NewStreamingMeter(next Client, sink TranscriptSink) *Meter {
	return &Meter{next: next, transcripts: true, sink: sink, now: time.Now}
}

// NewUnhashedMeter wraps next without hashing requests (RequestHash stays
// empty) and without transcripts: for a dry run, whose stub answers cost
// less than the hash and whose records are only counted.
func NewUnhashedMeter(next Client) *Meter {
	return &Meter{next: next, unhashed: true, now: time.Now}
}

// Chat forwards the call and records it, success or failure.
func (m *Meter) Chat(ctx context.Context, req Request) (Response, error) {
	start := m.now()
	if !m.unhashed {
		req.Meta.RequestHash = requestHash(req) // fresh: the layers below use it (HashOf)
	}
	resp, err := m.next.Chat(ctx, req)
	rec := CallRecord{
		Meta:          req.Meta,
		Seed:          req.Seed,
		RequestHash:   req.Meta.RequestHash,
		Usage:         resp.Usage,
		Latency:       m.now().Sub(start),
		Attempts:      resp.Attempts,
		AttemptErrors: resp.AttemptErrors,
		Cached:        resp.Cached,
		FinishReason:  resp.FinishReason,
		ServedModel:   resp.ServedModel,
		Refusal:       resp.Refusal,
		Err:           err,
		Class:         ClassOf(err),
	}
	// A successful client that does not count its attempts made one. A
	// failure is taken at its word: 0 attempts when it ended before a request
	// left (canceled while queued, or sharing another call's failure).
	if rec.Attempts == 0 && !rec.Cached && err == nil {
		rec.Attempts = 1
	}
	if m.transcripts {
		prompt := RenderMessages(req.Messages)
		if id, serr := m.store(prompt, resp.Text); serr == nil && id != 0 {
			rec.Transcript = id
		} else {
			rec.Prompt, rec.Response = prompt, resp.Text
		}
	}
	m.mu.Lock()
	m.calls = append(m.calls, rec)
	m.mu.Unlock()
	return resp, err
}

// store hands the texts to the sink (id 0 without one).
func (m *Meter) store(prompt, response string) (int64, error) {
	if m.sink == nil {
		return 0, nil
	}
	return m.sink.Transcript(prompt, response)
}

// Calls returns the records in canonical protocol order (see CompareMeta), which
// does not depend on the order in which parallel calls finished.
func (m *Meter) Calls() []CallRecord {
	m.mu.Lock()
	out := slices.Clone(m.calls)
	m.mu.Unlock()
	slices.SortStableFunc(out, func(a, b CallRecord) int { return CompareMeta(a.Meta, b.Meta) })
	return out
}

// Totals sums every call recorded so far.
func (m *Meter) Totals() Totals {
	var t Totals
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.calls {
		t.Add(r)
	}
	return t
}

// ByPhase sums the calls of each phase.
func (m *Meter) ByPhase() map[string]Totals {
	out := map[string]Totals{}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.calls {
		t := out[r.Meta.Phase]
		t.Add(r)
		out[r.Meta.Phase] = t
	}
	return out
}

// CompareMeta orders calls canonically by the protocol's Order (calls with
// equal Order keep the order in which they were recorded under a stable sort).
func CompareMeta(a, b Meta) int { return a.Order - b.Order }
