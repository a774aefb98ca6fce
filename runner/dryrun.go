package runner

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/results"
)

// Estimate is what a plan is expected to cost, per arm and in total.
type Estimate struct {
	Units        int
	PerArm       map[string]ArmEstimate
	Arms         []string // arm labels in plan order
	Calls        int64    // logical calls the stub's answers lead to
	MaxTieBreaks int64    // at most this many more: calls the stub's answers did not lead to (a leader's tie-break, medagents' consultation rounds, …)
	PromptTokens int64
	Completion   int64
}

// ArmEstimate is one arm's expected cost over all its units.
type ArmEstimate struct {
	Units            int
	Calls            int64
	MaxTieBreaks     int64 // at most this many more calls than Calls
	PromptTokens     int64
	CompletionTokens int64
}

// TokensPerUnit is the expected tokens of one unit of the arm.
func (a ArmEstimate) TokensPerUnit() int64 {
	if a.Units == 0 {
		return 0
	}
	return (a.PromptTokens + a.CompletionTokens) / int64(a.Units)
}

// DryRun predicts the calls and tokens of a plan without calling any model:
// it runs the protocol against a stub that answers every step at once with
// a typical, well-formed answer, and counts tokens as characters / 4 (the
// rule of thumb for English with BPE tokenizers; the simulator counts the
// same way). Calls are exact for a fixed team size (--agents); with a dynamic
// team the stub's recruiter asks for 3 agents. Calls that depend on what a
// model answers (a leader's tie-break, medagents' consultation rounds,
// mdagents' route) cannot be foreseen: MaxTieBreaks bounds them by each
// arm's accounting formula (protocol.Arm.Calls: its maximum less the calls
// the stub's answers made).
//
// A dry run's live heap is small and short-lived, so it collects garbage
// less often (GOGC 400 unless the GOGC environment variable is set): about
// 10% less CPU for a peak under 100 MB on a nine-arm sweep of 1,273
// questions.
func DryRun(ctx context.Context, p Plan) (Estimate, error) {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	stubbed := p
	stubbed.Models = make([]Model, len(p.Models))
	for i, m := range p.Models {
		stubbed.Models[i] = Model{Name: m.Name, Request: m.Request, Client: stubs(p.Arms, !strings.HasPrefix(m.Name, "sim/"))}
	}
	stubbed.Transcripts = false
	stubbed.Unhashed = true // the stub is cheaper than the hash that would share its answers
	est := Estimate{PerArm: map[string]ArmEstimate{}}
	for _, a := range p.Arms {
		est.Arms = append(est.Arms, a.Label)
	}
	arms := map[string]protocol.Arm{}
	for _, a := range p.Arms {
		arms[a.Label] = a.Protocol
	}
	// The estimate sums each unit as it finishes: no row is kept.
	sink := &estimateSink{est: &est, arms: arms}
	if _, err := Execute(ctx, stubbed, Options{Sink: sink}); err != nil {
		return est, err
	}
	for _, a := range est.PerArm {
		est.MaxTieBreaks += a.MaxTieBreaks
	}
	return est, nil
}

// estimateSink adds each finished unit to an estimate.
type estimateSink struct {
	mu   sync.Mutex
	est  *Estimate
	arms map[string]protocol.Arm // by label, for their accounting formulas
}

func (s *estimateSink) Put(_ string, _ int64, r results.QuestionRow, _ []results.CallRow) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.est.PerArm[r.Arm]
	a.Units++
	a.Calls += int64(r.Calls)
	a.PromptTokens += r.PromptTokens
	a.CompletionTokens += r.CompletionTokens
	if arm := s.arms[r.Arm]; arm != nil {
		calls, extra := arm.Calls(int(r.NAgents))
		if more := int64(calls+extra) - int64(r.Calls); more > 0 {
			a.MaxTieBreaks += more
		}
	}
	s.est.PerArm[r.Arm] = a
	s.est.Units++
	s.est.Calls += int64(r.Calls)
	s.est.PromptTokens += r.PromptTokens
	s.est.Completion += r.CompletionTokens
	return nil
}

// stubs answers each call with the stub of its arm's protocol.
func stubs(arms []Arm, long bool) llm.Client {
	byArm := map[string]llm.Client{}
	for _, a := range arms {
		byArm[a.Label] = a.Protocol.Protocol().Stub(long)
	}
	return llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return byArm[req.Meta.Arm].Chat(ctx, req)
	})
}

// String renders the estimate as a table, one line per arm and a total.
func (e Estimate) String() string {
	var sb strings.Builder
	for _, a := range e.Arms {
		x := e.PerArm[a]
		fmt.Fprintf(&sb, "  %-24s %6d units  %8d calls (+ ≤%d more)  %10d prompt + %9d completion tokens\n",
			a, x.Units, x.Calls, x.MaxTieBreaks, x.PromptTokens, x.CompletionTokens)
	}
	fmt.Fprintf(&sb, "  %-24s %6d units  %8d calls (+ ≤%d more)  %10d prompt + %9d completion tokens\n",
		"total", e.Units, e.Calls, e.MaxTieBreaks, e.PromptTokens, e.Completion)
	return sb.String()
}
