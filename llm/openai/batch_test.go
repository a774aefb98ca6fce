package openai

import (
	"bufio"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/batch"
	"github.com/medteam-bench/medteam/llm/llmtest"
)

func TestBatchConformance(t *testing.T) {
	llmtest.RunBatch(t, llmtest.BatchOptions{
		Server: func(t *testing.T) *llmtest.Server {
			return llmtest.NewOpenAIServer(t, llmtest.ServerOptions{APIKey: testKey})
		},
		New: func(t *testing.T, s *llmtest.Server) (batch.Provider, llm.Client) {
			c := newClient(t, s, nil)
			return c.Batcher(BatchConfig{}), c
		},
	})
}

func TestParseOutputLine(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		id         string
		text       string
		class      llm.ErrorClass
		unsent     bool
		rejected   bool
		attempts   int
		bad        bool
	}{
		{name: "answer", line: `{"id":"r1","custom_id":"a","response":{"status_code":200,"body":{"choices":[{"message":{"role":"assistant","content":"B"}}],"usage":{"prompt_tokens":10,"completion_tokens":2}}},"error":null}`,
			id: "a", text: "B", attempts: 1},
		{name: "429", line: `{"custom_id":"b","response":{"status_code":429,"body":{"error":{"message":"Rate limit reached","type":"requests"}}}}`,
			id: "b", class: llm.ClassRateLimited, attempts: 1},
		{name: "500", line: `{"custom_id":"c","response":{"status_code":500,"body":{"error":{"message":"oops","type":"server_error"}}}}`,
			id: "c", class: llm.ClassServer, attempts: 1},
		{name: "400", line: `{"custom_id":"d","response":{"status_code":400,"body":{"error":{"message":"bad temperature","type":"invalid_request_error"}}}}`,
			id: "d", class: llm.ClassBadRequest, attempts: 1},
		{name: "context", line: `{"custom_id":"e","response":{"status_code":400,"body":{"error":{"message":"This model's maximum context length is 8 tokens"}}}}`,
			id: "e", class: llm.ClassContextLength, attempts: 1},
		{name: "format", line: `{"custom_id":"f","response":{"status_code":400,"body":{"error":{"message":"response_format type 'json_schema' is not supported","param":"response_format"}}}}`,
			id: "f", class: llm.ClassBadRequest, rejected: true, attempts: 1},
		{name: "404 plain body", line: `{"custom_id":"g","response":{"status_code":404,"body":"not here"}}`,
			id: "g", class: llm.ClassNotFound, attempts: 1},
		{name: "expired", line: `{"custom_id":"h","response":null,"error":{"code":"batch_expired","message":"window ended"}}`,
			id: "h", class: llm.ClassExpired, attempts: 1}, // received, never run: an attempt without tokens
		{name: "cancelled", line: `{"custom_id":"i","response":null,"error":{"code":"batch_cancelled","message":"cancelled"}}`,
			id: "i", class: llm.ClassCanceled, attempts: 1},
		{name: "coded rate limit", line: `{"custom_id":"j","error":{"code":"rate_limit_exceeded","message":"slow down"}}`,
			id: "j", class: llm.ClassRateLimited, attempts: 1},
		{name: "unknown code", line: `{"custom_id":"k","error":{"code":"weird","message":"?"}}`,
			id: "k", class: llm.ClassServer, attempts: 1},
		{name: "no choices", line: `{"custom_id":"l","response":{"status_code":200,"body":{"choices":[]}}}`,
			id: "l", class: llm.ClassMalformed, attempts: 1},
		{name: "body not a completion", line: `{"custom_id":"m","response":{"status_code":200,"body":"x"}}`,
			id: "m", class: llm.ClassMalformed, attempts: 1},
		{name: "empty", line: `{"custom_id":"n"}`, id: "n", class: llm.ClassMalformed, attempts: 1},
		{name: "no id", line: `{"response":{"status_code":200,"body":{}}}`, bad: true},
		{name: "not json", line: `{"custom_id":`, bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, rejected, err := parseOutputLine([]byte(tc.line), false, 1<<20)
			if tc.bad {
				if err == nil {
					t.Fatalf("no error for %s", tc.line)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.CustomID != tc.id || r.Response.Text != tc.text || llm.ClassOf(r.Err) != tc.class ||
				rejected != tc.rejected || r.Response.Attempts != tc.attempts {
				t.Errorf("got id %q text %q class %q rejected %v attempts %d (%v)", r.CustomID, r.Response.Text,
					llm.ClassOf(r.Err), rejected, r.Response.Attempts, r.Err)
			}
			var e *llm.Error
			if errors.As(r.Err, &e) && e.Unsent != tc.unsent {
				t.Errorf("Unsent = %v", e.Unsent)
			}
			if tc.text != "" && (r.Response.Usage != llm.Usage{PromptTokens: 10, CompletionTokens: 2}) {
				t.Errorf("usage %+v", r.Response.Usage)
			}
		})
	}
}

func TestParseCutLine(t *testing.T) {
	r, _, err := parseOutputLine([]byte(`{"id":"x","custom_id":"big\"one","response":{"status_code":200,"body":{"choices":[{"mess`), true, 64)
	if err != nil || r.CustomID != `big"one` || llm.ClassOf(r.Err) != llm.ClassOversize {
		t.Errorf("cut line: %+v, %v", r, err)
	}
	if _, _, err := parseOutputLine([]byte(`{"id":"x","respo`), true, 64); err == nil {
		t.Error("cut line without custom_id parsed")
	}
}

func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 100)
	r := bufio.NewReaderSize(strings.NewReader("ab\n"+long+"\ncd"), 16)
	for _, want := range []struct {
		line string
		cut  bool
	}{{"ab", false}, {long[:40], true}, {"cd", false}} {
		line, cut, err := readLine(r, 40)
		if string(line) != want.line || cut != want.cut {
			t.Errorf("readLine = %q %v %v, want %q %v", line, cut, err, want.line, want.cut)
		}
	}
	if _, _, err := readLine(r, 40); err == nil {
		t.Error("no EOF at the end")
	}
}

func FuzzParseOutputLine(f *testing.F) {
	f.Add([]byte(`{"custom_id":"a","response":{"status_code":200,"body":{"choices":[{"message":{"content":"B"}}]}}}`), false)
	f.Add([]byte(`{"custom_id":"b","response":{"status_code":429,"body":{"error":{"message":["a","b"]}}}}`), false)
	f.Add([]byte(`{"custom_id":"h","response":null,"error":{"code":"batch_expired","message":"w"}}`), false)
	f.Add([]byte(`{"custom_id":"c\u0000","response":{"status_code":-1,"body":null},"error":{}}`), true)
	f.Fuzz(func(t *testing.T, line []byte, cut bool) {
		r, _, err := parseOutputLine(line, cut, 32)
		if err != nil {
			return
		}
		if r.CustomID == "" {
			t.Fatalf("routed without a custom_id: %q", line)
		}
		if r.Err != nil {
			var e *llm.Error
			if !errors.As(r.Err, &e) || e.Class == "" {
				t.Fatalf("unclassified error %v for %q", r.Err, line)
			}
		} else if r.Response.Attempts != 1 {
			t.Fatalf("answer with %d attempts for %q", r.Response.Attempts, line)
		}
	})
}

// TestBatchFormatDowngrade: a server refusing json_schema refuses the batch
// lines that ask for it; Results downgrades the model's mode as Chat does
// and marks them Resubmit, and the next batch goes out in json_object.
func TestBatchFormatDowngrade(t *testing.T) {
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{RejectJSONSchema: true})
	c := newClient(t, s, nil)
	b := c.Batcher(BatchConfig{})
	req := simpleRequest(llmtest.DefaultModel)
	req.Schema = llmtest.DefaultSchema
	lines := []batch.Line{{CustomID: "s", Request: req}, {CustomID: "t", Request: simpleRequest(llmtest.DefaultModel)}}
	res := runBatch(t, b, lines)
	if r := res["s"]; !r.Resubmit || llm.ClassOf(r.Err) != llm.ClassBadRequest {
		t.Fatalf("schema line: %+v", r)
	}
	if r := res["t"]; r.Err != nil || r.Resubmit {
		t.Fatalf("text line: %+v", r)
	}
	if got := c.JSONMode(llmtest.DefaultModel); got != ModeJSONObject {
		t.Fatalf("JSONMode = %s after the rejection", got)
	}
	res = runBatch(t, b, lines[:1])
	if r := res["s"]; r.Err != nil || r.Resubmit {
		t.Fatalf("resubmitted schema line: %+v", r)
	}
	want, err := c.Chat(context.Background(), req)
	if err != nil || want.Text != res["s"].Response.Text {
		t.Errorf("batch %q, sync %q (%v)", res["s"].Response.Text, want.Text, err)
	}
}

func runBatch(t *testing.T, b *Batcher, lines []batch.Line) map[string]batch.Result {
	t.Helper()
	ref, err := b.Submit(context.Background(), lines)
	if err != nil {
		t.Fatal(err)
	}
	st, err := b.Status(context.Background(), ref.ID)
	if err != nil || !st.State.Terminal() {
		t.Fatalf("Status = %+v, %v", st, err)
	}
	res, err := b.Results(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestBatchSubmitRefusals(t *testing.T) {
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{})
	c := newClient(t, s, nil)
	b := c.Batcher(BatchConfig{Limits: batch.Limits{MaxRequests: 2, MaxBytes: 1 << 20}})
	req := simpleRequest(llmtest.DefaultModel)
	bad := req
	bad.Schema = &llm.Schema{Name: "x", Schema: []byte("{not json")}
	for name, lines := range map[string][]batch.Line{
		"empty":     nil,
		"no id":     {{Request: req}},
		"duplicate": {{CustomID: "a", Request: req}, {CustomID: "a", Request: req}},
		"too many":  {{CustomID: "a", Request: req}, {CustomID: "b", Request: req}, {CustomID: "c", Request: req}},
		"schema":    {{CustomID: "a", Request: bad}},
	} {
		_, err := b.Submit(context.Background(), lines)
		if e := llmtest.CheckError(t, err); e.Class != llm.ClassBadRequest || !e.Unsent {
			t.Errorf("%s: %v", name, err)
		}
	}
	if n := s.Requests(); n != 0 {
		t.Errorf("refused batches sent %d requests", n)
	}
}

// TestBatchKeepsKeyOut: the key goes out as a bearer token on every batch
// call, and a server echoing it cannot put it in an error.
func TestBatchKeepsKeyOut(t *testing.T) {
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{APIKey: "other-key"})
	c := newClient(t, s, nil)
	_, err := c.Batcher(BatchConfig{}).Submit(context.Background(), []batch.Line{{CustomID: "a", Request: simpleRequest(llmtest.DefaultModel)}})
	e := llmtest.CheckError(t, err)
	if e.Class != llm.ClassAuth || strings.Contains(err.Error(), testKey) {
		t.Errorf("error %v", err)
	}
	if got := s.Last().Header.Get("Authorization"); got != "Bearer "+testKey || s.Last().Path != "/v1/files" {
		t.Errorf("last request %s with %q", s.Last().Path, got)
	}
}
