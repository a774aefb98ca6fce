package ollama

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
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/llmtest"
)

func newClient(t testing.TB, s *llmtest.Server, mod func(*Config)) *Client {
	t.Helper()
	cfg := Config{Host: s.BaseURL()}
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

// Credentials of the hostile-server checks: a password in the host's
// userinfo (an Ollama behind an authenticating proxy).
const (
	testUser     = "proxyuser"
	testPassword = "pw-llmtest-7d2e9a"
	testMaxBody  = 1 << 20
)

var testSecrets = []string{testPassword, testUser + ":" + testPassword,
	base64.StdEncoding.EncodeToString([]byte(testUser + ":" + testPassword))}

func TestConformance(t *testing.T) {
	llmtest.Run(t, func(t *testing.T) llm.Client {
		return newClient(t, llmtest.NewOllamaServer(t, llmtest.ServerOptions{}), nil)
	}, llmtest.Options{
		Model:        llmtest.DefaultModel,
		SupportsSeed: true,
		Stall: func(t *testing.T) llm.Client {
			s := llmtest.NewOllamaServer(t, llmtest.ServerOptions{})
			s.FailFractionSticky(1, llmtest.Hang())
			return newClient(t, s, nil)
		},
		Hostile: func(t *testing.T, f llmtest.Fault) llm.Client {
			s := llmtest.NewOllamaServer(t, llmtest.ServerOptions{})
			s.FailNext(1, f)
			return newClient(t, s, func(c *Config) {
				c.Host = strings.Replace(s.BaseURL(), "http://", "http://"+testUser+":"+testPassword+"@", 1)
				c.MaxResponseBytes = testMaxBody
			})
		},
		MaxResponseBytes: testMaxBody,
		Secrets:          testSecrets,
	})
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
	s := llmtest.NewOllamaServer(t, llmtest.ServerOptions{})
	c := newClient(t, s, nil)
	if _, err := c.Chat(context.Background(), simpleRequest(llmtest.DefaultModel)); err != nil {
		t.Fatal(err)
	}
	b := bodyOf(t, s)
	raw := string(s.LastChat().Body)
	for _, k := range []string{"stream", "truncate", "shift"} {
		if v, ok := b[k]; !ok || v != false {
			t.Errorf("%s = %v (present %v), want false in %s", k, v, ok, raw)
		}
	}
	opts, _ := b["options"].(map[string]any)
	if v, ok := opts["temperature"]; !ok || v != 0.0 {
		t.Errorf("options.temperature = %v (present %v), want 0", v, ok)
	}
	if v := opts["seed"]; v != 7.0 {
		t.Errorf("options.seed = %v, want 7", v)
	}
	for _, k := range []string{"top_p", "num_predict", "num_ctx"} {
		if _, ok := opts[k]; ok {
			t.Errorf("options.%s sent although unset: %s", k, raw)
		}
	}
	for _, k := range []string{"format", "keep_alive"} {
		if _, ok := b[k]; ok {
			t.Errorf("%s sent although unset: %s", k, raw)
		}
	}
	msgs, _ := b["messages"].([]any)
	if len(msgs) != 2 || msgs[1].(map[string]any)["role"] != "user" {
		t.Errorf("messages = %v", b["messages"])
	}

	// Everything set.
	c = newClient(t, s, func(c *Config) { c.NumCtx, c.KeepAlive = 8192, 10*time.Minute })
	req := simpleRequest(llmtest.DefaultModel)
	req.Temperature, req.TopP, req.MaxTokens, req.Seed = 0.7, 0.9, 300, 0
	req.Schema = llmtest.DefaultSchema
	resp, err := c.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(resp.Text), &obj); err != nil {
		t.Errorf("structured answer %q: %v", resp.Text, err)
	}
	b = bodyOf(t, s)
	opts, _ = b["options"].(map[string]any)
	want := map[string]any{"temperature": 0.7, "top_p": 0.9, "num_predict": 300.0, "num_ctx": 8192.0, "seed": 0.0}
	for k, v := range want {
		if opts[k] != v {
			t.Errorf("options.%s = %v, want %v", k, opts[k], v)
		}
	}
	var schema any
	json.Unmarshal(llmtest.DefaultSchema.Schema, &schema)
	if fmt.Sprint(b["format"]) != fmt.Sprint(schema) {
		t.Errorf("format = %v, want the schema %v", b["format"], schema)
	}
	if b["keep_alive"] != "10m0s" {
		t.Errorf("keep_alive = %v", b["keep_alive"])
	}

	// A schema without a body asks for plain JSON mode.
	req.Schema = &llm.Schema{Name: "any"}
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if f := bodyOf(t, s)["format"]; f != "json" {
		t.Errorf("format = %v, want \"json\"", f)
	}
	// An invalid schema is the caller's bad request.
	req.Schema = &llm.Schema{Name: "bad", Schema: json.RawMessage(`{`)}
	if _, err := c.Chat(context.Background(), req); llm.ClassOf(err) != llm.ClassBadRequest {
		t.Errorf("invalid schema: %v", err)
	}
}

func TestUsage(t *testing.T) {
	s := llmtest.NewOllamaServer(t, llmtest.ServerOptions{})
	req := simpleRequest(llmtest.DefaultModel)
	resp, err := newClient(t, s, nil).Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{PromptTokens: llmtest.PromptTokens(req.Messages), CompletionTokens: llmtest.Tokens(resp.Text)}
	if resp.Usage != want {
		t.Errorf("Usage = %+v, want %+v", resp.Usage, want)
	}
	if resp.Attempts != 1 || resp.Latency <= 0 || resp.Cached {
		t.Errorf("response %+v", resp)
	}

	// Counts come from prompt_eval_count and eval_count, nothing else.
	out, err := decodeChat(200, []byte(`{"model":"m","message":{"role":"assistant","content":"hi"},"done":true,"prompt_eval_count":123,"eval_count":45}`))
	if err != nil || out.Usage != (llm.Usage{PromptTokens: 123, CompletionTokens: 45}) || out.Text != "hi" {
		t.Errorf("decodeChat = %+v, %v", out, err)
	}

	s = llmtest.NewOllamaServer(t, llmtest.ServerOptions{OmitUsage: true})
	resp, err = newClient(t, s, nil).Chat(context.Background(), req)
	if err != nil || resp.Usage != (llm.Usage{Missing: true}) {
		t.Errorf("without counts: %+v, %v", resp.Usage, err)
	}

	// Either count absent: usage missing. A missing message: malformed; an
	// empty one: an empty answer.
	tests := []struct {
		body      string
		want      llm.Usage
		malformed bool
	}{
		{`{"message":{"role":"assistant","content":"hi"},"done":true,"eval_count":45}`, llm.Usage{Missing: true}, false},
		{`{"message":{"role":"assistant","content":"hi"},"done":true,"prompt_eval_count":12}`, llm.Usage{Missing: true}, false},
		{`{"message":{"role":"assistant","content":""},"done":true,"prompt_eval_count":12,"eval_count":1}`, llm.Usage{PromptTokens: 12, CompletionTokens: 1}, false},
		{`{"done":true,"prompt_eval_count":12,"eval_count":1}`, llm.Usage{}, true},
		{`{"message":null,"done":true,"prompt_eval_count":12,"eval_count":1}`, llm.Usage{}, true},
	}
	for _, tt := range tests {
		out, err := decodeChat(200, []byte(tt.body))
		var me *malformedError
		if tt.malformed != errors.As(err, &me) || out.Usage != tt.want {
			t.Errorf("decodeChat(%s) = %+v, %v", tt.body, out.Usage, err)
		}
	}
}

func TestContextLength(t *testing.T) {
	s := llmtest.NewOllamaServer(t, llmtest.ServerOptions{ContextLength: 10})
	c := newClient(t, s, nil)
	_, err := c.Chat(context.Background(), simpleRequest(llmtest.DefaultModel))
	e := llmtest.CheckError(t, err)
	if e.Class != llm.ClassContextLength || e.Status != 400 || !strings.Contains(err.Error(), "exceeds the context length") {
		t.Errorf("got %v", err)
	}
	// num_ctx raises the context.
	c = newClient(t, s, func(c *Config) { c.NumCtx = 4096 })
	if _, err := c.Chat(context.Background(), simpleRequest(llmtest.DefaultModel)); err != nil {
		t.Errorf("with num_ctx: %v", err)
	}
}

func TestErrorClasses(t *testing.T) {
	date := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	cases := []struct {
		name      string
		opts      llmtest.ServerOptions
		fault     *llmtest.Fault
		model     string
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
		{name: "500", fault: ptr(llmtest.Status(500)), class: llm.ClassServer, status: 500, retryable: true},
		{name: "503 busy", fault: &llmtest.Fault{Kind: llmtest.FaultStatus, Status: 503, Body: `{"error":"server busy, please try again.  maximum pending requests exceeded"}`}, class: llm.ClassServer, status: 503, retryable: true},
		{name: "502 html", fault: &llmtest.Fault{Kind: llmtest.FaultStatus, Status: 502, Body: "<html>Bad Gateway</html>"}, class: llm.ClassServer, status: 502, retryable: true},
		{name: "401", opts: llmtest.ServerOptions{APIKey: "k"}, class: llm.ClassAuth, status: 401, fatal: true},
		{name: "403", fault: ptr(llmtest.Status(403)), class: llm.ClassAuth, status: 403, fatal: true},
		{name: "404 model", model: "no-such-model", class: llm.ClassNotFound, status: 404, fatal: true},
		{name: "400 not found", fault: &llmtest.Fault{Kind: llmtest.FaultStatus, Status: 400, Body: `{"error":"model \"x\" not found, try pulling it first"}`}, class: llm.ClassNotFound, status: 400, fatal: true},
		{name: "400", fault: &llmtest.Fault{Kind: llmtest.FaultStatus, Status: 400, Body: `{"error":"invalid format"}`}, class: llm.ClassBadRequest, status: 400},
		{name: "400 context", opts: llmtest.ServerOptions{ContextLength: 5}, class: llm.ClassContextLength, status: 400},
		{name: "500 context", fault: &llmtest.Fault{Kind: llmtest.FaultStatus, Status: 500, Body: `{"error":"input exceeds maximum context length and cannot be truncated further"}`}, class: llm.ClassContextLength, status: 500},
		{name: "200 error", fault: ptr(llmtest.MalformedBody(`{"error":"llama runner process has terminated"}`)), class: llm.ClassServer, status: 200, retryable: true},
		{name: "not done", fault: ptr(llmtest.MalformedBody(`{"model":"m","message":{"role":"assistant","content":"x"},"done":false}`)), class: llm.ClassMalformed, status: 200, retryable: true},
		{name: "streamed", fault: ptr(llmtest.MalformedBody("{\"done\":false}\n{\"done\":true}\n")), class: llm.ClassMalformed, status: 200, retryable: true},
		{name: "malformed", fault: ptr(llmtest.Malformed()), class: llm.ClassMalformed, status: 200, retryable: true},
		{name: "truncated", fault: ptr(llmtest.Truncated()), class: llm.ClassNetwork, retryable: true},
		{name: "reset", fault: ptr(llmtest.Reset()), class: llm.ClassNetwork, retryable: true},
		{name: "hang", fault: ptr(llmtest.Hang()), timeout: 100 * time.Millisecond, class: llm.ClassTimeout, retryable: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := llmtest.NewOllamaServer(t, tc.opts)
			if tc.fault != nil {
				s.FailNext(1, *tc.fault)
			}
			c := newClient(t, s, func(cfg *Config) { cfg.Timeout = tc.timeout })
			model := tc.model
			if model == "" {
				model = llmtest.DefaultModel
			}
			_, err := c.Chat(context.Background(), simpleRequest(model))
			e := llmtest.CheckError(t, err)
			t.Logf("%v", err)
			if e.Class != tc.class {
				t.Fatalf("class %q, want %q: %v", e.Class, tc.class, err)
			}
			if e.Status != tc.status {
				t.Errorf("status %d, want %d", e.Status, tc.status)
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
	c, err := New(Config{Host: addr})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), simpleRequest("m"))
	if e := llmtest.CheckError(t, err); e.Class != llm.ClassNetwork {
		t.Errorf("Chat: %v", err)
	}
	_, err = c.Version(context.Background())
	if e := llmtest.CheckError(t, err); e.Class != llm.ClassNetwork {
		t.Errorf("Version: %v", err)
	}
}

func TestMetadata(t *testing.T) {
	s := llmtest.NewOllamaServer(t, llmtest.ServerOptions{Models: []string{"llama3:latest", "qwen2.5:7b"}, Version: "0.17.4"})
	c := newClient(t, s, nil)
	ctx := context.Background()
	models, err := c.Models(ctx)
	if err != nil || strings.Join(models, ",") != "llama3:latest,qwen2.5:7b" {
		t.Errorf("Models = %v, %v", models, err)
	}
	for _, name := range []string{"llama3", "llama3:latest"} {
		d, err := c.Digest(ctx, name)
		if err != nil || d != llmtest.Digest("llama3:latest") {
			t.Errorf("Digest(%q) = %q, %v", name, d, err)
		}
	}
	_, err = c.Digest(ctx, "qwen2.5")
	if e := llmtest.CheckError(t, err); e.Class != llm.ClassNotFound || e.Model != "qwen2.5" {
		t.Errorf("Digest of a missing model: %v", err)
	}
	if v, err := c.Version(ctx); err != nil || v != "0.17.4" {
		t.Errorf("Version = %q, %v", v, err)
	}

	// Faults on the metadata calls are classified too.
	s.FailNext(1, llmtest.Status(503))
	if _, err := c.Models(ctx); llm.ClassOf(err) != llm.ClassServer {
		t.Errorf("Models 503: %v", err)
	}
	s.FailNext(1, llmtest.Malformed())
	if _, err := c.Version(ctx); llm.ClassOf(err) != llm.ClassMalformed {
		t.Errorf("Version malformed: %v", err)
	}
	s.FailNext(1, llmtest.Truncated())
	_, err = c.Digest(ctx, "llama3")
	if e := llmtest.CheckError(t, err); e.Class != llm.ClassNetwork || e.Model != "llama3" {
		t.Errorf("Digest truncated: %v", err)
	}
	a := llmtest.NewOllamaServer(t, llmtest.ServerOptions{APIKey: "k"})
	if _, err := newClient(t, a, nil).Models(ctx); llm.ClassOf(err) != llm.ClassAuth {
		t.Errorf("Models 401: %v", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Digest(canceled, "llama3"); llm.ClassOf(err) != llm.ClassCanceled {
		t.Errorf("Digest canceled: %v", err)
	}
}

func TestParseHost(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "http://127.0.0.1:11434"},
		{"127.0.0.1:11434", "http://127.0.0.1:11434"},
		{"0.0.0.0", "http://0.0.0.0:11434"},
		{":8080", "http://127.0.0.1:8080"},
		{"[::1]:9000", "http://[::1]:9000"},
		{"::1", "http://[::1]:11434"},
		{"gpu-box.lan", "http://gpu-box.lan:11434"},
		{"gpu-box.lan:1234", "http://gpu-box.lan:1234"},
		{"http://gpu-box.lan", "http://gpu-box.lan:80"},
		{"https://gpu-box.lan", "https://gpu-box.lan:443"},
		{"http://10.0.0.2:11434", "http://10.0.0.2:11434"},
		{"http://10.0.0.2:8000/ollama/", "http://10.0.0.2:8000/ollama"},
		{"  http://localhost:11434  ", "http://localhost:11434"},
		{"https://u:p%40ss@gpu-box.lan/ollama", "https://u:p%40ss@gpu-box.lan:443/ollama"},
		{"tok@gpu-box.lan:1234", "http://tok@gpu-box.lan:1234"},
	}
	for _, tc := range cases {
		u, err := ParseHost(tc.in)
		if err != nil || u.String() != tc.want {
			t.Errorf("ParseHost(%q) = %v, %v; want %s", tc.in, u, err, tc.want)
		}
	}
	for _, bad := range []string{"ftp://h:1", "h:99999", "h:port", "h:0", "ftp://u:s3cret-pw@h:1", "u:s3cret-pw@h:port"} {
		if u, err := ParseHost(bad); err == nil {
			t.Errorf("ParseHost(%q) = %v, want an error", bad, u)
		} else if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("ParseHost(%q): the password is in the error: %v", bad, err)
		}
	}
	c, err := New(Config{Host: "https://u:s3cret-pw@gpu-box.lan"})
	if err != nil || c.Endpoint() != "https://gpu-box.lan:443" {
		t.Errorf("Endpoint = %q, %v", c.Endpoint(), err)
	}
}

func TestHostFromEnvironment(t *testing.T) {
	s := llmtest.NewOllamaServer(t, llmtest.ServerOptions{})
	t.Setenv("OLLAMA_HOST", strings.TrimPrefix(s.URL, "http://"))
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Endpoint() != s.URL {
		t.Errorf("Endpoint = %q, want %q", c.Endpoint(), s.URL)
	}
	if _, err := c.Chat(context.Background(), simpleRequest(llmtest.DefaultModel)); err != nil {
		t.Error(err)
	}
	t.Setenv("OLLAMA_HOST", "")
	c, err = New(Config{})
	if err != nil || c.Endpoint() != DefaultHost {
		t.Errorf("default: %v, %v", c, err)
	}
	if _, err := New(Config{Host: "h:1", NumCtx: -1}); err == nil {
		t.Errorf("negative NumCtx accepted")
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestMapError(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	st := func(code int, msg string) error { return api.StatusError{StatusCode: code, ErrorMessage: msg} }
	hdr := func(k, v string) http.Header { h := http.Header{}; h.Set(k, v); return h }
	urlErr := func(err error) error { return &url.Error{Op: "Post", URL: "http://127.0.0.1:1/api/chat", Err: err} }
	cases := []struct {
		name   string
		err    error
		ctxErr error
		ex     exchange
		class  llm.ErrorClass
		status int
		retry  time.Duration
	}{
		{"429", st(429, "too many"), nil, exchange{header: hdr("Retry-After", "7")}, llm.ClassRateLimited, 429, 7 * time.Second},
		{"429 date", st(429, ""), nil, exchange{header: hdr("Retry-After", now.Add(time.Minute).Format(http.TimeFormat))}, llm.ClassRateLimited, 429, time.Minute},
		{"500", st(500, "llama runner process has terminated: exit status 2"), nil, exchange{}, llm.ClassServer, 500, 0},
		{"500 retry", st(500, "x"), nil, exchange{header: hdr("Retry-After", "2")}, llm.ClassServer, 500, 2 * time.Second},
		{"500 context", st(500, "input exceeds maximum context length"), nil, exchange{}, llm.ClassContextLength, 500, 0},
		{"500 exceeds VRAM", st(500, "model requires more system memory, predicted usage exceeds VRAM"), nil, exchange{}, llm.ClassServer, 500, 0},
		{"500 model not found", st(500, "model 'x' not found, try pulling it first"), nil, exchange{}, llm.ClassNotFound, 500, 0},
		{"503", st(503, "server busy"), nil, exchange{}, llm.ClassServer, 503, 0},
		{"401 auth", api.AuthorizationError{StatusCode: 401}, nil, exchange{}, llm.ClassAuth, 401, 0},
		{"401 status", st(401, "unauthorized"), nil, exchange{}, llm.ClassAuth, 401, 0},
		{"403", st(403, "forbidden"), nil, exchange{}, llm.ClassAuth, 403, 0},
		{"404", st(404, "model 'x' not found"), nil, exchange{}, llm.ClassNotFound, 404, 0},
		{"400 not found", st(400, `model "x" not found, try pulling it first`), nil, exchange{}, llm.ClassNotFound, 400, 0},
		{"400 context", st(400, "the input length exceeds the context length"), nil, exchange{}, llm.ClassContextLength, 400, 0},
		{"400 too long", st(400, "prompt too long"), nil, exchange{}, llm.ClassContextLength, 400, 0},
		{"400", st(400, "invalid format"), nil, exchange{}, llm.ClassBadRequest, 400, 0},
		{"400 no retry", st(400, "x"), nil, exchange{header: hdr("Retry-After", "2")}, llm.ClassBadRequest, 400, 0},
		{"413", st(413, ""), nil, exchange{}, llm.ClassContextLength, 413, 0},
		{"408", st(408, ""), nil, exchange{}, llm.ClassTimeout, 408, 0},
		{"reported", &reportedError{"boom"}, nil, exchange{status: 200}, llm.ClassServer, 200, 0},
		{"reported context", &reportedError{"the input length exceeds the context length"}, nil, exchange{status: 200}, llm.ClassContextLength, 200, 0},
		{"malformed", &malformedError{errors.New("x")}, nil, exchange{status: 200}, llm.ClassMalformed, 200, 0},
		{"canceled", urlErr(context.Canceled), context.Canceled, exchange{}, llm.ClassCanceled, 0, 0},
		{"deadline", urlErr(context.DeadlineExceeded), context.DeadlineExceeded, exchange{}, llm.ClassTimeout, 0, 0},
		{"canceled wins", st(500, "x"), context.Canceled, exchange{}, llm.ClassCanceled, 0, 0},
		{"client timeout", urlErr(timeoutErr{}), nil, exchange{}, llm.ClassTimeout, 0, 0},
		{"refused", urlErr(&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}), nil, exchange{}, llm.ClassNetwork, 0, 0},
		{"reset", urlErr(&net.OpError{Op: "read", Err: syscall.ECONNRESET}), nil, exchange{}, llm.ClassNetwork, 0, 0},
		{"eof", urlErr(io.EOF), nil, exchange{}, llm.ClassNetwork, 0, 0},
		{"body cut", io.ErrUnexpectedEOF, nil, exchange{status: 200, bodyErr: io.ErrUnexpectedEOF}, llm.ClassNetwork, 0, 0},
		{"body timeout", timeoutErr{}, nil, exchange{status: 200, bodyErr: timeoutErr{}}, llm.ClassTimeout, 0, 0},
		{"read cut (api.Client)", io.ErrUnexpectedEOF, nil, exchange{}, llm.ClassNetwork, 0, 0},
		{"json (api.Client)", &json.SyntaxError{}, nil, exchange{}, llm.ClassMalformed, 0, 0},
		{"json type (api.Client)", &json.UnmarshalTypeError{Value: "string"}, nil, exchange{}, llm.ClassMalformed, 0, 0},
		{"unknown", errors.New("weird"), nil, exchange{}, llm.ClassInternal, 0, 0},
		{"nil", nil, nil, exchange{}, llm.ClassInternal, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := mapError(tc.err, tc.ctxErr, tc.ex, now)
			if e.Class != tc.class || e.Status != tc.status || e.Retry != tc.retry {
				t.Errorf("got class %q status %d retry %v, want %q %d %v (%v)", e.Class, e.Status, e.Retry, tc.class, tc.status, tc.retry, e)
			}
			if tc.ctxErr != nil && !errors.Is(e, tc.ctxErr) {
				t.Errorf("context error not in chain: %v", e)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":      0,
		"3":     3 * time.Second,
		"0.25":  250 * time.Millisecond,
		"-1":    0,
		"Inf":   llm.MaxServerWait,
		"later": 0,
		now.Add(45 * time.Second).Format(http.TimeFormat):  45 * time.Second,
		now.Add(-45 * time.Second).Format(http.TimeFormat): 0,
	} {
		h := http.Header{}
		h.Set("Retry-After", in)
		if got := llm.RetryAfter(h, now); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

// FuzzDecodeChat feeds arbitrary response bodies to the chat decoder and
// the error mapping: no panic, a class for every failure.
func FuzzDecodeChat(f *testing.F) {
	f.Add(200, []byte(`{"message":{"role":"assistant","content":"x"},"done":true,"prompt_eval_count":3,"eval_count":1}`))
	f.Add(200, []byte(`{"error":"boom"}`))
	f.Add(200, []byte(`{"done":true,"message":null}`))
	f.Add(200, []byte("{\"done\":false}\n{\"done\":true}"))
	f.Add(400, []byte(`{"error":"the input length exceeds the context length"}`))
	f.Add(404, []byte(`not json`))
	f.Add(401, []byte(`{"signin_url":"x"}`))
	f.Add(503, []byte(``))
	f.Add(0, []byte(`{`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		resp, err := decodeChat(status, body)
		if err == nil {
			if status < 200 || status > 299 {
				t.Fatalf("status %d decoded as success", status)
			}
			if resp.Attempts != 1 {
				t.Fatalf("Attempts = %d", resp.Attempts)
			}
			return
		}
		e := mapError(err, nil, exchange{status: status}, time.Now())
		if e.Class == "" || e.Class == llm.ClassInternal {
			t.Fatalf("decode failure %v classified %q", err, e.Class)
		}
		_ = e.Error()
	})
}

// TestFinishReason: done_reason reaches the Response: "stop" for a whole
// answer, "length" for one cut at num_predict.
func TestFinishReason(t *testing.T) {
	s := llmtest.NewOllamaServer(t, llmtest.ServerOptions{})
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
	if resp.ServedModel != llmtest.DefaultModel {
		t.Fatalf("served model %q, want the server's echo %q", resp.ServedModel, llmtest.DefaultModel)
	}
	out, err := decodeChat(200, []byte(`{"model":"llama3.1:8b-instruct-q4_K_M","message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"length"}`))
	if err != nil || out.FinishReason != "length" || out.ServedModel != "llama3.1:8b-instruct-q4_K_M" {
		t.Fatalf("decodeChat: %+v, %v", out, err)
	}
}

// TestNoCachedCount: Ollama reports no cached prompt tokens, so a call's
// cached count is unreported (unknown), not 0, even from a server that
// caches prefixes.
func TestNoCachedCount(t *testing.T) {
	s := llmtest.NewOllamaServer(t, llmtest.ServerOptions{CacheRule: llmtest.CacheVLLM})
	c := newClient(t, s, nil)
	for i := range 2 {
		resp, err := c.Chat(context.Background(), simpleRequest(llmtest.DefaultModel))
		if err != nil || resp.Usage.CachedReported || resp.Usage.CachedTokens != 0 || resp.Usage.Missing {
			t.Errorf("call %d: usage %+v, %v; want counts without a cached count", i+1, resp.Usage, err)
		}
	}
}
