package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/batch"
)

// Batch API of an OpenAI-compatible endpoint (POST /files with purpose
// batch, POST /batches, GET /batches/{id}, GET /files/{id}/content,
// POST /batches/{id}/cancel, GET /batches), through go-openai.
//
// Each input line is {"custom_id","method":"POST","url":"/v1/chat/completions",
// "body":…} whose body is exactly the chat request Chat sends for the same
// llm.Request (wireRequest, in the structured-output mode JSONMode reports
// when the batch is submitted), so a batch answer equals the synchronous one.
// The modes used are stored in the batch's metadata (MetaJSONModes): when
// the server refuses a line's response format, Results downgrades the
// model's mode as Chat does and marks the line Resubmit.

// MetaJSONModes is the batch metadata key holding the structured-output
// mode of each model in the batch, as a JSON object model → mode.
const MetaJSONModes = "medteam_json_modes"

// BatchWindow is the completion window batches are created with.
const BatchWindow = "24h"

// DefaultMaxFileBytes caps the read of one output or error file (1 GiB).
const DefaultMaxFileBytes int64 = 1 << 30

// BatchConfig configures a Batcher.
type BatchConfig struct {
	// Limits are the provider's per-batch limits; zero fields take
	// batch.DefaultMaxRequests and batch.DefaultMaxBytes.
	Limits batch.Limits
	// MaxFileBytes caps the read of one output or error file; 0 means
	// DefaultMaxFileBytes. Each line of it is capped at the client's
	// MaxResponseBytes (a longer line is class oversize).
	MaxFileBytes int64
}

// Batcher is the batch.Provider of an OpenAI-compatible endpoint, sharing
// its Client's connection, credentials, redaction and structured-output
// modes. It is safe for concurrent use.
type Batcher struct {
	c       *Client
	limits  batch.Limits
	maxFile int64
}

var (
	_ batch.Provider = (*Batcher)(nil)
	_ batch.Sizer    = (*Batcher)(nil)
	_ batch.Limiter  = (*Batcher)(nil)
)

// Batcher returns the batch provider of c's endpoint.
func (c *Client) Batcher(cfg BatchConfig) *Batcher {
	b := &Batcher{c: c, limits: cfg.Limits, maxFile: cfg.MaxFileBytes}
	if b.limits.MaxRequests <= 0 {
		b.limits.MaxRequests = batch.DefaultMaxRequests
	}
	if b.limits.MaxBytes <= 0 {
		b.limits.MaxBytes = batch.DefaultMaxBytes
	}
	if b.maxFile <= 0 {
		b.maxFile = DefaultMaxFileBytes
	}
	return b
}

// Limits implements batch.Limiter.
func (b *Batcher) Limits() batch.Limits { return b.limits }

// Size implements batch.Sizer: the length of the line's JSON in the input
// file, in the model's current structured-output mode.
func (b *Batcher) Size(l batch.Line) (int, error) {
	item, err := b.line(l, b.c.modeSlot(l.Request.Model).Load())
	if err != nil {
		return 0, err
	}
	return len(item.MarshalBatchLineItem()), nil
}

// line is the input line of l with structured-output mode index mode.
func (b *Batcher) line(l batch.Line, mode int32) (goopenai.BatchChatCompletionRequest, error) {
	if l.CustomID == "" {
		return goopenai.BatchChatCompletionRequest{}, b.badRequest(l.Request.Model, errors.New("batch line without a custom_id"))
	}
	if e := b.c.invalid(l.Request); e != nil {
		e.Err = fmt.Errorf("line %q: %w", l.CustomID, e.Err)
		return goopenai.BatchChatCompletionRequest{}, e
	}
	creq := wireRequest(l.Request, mode)
	if err := goopenai.NewReasoningValidator().Validate(creq); err != nil {
		return goopenai.BatchChatCompletionRequest{}, b.badRequest(l.Request.Model, fmt.Errorf("line %q: %w", l.CustomID, err))
	}
	return goopenai.BatchChatCompletionRequest{
		CustomID: l.CustomID,
		Body:     creq,
		Method:   http.MethodPost,
		URL:      goopenai.BatchEndpointChatCompletions,
	}, nil
}

func (b *Batcher) badRequest(model string, err error) *llm.Error {
	return &llm.Error{Class: llm.ClassBadRequest, Provider: Provider, Model: model, Endpoint: b.c.endpoint, Unsent: true, Err: err}
}

// encode is the JSONL input file of lines (one line each, newline-ended)
// and the structured-output mode of each model with a schema line.
func (b *Batcher) encode(lines []batch.Line) ([]byte, map[string]string, error) {
	if len(lines) == 0 {
		return nil, nil, b.badRequest("", errors.New("empty batch"))
	}
	if len(lines) > b.limits.MaxRequests {
		return nil, nil, b.badRequest("", fmt.Errorf("%d lines, more than a batch holds (%d): split them (batch.Chunks)", len(lines), b.limits.MaxRequests))
	}
	modeOf := map[string]int32{} // one mode per model for the whole batch
	used := map[string]string{}
	seen := make(map[string]struct{}, len(lines))
	var buf bytes.Buffer
	for _, l := range lines {
		if _, dup := seen[l.CustomID]; dup {
			return nil, nil, b.badRequest(l.Request.Model, fmt.Errorf("duplicate custom_id %q", l.CustomID))
		}
		seen[l.CustomID] = struct{}{}
		m := l.Request.Model
		mode, ok := modeOf[m]
		if !ok {
			mode = b.c.modeSlot(m).Load()
			modeOf[m] = mode
		}
		if l.Request.Schema != nil {
			used[m] = modes[mode]
		}
		item, err := b.line(l, mode)
		if err != nil {
			return nil, nil, err
		}
		buf.Write(item.MarshalBatchLineItem())
		buf.WriteByte('\n')
	}
	if int64(buf.Len()) > b.limits.MaxBytes {
		return nil, nil, b.badRequest("", fmt.Errorf("input file of %d bytes, more than a batch holds (%d): split the lines (batch.Chunks)", buf.Len(), b.limits.MaxBytes))
	}
	return buf.Bytes(), used, nil
}

// Submit implements batch.Provider: it uploads the lines as a JSONL file
// (purpose batch; what go-openai's UploadBatchFile sends) and creates a
// batch of it on /v1/chat/completions with a 24h window.
func (b *Batcher) Submit(ctx context.Context, lines []batch.Line) (batch.Ref, error) {
	return b.SubmitTagged(ctx, lines, "", nil)
}

var _ batch.Tagger = (*Batcher)(nil)

// SubmitTagged implements batch.Tagger: Submit, calling uploaded between
// the upload and the creation, and creating the batch with tag in its
// metadata (batch.MetaTag) when tag is not empty.
func (b *Batcher) SubmitTagged(ctx context.Context, lines []batch.Line, tag string, uploaded func(fileID string) error) (batch.Ref, error) {
	data, used, err := b.encode(lines)
	if err != nil {
		return batch.Ref{}, err
	}
	ref := batch.Ref{Count: len(lines), Bytes: int64(len(data))}
	var ex exchange
	ex.limit = b.c.maxBody
	f, err := b.c.api.CreateFileBytes(withExchange(ctx, &ex), goopenai.FileBytesRequest{
		Name: "medteam-batch.jsonl", Bytes: data, Purpose: goopenai.PurposeBatch,
	})
	if err != nil {
		return ref, b.fail(ctx, "uploading the batch input file", err, ex)
	}
	ref.InputFileID = f.ID
	if uploaded != nil {
		if err := uploaded(f.ID); err != nil {
			return ref, err
		}
	}
	meta := map[string]any{}
	if tag != "" {
		meta[batch.MetaTag] = tag
	}
	if len(used) > 0 {
		if js, _ := json.Marshal(used); len(js) <= 512 {
			meta[MetaJSONModes] = string(js)
		}
	}
	ex = exchange{limit: b.c.maxBody}
	resp, err := b.c.api.CreateBatch(withExchange(ctx, &ex), goopenai.CreateBatchRequest{
		InputFileID: f.ID, Endpoint: goopenai.BatchEndpointChatCompletions, CompletionWindow: BatchWindow, Metadata: meta,
	})
	if err != nil {
		return ref, b.fail(ctx, "creating the batch of file "+f.ID, err, ex)
	}
	ref.ID = resp.ID
	return ref, nil
}

// fail classifies the failure of a batch API call as Chat's (mapError),
// says what was being done, and redacts it.
func (b *Batcher) fail(ctx context.Context, doing string, err error, ex exchange) error {
	e := b.c.classify(ctx, err, ex, "")
	e.Err = fmt.Errorf("%s: %w", doing, e.Err)
	return b.c.redact.Error(e)
}

// bounded is ctx bounded by the client's Timeout, for the small calls.
func (b *Batcher) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if b.c.timeout > 0 {
		return context.WithTimeout(ctx, b.c.timeout)
	}
	return context.WithCancel(ctx)
}

// Status implements batch.Provider (GET /batches/{id}).
func (b *Batcher) Status(ctx context.Context, id string) (batch.Status, error) {
	ctx, cancel := b.bounded(ctx)
	defer cancel()
	ex := exchange{limit: b.c.maxBody}
	resp, err := b.c.api.RetrieveBatch(withExchange(ctx, &ex), id)
	if err != nil {
		return batch.Status{ID: id}, b.fail(ctx, "retrieving batch "+id, err, ex)
	}
	return status(resp.Batch), nil
}

// Cancel implements batch.Provider (POST /batches/{id}/cancel).
func (b *Batcher) Cancel(ctx context.Context, id string) (batch.Status, error) {
	ctx, cancel := b.bounded(ctx)
	defer cancel()
	ex := exchange{limit: b.c.maxBody}
	resp, err := b.c.api.CancelBatch(withExchange(ctx, &ex), id)
	if err != nil {
		return batch.Status{ID: id}, b.fail(ctx, "cancelling batch "+id, err, ex)
	}
	return status(resp.Batch), nil
}

// maxListPages bounds List (100 batches a page).
const maxListPages = 100

// List implements batch.Provider (GET /batches, every page up to 10,000
// batches).
func (b *Batcher) List(ctx context.Context) ([]batch.Status, error) {
	var out []batch.Status
	var after *string
	limit := 100
	for range maxListPages {
		cctx, cancel := b.bounded(ctx)
		ex := exchange{limit: b.c.maxBody}
		resp, err := b.c.api.ListBatch(withExchange(cctx, &ex), after, &limit)
		if err != nil {
			err = b.fail(cctx, "listing batches", err, ex)
			cancel()
			return out, err
		}
		cancel()
		for _, bt := range resp.Data {
			out = append(out, status(bt))
		}
		if !resp.HasMore || resp.LastID == "" {
			break
		}
		last := resp.LastID
		after = &last
	}
	return out, nil
}

// status converts go-openai's Batch.
func status(bt goopenai.Batch) batch.Status {
	st := batch.Status{
		ID:          bt.ID,
		State:       batch.State(bt.Status),
		Counts:      batch.Counts{Total: bt.RequestCounts.Total, Completed: bt.RequestCounts.Completed, Failed: bt.RequestCounts.Failed},
		InputFileID: bt.InputFileID,
	}
	if bt.CreatedAt > 0 {
		st.CreatedAt = time.Unix(int64(bt.CreatedAt), 0).UTC()
	}
	if bt.OutputFileID != nil {
		st.OutputFileID = *bt.OutputFileID
	}
	if bt.ErrorFileID != nil {
		st.ErrorFileID = *bt.ErrorFileID
	}
	if bt.Errors != nil {
		for _, d := range bt.Errors.Data {
			msg := d.Code + ": " + d.Message
			if d.Line != nil {
				msg += fmt.Sprintf(" (line %d)", *d.Line)
			}
			st.Errors = append(st.Errors, msg)
		}
	}
	for k, v := range bt.Metadata {
		if st.Metadata == nil {
			st.Metadata = map[string]string{}
		}
		if s, ok := v.(string); ok {
			st.Metadata[k] = s
		}
	}
	return st
}
