// Package ollama is the backend for an Ollama server's native API, built on
// the types and client of Ollama's own Go package (api).
//
// A chat call posts an api.ChatRequest to /api/chat with stream:false
// (Ollama streams by default), truncate:false (a prompt longer than the
// context is an error, class context_length, instead of having its oldest
// messages silently dropped), shift:false (a generation that reaches the end
// of the context stops with done_reason "length" instead of silently
// discarding the start of the prompt), the options temperature (always, 0
// included), seed, top_p (when > 0), num_predict (MaxTokens, when > 0) and
// num_ctx (Config.NumCtx, when > 0), and format set to the schema when the
// request carries one. Token usage is the response's prompt_eval_count and
// eval_count. Ollama reports no cached prompt tokens (its prompt_eval_count
// counts only the tokens it evaluated, the reused KV cache not among them),
// so Usage.CachedReported stays false: the cached count is unknown, and
// calls.parquet's cached_prompt_tokens is null, never 0.
//
// The chat call posts with net/http rather than api.Client.Chat because the
// latter's streaming reader cannot report what a benchmark needs to
// classify: it ignores read errors (a connection reset mid-body returns no
// error and no answer), turns a non-JSON 200 body into a bare error carrying
// the body, and drops the response headers (Retry-After). Models, Digest and
// Version use api.Client.
package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/medteam-bench/medteam/llm"
)

// Provider is the provider name in errors.
const Provider = "ollama"

// DefaultHost is the server address used when neither Config.Host nor
// OLLAMA_HOST is set.
const DefaultHost = "http://127.0.0.1:11434"

// Config configures a Client.
type Config struct {
	// Host is the server address, parsed like OLLAMA_HOST: "host",
	// "host:port", "scheme://host:port[/path]" (see ParseHost). Empty means
	// the OLLAMA_HOST environment variable, then DefaultHost.
	Host string
	// HTTPClient is the HTTP client; nil means a new http.Client without a
	// timeout (bound calls with contexts or Timeout) over an
	// llm.CountingTransport, which makes Response.Attempts exact for calls
	// canceled while their request was being written.
	HTTPClient *http.Client
	// NumCtx, when > 0, is sent as options.num_ctx (the context length).
	NumCtx int
	// KeepAlive, when non-zero, is sent as keep_alive: how long the model
	// stays loaded after a call; negative keeps it loaded indefinitely.
	KeepAlive time.Duration
	// MaxResponseBytes caps the body read of one response; a larger answer
	// fails with class oversize after reading at most this many bytes.
	// 0 means llm.DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Timeout, when > 0, bounds each call (class timeout when exceeded).
	Timeout time.Duration
}

// Client is an llm.Client for one Ollama server. It is safe for concurrent use.
type Client struct {
	api       *api.Client
	http      *http.Client
	chatURL   string
	endpoint  string
	redact    *llm.Redactor
	maxBody   int64
	numCtx    int
	keepAlive time.Duration
	timeout   time.Duration
}

var _ llm.Client = (*Client)(nil)

// New returns a client for cfg.Host.
func New(cfg Config) (*Client, error) {
	host := cfg.Host
	if strings.TrimSpace(host) == "" {
		host = os.Getenv("OLLAMA_HOST")
	}
	if strings.TrimSpace(host) == "" {
		host = DefaultHost
	}
	red := llm.NewRedactor("", host)
	base, err := ParseHost(host)
	if err != nil {
		return nil, red.Error(err)
	}
	if cfg.MaxResponseBytes < 0 {
		return nil, fmt.Errorf("ollama: negative MaxResponseBytes %d", cfg.MaxResponseBytes)
	}
	maxBody := cfg.MaxResponseBytes
	if maxBody == 0 {
		maxBody = llm.DefaultMaxResponseBytes
	}
	if cfg.NumCtx < 0 {
		return nil, fmt.Errorf("ollama: negative NumCtx %d", cfg.NumCtx)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("ollama: negative Timeout %v", cfg.Timeout)
	}
	hc := cfg.HTTPClient
	if hc == nil {
		// Connections that count their bytes let each call report exactly
		// how many requests it sent (see llm.Wire).
		hc = &http.Client{Transport: llm.CountingTransport(nil)}
	}
	clean := *base
	clean.User = nil
	return &Client{
		api:       api.NewClient(base, hc),
		http:      hc,
		chatURL:   base.JoinPath("/api/chat").String(),
		endpoint:  strings.TrimRight(clean.String(), "/"),
		redact:    red,
		maxBody:   maxBody,
		numCtx:    cfg.NumCtx,
		keepAlive: cfg.KeepAlive,
		timeout:   cfg.Timeout,
	}, nil
}

// ParseHost parses a server address the way Ollama reads OLLAMA_HOST:
// without a scheme, http and port 11434 are assumed ("127.0.0.1",
// "0.0.0.0:11434", ":11434", "[::1]:8080"); with "http://" or "https://"
// the default port is 80 or 443. A path after the host is kept (a server
// behind a reverse proxy), and so is userinfo ("https://user:pass@host", a
// proxy asking for Basic auth; never shown in errors or Endpoint). Unlike
// Ollama, which falls back to defaults, an unsupported scheme or an invalid
// port is an error.
func ParseHost(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	scheme, hostport, defaultPort := splitScheme(s)
	hostport, path, _ := strings.Cut(hostport, "/")
	user, hostport, shown := cutUserinfo(s, hostport)
	if scheme != "http" && scheme != "https" {
		return nil, fmt.Errorf("ollama: host %q: unsupported scheme %q (want http or https)", shown, scheme)
	}
	host, port := splitHostPort(hostport, defaultPort)
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
		return nil, fmt.Errorf("ollama: host %q: invalid port %q", shown, port)
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), User: user}
	if path = strings.Trim(path, "/"); path != "" {
		u.Path = "/" + path
	}
	return u, nil
}

// splitScheme splits "scheme://rest" into the scheme, the rest and the
// scheme's default port: 80 for http, 443 for https, and with no scheme,
// http and Ollama's 11434.
func splitScheme(s string) (scheme, rest, defaultPort string) {
	scheme, rest, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		return "http", s, "11434"
	case scheme == "http":
		return scheme, rest, "80"
	case scheme == "https":
		return scheme, rest, "443"
	}
	return scheme, rest, "11434"
}

// cutUserinfo takes the "user:password@" (percent-encoded) off hostport, a
// part of address s. It returns the userinfo (nil when there is none), the
// host and port, and s without the userinfo, to be shown in errors.
func cutUserinfo(s, hostport string) (user *url.Userinfo, rest, shown string) {
	i := strings.LastIndex(hostport, "@")
	if i < 0 {
		return nil, hostport, s
	}
	name, pass, hasPass := strings.Cut(hostport[:i], ":")
	if n, err := url.PathUnescape(name); err == nil {
		name = n
	}
	if p, err := url.PathUnescape(pass); err == nil {
		pass = p
	}
	user = url.User(name)
	if hasPass {
		user = url.UserPassword(name, pass)
	}
	return user, hostport[i+1:], strings.Replace(s, hostport[:i+1], "", 1)
}

// splitHostPort splits "host:port"; a missing port is defaultPort, and a
// missing host 127.0.0.1. A bare IPv6 address may be bracketed or not.
func splitHostPort(hostport, defaultPort string) (host, port string) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = "127.0.0.1", defaultPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return host, port
}

// Endpoint is the server address the client talks to.
func (c *Client) Endpoint() string { return c.endpoint }

// chatRequest is the wire request for req.
func (c *Client) chatRequest(req llm.Request) *api.ChatRequest {
	f := false
	msgs := make([]api.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = api.Message{Role: m.Role, Content: m.Content}
	}
	opts := map[string]any{
		"temperature": req.Temperature,
		"seed":        req.Seed,
	}
	if req.TopP > 0 {
		opts["top_p"] = req.TopP
	}
	if req.MaxTokens > 0 {
		opts["num_predict"] = req.MaxTokens
	}
	if c.numCtx > 0 {
		opts["num_ctx"] = c.numCtx
	}
	cr := &api.ChatRequest{
		Model:    req.Model,
		Messages: msgs,
		Stream:   &f,
		Options:  opts,
		Truncate: &f,
		Shift:    &f,
	}
	if req.Schema != nil {
		cr.Format = json.RawMessage(`"json"`)
		if len(bytes.TrimSpace(req.Schema.Schema)) > 0 {
			cr.Format = req.Schema.Schema
		}
	}
	if c.keepAlive != 0 {
		cr.KeepAlive = &api.Duration{Duration: c.keepAlive}
	}
	return cr
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
	if req.Schema != nil && len(bytes.TrimSpace(req.Schema.Schema)) > 0 && !json.Valid(req.Schema.Schema) {
		return llm.Response{}, &llm.Error{Class: llm.ClassBadRequest, Provider: Provider, Model: req.Model,
			Endpoint: c.endpoint, Unsent: true, Err: fmt.Errorf("schema %q is not valid JSON", req.Schema.Name)}
	}
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	body, err := json.Marshal(c.chatRequest(req))
	if err != nil {
		return llm.Response{}, &llm.Error{Class: llm.ClassBadRequest, Provider: Provider, Model: req.Model, Endpoint: c.endpoint, Unsent: true, Err: err}
	}
	w := llm.NewWire()
	hreq, err := http.NewRequestWithContext(w.Trace(ctx), http.MethodPost, c.chatURL, bytes.NewReader(body))
	if err != nil {
		e := c.classify(ctx, err, exchange{}, req.Model)
		e.Unsent = true
		return llm.Response{}, e
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(hreq)
	if err != nil {
		e := c.classify(ctx, err, exchange{}, req.Model)
		sent := w.Sent()
		e.Unsent = !sent
		return llm.Response{Attempts: b2i(sent)}, e
	}
	// Read one byte past the cap to tell a body of exactly the cap from a
	// larger one; never more.
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	resp.Body.Close()
	ex := exchange{status: resp.StatusCode, header: resp.Header, bodyErr: rerr}
	if rerr != nil {
		return llm.Response{Attempts: 1}, c.classify(ctx, rerr, ex, req.Model)
	}
	if int64(len(data)) > c.maxBody {
		if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
			return llm.Response{Attempts: 1}, &llm.Error{Class: llm.ClassOversize, Provider: Provider, Model: req.Model,
				Endpoint: c.endpoint, Status: resp.StatusCode, Err: llm.OversizeError(c.maxBody)}
		}
		data = data[:c.maxBody] // an error body: its status says enough
	}
	out, err := decodeChat(resp.StatusCode, data)
	if err != nil {
		return llm.Response{Attempts: 1}, c.classify(ctx, err, ex, req.Model)
	}
	out.Latency = time.Since(start)
	return out, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// malformedError is a 2xx chat response that is not a finished answer.
type malformedError struct{ err error }

func (e *malformedError) Error() string { return "undecodable response body: " + e.err.Error() }
func (e *malformedError) Unwrap() error { return e.err }

// reportedError is an error the server put in a 2xx body.
type reportedError struct{ msg string }

func (e *reportedError) Error() string { return "server reported: " + e.msg }

// decodeChat turns a non-streamed /api/chat answer into a Response.
func decodeChat(status int, body []byte) (llm.Response, error) {
	if status < 200 || status > 299 {
		return llm.Response{}, statusError(status, body)
	}
	var r struct {
		api.ChatResponse
		Error string `json:"error"`
		// Message shadows the embedded field so that a missing (or null)
		// message can be told from an empty one.
		Message *api.Message `json:"message"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return llm.Response{}, &malformedError{err}
	}
	if r.Error != "" {
		return llm.Response{}, &reportedError{r.Error}
	}
	if !r.Done {
		return llm.Response{}, &malformedError{errors.New(`response is not final ("done" is not true)`)}
	}
	if r.Message == nil {
		return llm.Response{}, &malformedError{errors.New(`final response has no "message"`)}
	}
	// Ollama leaves out a zero count, so an absent prompt_eval_count or
	// eval_count (a cached prompt, an old server) is indistinguishable from
	// 0: either means the usage is unknown.
	u := llm.Usage{PromptTokens: r.PromptEvalCount, CompletionTokens: r.EvalCount}
	if u.PromptTokens <= 0 || u.CompletionTokens <= 0 {
		u = llm.Usage{Missing: true}
	}
	return llm.Response{Text: r.Message.Content, FinishReason: r.DoneReason, ServedModel: r.Model, Usage: u, Attempts: 1}, nil
}

// statusError is the api.StatusError of an error response, as api.Client
// builds it: the body's "error" field, or the body itself.
func statusError(status int, body []byte) api.StatusError {
	se := api.StatusError{StatusCode: status, Status: strings.TrimSpace(fmt.Sprintf("%d %s", status, http.StatusText(status)))}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		se.ErrorMessage = e.Error
	} else {
		msg := strings.TrimSpace(string(body))
		if len(msg) > 512 {
			msg = msg[:512] + "…"
		}
		se.ErrorMessage = msg
	}
	return se
}

// Models lists the names of the models the server has (GET /api/tags).
func (c *Client) Models(ctx context.Context) ([]string, error) {
	list, err := c.list(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		names = append(names, m.Name)
	}
	return names, nil
}

func (c *Client) list(ctx context.Context) (*api.ListResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, c.redact.Error(c.classify(ctx, err, exchange{}, ""))
	}
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	list, err := c.api.List(ctx)
	if err != nil {
		return nil, c.redact.Error(c.classify(ctx, err, exchange{}, ""))
	}
	return list, nil
}

// Digest is the digest of model as the server lists it (GET /api/tags); a
// name without a tag also matches "name:latest". A model the server does
// not have is a model_not_found error.
func (c *Client) Digest(ctx context.Context, model string) (string, error) {
	list, err := c.list(ctx)
	if err != nil {
		err.(*llm.Error).Model = model
		return "", err
	}
	want := []string{model}
	if !strings.Contains(model, ":") {
		want = append(want, model+":latest")
	}
	for _, w := range want {
		for _, m := range list.Models {
			if m.Name == w || m.Model == w {
				return m.Digest, nil
			}
		}
	}
	return "", &llm.Error{Class: llm.ClassNotFound, Provider: Provider, Model: model, Endpoint: c.endpoint,
		Err: fmt.Errorf("model %q is not among the server's %d models", model, len(list.Models))}
}

// Version is the server's version (GET /api/version).
func (c *Client) Version(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", c.redact.Error(c.classify(ctx, err, exchange{}, ""))
	}
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	v, err := c.api.Version(ctx)
	if err != nil {
		return "", c.redact.Error(c.classify(ctx, err, exchange{}, ""))
	}
	return v, nil
}

// classify turns a failed call into an *llm.Error. Callers other than
// Chat (which redacts everything it returns) must redact the result.
func (c *Client) classify(ctx context.Context, err error, ex exchange, model string) *llm.Error {
	e := mapError(err, ctx.Err(), ex, time.Now())
	e.Provider, e.Model, e.Endpoint = Provider, model, c.endpoint
	return e
}
