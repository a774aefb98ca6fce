package baseline

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

// DefaultSamples is sc's k when the spec gives none (Wang et al. report
// most of the gain by 5–10 samples).
const DefaultSamples = 5

// SC is self-consistency (docs/protocols.md#sc): k sampled chain-of-thought
// answers — the shared first answers of agents 0…k−1 — and their plurality;
// a tie is a seeded draw, recorded as such. Calls: k.
var SC = &protocol.Protocol{
	Name: "sc",
	Doc: "Self-consistency (Wang et al. 2023): k chain-of-thought answers sampled at the agent temperature " +
		"(default 0.7; they are the shared first answers of agents 0…k−1), decided by plurality; a tie is " +
		"broken by a seeded draw among the tied options and recorded as such.",
	Parse:      parseSC,
	Presets:    []string{"sc:k=5"},
	Aliases:    []string{"self-consistency", "selfconsistency", "self_consistency"},
	Accounting: scAccounting,
	Stub:       kit.Stub,
	Prompts:    kit.HashOf(firstanswer.Prompts),
}

// RuleSC is sc's decision rule.
const RuleSC = "plurality"

func parseSC(spec string, s protocol.Settings) (protocol.Arm, bool, error) {
	sp, ok, err := kit.ParseSpec(spec, "sc")
	if !ok || err != nil {
		return nil, ok, err
	}
	if err := sp.Check("k"); err != nil {
		return nil, true, err
	}
	if len(sp.Bare) > 1 {
		return nil, true, fmt.Errorf("sc takes one option, the number of samples (sc:5 or sc:k=5)")
	}
	k, err := sp.Int("k", 0, DefaultSamples, 1, 64)
	if err != nil {
		return nil, true, err
	}
	if s.AgentTemp <= 0 {
		return nil, true, fmt.Errorf("sc samples at the agent temperature, which is %g: greedy samples of one model are one answer k times; use --agent-temperature > 0 (default 0.7)", s.AgentTemp)
	}
	return scArm{k: k, temp: s.AgentTemp, structured: s.Structured, maxTokens: s.MaxTokens}, true, nil
}

func scAccounting(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "calls = k (k sampled first answers)")
	fmt.Fprintln(tw, "arm\tk\tanswer\ttotal")
	for _, k := range []int{1, 3, 5, 10} {
		fmt.Fprintf(tw, "sc:k=%d\t%d\t%d\t%d\n", k, k, k, k)
	}
	return tw.Flush()
}

type scArm struct {
	k          int
	temp       float64
	structured bool
	maxTokens  int
}

func (a scArm) Protocol() *protocol.Protocol { return SC }

func (a scArm) Info() protocol.ArmInfo {
	return protocol.ArmInfo{Label: fmt.Sprintf("sc:k=%d", a.k), Protocol: SC.Name, AgentPolicy: fmt.Sprintf("fixed:%d", a.k),
		Structured: a.structured, AgentTemp: a.temp}
}

func (a scArm) Calls(int) (int, int) { return a.k, 0 }

// SCDetails is sc's record (protocol_json).
type SCDetails struct {
	K           int                `json:"k"`
	Temperature float64            `json:"temperature"`
	Votes       map[string]float64 `json:"votes"` // per option that got one
	Tie         bool               `json:"tie"`
	Drawn       string             `json:"drawn,omitempty"` // the tied option the seeded draw chose
}

func (a scArm) Run(ctx context.Context, c llm.Client, item qa.Item, u protocol.Unit) (*protocol.Outcome, error) {
	s := kit.NewSession(c, item, u, a.structured, a.maxTokens)
	fa, err := firstanswer.Ask(ctx, s, a.k, a.temp)
	if err != nil {
		return nil, err
	}
	answers := firstanswer.Answers(fa)
	s.Out.N, s.Out.Roles, s.Out.Rounds = a.k, kit.Roles(a.k), [][]answer.Answer{answers}
	letters := item.Letters()
	d, how := s.Plurality(kit.Firsts(answers)) // a tie: kit.BreakTie (triage: escalated; else a seeded draw)
	det := SCDetails{K: a.k, Temperature: a.temp, Votes: kit.VoteMap(letters, d.Scores), Tie: d.Tie}
	s.Out.Details = det
	if d.Voters == 0 {
		s.SafeDefault(d, aggregator.BranchNoVotes, "no_votes: no sample gave a readable answer")
		return s.Out, nil
	}
	if how != "" {
		s.Out.TieBrokenBy = how
		if how == kit.TieSeededDraw {
			det.Drawn = d.Winner
		}
		s.Out.Details = det
	}
	s.Commit(d, RuleSC)
	return s.Out, nil
}
