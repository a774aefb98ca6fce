package runner

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/prefixcache"
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
	// MinCalls and MaxCalls bound the logical calls over every path the
	// arms' accounting formulas allow (protocol.Arm.Calls), the stub's
	// Calls between them.
	MinCalls, MaxCalls int64
	PromptTokens       int64
	Completion         int64
	// Shared is how many of Calls an identical request of another arm (or
	// an earlier call of the same unit) serves: the run sends Calls −
	// Shared. SentPrompt and SentCompletion are the tokens of the calls
	// sent (what an endpoint bills).
	Shared                int64
	SentPrompt, SentCompl int64
	// CacheRule is the provider prompt-cache rule of the estimate
	// (DryRunOptions), and SentCached the prompt tokens of the calls sent
	// that its cache would serve: the requests of one question, in the
	// order the run makes them, against the prompts of that question so
	// far (prompts other questions share, such as instructions, are left
	// out: a lower bound).
	CacheRule  prefixcache.Rule
	SentCached int64
}

// DryRunOptions are a dry run's optional estimates.
type DryRunOptions struct {
	// CacheRule, other than prefixcache.None, estimates the prompt tokens a
	// provider's prompt cache would serve under that rule (SentCached).
	CacheRule prefixcache.Rule
}

// CachedShare is SentCached / SentPrompt: the expected share of the sent
// prompt tokens served from the provider's cache (0 without a rule).
func (e Estimate) CachedShare() float64 {
	if e.SentPrompt == 0 {
		return 0
	}
	return float64(e.SentCached) / float64(e.SentPrompt)
}

// ArmEstimate is one arm's expected cost over all its units.
type ArmEstimate struct {
	Units            int
	Calls            int64
	MaxTieBreaks     int64 // at most this many more calls than Calls
	MinCalls         int64 // the fewest calls its units may make (≤ Calls)
	MaxCalls         int64 // the most (≥ Calls)
	PromptTokens     int64
	CompletionTokens int64
}

// Varies reports whether the arm's calls depend on what the model answers.
func (a ArmEstimate) Varies() bool { return a.MinCalls != a.MaxCalls }

// scaled is n (tokens of the stub's calls) scaled to calls: the tokens of
// a path with that many calls, at the stub's tokens per call.
func scaled(n, calls, stubCalls int64) int64 {
	if stubCalls == 0 {
		return n
	}
	return int64(float64(n) * float64(calls) / float64(stubCalls))
}

// Tokens is the arm's prompt and completion tokens at calls calls.
func (a ArmEstimate) Tokens(calls int64) (prompt, completion int64) {
	return scaled(a.PromptTokens, calls, a.Calls), scaled(a.CompletionTokens, calls, a.Calls)
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
// mdagents' route) cannot be foreseen: MinCalls and MaxCalls bound them by
// each arm's accounting formula (protocol.Arm.Calls), and MaxTieBreaks is
// the maximum less the calls the stub's answers made. Requests that
// several arms (or calls) of one question make alike are counted once as
// a run sends them (Shared, SentPrompt, SentCompl; see shareTally).
//
// A dry run's live heap is small and short-lived, so it collects garbage
// less often (GOGC 400 unless the GOGC environment variable is set): about
// 10% less CPU for a peak under 100 MB on a nine-arm sweep of 1,273
// questions.
func DryRun(ctx context.Context, p Plan) (Estimate, error) {
	return DryRunWith(ctx, p, DryRunOptions{})
}

// DryRunWith is DryRun with options.
func DryRunWith(ctx context.Context, p Plan, o DryRunOptions) (Estimate, error) {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	stubbed := p
	stubbed.Models = make([]Model, len(p.Models))
	tally := newShareTally(p.Arms, p.Repeats)
	tally.rule = o.CacheRule
	for i, m := range p.Models {
		c := stubs(p.Arms, !strings.HasPrefix(m.Name, "sim/"))
		stubbed.Models[i] = Model{Name: m.Name, Request: m.Request, Client: tallied(c, m.Name, tally)}
	}
	stubbed.Transcripts = false
	stubbed.Unhashed = true // each arm keeps its stub's answers; tally counts what a run would share
	est := Estimate{PerArm: map[string]ArmEstimate{}, CacheRule: o.CacheRule}
	for _, a := range p.Arms {
		est.Arms = append(est.Arms, a.Label)
	}
	arms := map[string]protocol.Arm{}
	for _, a := range p.Arms {
		arms[a.Label] = a.Protocol
	}
	// The estimate sums each unit as it finishes: no row is kept.
	sink := &estimateSink{est: &est, arms: arms, tally: tally}
	if _, err := Execute(ctx, stubbed, Options{Sink: sink}); err != nil {
		return est, err
	}
	for _, a := range est.PerArm {
		est.MaxTieBreaks += a.MaxTieBreaks
		est.MinCalls += a.MinCalls
		est.MaxCalls += a.MaxCalls
	}
	est.Shared, est.SentPrompt, est.SentCompl, est.SentCached = tally.totals()
	return est, nil
}

// estimateSink adds each finished unit to an estimate.
type estimateSink struct {
	mu    sync.Mutex
	est   *Estimate
	arms  map[string]protocol.Arm // by label, for their accounting formulas
	tally *shareTally
}

func (s *estimateSink) Put(_ string, _ int64, r results.QuestionRow, _ []results.CallRow) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.est.PerArm[r.Arm]
	a.Units++
	a.Calls += int64(r.Calls)
	a.PromptTokens += r.PromptTokens
	a.CompletionTokens += r.CompletionTokens
	lo, hi := int64(r.Calls), int64(r.Calls)
	if arm := s.arms[r.Arm]; arm != nil {
		calls, extra := arm.Calls(int(r.NAgents))
		lo, hi = min(lo, int64(calls)), max(hi, int64(calls+extra))
	}
	a.MinCalls += lo
	a.MaxCalls += hi
	a.MaxTieBreaks += hi - int64(r.Calls)
	s.est.PerArm[r.Arm] = a
	s.est.Units++
	s.est.Calls += int64(r.Calls)
	s.est.PromptTokens += r.PromptTokens
	s.est.Completion += r.CompletionTokens
	s.tally.finished(r.Model, r.QuestionID)
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

// Range is the logical calls and tokens over every path the arms'
// accounting formulas allow: the fewest (lo) and the most (hi).
func (e Estimate) Range() (lo, hi ArmEstimate) {
	lo.Calls, hi.Calls = e.MinCalls, e.MaxCalls
	for _, name := range e.Arms {
		a := e.PerArm[name]
		p, c := a.Tokens(a.MinCalls)
		lo.PromptTokens, lo.CompletionTokens = lo.PromptTokens+p, lo.CompletionTokens+c
		p, c = a.Tokens(a.MaxCalls)
		hi.PromptTokens, hi.CompletionTokens = hi.PromptTokens+p, hi.CompletionTokens+c
	}
	return lo, hi
}

// Sent is lo and hi (logical, from Range) less what the run shares: the
// calls and tokens that reach the model.
func (e Estimate) Sent() (lo, hi ArmEstimate) {
	lo, hi = e.Range()
	sharedPrompt, sharedCompl := e.PromptTokens-e.SentPrompt, e.Completion-e.SentCompl
	for _, x := range []*ArmEstimate{&lo, &hi} {
		x.Calls = max(0, x.Calls-e.Shared)
		x.PromptTokens = max(0, x.PromptTokens-sharedPrompt)
		x.CompletionTokens = max(0, x.CompletionTokens-sharedCompl)
	}
	return lo, hi
}

// span writes lo–hi, or one figure when they agree.
func span(lo, hi int64) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

// pad right-aligns s in w columns (runes, not bytes: the en dash).
func pad(s string, w int) string {
	if n := utf8.RuneCountInString(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}

func estimateLine(sb *strings.Builder, label, units string, lo, hi ArmEstimate) {
	if units != "" {
		units += " units"
	}
	fmt.Fprintf(sb, "  %-24s %12s  %11s calls  %17s prompt + %15s completion tokens\n", label, units,
		pad(span(lo.Calls, hi.Calls), 11), pad(span(lo.PromptTokens, hi.PromptTokens), 17),
		pad(span(lo.CompletionTokens, hi.CompletionTokens), 15))
}

// String renders the estimate as a table, one line per arm, the logical
// total and what is sent. Where an arm's calls depend on the model's
// answers (a tie-break, a route, consultation rounds) its calls are the
// range its accounting formula allows and its tokens that range at the
// stub's tokens per call.
func (e Estimate) String() string {
	var sb strings.Builder
	for _, name := range e.Arms {
		a := e.PerArm[name]
		var lo, hi ArmEstimate
		lo.Calls, hi.Calls = a.MinCalls, a.MaxCalls
		lo.PromptTokens, lo.CompletionTokens = a.Tokens(a.MinCalls)
		hi.PromptTokens, hi.CompletionTokens = a.Tokens(a.MaxCalls)
		estimateLine(&sb, name, fmt.Sprint(a.Units), lo, hi)
	}
	lo, hi := e.Range()
	estimateLine(&sb, "total (logical)", fmt.Sprint(e.Units), lo, hi)
	lo, hi = e.Sent()
	estimateLine(&sb, "sent to the model", "", lo, hi)
	fmt.Fprintf(&sb, "sent counts once the %d logical calls that repeat a request another arm (or an earlier call) makes alike; a few more may coincide where the model's answers do\n", e.Shared)
	return sb.String()
}
