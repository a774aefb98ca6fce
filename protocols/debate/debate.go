// Package debate is multi-agent debate (Du et al. 2023, "Improving Factuality
// and Reasoning in Language Models through Multiagent Debate", §2 and their
// code, composable-models/llm_multiagent_debate, mmlu/gen_mmlu.py) as a
// protocol.Protocol, "debate:n,r" or "debate:n=3,r=2": n agents debate for r
// rounds, the first included. Round 1 is the n shared first answers of
// package firstanswer (the same requests as vote's, sc's, judge's…). Each
// agent keeps its own conversation — the first-answer system and user
// messages, its own replies as it wrote them — and in every later round is
// told the other agents' replies of the previous round, as they wrote them
// (bounded only by --peer-chars), and gives an updated answer; all agents
// of a round answer at once. The decision is the plurality of the last
// round's first choices; a tie is broken by a seeded draw among the tied
// options, recorded as such. An answer that cannot be read does not vote.
// Calls: n·r. debate:n,1 is the independent answers alone (n calls, their
// plurality): the no-debate control at the same prompts. Under
// --prompt-layout shared (the default; layout.go) a revision shows every
// agent's replies of every earlier round in one block, the same bytes for
// every agent, before the agent's own part; --prompt-layout source sends
// the conversation above.
//
// docs/protocols.md#debate has the source, the rules, the call formula and
// the deviations from Du et al.
package debate

import (
	"context"
	"embed"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

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

// DefaultRounds is r when the spec gives none: Du et al.'s 3 agents × 2
// rounds (the first answers and one round of debate).
const DefaultRounds = 2

// MaxRounds bounds r.
const MaxRounds = 10

// Protocol is multi-agent debate.
var Protocol = &protocol.Protocol{
	Name: "debate",
	Doc: "Multi-agent debate (Du et al. 2023): r rounds, the first being n independent answers; in each later round " +
		"every agent, continuing its own conversation, is shown the others' previous replies and updates its answer; " +
		"the decision is the plurality of the last round (a tie: seeded draw). n·r calls.",
	Parse:      parseArm,
	Presets:    []string{"debate:n=3,r=2"},
	Aliases:    []string{"multi-agent-debate", "mad"},
	Accounting: writeAccounting,
	Stub:       kit.Stub,
	Prompts:    kit.HashOf(firstanswer.Prompts, prompts),
	Sim:        &Sim,
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
	a := Arm{temp: s.AgentTemp, structured: s.Structured, maxTokens: s.MaxTokens, peerChars: s.PeerChars, shared: s.SharedLayout()}
	if a.N, err = sp.Int("n", 0, kit.SharedTeam(s), 2, kit.MaxAgents); err != nil {
		return nil, true, err
	}
	if a.R, err = sp.Int("r", 1, DefaultRounds, 1, MaxRounds); err != nil {
		return nil, true, fmt.Errorf("%w (r counts every round, the first answers included, as in Du et al.: debate:3,2 is 3 first answers and one round of debate; r=1 is the first answers alone)", err)
	}
	return a, true, nil
}

func writeAccounting(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "calls = n·r (r rounds, the first included: round 1 is the n shared first answers, each later round n revisions)")
	fmt.Fprintln(tw, "arm\tn\tr\tanswer\tdebate\ttotal")
	for _, n := range []int{2, 3, 4} {
		for _, r := range []int{1, 2, 3} {
			fmt.Fprintf(tw, "debate:n=%d,r=%d\t%d\t%d\t%d\t%d\t%d\n", n, r, n, r, n, n*(r-1), n*r)
		}
	}
	return tw.Flush()
}

// Arm is one debate configuration: N agents, R rounds (the first answers
// included).
type Arm struct {
	N, R       int
	temp       float64
	structured bool
	maxTokens  int
	peerChars  int  // bound on each peer reply shown (bytes); 0 = the full reply
	shared     bool // --prompt-layout shared: every round's replies in one block, before the agent's own part (layout.go)
}

// Protocol is debate's Protocol.
func (a Arm) Protocol() *protocol.Protocol { return Protocol }

// Info describes the arm: its turns are the rounds of debate after the first
// answers (R−1), as teamwork's turns are its discussion turns after the
// first predictions; agents of a round answer in parallel.
func (a Arm) Info() protocol.ArmInfo {
	return protocol.ArmInfo{Label: fmt.Sprintf("debate:n=%d,r=%d", a.N, a.R), Protocol: Protocol.Name,
		Turns: a.R - 1, Discussion: "parallel", AgentPolicy: fmt.Sprintf("fixed:%d", a.N), Structured: a.structured, AgentTemp: a.temp}
}

// Calls is n·r.
func (a Arm) Calls(int) (int, int) { return a.N * a.R, 0 }

// Details is debate's record (protocol_json).
type Details struct {
	N     int                `json:"n"`
	R     int                `json:"r"`
	Votes map[string]float64 `json:"votes"` // the last round's, per option that got one
	Tie   bool               `json:"tie"`
	Drawn string             `json:"drawn,omitempty"`
}

// agent is one debater's conversation: the system message and the turns so
// far (user prompt, its reply, …), its replies as written.
type agent struct {
	system string
	turns  []llm.Message
	last   string // its latest reply, as written
}

// Run debates one item.
func (a Arm) Run(ctx context.Context, c llm.Client, item qa.Item, u protocol.Unit) (*protocol.Outcome, error) {
	s := kit.NewSession(c, item, u, a.structured, a.maxTokens)
	agents, first, err := a.firstRound(ctx, s)
	if err != nil {
		return nil, err
	}
	s.Out.N, s.Out.Roles = a.N, kit.Roles(a.N)
	s.Out.Rounds = [][]answer.Answer{first}
	b := &board{}
	for round := 2; round <= a.R; round++ {
		next, err := a.round(ctx, s, round, agents, b)
		if err != nil {
			return nil, err
		}
		s.Out.Rounds = append(s.Out.Rounds, next)
	}
	letters := item.Letters()
	d, how := s.Plurality(kit.Firsts(s.Out.Final())) // a tie: kit.BreakTie (triage: escalated; else a seeded draw)
	det := Details{N: a.N, R: a.R, Votes: kit.VoteMap(letters, d.Scores), Tie: d.Tie}
	if how == kit.TieSeededDraw {
		det.Drawn = d.Winner
	}
	s.Out.TieBrokenBy = how
	s.Out.Details = det
	if d.Voters == 0 {
		s.SafeDefault(d, aggregator.BranchNoVotes, "no_votes: no agent gave a readable answer in the last round")
		return s.Out, nil
	}
	s.Commit(d, RuleDebate)
	return s.Out, nil
}

// firstRound is round 1: every agent's shared first answer (the request of
// firstanswer.Call, unchanged), which opens its conversation.
func (a Arm) firstRound(ctx context.Context, s *kit.Session) ([]agent, []answer.Answer, error) {
	agents := make([]agent, a.N)
	out := make([]answer.Answer, a.N)
	err := s.Parallel(ctx, a.N, func(ctx context.Context, i int) error {
		c, err := firstanswer.Call(s, i, a.temp)
		if err != nil {
			return err
		}
		text, err := s.Do(ctx, c)
		if err != nil {
			return err
		}
		agents[i].system = c.System
		agents[i].say(c.User, text)
		out[i] = firstanswer.Parse(text, s.Options).Answer
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for i, ans := range out {
		s.NoteAnswer(kit.KindFirst, 0, i, ans)
	}
	return agents, out, nil
}

// round asks every agent at once for its updated answer, continuing its own
// conversation with the other agents' replies of the previous round (in the
// shared layout: the board, to which it first posts the previous round). The
// revision of round t is call turn t−1 (its index in Outcome.Rounds).
func (a Arm) round(ctx context.Context, s *kit.Session, round int, agents []agent, b *board) ([]answer.Answer, error) {
	users, err := a.users(s, round, agents, b)
	if err != nil {
		return nil, err
	}
	out := make([]answer.Answer, a.N)
	replies := make([]string, a.N)
	err = s.Parallel(ctx, a.N, func(ctx context.Context, i int) error {
		c := kit.Call{Phase: kit.PhaseDebate, Kind: kit.KindRevise, Turn: round - 1, Agent: i,
			Role: fmt.Sprintf("Expert %d", i+1), Temperature: a.temp, System: agents[i].system,
			History: agents[i].turns, User: users[i], Schema: schema}
		if a.shared {
			c.History = nil
		}
		text, err := s.Do(ctx, c)
		if err != nil {
			return err
		}
		replies[i] = text
		out[i] = answer.Parse(text, s.Options)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range agents {
		agents[i].say(users[i], replies[i])
		s.NoteAnswer(kit.KindRevise, round-1, i, out[i])
	}
	return out, nil
}

// users are the agents' user messages of round: Du et al.'s prompt after
// each agent's conversation, or (shared layout) the board with the previous
// round posted, then each agent's tail.
func (a Arm) users(s *kit.Session, round int, agents []agent, b *board) ([]string, error) {
	users := make([]string, a.N)
	if a.shared {
		last := make([]string, a.N)
		for j := range agents {
			last[j] = agents[j].last
		}
		if err := a.post(b, round-1, last); err != nil {
			return nil, err
		}
	}
	for i := range agents {
		var user string
		var err error
		if a.shared {
			user, err = a.sharedUser(agents[i].turns[0].Content, b, i, round, s.Structured)
		} else {
			user, err = prompts.Render("revise", a.data(s, i, agents))
		}
		if err != nil {
			return nil, err
		}
		users[i] = user
	}
	return users, nil
}

// say appends a user turn and the agent's reply to its conversation.
func (g *agent) say(user, reply string) {
	g.turns = append(g.turns, llm.Message{Role: llm.RoleUser, Content: user}, llm.Message{Role: llm.RoleAssistant, Content: asWritten(reply)})
	g.last = reply
}

// emptyReply stands in for a reply with no text, in the agent's own
// conversation and in the others' prompts (an empty assistant message is
// refused by some chat APIs).
const emptyReply = "(no reply)"

// asWritten is a reply as it goes back into a conversation: unchanged, or
// emptyReply when it has no text.
func asWritten(reply string) string {
	if strings.TrimSpace(reply) == "" {
		return emptyReply
	}
	return reply
}

type promptData struct {
	Peers []string // the other agents' latest replies, in agent order
	JSON  bool
}

// data is agent i's view of the previous round: every other agent's latest
// reply as written, in agent order, unlabelled (Du et al.'s "One agent
// solution"), each cut to peerChars bytes when that is set.
func (a Arm) data(s *kit.Session, i int, agents []agent) *promptData {
	d := &promptData{JSON: s.Structured}
	for j := range agents {
		if j != i {
			d.Peers = append(d.Peers, bound(asWritten(agents[j].last), a.peerChars))
		}
	}
	return d
}

// bound cuts text to at most n bytes (never inside a UTF-8 sequence),
// marking a cut with "…"; n ≤ 0 keeps the full text. Unlike kit.Truncate it
// keeps the text's white space: a reply is shown as written.
func bound(text string, n int) string {
	if n <= 0 || len(text) <= n {
		return text
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "…"
}
