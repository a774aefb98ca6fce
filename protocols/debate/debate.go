// Package debate is multi-agent debate (Du et al. 2023, "Improving Factuality
// and Reasoning in Language Models through Multiagent Debate") as a
// protocol.Protocol, "debate:n,r" or "debate:n=3,r=2": n agents answer
// independently (round 0 — the shared first answers of package
// firstanswer), then in each of r rounds every agent sees its own and the
// others' answers of the previous round (ranking, confidence, reasoning) and
// gives an updated answer; all agents of a round answer at once. The
// decision is the plurality of the last round's first choices; a tie is
// broken by a seeded draw among the tied options, recorded as such. An
// answer that cannot be read does not vote (and its agent answers afresh in
// the next round). Calls: n·(r+1).
package debate

import (
	"context"
	"embed"
	"fmt"
	"io"
	"strings"
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

var schema = kit.Schema(kit.KindRevise, kit.P("reasoning", kit.String), kit.P("ranking", kit.Strings), kit.P("confidence", kit.Number))

// DefaultRounds is r when the spec gives none (Du et al.'s 3 agents × 2 rounds).
const DefaultRounds = 2

// Protocol is multi-agent debate.
var Protocol = &protocol.Protocol{
	Name: "debate",
	Doc: "Multi-agent debate (Du et al. 2023): n agents answer independently, then for r rounds each sees the " +
		"others' previous answers and revises; the decision is the plurality of the last round (a tie: seeded draw).",
	Parse:      parseArm,
	Presets:    []string{"debate:n=3,r=2"},
	Accounting: writeAccounting,
	Stub:       kit.Stub,
	Prompts:    kit.HashOf(firstanswer.Prompts, prompts),
}

// RuleDebate is the decision rule.
const RuleDebate = "plurality_last_round"

func parseArm(spec string, s protocol.Settings) (protocol.Arm, bool, error) {
	sp, ok, err := kit.ParseSpec(spec, "debate")
	if !ok || err != nil {
		return nil, ok, err
	}
	if err := sp.Check("n", "r"); err != nil {
		return nil, true, err
	}
	if len(sp.Bare) > 2 {
		return nil, true, fmt.Errorf("debate takes n and r (debate:3,2 or debate:n=3,r=2)")
	}
	a := Arm{temp: s.AgentTemp, structured: s.Structured, maxTokens: s.MaxTokens}
	if a.N, err = sp.Int("n", 0, kit.SharedTeam(s), 2, kit.MaxAgents); err != nil {
		return nil, true, err
	}
	if a.R, err = sp.Int("r", 1, DefaultRounds, 0, 10); err != nil {
		return nil, true, err
	}
	return a, true, nil
}

func writeAccounting(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "calls = n·(r+1) (n first answers, n revisions per round)")
	fmt.Fprintln(tw, "arm\tn\tr\tanswer\tdebate\ttotal")
	for _, n := range []int{2, 3, 4} {
		for _, r := range []int{0, 1, 2, 3} {
			fmt.Fprintf(tw, "debate:n=%d,r=%d\t%d\t%d\t%d\t%d\t%d\n", n, r, n, r, n, n*r, n*(r+1))
		}
	}
	return tw.Flush()
}

// Arm is one debate configuration: N agents, R rounds.
type Arm struct {
	N, R       int
	temp       float64
	structured bool
	maxTokens  int
}

// Protocol is debate's Protocol.
func (a Arm) Protocol() *protocol.Protocol { return Protocol }

// Info describes the arm: its rounds are the turns column; agents of a round
// answer in parallel.
func (a Arm) Info() protocol.ArmInfo {
	return protocol.ArmInfo{Label: fmt.Sprintf("debate:n=%d,r=%d", a.N, a.R), Protocol: Protocol.Name,
		Turns: a.R, Discussion: "parallel", AgentPolicy: fmt.Sprintf("fixed:%d", a.N), Structured: a.structured, AgentTemp: a.temp}
}

// Calls is n·(r+1).
func (a Arm) Calls(int) (int, int) { return a.N * (a.R + 1), 0 }

// Details is debate's record (protocol_json).
type Details struct {
	N     int                `json:"n"`
	R     int                `json:"r"`
	Votes map[string]float64 `json:"votes"` // the last round's, per option that got one
	Tie   bool               `json:"tie"`
	Drawn string             `json:"drawn,omitempty"`
}

// Run debates one item.
func (a Arm) Run(ctx context.Context, c llm.Client, item qa.Item, u protocol.Unit) (*protocol.Outcome, error) {
	s := kit.NewSession(c, item, u, a.structured, a.maxTokens)
	fa, err := firstanswer.Ask(ctx, s, a.N, a.temp)
	if err != nil {
		return nil, err
	}
	s.Out.N, s.Out.Roles = a.N, kit.Roles(a.N)
	s.Out.Rounds = [][]answer.Answer{firstanswer.Answers(fa)}
	for round := 1; round <= a.R; round++ {
		next, err := a.round(ctx, s, round, s.Out.Final())
		if err != nil {
			return nil, err
		}
		s.Out.Rounds = append(s.Out.Rounds, next)
	}
	letters := item.Letters()
	d, drawn := aggregator.PluralityWithDraw(letters, kit.Firsts(s.Out.Final()), s.DrawSeed(kit.KindTieDraw, -1))
	det := Details{N: a.N, R: a.R, Votes: kit.VoteMap(letters, d.Scores), Tie: d.Tie}
	if drawn {
		det.Drawn = d.Winner
		s.Out.TieBrokenBy = "seeded_draw"
	}
	s.Out.Details = det
	if d.Voters == 0 {
		s.SafeDefault(d, aggregator.BranchNoVotes, "no_votes: no agent gave a readable answer in the last round")
		return s.Out, nil
	}
	s.Commit(d, RuleDebate)
	return s.Out, nil
}

// round asks every agent at once for its revision of prev.
func (a Arm) round(ctx context.Context, s *kit.Session, round int, prev []answer.Answer) ([]answer.Answer, error) {
	out := make([]answer.Answer, a.N)
	system, err := prompts.Render("system", nil)
	if err != nil {
		return nil, err
	}
	err = kit.Parallel(ctx, a.N, func(ctx context.Context, i int) error {
		user, err := prompts.Render("revise", a.data(s, round, i, prev))
		if err != nil {
			return err
		}
		text, err := s.Do(ctx, kit.Call{Phase: kit.PhaseDebate, Kind: kit.KindRevise, Turn: round, Agent: i,
			Role: fmt.Sprintf("Expert %d", i+1), Temperature: a.temp, System: system, User: user, Schema: schema})
		if err != nil {
			return err
		}
		out[i] = answer.Parse(text, s.Options)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, ans := range out {
		s.NoteAnswer(kit.KindRevise, round, i, ans)
	}
	return out, nil
}

type promptData struct {
	Question      string
	Own, Others   string
	Round, Rounds int
	JSON          bool
}

// data is agent i's view of the previous round: its own answer as
// "POSITION you", the others' as "POSITION agent N" with their reasoning.
func (a Arm) data(s *kit.Session, round, i int, prev []answer.Answer) *promptData {
	var own, others strings.Builder
	own.WriteString(kit.PositionLine("you", prev[i]))
	own.WriteString(kit.ReasoningLine("you", prev[i], 0))
	for j, p := range prev {
		if j == i {
			continue
		}
		who := fmt.Sprintf("agent %d", j+1)
		others.WriteString(kit.PositionLine(who, p))
		others.WriteString(kit.ReasoningLine(who, p, 0))
	}
	return &promptData{Question: s.Question, Own: own.String(), Others: others.String(), Round: round, Rounds: a.R, JSON: a.structured}
}
