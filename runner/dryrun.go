package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/teamwork"
)

// Estimate is what a plan is expected to cost, per arm and in total.
type Estimate struct {
	Units        int
	PerArm       map[string]ArmEstimate
	Arms         []string // arm labels in plan order
	Calls        int64    // logical calls, tie-breaks excluded
	MaxTieBreaks int64    // at most one per unit of an arm with leadership
	PromptTokens int64
	Completion   int64
}

// ArmEstimate is one arm's expected cost over all its units.
type ArmEstimate struct {
	Units            int
	Calls            int64
	MaxTieBreaks     int64
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
// team the stub's recruiter asks for 3 agents. Leader tie-breaks cannot be
// foreseen: MaxTieBreaks bounds them.
func DryRun(ctx context.Context, p Plan) (Estimate, error) {
	stubbed := p
	stubbed.Models = make([]Model, len(p.Models))
	for i, m := range p.Models {
		stubbed.Models[i] = Model{Name: m.Name, Request: m.Request, Client: stubModel{long: !strings.HasPrefix(m.Name, "sim/")}}
	}
	stubbed.Transcripts = false
	est := Estimate{PerArm: map[string]ArmEstimate{}}
	for _, a := range p.Arms {
		est.Arms = append(est.Arms, a.Label)
	}
	res, err := Run(ctx, stubbed, nil)
	if err != nil {
		return est, err
	}
	leader := map[string]bool{}
	for _, a := range p.Arms {
		leader[a.Label] = a.Config.Leadership
	}
	for _, r := range res.Questions {
		a := est.PerArm[r.Arm]
		a.Units++
		a.Calls += int64(r.Calls)
		a.PromptTokens += r.PromptTokens
		a.CompletionTokens += r.CompletionTokens
		if leader[r.Arm] {
			a.MaxTieBreaks++
		}
		est.PerArm[r.Arm] = a
		est.Units++
		est.Calls += int64(r.Calls)
		est.PromptTokens += r.PromptTokens
		est.Completion += r.CompletionTokens
	}
	for _, a := range est.PerArm {
		est.MaxTieBreaks += a.MaxTieBreaks
	}
	return est, nil
}

// stubModel answers each call kind with a typical well-formed answer. The
// simulator writes short answers; language models asked for "at most 4
// sentences" write about four times as much, so the stub has both lengths.
type stubModel struct{ long bool }

const (
	shortReasoning = "From my view the findings point to A; B is the closest alternative."
	longReasoning  = "The presentation, the timeline and the key laboratory finding point to this option, " +
		"while the alternatives explain only part of the picture. The second option is the closest " +
		"alternative but does not account for the main finding. The question asks for the most likely " +
		"answer, and the classic association supports this choice over the rest."
	fact = "Finding 3 of the case supports the leading diagnosis"
)

func (m stubModel) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	r := shortReasoning
	if m.long {
		r = longReasoning
	}
	var text string
	switch req.Meta.Kind {
	case teamwork.KindAssess:
		text = `{"agents":3,"analysis":"` + r + `"}`
	case teamwork.KindRecruit:
		text = `{"roles":[{"name":"Internal Medicine","focus":"overall assessment"},{"name":"Cardiology","focus":"cardiac causes"},{"name":"Neurology","focus":"neurological causes"},{"name":"Pharmacology","focus":"drug effects"}]}`
	case teamwork.KindSynthesize:
		text = `{"facts":["` + fact + `","` + fact + `","` + fact + `"],"report":"` + r + `","quality":[{"agent":1,"score":0.71},{"agent":2,"score":0.75},{"agent":3,"score":0.43},{"agent":4,"score":0.6}]}`
	case teamwork.KindMediate:
		text = `{"summary":"` + r + `","leaning":"A"}`
	case teamwork.KindMonitorSelect:
		text = `{"agent":1,"concern":"` + r + `"}`
	case teamwork.KindMonitorRate:
		text = `{"quality":0.7,"debated_point":"` + r + `"}`
	case teamwork.KindTieBreak:
		text = `{"answer":"A","reasoning":"` + r + `"}`
	case teamwork.KindMonitorRespond:
		text = `{"response":"` + r + `","accepts":false,"ranking":["A","B","D","C"],"confidence":0.62}`
	case teamwork.KindPredict:
		text = `{"reasoning":"` + r + `","ranking":["A","B","D","C"],"confidence":0.62,"facts":["` + fact + `","` + fact + `"]}`
	default: // discuss, final
		text = `{"reasoning":"` + r + `","ranking":["A","B","D","C"],"confidence":0.62}`
	}
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	return llm.Response{Text: text, Usage: llm.Usage{PromptTokens: ceilDiv(n, 4) + 4*len(req.Messages), CompletionTokens: ceilDiv(len(text), 4)}, Attempts: 1}, nil
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// String renders the estimate as a table, one line per arm and a total.
func (e Estimate) String() string {
	var sb strings.Builder
	for _, a := range e.Arms {
		x := e.PerArm[a]
		fmt.Fprintf(&sb, "  %-24s %6d units  %8d calls (+ ≤%d tie-breaks)  %10d prompt + %9d completion tokens\n",
			a, x.Units, x.Calls, x.MaxTieBreaks, x.PromptTokens, x.CompletionTokens)
	}
	fmt.Fprintf(&sb, "  %-24s %6d units  %8d calls (+ ≤%d tie-breaks)  %10d prompt + %9d completion tokens\n",
		"total", e.Units, e.Calls, e.MaxTieBreaks, e.PromptTokens, e.Completion)
	return sb.String()
}
