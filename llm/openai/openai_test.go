package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/llmtest"
)

const testKey = "sk-llmtest-4f1c9e2b7a"

func newClient(t testing.TB, s *llmtest.Server, mod func(*Config)) *Client {
	t.Helper()
	cfg := Config{BaseURL: s.BaseURL(), APIKey: testKey}
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func simpleRequest(model string) llm.Request {
	return llm.Request{
		Model: model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are a medical expert."},
			{Role: llm.RoleUser, Content: "Which option is correct? A) one B) two"},
		},
		Seed: 7,
	}
}

// Credentials of the hostile-server checks: a key and a password in the
// base URL's userinfo.
const (
	testUser     = "proxyuser"
	testPassword = "pw-llmtest-7d2e9a"
	testMaxBody  = 1 << 20
)

// testSecrets are every form of the test credentials that must never come
// back: the key, its header, the password, user:password and its Basic form.
var testSecrets = []string{testKey, "Bearer " + testKey, testPassword, testUser + ":" + testPassword,
	base64.StdEncoding.EncodeToString([]byte(testUser + ":" + testPassword))}

// withUserinfo puts the test user and password in a base URL.
func withUserinfo(base string) string {
	return strings.Replace(base, "http://", "http://"+testUser+":"+testPassword+"@", 1)
}

func TestConformance(t *testing.T) {
	for _, auth := range []string{"bearer", "basic"} {
		t.Run(auth, func(t *testing.T) {
			key := testKey
			if auth == "basic" {
				key = "" // the userinfo goes out as Basic auth
			}
			llmtest.Run(t, func(t *testing.T) llm.Client {
				return newClient(t, llmtest.NewOpenAIServer(t, llmtest.ServerOptions{APIKey: key}), func(c *Config) { c.APIKey = key })
			}, llmtest.Options{
				Model:        llmtest.DefaultModel,
				SupportsSeed: true,
				Stall: func(t *testing.T) llm.Client {
					s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{APIKey: key})
					s.FailFractionSticky(1, llmtest.Hang())
					return newClient(t, s, func(c *Config) { c.APIKey = key })
				},
				Hostile: func(t *testing.T, f llmtest.Fault) llm.Client {
					s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{})
					s.FailNext(1, f)
					return newClient(t, s, func(c *Config) {
						c.BaseURL, c.APIKey, c.MaxResponseBytes = withUserinfo(s.BaseURL()), key, testMaxBody
					})
				},
				MaxResponseBytes: testMaxBody,
				Secrets:          testSecrets,
			})
		})
	}
}

func bodyOf(t *testing.T, s *llmtest.Server) map[string]any {
	t.Helper()
	m, err := s.LastChat().JSON()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWireFormat(t *testing.T) {
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{})
	c := newClient(t, s, nil)

	// Temperature 0: present in the body, positive, at most 1e-6.
	req := simpleRequest(llmtest.DefaultModel)
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if raw := string(s.LastChat().Body); !strings.Contains(raw, `"temperature":1e-7`) {
		t.Errorf("body %s lacks \"temperature\":1e-7", raw)
	}
	b := bodyOf(t, s)
	temp, ok := b["temperature"].(float64)
	if !ok {
		t.Fatalf("temperature missing from body %s", s.LastChat().Body)
	}
	if temp <= 0 || temp > 1e-6 {
		t.Errorf("temperature for 0 sent as %g, want in (0, 1e-6]", temp)
	}
	if seed, ok := b["seed"].(float64); !ok || seed != 7 {
		t.Errorf("seed = %v, want 7", b["seed"])
	}
	for _, k := range []string{"top_p", "max_tokens", "max_completion_tokens", "response_format", "stream_options"} {
		if _, ok := b[k]; ok {
			t.Errorf("%s sent although unset: %s", k, s.LastChat().Body)
		}
	}
	if got := s.LastChat().Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}

	// Seed 0 is a seed like any other.
	req.Seed = 0
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if seed, ok := bodyOf(t, s)["seed"].(float64); !ok || seed != 0 {
		t.Errorf("seed 0 not sent: %s", s.LastChat().Body)
	}

	// Set parameters and a schema.
	req = simpleRequest(llmtest.DefaultModel)
	req.Temperature, req.TopP, req.MaxTokens = 0.7, 0.9, 300
	req.Schema = llmtest.DefaultSchema
	resp, err := c.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid([]byte(resp.Text)) {
		t.Errorf("schema answer %q is not JSON", resp.Text)
	}
	b = bodyOf(t, s)
	if v, _ := b["temperature"].(float64); v < 0.69999 || v > 0.70001 {
		t.Errorf("temperature = %v, want 0.7", b["temperature"])
	}
	if v, _ := b["top_p"].(float64); v < 0.89999 || v > 0.90001 {
		t.Errorf("top_p = %v, want 0.9", b["top_p"])
	}
	if v, _ := b["max_tokens"].(float64); v != 300 {
		t.Errorf("max_tokens = %v, want 300", b["max_tokens"])
	}
	rf, _ := b["response_format"].(map[string]any)
	js, _ := rf["json_schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] != "answer" || js["strict"] != true {
		t.Errorf("response_format = %v", b["response_format"])
	}
	var want, got any
	json.Unmarshal(llmtest.DefaultSchema.Schema, &want)
	got = js["schema"]
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Errorf("schema sent %v, want %v", got, want)
	}
	if c.JSONMode(llmtest.DefaultModel) != ModeJSONSchema {
		t.Errorf("JSONMode = %q", c.JSONMode(llmtest.DefaultModel))
	}
}

func TestUsage(t *testing.T) {
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{})
	c := newClient(t, s, nil)
	req := simpleRequest(llmtest.DefaultModel)
	resp, err := c.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{PromptTokens: llmtest.PromptTokens(req.Messages), CompletionTokens: llmtest.Tokens(resp.Text)}
	if resp.Usage != want {
		t.Errorf("Usage = %+v, want %+v", resp.Usage, want)
	}
	if resp.Attempts != 1 || resp.Latency <= 0 {
		t.Errorf("Attempts = %d, Latency = %v", resp.Attempts, resp.Latency)
	}

	// A server that omits usage (or reports it as null, or counts nothing):
	// Missing, no counts, and no error.
	for _, body := range []string{"", `"usage":null,`, `"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0},`} {
		s = llmtest.NewOpenAIServer(t, llmtest.ServerOptions{OmitUsage: true})
		if body != "" {
			s.FailNext(1, llmtest.MalformedBody(`{"id":"x","object":"chat.completion",`+body+
				`"choices":[{"index":0,"message":{"role":"assistant","content":"A"},"finish_reason":"stop"}]}`))
		}
		resp, err = newClient(t, s, nil).Chat(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Usage != (llm.Usage{Missing: true}) || resp.Text == "" {
			t.Errorf("without usage (%q): %+v", body, resp)
		}
	}
}

func TestJSONSchemaFallback(t *testing.T) {
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{RejectJSONSchema: true, Models: []string{"m1", "m2"}})
	c := newClient(t, s, nil)
	req := simpleRequest("m1")
	req.Schema = llmtest.DefaultSchema

	resp, err := c.Chat(context.Background(), req)
	if err != nil {
		t.Fatalf("first call: %v", err)
	}
	if !json.Valid([]byte(resp.Text)) {
		t.Errorf("answer %q is not JSON", resp.Text)
	}
	if n := s.ChatRequests(); n != 2 {
		t.Errorf("first call made %d requests, want 2 (json_schema, then json_object)", n)
	}
	if rf := bodyOf(t, s)["response_format"].(map[string]any); rf["type"] != "json_object" {
		t.Errorf("fallback response_format = %v", rf)
	}
	if m := c.JSONMode("m1"); m != ModeJSONObject {
		t.Errorf("JSONMode(m1) = %q, want %q", m, ModeJSONObject)
	}
	// Both requests reached the server: two attempts, the first refused.
	if resp.Attempts != 2 || len(resp.AttemptErrors) != 1 || resp.AttemptErrors[0] != llm.ClassBadRequest {
		t.Errorf("Attempts = %d, AttemptErrors = %v; want 2, [bad_request]", resp.Attempts, resp.AttemptErrors)
	}

	// Remembered: the second call goes straight to json_object.
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if n := s.ChatRequests(); n != 3 {
		t.Errorf("after the second call: %d requests, want 3", n)
	}
	// Per model: m2 starts from json_schema again.
	if m := c.JSONMode("m2"); m != ModeJSONSchema {
		t.Errorf("JSONMode(m2) = %q", m)
	}
	// A call without a schema sends no response_format whatever the mode.
	if _, err := c.Chat(context.Background(), simpleRequest("m1")); err != nil {
		t.Fatal(err)
	}
	if _, ok := bodyOf(t, s)["response_format"]; ok {
		t.Errorf("response_format sent without a schema")
	}

	// Concurrent first calls on a fresh client all succeed and agree.
	c2 := newClient(t, s, nil)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := req
			r.Seed = int64(i)
			if _, err := c2.Chat(context.Background(), r); err != nil {
				t.Errorf("concurrent: %v", err)
			}
		}()
	}
	wg.Wait()
	if m := c2.JSONMode("m1"); m != ModeJSONObject {
		t.Errorf("after concurrent calls JSONMode = %q", m)
	}
}

func TestFallbackToNone(t *testing.T) {
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{})
	reject := llmtest.Fault{Kind: llmtest.FaultStatus, Status: 400,
		Body: `{"error":{"message":"'response_format' is not supported","type":"invalid_request_error","param":"response_format"}}`}
	s.FailNext(2, reject)
	c := newClient(t, s, nil)
	req := simpleRequest(llmtest.DefaultModel)
	req.Schema = llmtest.DefaultSchema
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if n := s.ChatRequests(); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	if m := c.JSONMode(req.Model); m != ModeNone {
		t.Errorf("JSONMode = %q, want %q", m, ModeNone)
	}
	if _, ok := bodyOf(t, s)["response_format"]; ok {
		t.Errorf("response_format sent in mode none")
	}
}

func TestNoFallbackOnOtherErrors(t *testing.T) {
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{ContextLength: 5})
	c := newClient(t, s, nil)
	req := simpleRequest(llmtest.DefaultModel)
	req.Schema = llmtest.DefaultSchema
	_, err := c.Chat(context.Background(), req)
	if llm.ClassOf(err) != llm.ClassContextLength {
		t.Fatalf("class %q (%v), want context_length", llm.ClassOf(err), err)
	}
	if s.ChatRequests() != 1 || c.JSONMode(req.Model) != ModeJSONSchema {
		t.Errorf("a context-length 400 triggered the fallback: %d requests, mode %q", s.ChatRequests(), c.JSONMode(req.Model))
	}
}

// TestErrorClasses drives every fault through a real HTTP exchange.
func TestErrorClasses(t *testing.T) {
	date := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	cases := []struct {
		name      string
		opts      llmtest.ServerOptions
		fault     *llmtest.Fault
		model     string
		key       string
		timeout   time.Duration
		class     llm.ErrorClass
		status    int
		retryMin  time.Duration
		retryMax  time.Duration
		retryable bool
		fatal     bool
	}{
		{name: "429 seconds", fault: ptr(llmtest.RateLimited("3")), class: llm.ClassRateLimited, status: 429, retryMin: 3 * time.Second, retryMax: 3 * time.Second, retryable: true},
		{name: "429 date", fault: ptr(llmtest.RateLimited(date)), class: llm.ClassRateLimited, status: 429, retryMin: 25 * time.Second, retryMax: 31 * time.Second, retryable: true},
		{name: "429 bare", fault: ptr(llmtest.RateLimited("")), class: llm.ClassRateLimited, status: 429, retryable: true},
		{name: "500", fault: ptr(llmtest.Status(500)), class: llm.ClassServer, status: 500, retryable: true},
		{name: "502 html", fault: &llmtest.Fault{Kind: llmtest.FaultStatus, Status: 502, Body: "<html>Bad Gateway</html>"}, class: llm.ClassServer, status: 502, retryable: true},
		{name: "503 retry-after", fault: &llmtest.Fault{Kind: llmtest.FaultStatus, Status: 503, RetryAfter: "2"}, class: llm.ClassServer, status: 503, retryMin: 2 * time.Second, retryMax: 2 * time.Second, retryable: true},
		{name: "408", fault: ptr(llmtest.Status(408)), class: llm.ClassTimeout, status: 408, retryable: true},
		{name: "401 wrong key", opts: llmtest.ServerOptions{APIKey: "the-right-key"}, class: llm.ClassAuth, status: 401, fatal: true},
		{name: "401 no key", opts: llmtest.ServerOptions{APIKey: "the-right-key"}, key: "-", class: llm.ClassAuth, status: 401, fatal: true},
		{name: "403", fault: ptr(llmtest.Status(403)), class: llm.ClassAuth, status: 403, fatal: true},
		{name: "404 model", model: "no-such-model", class: llm.ClassNotFound, status: 404, fatal: true},
		{name: "400", fault: ptr(llmtest.Status(400)), class: llm.ClassBadRequest, status: 400},
		{name: "422", fault: ptr(llmtest.Status(422)), class: llm.ClassBadRequest, status: 422},
		{name: "400 context", opts: llmtest.ServerOptions{ContextLength: 8}, class: llm.ClassContextLength, status: 400},
		{name: "400 llama.cpp context", fault: &llmtest.Fault{Kind: llmtest.FaultStatus, Status: 400,
			Body: `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`},
			class: llm.ClassContextLength, status: 400},
		{name: "413", fault: ptr(llmtest.Status(413)), class: llm.ClassContextLength, status: 413},
		{name: "malformed html", fault: ptr(llmtest.Malformed()), class: llm.ClassMalformed, status: 200, retryable: true},
		{name: "malformed shape", fault: ptr(llmtest.MalformedBody(`{"choices":"none"}`)), class: llm.ClassMalformed, status: 200, retryable: true},
		{name: "malformed short json", fault: ptr(llmtest.MalformedBody(`{"choices":[`)), class: llm.ClassMalformed, status: 200, retryable: true},
		{name: "malformed blank", fault: ptr(llmtest.MalformedBody(" ")), class: llm.ClassMalformed, status: 200, retryable: true},
		{name: "no choices", fault: ptr(llmtest.MalformedBody(`{"id":"x","choices":[]}`)), class: llm.ClassMalformed, status: 200, retryable: true},
		{name: "truncated", fault: ptr(llmtest.Truncated()), class: llm.ClassNetwork, retryable: true},
		{name: "reset", fault: ptr(llmtest.Reset()), class: llm.ClassNetwork, retryable: true},
		{name: "hang", fault: ptr(llmtest.Hang()), timeout: 100 * time.Millisecond, class: llm.ClassTimeout, retryable: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := llmtest.NewOpenAIServer(t, tc.opts)
			if tc.fault != nil {
				s.FailNext(1, *tc.fault)
			}
			c := newClient(t, s, func(cfg *Config) {
				cfg.Timeout = tc.timeout
				switch tc.key {
				case "":
				case "-":
					cfg.APIKey = ""
				default:
					cfg.APIKey = tc.key
				}
			})
			model := tc.model
			if model == "" {
				model = llmtest.DefaultModel
			}
			start := time.Now()
			_, err := c.Chat(context.Background(), simpleRequest(model))
			e := llmtest.CheckError(t, err)
			t.Logf("%v", err)
			if e.Class != tc.class {
				t.Fatalf("class %q, want %q: %v", e.Class, tc.class, err)
			}
			if e.Status != tc.status {
				t.Errorf("status %d, want %d: %v", e.Status, tc.status, err)
			}
			if e.Retry < tc.retryMin || e.Retry > tc.retryMax {
				t.Errorf("Retry = %v, want in [%v, %v]", e.Retry, tc.retryMin, tc.retryMax)
			}
			if e.Class.Retryable() != tc.retryable || e.Class.Fatal() != tc.fatal {
				t.Errorf("retryable %v fatal %v, want %v %v", e.Class.Retryable(), e.Class.Fatal(), tc.retryable, tc.fatal)
			}
			if e.Provider != Provider || e.Model != model || e.Endpoint != s.BaseURL() {
				t.Errorf("error identifies %q/%q at %q", e.Provider, e.Model, e.Endpoint)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("API key in error message: %v", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := New(Config{BaseURL: "http://" + addr + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), simpleRequest("m"))
	if e := llmtest.CheckError(t, err); e.Class != llm.ClassNetwork {
		t.Errorf("refused: class %q (%v)", e.Class, err)
	}
	_, err = c.Models(context.Background())
	if llm.ClassOf(err) != llm.ClassNetwork {
		t.Errorf("Models refused: class %q (%v)", llm.ClassOf(err), err)
	}
}

func TestAPIKeyNeverInErrors(t *testing.T) {
	// The server echoes the presented key in its 401 body.
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{APIKey: "another-key"})
	c := newClient(t, s, nil)
	_, err := c.Chat(context.Background(), simpleRequest(llmtest.DefaultModel))
	if llm.ClassOf(err) != llm.ClassAuth {
		t.Fatalf("class %q: %v", llm.ClassOf(err), err)
	}
	if !strings.Contains(err.Error(), "[redacted]") || strings.Contains(err.Error(), testKey) {
		t.Errorf("key not redacted: %v", err)
	}
	if _, err := c.Models(context.Background()); err == nil || strings.Contains(err.Error(), testKey) {
		t.Errorf("Models: %v", err)
	}
	// A key in the base URL's userinfo is not shown either.
	c2, err := New(Config{BaseURL: "http://user:" + testKey + "@" + strings.TrimPrefix(s.BaseURL(), "http://"), APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c2.Chat(context.Background(), simpleRequest(llmtest.DefaultModel))
	if err == nil || strings.Contains(err.Error(), testKey) {
		t.Errorf("userinfo: %v", err)
	}
	if strings.Contains(c2.Endpoint(), testKey) {
		t.Errorf("Endpoint %q shows the key", c2.Endpoint())
	}
}

func TestModels(t *testing.T) {
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"a", "b"}, APIKey: testKey})
	got, err := newClient(t, s, nil).Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "a,b" {
		t.Errorf("Models = %v", got)
	}
	_, err = newClient(t, s, func(c *Config) { c.APIKey = "wrong" }).Models(context.Background())
	if llm.ClassOf(err) != llm.ClassAuth {
		t.Errorf("Models with a wrong key: %v", err)
	}
}

func TestNew(t *testing.T) {
	for _, u := range []string{"", "  ", "ftp://host/v1", "127.0.0.1:8000", "http://", "http://[::1", "http://h:1/v1?x=1"} {
		if _, err := New(Config{BaseURL: u}); err == nil {
			t.Errorf("New(%q) succeeded", u)
		}
	}
	if _, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", Timeout: -1}); err == nil {
		t.Errorf("negative timeout accepted")
	}
	c, err := New(Config{BaseURL: "http://127.0.0.1:8000/v1/"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Endpoint() != "http://127.0.0.1:8000/v1" {
		t.Errorf("Endpoint = %q", c.Endpoint())
	}
}

// timeoutErr is a net.Error that timed out.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestMapError(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	apiErr := func(code int, msg string) error {
		return &goopenai.APIError{HTTPStatusCode: code, Message: msg, Type: "invalid_request_error"}
	}
	hdr := func(k, v string) http.Header { h := http.Header{}; h.Set(k, v); return h }
	urlErr := func(err error) error {
		return &url.Error{Op: "Post", URL: "http://127.0.0.1:1/v1/chat/completions", Err: err}
	}
	cases := []struct {
		name   string
		err    error
		ctxErr error
		ex     exchange
		class  llm.ErrorClass
		status int
		retry  time.Duration
	}{
		{"429", apiErr(429, "slow down"), nil, exchange{status: 429, header: hdr("Retry-After", "7")}, llm.ClassRateLimited, 429, 7 * time.Second},
		{"429 date", apiErr(429, "slow down"), nil, exchange{status: 429, header: hdr("Retry-After", now.Add(90*time.Second).Format(http.TimeFormat))}, llm.ClassRateLimited, 429, 90 * time.Second},
		{"429 ms", apiErr(429, ""), nil, exchange{status: 429, header: hdr("Retry-After-Ms", "250")}, llm.ClassRateLimited, 429, 250 * time.Millisecond},
		{"429 request error", &goopenai.RequestError{HTTPStatusCode: 429, Body: []byte("busy")}, nil, exchange{}, llm.ClassRateLimited, 429, 0},
		{"500", apiErr(500, "boom"), nil, exchange{}, llm.ClassServer, 500, 0},
		{"503 retry", &goopenai.RequestError{HTTPStatusCode: 503, Body: []byte("<html>")}, nil, exchange{status: 503, header: hdr("Retry-After", "4")}, llm.ClassServer, 503, 4 * time.Second},
		{"401", apiErr(401, "bad key"), nil, exchange{}, llm.ClassAuth, 401, 0},
		{"403", apiErr(403, "forbidden"), nil, exchange{}, llm.ClassAuth, 403, 0},
		{"404", apiErr(404, "The model `x` does not exist"), nil, exchange{}, llm.ClassNotFound, 404, 0},
		{"400 plain", apiErr(400, "temperature must be <= 2"), nil, exchange{}, llm.ClassBadRequest, 400, 0},
		{"400 vllm context", apiErr(400, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens."), nil, exchange{}, llm.ClassContextLength, 400, 0},
		{"400 too long", apiErr(400, "Input is too long for requested model."), nil, exchange{}, llm.ClassContextLength, 400, 0},
		{"400 exceeds", apiErr(400, "prompt exceeds the available context size"), nil, exchange{}, llm.ClassContextLength, 400, 0},
		{"400 code", &goopenai.APIError{HTTPStatusCode: 400, Message: "too many tokens", Code: "context_length_exceeded"}, nil, exchange{}, llm.ClassContextLength, 400, 0},
		{"400 no retry", apiErr(400, "bad"), nil, exchange{header: hdr("Retry-After", "5")}, llm.ClassBadRequest, 400, 0},
		{"status from exchange", fmt.Errorf("error, reading response body: %w", io.ErrUnexpectedEOF), nil, exchange{status: 502, bodyErr: io.ErrUnexpectedEOF}, llm.ClassServer, 502, 0},
		{"canceled", urlErr(context.Canceled), context.Canceled, exchange{}, llm.ClassCanceled, 0, 0},
		{"deadline", urlErr(context.DeadlineExceeded), context.DeadlineExceeded, exchange{}, llm.ClassTimeout, 0, 0},
		{"canceled wins over status", apiErr(500, "x"), context.Canceled, exchange{}, llm.ClassCanceled, 0, 0},
		{"client timeout", urlErr(timeoutErr{}), nil, exchange{}, llm.ClassTimeout, 0, 0},
		{"refused", urlErr(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), nil, exchange{}, llm.ClassNetwork, 0, 0},
		{"reset", urlErr(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}), nil, exchange{}, llm.ClassNetwork, 0, 0},
		{"eof", urlErr(io.EOF), nil, exchange{}, llm.ClassNetwork, 0, 0},
		{"truncated body", io.ErrUnexpectedEOF, nil, exchange{status: 200, bodyErr: io.ErrUnexpectedEOF}, llm.ClassNetwork, 0, 0},
		{"reset in body", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, nil, exchange{status: 200, bodyErr: &net.OpError{Op: "read", Err: syscall.ECONNRESET}}, llm.ClassNetwork, 0, 0},
		{"short json", io.ErrUnexpectedEOF, nil, exchange{status: 200}, llm.ClassMalformed, 200, 0},
		{"syntax", &json.SyntaxError{Offset: 1}, nil, exchange{status: 200}, llm.ClassMalformed, 200, 0},
		{"syntax no exchange", &json.SyntaxError{Offset: 1}, nil, exchange{}, llm.ClassMalformed, 0, 0},
		{"no choices", errNoChoices, nil, exchange{status: 200}, llm.ClassMalformed, 200, 0},
		{"validation", goopenai.ErrReasoningModelMaxTokensDeprecated, nil, exchange{}, llm.ClassBadRequest, 0, 0},
		{"unknown", errors.New("weird"), nil, exchange{}, llm.ClassInternal, 0, 0},
		{"nil", nil, nil, exchange{}, llm.ClassInternal, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := mapError(tc.err, tc.ctxErr, tc.ex, now)
			if e.Class != tc.class || e.Status != tc.status || e.Retry != tc.retry {
				t.Errorf("got class %q status %d retry %v, want %q %d %v (%v)", e.Class, e.Status, e.Retry, tc.class, tc.status, tc.retry, e)
			}
			if e.Err == nil {
				t.Errorf("no underlying error")
			}
			if tc.ctxErr != nil && !errors.Is(e, tc.ctxErr) {
				t.Errorf("context error not in chain: %v", e)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		h    map[string]string
		want time.Duration
	}{
		{nil, 0},
		{map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{map[string]string{"Retry-After": " 1.5 "}, 1500 * time.Millisecond},
		{map[string]string{"Retry-After": "0"}, 0},
		{map[string]string{"Retry-After": "-4"}, 0},
		{map[string]string{"Retry-After": "NaN"}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": "1e30"}, llm.MaxServerWait},
		{map[string]string{"Retry-After": now.Add(10 * time.Second).Format(http.TimeFormat)}, 10 * time.Second},
		{map[string]string{"Retry-After": "Thursday, 02-Jan-25 03:05:05 UTC"}, time.Minute},
		{map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{map[string]string{"Retry-After-Ms": "x", "Retry-After": "9"}, 9 * time.Second},
	}
	for _, tc := range cases {
		h := http.Header{}
		for k, v := range tc.h {
			h.Set(k, v)
		}
		if tc.h == nil {
			h = nil
		}
		if got := llm.RetryAfter(h, now); got != tc.want {
			t.Errorf("retryAfter(%v) = %v, want %v", tc.h, got, tc.want)
		}
	}
}

func TestTimeoutConfig(t *testing.T) {
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{})
	s.FailFractionSticky(1, llmtest.Hang())
	c := newClient(t, s, func(c *Config) { c.Timeout = 50 * time.Millisecond })
	start := time.Now()
	_, err := c.Models(context.Background())
	if llm.ClassOf(err) != llm.ClassTimeout || time.Since(start) > 5*time.Second {
		t.Errorf("Models: %v after %v", err, time.Since(start))
	}
}

func FuzzMapError(f *testing.F) {
	f.Add(429, "slow down", "3", uint8(0), []byte(nil))
	f.Add(400, "maximum context length is 10", "", uint8(1), []byte(`{"error":{"message":"x"}}`))
	f.Add(503, "", "Wed, 21 Oct 2015 07:28:00 GMT", uint8(2), []byte("<html>"))
	f.Add(0, testKey, "1e400", uint8(3), []byte(testKey))
	f.Add(200, "", "-1", uint8(4), []byte(`{"choices":[`))
	f.Fuzz(func(t *testing.T, status int, msg, retry string, kind uint8, body []byte) {
		var err error
		var ex exchange
		ex.header = http.Header{}
		ex.header.Set("Retry-After", retry)
		switch kind % 6 {
		case 0:
			err = &goopenai.APIError{HTTPStatusCode: status, Message: msg + " " + testKey}
		case 1:
			err = &goopenai.RequestError{HTTPStatusCode: status, Body: body, Err: errors.New(msg)}
		case 2:
			ex.status = status
			err = &json.SyntaxError{Offset: int64(len(body))}
		case 3:
			ex.status, ex.bodyErr = status, io.ErrUnexpectedEOF
			err = io.ErrUnexpectedEOF
		case 4:
			err = &url.Error{Op: "Post", URL: msg, Err: errors.New(string(body))}
		case 5:
			err = errors.New(msg)
		}
		c := &Client{endpoint: "http://127.0.0.1:1/v1", redact: llm.NewRedactor(testKey, "")}
		raw := c.classify(context.Background(), err, ex, "m")
		if raw == nil || raw.Class == "" {
			t.Fatalf("no class for %v", err)
		}
		var e *llm.Error
		if !errors.As(c.redact.Error(raw), &e) || e.Class != raw.Class {
			t.Fatalf("redaction lost the class of %v", raw)
		}
		if e.Retry < 0 || e.Retry > llm.MaxServerWait {
			t.Fatalf("Retry = %v", e.Retry)
		}
		if strings.Contains(e.Error(), testKey) {
			t.Fatalf("key in %q", e.Error())
		}
		_ = rejectsFormat(err)
	})
}

// TestFinishReason: choices[0].finish_reason reaches the Response: "stop"
// for a whole answer, "length" for one cut at max_tokens.
func TestFinishReason(t *testing.T) {
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{})
	c := newClient(t, s, nil)
	req := simpleRequest(llmtest.DefaultModel)
	resp, err := c.Chat(context.Background(), req)
	if err != nil || resp.FinishReason != "stop" {
		t.Fatalf("whole answer: finish %q, %v", resp.FinishReason, err)
	}
	req.MaxTokens = 1
	if resp, err = c.Chat(context.Background(), req); err != nil || resp.FinishReason != "length" {
		t.Fatalf("max_tokens 1: finish %q, %v", resp.FinishReason, err)
	}

	if resp.ServedModel != llmtest.DefaultModel || resp.Refusal != "" {
		t.Fatalf("served model %q (want the server's echo %q), refusal %q", resp.ServedModel, llmtest.DefaultModel, resp.Refusal)
	}
}

// TestServedModelAndRefusal: the model name the server echoes and the
// message's refusal reach the Response, from a chat answer and from a batch
// output line alike.
func TestServedModelAndRefusal(t *testing.T) {
	body := `{"id":"x","object":"chat.completion","model":"gpt-4o-2024-08-06",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't assist with that."},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}`
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{})
	s.FailNext(1, llmtest.MalformedBody(body))
	resp, err := newClient(t, s, nil).Chat(context.Background(), simpleRequest(llmtest.DefaultModel))
	if err != nil || resp.ServedModel != "gpt-4o-2024-08-06" || resp.Refusal != "I can't assist with that." || resp.Text != "" {
		t.Fatalf("chat: %+v, %v", resp, err)
	}
	out, lerr, _ := answer(200, []byte(body))
	if lerr != nil || out.ServedModel != "gpt-4o-2024-08-06" || out.Refusal != "I can't assist with that." {
		t.Fatalf("batch line: %+v, %v", out, lerr)
	}
}
