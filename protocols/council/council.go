// Package council is seed 001's three-stage council as a protocol.Protocol
// ("council:balanced", "council:strategy=risk-averse", "council:novelty,n=5";
// strategies balanced, risk-averse, goal-seeking, novelty;
// docs/protocols.md#council):
//
//  1. N experts give their independent first answers at once (the shared
//     first answer of package firstanswer).
//  2. Each expert reviews the others' answers — never its own — shown under
//     anonymous labels (Alpha, Bravo, …) in an order drawn per reviewer with a
//     seed derived from the question and the reviewer (so which expert is
//     "Alpha" carries no information, and the draw is reproducible): strengths
//     and weaknesses first, then a final ranking of the labels. The rankings are mapped
//     back to experts and aggregated into each expert's mean position
//     (aggregator.MeanRanks).
//  3. A chairman (leader temperature) sees the answers, the aggregate peer
//     ranking and the evaluations (others' text in full, or cut at
//     --peer-chars), decides under the strategy's directive (seed 001 §5.3's
//     skeleton) — reasoning first, then the answer — and attributes the
//     decision to experts in a JSON block, which is parsed and stored (protocol_json "contributors");
//     a malformed block is a recorded parse failure, never a guessed
//     attribution.
//
// The decision is the chairman's answer; an unreadable answer falls back to
// the safe default (abstention). Stages 1 and 2 do not depend on the
// strategy, so the four strategies share them through the cache and differ
// only in the chairman's call. Calls: 2N+1.
package council

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
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

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompts = kit.MustPrompts(promptFS, "prompts/*.tmpl")

var (
	reviewSchema = kit.Schema(kit.KindPeerReview,
		kit.P("reviews", kit.ArrayOf(kit.Object{kit.P("response", kit.String), kit.P("strengths", kit.String), kit.P("weaknesses", kit.String)})),
		kit.P("final_ranking", kit.Strings))
	chairSchema = kit.Schema(kit.KindChairman,
		kit.P("reasoning", kit.String), kit.P("answer", kit.String),
		kit.P("contributors", kit.ArrayOf(kit.Object{kit.P("id", kit.Integer), kit.P("reason", kit.String), kit.P("weight", kit.Number)})))
)

// Protocol is seed 001's council.
var Protocol = &protocol.Protocol{
	Name: "council",
	Doc: "Seed 001's council: N independent answers; each expert reviews the others' under shuffled anonymous " +
		"labels (strengths, weaknesses, ranking); a chairman with a strategy prompt (balanced, risk-averse, " +
		"goal-seeking, novelty) decides and attributes contributions in a JSON block.",
	Parse:      parseArm,
	Presets:    presets(),
	Accounting: writeAccounting,
	Stub:       kit.Stub,
	Prompts:    promptsHash,
	Sim:        &Sim,
}

// promptsHash is the hash of council's prompt set: the shared first answer's
// templates, council's own and the strategies' directives (strategy.go),
// which the templates do not hold.
func promptsHash() string {
	h := sha256.Sum256([]byte(kit.HashOf(firstanswer.Prompts, prompts)() + "\x00" + directivesHash()))
	return hex.EncodeToString(h[:])
}

// Decision rules (decision_rule).
const (
	RuleChairman         = "chairman"
	RuleChairmanUnparsed = "chairman_unparsed"
)

func presets() []string {
	var out []string
	for _, s := range StrategyNames() {
		out = append(out, "council:"+s)
	}
	return out
}

func parseArm(spec string, s protocol.Settings) (protocol.Arm, bool, error) {
	sp, ok, err := kit.ParseSpec(spec, "council")
	if !ok || err != nil {
		return nil, ok, err
	}
	if err := sp.Check("n", "strategy"); err != nil {
		return nil, true, err
	}
	a := Arm{Strategy: DefaultStrategy}
	if v, ok := sp.Keyed["strategy"]; ok {
		a.Strategy = v
	}
	switch {
	case len(sp.Bare) > 1 || len(sp.Bare) == 1 && sp.Keyed["strategy"] != "":
		return nil, true, fmt.Errorf("council takes one strategy (council:risk-averse or council:strategy=risk-averse)")
	case len(sp.Bare) == 1:
		a.Strategy = sp.Bare[0]
	}
	if a.directive, err = directive(a.Strategy); err != nil {
		return nil, true, err
	}
	if a.Panel, err = kit.NewPanel(sp, s); err != nil {
		return nil, true, err
	}
	return a, true, nil
}

func writeAccounting(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "calls = 2N+1 (N first answers, N peer reviews, 1 chairman)")
	fmt.Fprintln(tw, "arm\tN\tanswer\treview\tchairman\ttotal")
	for _, arm := range presets() {
		for _, n := range []int{2, 3, 4, 5} {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t1\t%d\n", arm, n, n, n, 2*n+1)
		}
	}
	return tw.Flush()
}

// Arm is one council configuration.
type Arm struct {
	kit.Panel
	Strategy  string
	directive string
}

// Protocol is council's Protocol.
func (a Arm) Protocol() *protocol.Protocol { return Protocol }

// Info describes the arm.
func (a Arm) Info() protocol.ArmInfo { return a.Panel.Info(Protocol, a.Label("council", a.Strategy)) }

// Calls is 2N+1.
func (a Arm) Calls(int) (int, int) { return 2*a.N + 1, 0 }

// Run runs the three stages on one item.
func (a Arm) Run(ctx context.Context, c llm.Client, item qa.Item, u protocol.Unit) (*protocol.Outcome, error) {
	s := kit.NewSession(c, item, u, a.Structured, a.MaxTokens)
	fa, err := firstanswer.Ask(ctx, s, a.N, a.AgentTemp)
	if err != nil {
		return nil, err
	}
	answers := firstanswer.Answers(fa)
	s.Out.N, s.Out.Roles, s.Out.Rounds = a.N, kit.Roles(a.N), [][]answer.Answer{answers}
	assign, reviews, err := a.review(ctx, s, answers)
	if err != nil {
		return nil, err
	}
	standings := aggregator.MeanRanks(a.N, peerRankings(assign, reviews))
	ch, err := a.chair(ctx, s, answers, assign, reviews, standings)
	if err != nil {
		return nil, err
	}
	a.decide(s, answers, assign, reviews, standings, ch)
	return s.Out, nil
}

// peerRankings maps each readable review's ranking of labels back to experts.
func peerRankings(assign []Assignment, reviews []Review) [][]int {
	out := make([][]int, len(reviews))
	for i, rv := range reviews {
		for _, k := range rv.Ranking {
			out[i] = append(out[i], assign[i].Agents[k])
		}
	}
	return out
}

// decide records the chairman's decision and the council's record.
func (a Arm) decide(s *kit.Session, answers []answer.Answer, assign []Assignment, reviews []Review, standings []aggregator.RankStanding, ch Chairman) {
	letters := s.Item.Letters()
	d := aggregator.Plurality(letters, kit.Firsts(answers))
	d.Tie, d.Tied, d.Winner = false, nil, ch.Answer
	s.Out.Details = a.details(s, answers, assign, reviews, standings, ch, d)
	if ch.Answer == "" {
		s.SafeDefault(d, RuleChairmanUnparsed, fmt.Sprintf("chairman_unparsed: %s (%s)", ch.Err, ch.Reason))
		return
	}
	s.Commit(d, RuleChairman)
}
