package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
)

// Options tunes the conformance suite to a backend.
type Options struct {
	// Model is the model name put in every request.
	Model string
	// SupportsSeed enables the determinism check: the same request with the
	// same seed at temperature 0 must get the same text twice.
	SupportsSeed bool
	// Prepare, when set, is applied to every request the suite builds (after
	// the suite's own fields), e.g. to fill Meta for the simulator.
	Prepare func(*llm.Request)
	// Break turns a valid request into one the backend rejects. Nil means
	// asking for a model the backend does not serve.
	Break func(*llm.Request)
	// Stall, when set, returns a client whose calls do not answer until the
	// context is done (a hanging server, a slow simulator). It enables the
	// in-flight cancellation and deadline checks.
	Stall func(t *testing.T) llm.Client
	// Schema is the schema of the structured-output check; nil means
	// DefaultSchema.
	Schema *llm.Schema
	// Patience bounds "promptly" for cancellation; 0 means 5s.
	Patience time.Duration
	// Hostile, when set, returns a client of a fake server that injects f
	// into its next chat request (Server.FailNext(1, f)). The client must
	// cap response bodies at MaxResponseBytes and carry the credentials
	// listed in Secrets. It enables the hostile-server checks: an answer
	// without choices is malformed, one without usage says so
	// (Usage.Missing), an oversize body is class oversize without being
	// read past the cap, and credentials the server echoes appear in no
	// response text or error message.
	Hostile func(t *testing.T, f Fault) llm.Client
	// MaxResponseBytes is the cap the Hostile clients are built with.
	MaxResponseBytes int64
	// Secrets are the credential strings (and forms of them) that must
	// never come back from the Hostile clients.
	Secrets []string
}

// DefaultSchema is the schema the suite asks for by default; DefaultRespond's
// JSON answers match it.
var DefaultSchema = &llm.Schema{
	Name: "answer",
	Schema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"},` +
		`"confidence":{"type":"number"}},"required":["answer","confidence"],"additionalProperties":false}`),
}

// missingModel is the model name the default Break asks for.
const missingModel = "llmtest-no-such-model"

// request is the suite's request with the given seed: a system prompt and
// a multiple-choice question, at temperature 0, prepared by Options.Prepare.
func (o *Options) request(seed int64) llm.Request {
	req := llm.Request{
		Model: o.Model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are a careful medical expert. Answer with the letter of the best option and a short reason."},
			{Role: llm.RoleUser, Content: "A 54-year-old man has crushing chest pain radiating to the left arm for 40 minutes. " +
				"What is the most likely diagnosis?\nA) Myocardial infarction\nB) Pericarditis\nC) Aortic dissection\nD) Pneumothorax"},
		},
		Temperature: 0,
		MaxTokens:   512,
		Seed:        seed,
	}
	if o.Prepare != nil {
		o.Prepare(&req)
	}
	return req
}

// patience is how long "promptly" is (Options.Patience, default 5s).
func (o *Options) patience() time.Duration {
	if o.Patience > 0 {
		return o.Patience
	}
	return 5 * time.Second
}

// CheckError fails the test unless err is an *llm.Error (errors.As) with a
// class and a provider; it returns the *llm.Error.
func CheckError(t testing.TB, err error) *llm.Error {
	t.Helper()
	if err == nil {
		t.Fatal("expected an error, got nil")
	}
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	if e.Class == "" {
		t.Errorf("error %v has no class", err)
	}
	if e.Provider == "" {
		t.Errorf("error %v has no provider", err)
	}
	if got := llm.ClassOf(err); got != e.Class {
		t.Errorf("ClassOf(%v) = %q, want %q", err, got, e.Class)
	}
	return e
}

// chat calls c and checks that any error is typed.
func chat(t *testing.T, c llm.Client, ctx context.Context, req llm.Request) (llm.Response, error) {
	t.Helper()
	resp, err := c.Chat(ctx, req)
	if err != nil {
		CheckError(t, err)
	}
	return resp, err
}

// mustChat calls c and fails the test on an error.
func mustChat(t *testing.T, c llm.Client, req llm.Request) llm.Response {
	t.Helper()
	resp, err := chat(t, c, context.Background(), req)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	return resp
}

// Run runs the conformance suite against the clients newClient returns (one
// per subtest): each check, in order, as a subtest of its name. A check that
// does not apply to a backend tuned with opts (no seed support, no Stall or
// Hostile client) is skipped, and a failed check logs the clause of the
// contract it holds the backend to.
func Run(t *testing.T, newClient func(t *testing.T) llm.Client, opts Options) {
	b := &backend{Options: opts, newClient: newClient}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if c.skip != nil {
				if why := c.skip(&b.Options); why != "" {
					t.Skip(why)
				}
			}
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("%s checks that %s", c.name, c.doc)
				}
			})
			c.run(t, b)
		})
	}
}

// A check is one conformance check: the subtest of Run named name, which
// holds a backend to the clause of the llm.Client contract that doc states
// (completing "name checks that …").
// skip, when set, says why the check does not apply to a backend tuned with
// the given Options, "" when it does.
type check struct {
	name string
	doc  string
	skip func(*Options) string
	run  func(t *testing.T, b *backend)
}

// backend is what a check runs against: the suite's Options and the
// clients under test.
type backend struct {
	Options
	newClient func(t *testing.T) llm.Client
}

// needsSeed, needsStall and needsHostile are the skip conditions of the
// checks that need seed support, Options.Stall and Options.Hostile.
func needsSeed(o *Options) string {
	if !o.SupportsSeed {
		return "backend does not support seeds"
	}
	return ""
}

func needsStall(o *Options) string {
	if o.Stall == nil {
		return "no Stall client"
	}
	return ""
}

func needsHostile(o *Options) string {
	if o.Hostile == nil {
		return "no Hostile client"
	}
	return ""
}
