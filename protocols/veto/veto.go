// Package veto is seed 004's decision rules as a protocol.Protocol ("veto",
// "veto:n=5"): N agents give their independent first answers at once (the
// shared first answer of package firstanswer — reasoning, ranking,
// confidence — with the stated risk and veto flag the rule reads appended,
// ballot.go), and aggregator.VetoRule decides in the
// seed's order of precedence — any veto flag → the safe default; any
// unreadable answer or veto flag → the safe default (the seed's agent
// "defaults to REFUSE" when its output does not parse); all agree → that
// answer (unanimous); at least two thirds agree → that answer
// (strong_majority); otherwise → the safe default (split). On a
// multiple-choice item the safe default is abstention. Every row records the
// agreement, the highest stated risk (highlighted above 0.75 even when
// outvoted), the mean confidence, the vote breakdown, the vetoes and the
// rule applied (decision_rule). Calls: N. The team defaults to --agents,
// else 3 (the seed's three agents).
//
// On a triage item the rule is the same and safety-first: the safe default
// is the most urgent level, so any agent's veto flag (on a case, its
// emergency flag: committing to a less urgent level is unsafe) escalates
// the case to the most urgent level whatever the others chose, and so do a
// split (the seed's "WARN as the safest default": split decisions go to the
// most urgent level, never to abstention) and an unreadable answer (the
// seed's agent "defaults to REFUSE"); unanimity or a strong majority (≥ 2/3)
// without a veto is that level, less urgent ones included (the seed's "2/3
// ACT proceeds despite one dissent"). The reason is recorded as the
// escalation in protocol_json, beside the breakdown by level code.
package veto

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/qa"
)

// Protocol is seed 004's veto rule.
var Protocol = &protocol.Protocol{
	Name: "veto",
	Doc: "Seed 004's decision rules: N independent first answers with risk and a veto flag; unanimous or a strong " +
		"majority (≥ 2/3) answers, a split, any veto or any unreadable answer falls back to the safe default (abstention; " +
		"on triage: the most urgent level).",
	Parse:      parseArm,
	Presets:    []string{"veto"},
	Accounting: writeAccounting,
	Stub:       kit.Stub,
	Prompts:    kit.HashOf(firstanswer.Prompts),
}

func parseArm(spec string, s protocol.Settings) (protocol.Arm, bool, error) {
	p, ok, err := kit.ParsePanel(spec, "veto", s)
	if !ok || err != nil {
		return nil, ok, err
	}
	return Arm{p}, true, nil
}

func writeAccounting(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "calls = N (N first answers)")
	fmt.Fprintln(tw, "arm\tN\tanswer\ttotal")
	for _, n := range []int{2, 3, 4, 5} {
		fmt.Fprintf(tw, "veto\t%d\t%d\t%d\n", n, n, n)
	}
	return tw.Flush()
}

// Arm is one veto configuration.
type Arm struct{ kit.Panel }

// Protocol is veto's Protocol.
func (a Arm) Protocol() *protocol.Protocol { return Protocol }

// Info describes the arm.
func (a Arm) Info() protocol.ArmInfo {
	info := a.Panel.Info(Protocol, a.Label("veto"))
	info.LeaderTemp = 0 // no judge or chairman
	return info
}

// Calls is N.
func (a Arm) Calls(int) (int, int) { return a.N, 0 }

// Details is veto's record (protocol_json). Agents are numbered from 1.
type Details struct {
	N              int                `json:"n"`
	Rule           string             `json:"rule"`            // unanimous, strong_majority, split, veto, parse_failure
	AgreementPct   float64            `json:"agreement_pct"`   // top count / N × 100
	Votes          map[string]float64 `json:"votes"`           // per option that got a vote
	Vetoes         []int              `json:"vetoes"`          // agents that raised a veto
	ParseFailures  []int              `json:"parse_failures"`  // agents whose answer or veto flag could not be read
	MaxRisk        float64            `json:"max_risk"`        // -1 when no agent stated a risk
	HighRisk       bool               `json:"high_risk"`       // max_risk > 0.75
	MeanConfidence float64            `json:"mean_confidence"` // over agents that stated one; -1 when none did
	Risks          []float64          `json:"risks"`           // per agent, -1 = not stated
	// Levels is the vote breakdown by urgency level code on a triage item
	// (omitted on multiple choice).
	Levels map[string]float64 `json:"levels,omitempty"`
}

// Run asks the panel and applies seed 004's rule.
func (a Arm) Run(ctx context.Context, c llm.Client, item qa.Item, u protocol.Unit) (*protocol.Outcome, error) {
	s := kit.NewSession(c, item, u, a.Structured, a.MaxTokens)
	fa, err := ask(ctx, s, a.N, a.AgentTemp)
	if err != nil {
		return nil, err
	}
	answers := make([]answer.Answer, len(fa))
	for i, f := range fa {
		answers[i] = f.Answer
	}
	s.Out.N, s.Out.Roles, s.Out.Rounds = a.N, kit.Roles(a.N), [][]answer.Answer{answers}
	ballots := make([]aggregator.VetoBallot, a.N)
	risks := make([]float64, a.N)
	for i, f := range fa {
		ballots[i] = aggregator.VetoBallot{Choice: f.First(), Veto: f.Veto, Unreadable: f.First() == "" || !f.VetoRead,
			Risk: f.Risk, Confidence: f.Confidence}
		risks[i] = f.Risk
	}
	letters := item.Letters()
	v := aggregator.VetoRule(letters, ballots)
	s.Out.Details = Details{N: a.N, Rule: v.Branch, AgreementPct: 100 * v.Agreement, Votes: kit.VoteMap(letters, v.Decision.Scores),
		Vetoes: kit.Numbered(v.Vetoes), ParseFailures: kit.Numbered(v.Failures), MaxRisk: v.MaxRisk, HighRisk: v.HighRisk,
		MeanConfidence: v.MeanConfidence, Risks: risks, Levels: levels(item, v.Decision.Scores)}
	if !v.Fallback {
		s.Commit(v.Decision, v.Branch)
		return s.Out, nil
	}
	s.SafeDefault(v.Decision, v.Branch, fallbackReason(v, letters))
	return s.Out, nil
}

// fallbackReason says why the rule fell back: "code: detail".
func fallbackReason(v aggregator.VetoConsensus, letters []string) string {
	switch v.Branch {
	case aggregator.BranchVeto:
		return "veto: vetoed by " + kit.AgentList(v.Vetoes)
	case aggregator.BranchParseFailure:
		return "parse_failure: the answer or veto flag of " + kit.AgentList(v.Failures) + " could not be read"
	}
	return fmt.Sprintf("split: agreement %.0f%% < 2/3 (%s)", 100*v.Agreement, kit.Describe(letters, v.Decision.Scores))
}

// levels is the vote breakdown by level code on a triage item, nil on
// multiple choice.
func levels(item qa.Item, scores []float64) map[string]float64 {
	if !item.IsTriage() {
		return nil
	}
	m := map[string]float64{}
	for i, sc := range scores {
		if sc != 0 && i < len(item.Options) {
			m[item.Code(item.Options[i].Letter)] = sc
		}
	}
	return m
}
