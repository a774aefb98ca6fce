package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols"
)

// TestShareTally: a request two arms of one question make alike counts as
// sent once, with the tokens of the arm first in plan order whatever the
// order they arrive in; the same request of another question or repeat is
// its own.
func TestShareTally(t *testing.T) {
	arms := []Arm{{Label: "a"}, {Label: "b"}}
	req := func(arm, q string, rep int, prompt string) *llm.Request {
		return &llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: prompt}}, Meta: llm.Meta{Arm: arm, QuestionID: q, Repeat: rep}}
	}
	for _, tc := range []struct {
		name                  string
		calls                 []*llm.Request
		shared, prompt, compl int64
	}{
		{"all distinct", []*llm.Request{req("a", "q1", 0, "x"), req("b", "q1", 0, "y")}, 0, 20, 1001},
		{"b repeats a", []*llm.Request{req("b", "q1", 0, "x"), req("a", "q1", 0, "x")}, 1, 10, 1},
		{"other question", []*llm.Request{req("a", "q1", 0, "x"), req("b", "q2", 0, "x")}, 0, 20, 1001},
		{"other repeat", []*llm.Request{req("a", "q1", 0, "x"), req("a", "q1", 1, "x")}, 0, 20, 2},
		{"one unit twice", []*llm.Request{req("a", "q1", 0, "x"), req("a", "q1", 0, "x"), req("b", "q1", 0, "x")}, 2, 10, 1},
	} {
		tally := newShareTally(arms, 1)
		for _, r := range tc.calls {
			u := llm.Usage{PromptTokens: 10, CompletionTokens: 1}
			if r.Meta.Arm == "b" { // b's stub answers at another length: a's are counted
				u = llm.Usage{PromptTokens: 10, CompletionTokens: 1000}
			}
			tally.note("sim/x", r, u, "")
		}
		tally.finished("sim/x", "q1")
		shared, prompt, compl, _ := tally.totals()
		if shared != tc.shared || prompt != tc.prompt || compl != tc.compl {
			t.Errorf("%s: shared %d, sent %d+%d tokens; want %d, %d+%d", tc.name, shared, prompt, compl, tc.shared, tc.prompt, tc.compl)
		}
	}
}

// TestEstimateString: the dry-run table's known answers — a fixed arm one
// figure, an arm whose calls vary its range (tokens at the stub's tokens
// per call), a logical total and what is sent with shared calls once.
func TestEstimateString(t *testing.T) {
	e := Estimate{Units: 20, Arms: []string{"fixed", "varies"}, PerArm: map[string]ArmEstimate{
		"fixed":  {Units: 10, Calls: 30, MinCalls: 30, MaxCalls: 30, PromptTokens: 3000, CompletionTokens: 300},
		"varies": {Units: 10, Calls: 40, MinCalls: 20, MaxCalls: 80, PromptTokens: 4000, CompletionTokens: 400},
	}, Calls: 70, MinCalls: 50, MaxCalls: 110, PromptTokens: 7000, Completion: 700,
		Shared: 10, SentPrompt: 6000, SentCompl: 600}
	want := "" +
		"  fixed                        10 units           30 calls               3000 prompt +             300 completion tokens\n" +
		"  varies                       10 units        20–80 calls          2000–8000 prompt +         200–800 completion tokens\n" +
		"  total (logical)              20 units       50–110 calls         5000–11000 prompt +        500–1100 completion tokens\n" +
		"  sent to the model                           40–100 calls         4000–10000 prompt +        400–1000 completion tokens\n" +
		"sent counts once the 10 logical calls that repeat a request another arm (or an earlier call) makes alike; a few more may coincide where the model's answers do\n"
	if got := e.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestDryRunPredictsSent: on ten questions of the simulator, arms of five
// protocols that share first answers (and c7, all of whose calls are c5's)
// — the dry run's shared calls, and the calls it expects sent (on the
// stub's path), are within 3% of what the run shares and sends. (Sharing
// that depends on the answers — two arms' discussions coinciding — cannot
// be foreseen.) Before, the dry run counted only logical calls (the
// ablation sweep: 6,250 predicted, 3,807 sent).
func TestDryRunPredictsSent(t *testing.T) {
	set := protocol.Settings{Turns: 2, Agents: 3, Discussion: "round_robin", Structured: true, AgentTemp: 0.7, LeaderTemp: 0.5}
	p, _ := simPlan(t, "default", nil, 4)
	p.Sets[0].Questions = p.Sets[0].Questions[:10]
	for _, spec := range []string{"zeroshot", "sc:3", "vote", "judge", "council:balanced", "debate:3,2", "base", "c5", "c7", "full", "mdagents"} {
		a, err := protocols.All().Parse(spec, set)
		if err != nil {
			t.Fatal(err)
		}
		p.Arms = append(p.Arms, Arm{Label: a.Info().Label, Protocol: a})
	}
	est, err := DryRun(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	lo, hi := est.Sent()
	t.Logf("dry run: %d logical (%d–%d), %d shared, %d–%d sent; run: %d logical, %d shared, %d sent",
		est.Calls, est.MinCalls, est.MaxCalls, est.Shared, lo.Calls, hi.Calls, st.Calls, st.Shared, st.Calls-st.Shared)
	within3 := func(what string, predicted, measured int64) {
		if d := predicted - measured; measured == 0 || 100*max(d, -d) > 3*measured {
			t.Errorf("%s: the dry run predicts %d, the run had %d", what, predicted, measured)
		}
	}
	within3("shared calls", est.Shared, st.Shared)
	within3("calls sent", est.Calls-est.Shared, st.Calls-st.Shared)
	if sent := st.Calls - st.Shared; sent > hi.Calls {
		t.Errorf("the run sent %d calls, more than the dry run's most, %d", sent, hi.Calls)
	}
	if !strings.Contains(est.String(), "sent to the model") {
		t.Error("the table has no sent line")
	}
}
