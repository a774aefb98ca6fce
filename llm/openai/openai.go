// Package openai is the backend for OpenAI-compatible chat-completion
// servers (vLLM, llama.cpp's server, Ollama's /v1, hosted APIs), built on
// go-openai.
//
// Wire format of a call: model, messages, temperature (always; see
// ZeroTemperature), top_p when > 0, max_tokens when > 0, seed, and, when the
// request carries a schema, response_format {type: json_schema, json_schema:
// {name, schema, strict: true}}. A server that rejects json_schema with a 400
// naming the response format is asked again with {type: json_object}, and if
// that is rejected too, without response_format; the downgrade is remembered
// per endpoint and model (JSONMode) so later calls go straight to the mode
// that works. (A server that rejects the schema itself, e.g. a strict-mode
// validation error naming json_schema, is downgraded the same way.)
//
// Every error is an *llm.Error (see mapError for the classification). No
// credential — the API key, the base URL's password in any form — appears in
// an answer text or an error message (llm.Redactor). A response body is read
// up to Config.MaxResponseBytes; a larger answer is class oversize. An
// answer without usage is reported as Usage.Missing.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/medteam-bench/medteam/llm"
)

// Provider is the provider name in errors.
const Provider = "openai"

// ZeroTemperature is the temperature sent when a request asks for 0.
//
// go-openai's Temperature field is a float32 tagged omitempty, so a literal 0
// never reaches the wire — and servers then apply their default (1.0 on
// Ollama's /v1 and many others). 1e-7 is the smallest value that is safe
// everywhere: it is non-zero (so it is sent, as "temperature":1e-7), it is
// below vLLM's greedy threshold (1e-5) and equal to the clamp of Ollama's
// sampler, so those decode greedily; and unlike a denormal such as 1e-45 it
// does not overflow float32 samplers that divide the logits by the
// temperature (llama.cpp), where logit/1e-7 stays finite and the softmax is
// effectively one-hot.
const ZeroTemperature float32 = 1e-7

// Structured-output modes, strongest first (see JSONMode).
const (
	ModeJSONSchema = "json_schema" // response_format json_schema, strict
	ModeJSONObject = "json_object" // response_format json_object
	ModeNone       = "none"        // no response_format; the prompt alone asks for JSON
)

var modes = [...]string{ModeJSONSchema, ModeJSONObject, ModeNone}

// Config configures a Client.
type Config struct {
	// BaseURL is the API root, e.g. "http://127.0.0.1:8000/v1" (required).
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none (local servers).
	APIKey string
	// HTTPClient is the HTTP client; nil means a new http.Client without a
	// timeout (bound calls with contexts or Timeout) over an
	// llm.CountingTransport, which makes Response.Attempts exact for calls
	// canceled while their request was being written.
	HTTPClient *http.Client
	// MaxResponseBytes caps the body read of one response; a larger answer
	// fails with class oversize after reading at most this many bytes.
	// 0 means llm.DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Timeout, when > 0, bounds each Chat or Models call (class timeout when exceeded).
	Timeout time.Duration
}

// Client is an llm.Client for one OpenAI-compatible endpoint. It is safe for
// concurrent use.
type Client struct {
	api      *goopenai.Client
	endpoint string // BaseURL without credentials, query or trailing slash
	redact   *llm.Redactor
	maxBody  int64
	timeout  time.Duration
	modes    sync.Map // endpoint + "\x00" + model → *atomic.Int32 (index into modes)
}

var _ llm.Client = (*Client)(nil)

// New returns a client for cfg.BaseURL.
func New(cfg Config) (*Client, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, errors.New("openai: BaseURL is required")
	}
	red := llm.NewRedactor(cfg.APIKey, cfg.BaseURL)
	u, err := url.Parse(strings.TrimSpace(cfg.BaseURL))
	if err != nil {
		return nil, fmt.Errorf("openai: invalid BaseURL: %w", red.Error(err))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai: BaseURL must be an http or https URL with a host, got scheme %q", u.Scheme)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("openai: BaseURL must not have a query or fragment")
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("openai: negative Timeout %v", cfg.Timeout)
	}
	if cfg.MaxResponseBytes < 0 {
		return nil, fmt.Errorf("openai: negative MaxResponseBytes %d", cfg.MaxResponseBytes)
	}
	maxBody := cfg.MaxResponseBytes
	if maxBody == 0 {
		maxBody = llm.DefaultMaxResponseBytes
	}
	hc := cfg.HTTPClient
	if hc == nil {
		// Connections that count their bytes let each call report exactly
		// how many requests it sent (see llm.Wire).
		hc = &http.Client{Transport: llm.CountingTransport(nil)}
	}
	oc := goopenai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(u.String(), "/")
	oc.HTTPClient = doer{hc}

	clean := *u
	clean.User, clean.ForceQuery = nil, false
	return &Client{
		api:      goopenai.NewClientWithConfig(oc),
		endpoint: strings.TrimRight(clean.String(), "/"),
		redact:   red,
		maxBody:  maxBody,
		timeout:  cfg.Timeout,
	}, nil
}

// Endpoint is the API root the client talks to, without credentials.
func (c *Client) Endpoint() string { return c.endpoint }

func (c *Client) modeSlot(model string) *atomic.Int32 {
	k := c.endpoint + "\x00" + model
	if v, ok := c.modes.Load(k); ok {
		return v.(*atomic.Int32)
	}
	v, _ := c.modes.LoadOrStore(k, new(atomic.Int32))
	return v.(*atomic.Int32)
}

// JSONMode is the structured-output mode used for model on this endpoint:
// ModeJSONSchema until the server has rejected it, then ModeJSONObject, then
// ModeNone.
func (c *Client) JSONMode(model string) string {
	return modes[c.modeSlot(model).Load()]
}

// downgrade records that mode index from failed; it never moves back up.
func downgrade(slot *atomic.Int32, from int32) {
	for {
		cur := slot.Load()
		if cur > from || int(from)+1 >= len(modes) {
			return
		}
		if slot.CompareAndSwap(cur, from+1) {
			return
		}
	}
}

// Chat implements llm.Client. The answer text and any error are redacted
// (see llm.Redactor): a server echoing the credentials cannot hand them on.
func (c *Client) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := c.chat(ctx, req)
	return c.redact.Response(resp), c.redact.Error(err)
}

func (c *Client) chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		e := c.classify(ctx, err, exchange{}, req.Model)
		e.Unsent = true
		return llm.Response{}, e
	}
	if e := c.invalid(req); e != nil {
		return llm.Response{}, e
	}
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	slot := c.modeSlot(req.Model)
	var sent atomic.Int32         // chat requests written to the wire
	var rejected []llm.ErrorClass // one per response format the server refused
	for {
		mode := slot.Load()
		creq := wireRequest(req, mode)
		ex := exchange{sent: &sent, limit: c.maxBody, keep: true}
		resp, err := c.api.CreateChatCompletion(withExchange(ctx, &ex), creq)
		if err != nil {
			if req.Schema != nil && int(mode)+1 < len(modes) && ctx.Err() == nil && rejectsFormat(err) {
				downgrade(slot, mode)
				rejected = append(rejected, llm.ClassBadRequest)
				continue
			}
			return c.failed(ctx, err, ex, req.Model, &sent, rejected)
		}
		if len(resp.Choices) == 0 {
			return c.failed(ctx, errNoChoices, ex, req.Model, &sent, rejected)
		}
		return llm.Response{
			Text:          resp.Choices[0].Message.Content,
			FinishReason:  string(resp.Choices[0].FinishReason),
			ServedModel:   resp.Model,
			Refusal:       resp.Choices[0].Message.Refusal,
			Usage:         usage(resp.Usage, ex.raw),
			Latency:       time.Since(start),
			Attempts:      int(sent.Load()),
			AttemptErrors: rejected,
		}, nil
	}
}

// failed is the Response and error of a chat call that failed after
// sending sent requests, of which the format rejections failed first.
func (c *Client) failed(ctx context.Context, err error, ex exchange, model string, sent *atomic.Int32, rejected []llm.ErrorClass) (llm.Response, error) {
	e := c.classify(ctx, err, ex, model)
	n := int(sent.Load())
	e.Unsent = n == 0
	return llm.Response{Attempts: n, AttemptErrors: rejected}, e
}

var errNoChoices = errors.New("response has no choices")

// usage is the token usage of an answer whose body is raw. A prompt is
// never 0 tokens, so an answer without usage, with "usage": null or with a
// zero prompt count (a server that does not count) is Missing, with no
// counts. The cached prompt tokens are read from
// prompt_tokens_details.cached_tokens (OpenAI, vLLM, SGLang, Anthropic's
// compatible endpoint), else from DeepSeek's prompt_cache_hit_tokens or
// Anthropic's cache_read_input_tokens (as proxies pass it) in raw; a server
// that sends none of them leaves the count unreported.
func usage(u goopenai.Usage, raw []byte) llm.Usage {
	if u.PromptTokens <= 0 {
		return llm.Usage{Missing: true}
	}
	out := llm.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
	if n, ok := cachedCount(raw); ok {
		out.CachedTokens, out.CachedReported = n, true
	} else if d := u.PromptTokensDetails; d != nil && d.CachedTokens > 0 {
		// the body was not kept (too large): a positive count was reported
		out.CachedTokens, out.CachedReported = d.CachedTokens, true
	}
	if out.CachedTokens < 0 || out.CachedTokens > out.PromptTokens {
		// A count outside the prompt is not a count: unknown.
		out.CachedTokens, out.CachedReported = 0, false
	}
	return out
}

// cachedCount reads the cached prompt tokens of an answer body: OpenAI's
// prompt_tokens_details.cached_tokens, DeepSeek's prompt_cache_hit_tokens or
// Anthropic's cache_read_input_tokens. A field that is absent is no count —
// go-openai decodes a prompt_tokens_details without cached_tokens as 0,
// which would read "unknown" as "none cached", so the body is read here.
func cachedCount(raw []byte) (int, bool) {
	if len(raw) == 0 || !bytes.Contains(raw, []byte("cache")) {
		return 0, false
	}
	var b struct {
		Usage struct {
			Details *struct {
				Cached *int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
			DeepSeek  *int `json:"prompt_cache_hit_tokens"`
			Anthropic *int `json:"cache_read_input_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(raw, &b) != nil {
		return 0, false
	}
	switch {
	case b.Usage.Details != nil && b.Usage.Details.Cached != nil:
		return *b.Usage.Details.Cached, true
	case b.Usage.DeepSeek != nil:
		return *b.Usage.DeepSeek, true
	case b.Usage.Anthropic != nil:
		return *b.Usage.Anthropic, true
	}
	return 0, false
}

// invalid is the error of a request the client refuses to send (a schema
// that is not JSON), nil for a valid one. Chat and the batch path both ask.
func (c *Client) invalid(req llm.Request) *llm.Error {
	if req.Schema != nil && !json.Valid(req.Schema.Schema) {
		return &llm.Error{Class: llm.ClassBadRequest, Provider: Provider, Model: req.Model,
			Endpoint: c.endpoint, Unsent: true, Err: fmt.Errorf("schema %q is not valid JSON", req.Schema.Name)}
	}
	return nil
}

// wireRequest is the chat request sent for req when the structured-output
// mode is modes[mode]: buildRequest and, for a request with a schema, the
// mode's response_format. Chat and the batch lines (Batcher) both send it,
// so a batch answer is the answer to the very request Chat would send.
func wireRequest(req llm.Request, mode int32) goopenai.ChatCompletionRequest {
	creq := buildRequest(req)
	if req.Schema != nil {
		creq.ResponseFormat = responseFormat(modes[mode], req.Schema)
	}
	return creq
}

// buildRequest is the wire request for req, without response_format.
func buildRequest(req llm.Request) goopenai.ChatCompletionRequest {
	msgs := make([]goopenai.ChatCompletionMessage, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = goopenai.ChatCompletionMessage{Role: m.Role, Content: m.Content}
	}
	temp := float32(req.Temperature)
	if temp == 0 {
		temp = ZeroTemperature
	}
	seed := int(req.Seed)
	creq := goopenai.ChatCompletionRequest{
		Model:       req.Model,
		Messages:    msgs,
		Temperature: temp,
		Seed:        &seed,
	}
	if req.TopP > 0 {
		creq.TopP = float32(req.TopP)
	}
	if req.MaxTokens > 0 {
		// max_tokens, not max_completion_tokens: it is what vLLM, llama.cpp's
		// server and Ollama's /v1 all accept.
		creq.MaxTokens = req.MaxTokens
	}
	return creq
}

func responseFormat(mode string, s *llm.Schema) *goopenai.ChatCompletionResponseFormat {
	switch mode {
	case ModeJSONSchema:
		name := s.Name
		if name == "" {
			name = "response"
		}
		return &goopenai.ChatCompletionResponseFormat{
			Type: goopenai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{
				Name:   name,
				Schema: json.RawMessage(s.Schema),
				Strict: true,
			},
		}
	case ModeJSONObject:
		return &goopenai.ChatCompletionResponseFormat{Type: goopenai.ChatCompletionResponseFormatTypeJSONObject}
	}
	return nil
}

// rejectsFormat reports whether err is the server refusing the response
// format: a 400 (or 422) whose message or param names it.
func rejectsFormat(err error) bool {
	status, msg := statusMessage(err)
	if status != http.StatusBadRequest && status != http.StatusUnprocessableEntity {
		return false
	}
	var ae *goopenai.APIError
	if errors.As(err, &ae) && ae.Param != nil && strings.Contains(strings.ToLower(*ae.Param), "response_format") {
		return true
	}
	m := strings.ToLower(msg)
	for _, w := range []string{"response_format", "response format", "json_schema", "json schema", "json_object", "json object", "structured output"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// Models lists the model ids the endpoint serves (GET /models).
func (c *Client) Models(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, c.classify(ctx, err, exchange{}, "")
	}
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	var ex exchange
	list, err := c.api.ListModels(withExchange(ctx, &ex))
	if err != nil {
		return nil, c.redact.Error(c.classify(ctx, err, ex, ""))
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// classify turns a failed call into an *llm.Error.
func (c *Client) classify(ctx context.Context, err error, ex exchange, model string) *llm.Error {
	e := mapError(err, ctx.Err(), ex, time.Now())
	e.Provider, e.Model, e.Endpoint = Provider, model, c.endpoint
	return e
}

// ---- transport capture ----

// exchange is what the transport saw of one HTTP exchange: go-openai drops
// the response headers of a failed call and cannot tell a body cut by the
// network from a body that is not JSON, so doer records both.
type exchange struct {
	status   int           // HTTP status, 0 when no response arrived
	header   http.Header   // response headers
	bodyErr  error         // first error reading the body (other than io.EOF)
	sent     *atomic.Int32 // counts requests written to the wire; may be nil
	limit    int64         // cap on the body read, 0 = none
	oversize bool          // the body went past limit (a 2xx body is then class oversize)
	keep     bool          // keep the body read in raw, up to maxRaw (for the usage fields go-openai drops)
	raw      []byte
}

type exchangeKey struct{}

func withExchange(ctx context.Context, ex *exchange) context.Context {
	return context.WithValue(ctx, exchangeKey{}, ex)
}

// doer is the go-openai HTTPDoer: it calls the http.Client and records the
// exchange in the *exchange the request's context carries (set per call by
// withExchange; each call has its own, so this is safe for concurrent use).
type doer struct{ hc *http.Client }

func (d doer) Do(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	var w *llm.Wire
	if ex != nil && ex.sent != nil {
		w = llm.NewWire()
		req = req.WithContext(w.Trace(req.Context()))
	}
	resp, err := d.hc.Do(req)
	if w != nil && (resp != nil || w.Sent()) {
		ex.sent.Add(1)
	}
	if ex != nil && resp != nil {
		ex.status = resp.StatusCode
		ex.header = resp.Header
		resp.Body = &trackedBody{ReadCloser: resp.Body, ex: ex}
	}
	return resp, err
}

// trackedBody records the first read error and stops reading at the
// exchange's limit: a body with more to give fails with errOversize, so
// go-openai never holds more than limit bytes of it.
type trackedBody struct {
	io.ReadCloser
	ex   *exchange
	read int64
}

func (b *trackedBody) Read(p []byte) (int, error) {
	if lim := b.ex.limit; lim > 0 {
		if b.read >= lim {
			// At the cap: the body is oversize if it has anything more.
			var probe [1]byte
			n, err := b.ReadCloser.Read(probe[:])
			if n > 0 {
				b.ex.oversize = true
				return 0, errOversize
			}
			return 0, b.record(err)
		}
		p = p[:min(int64(len(p)), lim-b.read)]
	}
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	if b.ex.keep && len(b.ex.raw)+n <= maxRaw {
		b.ex.raw = append(b.ex.raw, p[:n]...)
	} else {
		b.ex.keep, b.ex.raw = false, nil // too long to keep: its other cache fields go unread
	}
	return n, b.record(err)
}

func (b *trackedBody) record(err error) error {
	if err != nil && err != io.EOF && b.ex.bodyErr == nil {
		b.ex.bodyErr = err
	}
	return err
}

// maxRaw is the longest answer body kept for the usage fields go-openai
// does not decode (DeepSeek's and Anthropic's cached counts): a longer one
// is not kept, so its count in those forms is unreported.
const maxRaw = 256 << 10

// errOversize stops the read of a body past the cap.
var errOversize = errors.New("response body over the size cap")
