package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// DefaultModel is the model a fake server serves when ServerOptions.Models is empty.
const DefaultModel = "llmtest-model"

// DefaultVersion is the version the fake Ollama server reports by default.
const DefaultVersion = "0.0.0-llmtest"

// Flavor is the API a fake server speaks.
type Flavor int

// Flavours of fake server.
const (
	FlavorOpenAI Flavor = iota + 1 // OpenAI-compatible chat completions (vLLM, llama.cpp, …)
	FlavorOllama                   // Ollama's native /api
)

// String is the flavour's name: "openai" or "ollama".
func (f Flavor) String() string {
	switch f {
	case FlavorOpenAI:
		return "openai"
	case FlavorOllama:
		return "ollama"
	}
	return fmt.Sprintf("Flavor(%d)", int(f))
}

// ServerOptions configures a fake server. The zero value serves DefaultModel
// to anyone, with no context limit.
type ServerOptions struct {
	// Models are the served model names; requests for any other model get
	// 404 with the flavour's "model not found" wording. Empty means
	// {DefaultModel}. The Ollama flavour also accepts "name" for "name:latest".
	Models []string
	// APIKey, when set, is required as "Authorization: Bearer <APIKey>" on
	// every request; otherwise the answer is 401. The OpenAI flavour echoes the
	// presented key in its 401 message (a careless server), so tests can
	// check that clients keep keys out of their errors.
	APIKey string
	// ContextLength, when > 0, is the context in tokens (see PromptTokens). A
	// longer prompt gets 400: OpenAI flavour "This model's maximum context
	// length is N tokens. …"; Ollama flavour "the input length exceeds the
	// context length" — but only when the request says truncate:false;
	// otherwise the Ollama flavour drops the oldest non-system messages, as
	// Ollama does. For the Ollama flavour it is the default num_ctx: a
	// request's options.num_ctx replaces it.
	ContextLength int
	// RejectJSONSchema makes the OpenAI flavour answer a json_schema
	// response_format with 400 (as servers without schema support do);
	// json_object is still accepted.
	RejectJSONSchema bool
	// OmitUsage leaves the token counts out of the answers.
	OmitUsage bool
	// Respond computes the answer text; nil means DefaultRespond.
	Respond func(Call) string
	// Version is reported by the Ollama flavour's /api/version; empty means DefaultVersion.
	Version string
	// FaultSeed salts the FailFraction draws.
	FaultSeed uint64
	// ChatFaultsOnly confines FailNext and FailFraction faults to chat
	// requests; other endpoints (models, tags, version) always answer.
	ChatFaultsOnly bool
	// KeepBodies keeps each request's body in Served (off: a long run's
	// bodies are not held for the server's lifetime).
	KeepBodies bool
	// CacheRule, other than CacheNone, makes the OpenAI flavour cache
	// prompt prefixes under that rule (see PrefixCache) and report the
	// cached tokens of every answer in the form CacheField says. The
	// Ollama flavour reports none, as Ollama does.
	CacheRule  CacheRule
	CacheField CacheField
}

// Recorded is one request as the fake server received it.
type Recorded struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// JSON decodes the body as a JSON object.
func (r Recorded) JSON() (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		return nil, fmt.Errorf("request body %q: %w", r.Body, err)
	}
	return m, nil
}

// Server is a fake model server; see the package documentation. Its
// methods are safe for concurrent use.
type Server struct {
	*httptest.Server
	flavor  Flavor
	opts    ServerOptions
	models  []string
	closing chan struct{}

	requests atomic.Int64
	chats    atomic.Int64
	injected atomic.Int64

	bs    batchStore   // files and batches (OpenAI flavour; batch.go)
	cache *PrefixCache // prompt prefixes (ServerOptions.CacheRule); nil without

	mu       sync.Mutex
	served   []Served
	next     []pendingFault
	frac     float64
	fracF    []Fault
	sticky   bool
	seen     map[[32]byte]uint64
	last     Recorded
	lastChat Recorded
}

// NewOpenAIServer starts a fake OpenAI-compatible server; its API root is
// s.BaseURL() (the server URL + "/v1"). It is closed when the test ends.
func NewOpenAIServer(t testing.TB, opts ServerOptions) *Server {
	return newServer(t, FlavorOpenAI, opts)
}

// NewOllamaServer starts a fake Ollama server; its API root is s.BaseURL()
// (the server URL). It is closed when the test ends.
func NewOllamaServer(t testing.TB, opts ServerOptions) *Server {
	return newServer(t, FlavorOllama, opts)
}

// newServer starts a fake server of flavour f, closed at the end of the test.
func newServer(t testing.TB, f Flavor, opts ServerOptions) *Server {
	t.Helper()
	s := &Server{flavor: f, opts: opts, closing: make(chan struct{}), seen: map[[32]byte]uint64{}}
	s.models = append([]string(nil), opts.Models...)
	if len(s.models) == 0 {
		s.models = []string{DefaultModel}
	}
	if s.opts.Respond == nil {
		s.opts.Respond = DefaultRespond
	}
	if s.opts.Version == "" {
		s.opts.Version = DefaultVersion
	}
	if opts.CacheRule != CacheNone {
		s.cache = NewPrefixCache(opts.CacheRule)
	}
	s.Server = httptest.NewServer(s)
	t.Cleanup(func() {
		close(s.closing)
		s.Server.Close()
	})
	return s
}

// Flavor is the API the server speaks.
func (s *Server) Flavor() Flavor { return s.flavor }

// BaseURL is the API root to configure a client with: URL + "/v1" for the
// OpenAI flavour, URL for Ollama.
func (s *Server) BaseURL() string {
	if s.flavor == FlavorOpenAI {
		return s.URL + "/v1"
	}
	return s.URL
}

// Models are the served model names.
func (s *Server) Models() []string { return append([]string(nil), s.models...) }

// Requests is the number of HTTP requests received (every path, faults included).
func (s *Server) Requests() int64 { return s.requests.Load() }

// ChatRequests is the number of chat requests received (faults included).
func (s *Server) ChatRequests() int64 { return s.chats.Load() }

// PrefixCache is the server's prompt cache, nil without
// ServerOptions.CacheRule: its Hits and Totals are what the server reported
// as cached.
func (s *Server) PrefixCache() *PrefixCache { return s.cache }

// Injected is the number of faults injected so far.
func (s *Server) Injected() int64 { return s.injected.Load() }

// Served lists every request handled so far, in arrival order, with the
// fault injected into each.
func (s *Server) Served() []Served {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Served(nil), s.served...)
}

// InjectedBy counts the faults injected into chat requests by Fault.String
// ("status_503", "reset", "oversize", …).
func (s *Server) InjectedBy() map[string]int {
	out := map[string]int{}
	for _, r := range s.Served() {
		if r.Chat && r.Fault.Kind != 0 {
			out[r.Fault.String()]++
		}
	}
	return out
}

// AwaitChatRequests waits until the server has received n chat requests or
// timeout has passed, and returns the count. A request written just before
// its client gave up reaches the handler a moment after the client has
// returned; tests comparing counts wait for it with this.
func (s *Server) AwaitChatRequests(n int64, timeout time.Duration) int64 {
	deadline := time.Now().Add(timeout)
	for s.chats.Load() != n && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	return s.chats.Load()
}

// Last is the last request received (any path).
func (s *Server) Last() Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// LastChat is the last chat request received.
func (s *Server) LastChat() Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastChat
}

// chatPath is the flavour's chat endpoint.
func (s *Server) chatPath() string {
	if s.flavor == FlavorOpenAI {
		return "/v1/chat/completions"
	}
	return "/api/chat"
}

// ServeHTTP implements http.Handler: it records the request, and serves
// the fault drawn for it, if any, or else the answer.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	f, fault := s.receive(r, body)
	if fault {
		s.injected.Add(1)
		if s.inject(w, r, body, f) {
			return
		}
	}
	s.write(w, s.handle(r, body))
}

// receive records a request (Last, LastChat, Served, the chat count) and
// draws its fault; it reports whether there is one.
func (s *Server) receive(r *http.Request, body []byte) (Fault, bool) {
	rec := Recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	isChat := r.URL.Path == s.chatPath()
	if isChat {
		s.chats.Add(1)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = rec
	if isChat {
		s.lastChat = rec
	}
	var f Fault
	var fault bool
	if isChat || !s.opts.ChatFaultsOnly {
		f, fault = s.pickFault(r.URL.Path, body)
	}
	served := Served{Path: r.URL.Path, Chat: isChat}
	if s.opts.KeepBodies {
		served.Body = body
	}
	if fault {
		served.Fault = f
	}
	s.served = append(s.served, served)
	return f, fault
}

// write sends a handled result.
func (s *Server) write(w http.ResponseWriter, res result) {
	for k, v := range res.header {
		w.Header()[k] = v
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(res.status)
	w.Write(res.body)
}

// result is an answer: status, headers (Content-Type defaults to JSON) and
// body.
type result struct {
	status int
	header http.Header
	body   []byte
}

// jsonResult is an answer of status code with v as JSON.
func (s *Server) jsonResult(code int, v any) result {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return result{status: code, body: b}
}

// errorBody is the flavour's error JSON; kind is an OpenAI error code ("" for none).
func (s *Server) errorBody(code int, msg, kind string) []byte {
	if s.flavor == FlavorOllama {
		b, _ := json.Marshal(map[string]string{"error": msg})
		return b
	}
	typ := "invalid_request_error"
	if code >= 500 {
		typ = "server_error"
	}
	e := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	if kind != "" {
		e["code"] = kind
	}
	if kind == "response_format" {
		e["param"] = "response_format"
		e["code"] = nil
	}
	b, _ := json.Marshal(map[string]any{"error": e})
	return b
}

// fail is an error answer: status code and the flavour's error body.
func (s *Server) fail(code int, msg, kind string) result {
	return result{status: code, body: s.errorBody(code, msg, kind)}
}

// refusal is a request the server turns down: the status, message and
// OpenAI error code ("" for none) of its error answer.
type refusal struct {
	status    int
	msg, code string
}

// badRequest is a 400 refusal.
func badRequest(msg, code string) *refusal {
	return &refusal{status: http.StatusBadRequest, msg: msg, code: code}
}

// refuse is the error answer of a refusal.
func (s *Server) refuse(no *refusal) result { return s.fail(no.status, no.msg, no.code) }

// authorized checks the bearer key (ServerOptions.APIKey); when it is
// missing or wrong it returns the flavour's 401.
func (s *Server) authorized(r *http.Request) (result, bool) {
	if s.opts.APIKey == "" {
		return result{}, true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if ok && got == s.opts.APIKey {
		return result{}, true
	}
	msg := "unauthorized"
	if s.flavor == FlavorOpenAI {
		msg = "You didn't provide an API key."
		if ok {
			msg = fmt.Sprintf("Incorrect API key provided: %s.", got)
		}
	}
	return s.fail(http.StatusUnauthorized, msg, "invalid_api_key"), false
}

// model resolves a requested model name, "" when it is not served.
func (s *Server) model(name string) string {
	for _, m := range s.models {
		if m == name {
			return m
		}
	}
	if s.flavor == FlavorOllama && name != "" && !strings.Contains(name, ":") {
		for _, m := range s.models {
			if m == name+":latest" {
				return m
			}
		}
	}
	return ""
}

// handle answers a request normally.
func (s *Server) handle(r *http.Request, body []byte) result { return s.handleWith(r, body, 0, "") }

// handleWith answers a request; variant FaultNoUsage leaves out the token
// counts and FaultEmptyChoices the answer; suffix is appended to the
// answer's text.
func (s *Server) handleWith(r *http.Request, body []byte, variant FaultKind, suffix string) result {
	if res, ok := s.authorized(r); !ok {
		return res
	}
	route := r.Method + " " + r.URL.Path
	if s.flavor == FlavorOpenAI {
		if res, ok := s.batchRoute(r, body); ok {
			return res
		}
		switch route {
		case "POST /v1/chat/completions":
			return s.openaiChat(body, variant, suffix)
		case "GET /v1/models":
			return s.openaiModels()
		}
	} else {
		switch route {
		case "POST /api/chat":
			return s.ollamaChat(body, variant, suffix)
		case "GET /api/tags":
			return s.ollamaTags()
		case "POST /api/show":
			return s.ollamaShow(body)
		case "GET /api/version":
			return s.jsonResult(http.StatusOK, map[string]string{"version": s.opts.Version})
		}
	}
	return result{status: http.StatusNotFound, header: http.Header{"Content-Type": {"text/plain"}}, body: []byte("404 page not found")}
}
