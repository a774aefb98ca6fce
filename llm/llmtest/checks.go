package llmtest

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
)

// checks are the conformance checks, in the order Run runs them.
var checks = []*check{
	textCheck,
	usageCheck,
	deterministicCheck,
	structuredCheck,
	canceledCheck,
	deadlinePassedCheck,
	cancelInFlightCheck,
	deadlineInFlightCheck,
	typedErrorsCheck,
	emptyChoicesCheck,
	missingUsageCheck,
	oversizeCheck,
	echoCheck(Echo()),
	echoCheck(EchoError(http.StatusInternalServerError)),
	echoCheck(EchoError(http.StatusUnauthorized)),
	concurrentCheck,
}

var textCheck = &check{
	name: "Text",
	doc:  "a call is answered with text, in one attempt, not from a cache, with a latency ≥ 0",
	run: func(t *testing.T, b *backend) {
		resp := mustChat(t, b.newClient(t), b.request(1))
		if strings.TrimSpace(resp.Text) == "" {
			t.Errorf("empty text")
		}
		if resp.Attempts != 1 {
			t.Errorf("Attempts = %d, want 1", resp.Attempts)
		}
		if resp.Cached {
			t.Errorf("Cached = true from a backend")
		}
		if resp.Latency < 0 {
			t.Errorf("Latency = %v", resp.Latency)
		}
	},
}

var usageCheck = &check{
	name: "Usage",
	doc:  "an answer reports the API's prompt and completion token counts",
	run: func(t *testing.T, b *backend) {
		resp := mustChat(t, b.newClient(t), b.request(2))
		if resp.Usage.PromptTokens <= 0 || resp.Usage.CompletionTokens <= 0 {
			t.Errorf("Usage = %+v, want both counts > 0", resp.Usage)
		}
	},
}

var deterministicCheck = &check{
	name: "Deterministic",
	doc:  "the same request with the same seed at temperature 0 gets the same text twice",
	skip: needsSeed,
	run: func(t *testing.T, b *backend) {
		c := b.newClient(t)
		req := b.request(12345)
		x := mustChat(t, c, req)
		y := mustChat(t, c, req)
		if x.Text != y.Text {
			t.Errorf("same seed at temperature 0 gave different texts:\n%q\n%q", x.Text, y.Text)
		}
	},
}

var structuredCheck = &check{
	name: "Structured",
	doc:  "a request carrying a schema (Options.Schema, else DefaultSchema) is answered with a JSON object",
	run: func(t *testing.T, b *backend) {
		req := b.request(3)
		req.Schema = b.Schema
		if req.Schema == nil {
			req.Schema = DefaultSchema
		}
		resp := mustChat(t, b.newClient(t), req)
		var obj map[string]any
		if err := json.Unmarshal([]byte(strings.TrimSpace(resp.Text)), &obj); err != nil || obj == nil {
			t.Errorf("structured output %q is not a JSON object: %v", resp.Text, err)
		}
	},
}

var canceledCheck = &check{
	name: "Canceled",
	doc:  "a call whose context is already canceled returns promptly, class canceled",
	run: func(t *testing.T, b *backend) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		start := time.Now()
		_, err := chat(t, b.newClient(t), ctx, b.request(4))
		if d := time.Since(start); d > b.patience() {
			t.Errorf("canceled call took %v", d)
		}
		if got := llm.ClassOf(err); got != llm.ClassCanceled {
			t.Errorf("canceled context: class %q (%v), want %q", got, err, llm.ClassCanceled)
		}
	},
}

var deadlinePassedCheck = &check{
	name: "DeadlinePassed",
	doc:  "a call whose context's deadline has passed fails with class timeout",
	run: func(t *testing.T, b *backend) {
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		_, err := chat(t, b.newClient(t), ctx, b.request(5))
		if got := llm.ClassOf(err); got != llm.ClassTimeout {
			t.Errorf("expired deadline: class %q (%v), want %q", got, err, llm.ClassTimeout)
		}
	},
}

var cancelInFlightCheck = &check{
	name: "CancelInFlight",
	doc:  "a call canceled while the server stalls returns promptly, class canceled",
	skip: needsStall,
	run: func(t *testing.T, b *backend) {
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(50*time.Millisecond, cancel)
		defer timer.Stop()
		endsPromptly(t, b, ctx, 6, "in-flight cancel", llm.ClassCanceled)
	},
}

var deadlineInFlightCheck = &check{
	name: "DeadlineInFlight",
	doc:  "a call whose deadline passes while the server stalls returns promptly, class timeout",
	skip: needsStall,
	run: func(t *testing.T, b *backend) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		endsPromptly(t, b, ctx, 7, "in-flight deadline", llm.ClassTimeout)
	},
}

// endsPromptly calls the stalling backend under ctx (which ends while the
// server stalls) and checks that the call returns within the backend's
// patience with class want.
func endsPromptly(t *testing.T, b *backend, ctx context.Context, seq int64, what string, want llm.ErrorClass) {
	t.Helper()
	c := b.Stall(t)
	start := time.Now()
	_, err := chat(t, c, ctx, b.request(seq))
	if d := time.Since(start); d > b.patience() {
		t.Errorf("%s: the call returned after %v", what, d)
	}
	if got := llm.ClassOf(err); got != want {
		t.Errorf("%s: class %q (%v), want %q", what, got, err, want)
	}
}

var typedErrorsCheck = &check{
	name: "TypedErrors",
	doc: "a request the backend rejects (Options.Break, else an unknown model: class not_found) " +
		"fails with a classified *llm.Error that names its provider, never class internal",
	run: func(t *testing.T, b *backend) {
		req := b.request(8)
		if b.Break != nil {
			b.Break(&req)
		} else {
			req.Model = missingModel
		}
		_, err := chat(t, b.newClient(t), context.Background(), req)
		if err == nil {
			t.Fatal("broken request succeeded")
		}
		e := CheckError(t, err)
		if e.Class == llm.ClassInternal {
			t.Errorf("broken request classified %q: %v", e.Class, err)
		}
		if b.Break == nil && e.Class != llm.ClassNotFound {
			t.Errorf("missing model classified %q, want %q: %v", e.Class, llm.ClassNotFound, err)
		}
	},
}

var emptyChoicesCheck = &check{
	name: "EmptyChoices",
	doc:  "a 200 that holds no answer is class malformed",
	skip: needsHostile,
	run: func(t *testing.T, b *backend) {
		_, err := chat(t, b.Hostile(t, EmptyChoices()), context.Background(), b.request(20))
		if got := llm.ClassOf(err); got != llm.ClassMalformed {
			t.Errorf("an answer without choices: class %q (%v), want %q", got, err, llm.ClassMalformed)
		}
	},
}

var missingUsageCheck = &check{
	name: "MissingUsage",
	doc:  "an answer without token counts is still an answer, with Usage.Missing and no counts",
	skip: needsHostile,
	run: func(t *testing.T, b *backend) {
		resp, err := chat(t, b.Hostile(t, NoUsage()), context.Background(), b.request(21))
		if err != nil {
			t.Fatalf("an answer without usage must still be an answer: %v", err)
		}
		if !resp.Usage.Missing || resp.Usage.PromptTokens != 0 || resp.Usage.CompletionTokens != 0 {
			t.Errorf("Usage = %+v, want Missing and no counts", resp.Usage)
		}
		if strings.TrimSpace(resp.Text) == "" {
			t.Errorf("empty text")
		}
	},
}

var oversizeCheck = &check{
	name: "Oversize",
	doc: "an answer larger than Options.MaxResponseBytes is class oversize, with no text, " +
		"and is not read (allocated) much past the cap",
	skip: needsHostile,
	run: func(t *testing.T, b *backend) {
		const size = 10 << 20
		c := b.Hostile(t, Oversize(size))
		if b.MaxResponseBytes <= 0 {
			t.Fatal("Options.MaxResponseBytes must be set with Hostile")
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		resp, err := chat(t, c, context.Background(), b.request(22))
		runtime.ReadMemStats(&after)
		if got := llm.ClassOf(err); got != llm.ClassOversize {
			t.Errorf("a %d-byte answer with a cap of %d: class %q (%v), want %q", size, b.MaxResponseBytes, got, err, llm.ClassOversize)
		}
		if resp.Text != "" {
			t.Errorf("an oversize answer came back as %d bytes of text", len(resp.Text))
		}
		// Generous: the body is never held past the cap, but a JSON decoder
		// may copy what it holds once or twice.
		t.Logf("a %d-byte answer, cap %d: %d bytes allocated", size, b.MaxResponseBytes, after.TotalAlloc-before.TotalAlloc)
		if alloc, bound := after.TotalAlloc-before.TotalAlloc, uint64(4*b.MaxResponseBytes+2<<20); alloc > bound {
			t.Errorf("reading a %d-byte answer allocated %d bytes, want ≤ %d (cap %d)", size, alloc, bound, b.MaxResponseBytes)
		}
	},
}

// echoCheck is the check, named "Echo/" + f.String(), that a server echoing
// the request's credentials (f: Echo or EchoError) gets none of
// Options.Secrets back into a response text or an error message.
func echoCheck(f Fault) *check {
	return &check{
		name: "Echo/" + f.String(),
		doc: "credentials a server echoes (in an answer, or in an error body) appear in no response text " +
			"or error message; an echo in a 200 is still an answer",
		skip: needsHostile,
		run:  func(t *testing.T, b *backend) { checkEcho(t, b, f) },
	}
}

// checkEcho is the run of echoCheck(f).
func checkEcho(t *testing.T, b *backend, f Fault) {
	c := b.Hostile(t, f)
	if len(b.Secrets) == 0 {
		t.Fatal("Options.Secrets must be set with Hostile")
	}
	resp, err := chat(t, c, context.Background(), b.request(23))
	if f.Status == 0 && err != nil {
		t.Fatalf("echo: %v", err)
	}
	if f.Status != 0 && err == nil {
		t.Fatalf("echo %d: no error", f.Status)
	}
	texts := map[string]string{"response text": resp.Text}
	if err != nil {
		texts["error"] = err.Error()
	}
	for what, text := range texts {
		checkNoSecret(t, what, text, b.Secrets)
	}
	if f.Status == 0 && !strings.Contains(resp.Text, "Authorization") {
		t.Errorf("the echo did not arrive (text %q); the check proves nothing", resp.Text)
	}
}

var concurrentCheck = &check{
	name: "Concurrent",
	doc:  "one client serves concurrent calls, and with seed support the same seed gets the same text in each",
	run: func(t *testing.T, b *backend) {
		c := b.newClient(t)
		const n = 8
		texts := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := c.Chat(context.Background(), b.request(int64(100+i%2)))
				if err != nil {
					t.Errorf("concurrent Chat: %v", err)
					return
				}
				texts[i] = resp.Text
			}()
		}
		wg.Wait()
		if b.SupportsSeed && !t.Failed() {
			for i := 2; i < n; i++ {
				if texts[i] != texts[i%2] {
					t.Errorf("concurrent calls with the same seed differ: %q vs %q", texts[i], texts[i%2])
				}
			}
		}
	},
}

// checkNoSecret fails the test if text (the what of a response) holds one
// of secrets.
func checkNoSecret(t *testing.T, what, text string, secrets []string) {
	t.Helper()
	for _, secret := range secrets {
		if secret != "" && strings.Contains(text, secret) {
			t.Errorf("the %s holds the secret %q: %s", what, secret, text)
		}
	}
}
