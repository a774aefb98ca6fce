package kit

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
)

// Session is one question's run of an arm: where its calls go and what it
// records.
type Session struct {
	Client     llm.Client
	Item       qa.Item
	Unit       protocol.Unit
	Structured bool // ask for JSON through the backend's schema support
	MaxTokens  int
	// Options are the item's options as the answer parser takes them.
	Options []answer.Option
	// Question is the rendered question block (QuestionBlock).
	Question string
	Out      *protocol.Outcome
}

// NewSession starts a question's run.
func NewSession(c llm.Client, item qa.Item, u protocol.Unit, structured bool, maxTokens int) *Session {
	return &Session{Client: c, Item: item, Unit: u, Structured: structured, MaxTokens: maxTokens,
		Options: AnswerOptions(item), Question: QuestionBlock(item), Out: &protocol.Outcome{}}
}

// AnswerOptions are the item's options as the answer parser takes them. On
// a triage item each option's aliases are its level's code and name
// (levelAliases), so an answer naming the level ("em", "Emergency care") is
// read as its option; a multiple-choice option has none.
func AnswerOptions(item qa.Item) []answer.Option {
	opts := make([]answer.Option, len(item.Options))
	for i, o := range item.Options {
		opts[i] = answer.Option{Letter: o.Letter, Text: o.Text}
		if r := item.Rank(o.Letter); r >= 0 && r < len(item.Triage.Scale) {
			opts[i].Aliases = levelAliases(item.Triage.Scale[r])
		}
	}
	return opts
}

// levelAliases are the names an answer may give a triage level: its code,
// its name, the name with hyphens as spaces ("Self care"), and the name
// without a final " care" ("Emergency") or, for a one-word name without
// "care", with it ("Non-emergency care").
func levelAliases(l qa.Level) []string {
	out := []string{l.Code}
	name := strings.TrimSpace(l.Name)
	if name == "" {
		return out
	}
	names := []string{name}
	lower := strings.ToLower(name)
	if strings.HasSuffix(lower, " care") {
		names = append(names, name[:len(name)-len(" care")])
	} else if !strings.Contains(lower, "care") && !strings.Contains(lower, " ") {
		names = append(names, name+" care")
	}
	for _, n := range names {
		out = append(out, n)
		if strings.Contains(n, "-") {
			out = append(out, strings.ReplaceAll(n, "-", " "))
		}
	}
	return out
}

// Call is one model call: its identity, its sampling temperature, its
// messages and, with structured output, the schema of its answer.
type Call struct {
	Phase, Kind string
	Turn        int // 0 outside any round
	Agent       int // 0-based agent; -1 for the judge or chairman
	Role        string
	Temperature float64
	System      string
	// History is the conversation before User — alternating user and
	// assistant turns, as written — sent between System and User. It is nil
	// for a one-turn call (every kind but debate's revisions), whose request
	// is then exactly system + user.
	History []llm.Message
	User    string
	// NoSystem sends no system message: a protocol's shared layout
	// (--prompt-layout shared) that moved the system text into User sets it.
	NoSystem bool
	Schema   *llm.Schema // sent only when the session is structured
	// Order, when not 0, is the call's llm.Meta.Order, for a protocol whose
	// stages Order (kinds.go) does not rank; it must be unique within the
	// question and follow the order of a sequential run.
	Order int
}

// Meta is the call's metadata.
func (s *Session) Meta(c Call) llm.Meta {
	order := c.Order
	if order == 0 {
		order = Order(c.Phase, c.Kind, c.Turn, c.Agent)
	}
	return llm.Meta{QuestionID: s.Item.ID, Arm: s.Unit.Arm, Repeat: s.Unit.Repeat, Phase: c.Phase, Kind: c.Kind,
		Order: order, Turn: c.Turn, Agent: c.Agent, Role: c.Role}
}

// Request is the call as sent: the system message, the History, the user
// message; its seed derives from the run seed, the repeat, the question and
// the call's identity — never from the arm.
func (s *Session) Request(c Call) llm.Request {
	meta := s.Meta(c)
	msgs := make([]llm.Message, 0, len(c.History)+2)
	if !c.NoSystem {
		msgs = append(msgs, llm.Message{Role: llm.RoleSystem, Content: c.System})
	}
	msgs = append(msgs, c.History...)
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: c.User})
	req := llm.Request{
		Model:       s.Unit.Model,
		Messages:    msgs,
		Temperature: c.Temperature,
		MaxTokens:   s.MaxTokens,
		Seed:        llm.DeriveSeed(s.Unit.RunSeed, s.Unit.Repeat, s.Item.ID, meta),
		Meta:        meta,
	}
	if s.Structured {
		req.Schema = c.Schema
	}
	return req
}

// Do makes the call and returns its text; an error names the call.
func (s *Session) Do(ctx context.Context, c Call) (string, error) {
	req := s.Request(c)
	if c.Phase == PhaseAnswer && c.Turn == 0 && c.Agent == 0 && s.Out.FirstPrompt == "" {
		// Only agent 0's call writes it, so parallel agents never race here.
		s.Out.FirstPrompt = PromptHash(c.System, c.User, req.Schema)
	}
	resp, err := s.Client.Chat(ctx, req)
	if err != nil {
		who := "judge"
		if c.Agent >= 0 {
			who = fmt.Sprintf("agent %d", c.Agent+1)
		} else if c.Role != "" {
			who = c.Role
		}
		return "", fmt.Errorf("%s call (%s, turn %d, %s): %w", c.Kind, c.Phase, c.Turn, who, err)
	}
	// A reply cut off at its token limit is marked so that the answer
	// parsers read it as cut off (answer.MarkCut): never a letter from the
	// middle of its reasoning; a refusal or a reply stopped by the content
	// filter is marked withheld, an abstention with its own reason.
	return Reply(resp), nil
}

// Note records how the answer of call (kind, turn, agent) was read.
func (s *Session) Note(kind string, turn, agent int, m answer.Method, errText, reason string, notes []string) {
	s.Out.Parses = append(s.Out.Parses, protocol.ParseNote{Kind: kind, Turn: turn, Agent: agent, Method: m, Err: errText, Reason: reason, Notes: notes})
}

// NoteAnswer records how an agent's answer was read.
func (s *Session) NoteAnswer(kind string, turn, agent int, a answer.Answer) {
	s.Note(kind, turn, agent, a.Method, a.Err, a.Reason, a.Notes)
}

// DrawSeed is the seed of a draw that is not a call (a tie draw, a label
// shuffle), derived like a call's seed from its identity.
func (s *Session) DrawSeed(kind string, agent int) uint64 {
	meta := llm.Meta{Phase: PhaseDecision, Kind: kind, Agent: agent}
	return uint64(llm.DeriveSeed(s.Unit.RunSeed, s.Unit.Repeat, s.Item.ID, meta))
}

// Parallel runs f for i = 0…n−1 at once; the first error cancels the rest.
// Batch mode's barrier is told of the branches: the session's client, when
// it is an llm.Brancher, is passed to llm.Parallel.
func (s *Session) Parallel(ctx context.Context, n int, f func(ctx context.Context, i int) error) error {
	return llm.Parallel(ctx, llm.BrancherOf(s.Client), n, f)
}

// Roles names n agents "Expert 1"…"Expert n".
func Roles(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("Expert %d", i+1)
	}
	return out
}

// Commit records d's winner as the team's answer under rule.
func (s *Session) Commit(d aggregator.Decision, rule string) {
	d.Rule = rule
	s.Out.Decision = d
	s.Out.Predicted = d.Winner
}

// SafeDefault records that rule fell back to the safe default. On a
// multiple-choice item the safe default is abstention: no prediction, with
// reason ("code: detail") in the row's abstain_reason. On a triage item it is
// the most urgent level (DESIGN §5): a triage item is never abstained on;
// the prediction is qa.Item.MostUrgent, the decision rule is still rule (the
// branch that fell back), and reason goes into the protocol's record as its
// "escalation" (Escalated), not into abstain_reason. Set Out.Details before
// calling it.
func (s *Session) SafeDefault(d aggregator.Decision, rule, reason string) {
	d.Rule, d.Winner = rule, ""
	if s.Item.IsTriage() {
		d.Winner = s.Item.MostUrgent()
		s.Out.Decision = d
		s.Out.Predicted = d.Winner
		s.Out.Details = Escalate(s.Out.Details, reason)
		return
	}
	s.Out.Decision = d
	s.Out.Predicted = ""
	s.Out.AbstainReason = reason
}

// Firsts returns each answer's first choice ("" for an abstention).
func Firsts(as []answer.Answer) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.First()
	}
	return out
}

// Confidences returns each answer's stated confidence (-1 when none).
func Confidences(as []answer.Answer) []float64 {
	out := make([]float64, len(as))
	for i, a := range as {
		out[i] = a.Confidence
	}
	return out
}

// Describe lists a vote breakdown, "A 2, B 1", over the options that got a vote.
func Describe(letters []string, scores []float64) string {
	var parts []string
	for i, sc := range scores {
		if sc != 0 && i < len(letters) {
			parts = append(parts, fmt.Sprintf("%s %g", letters[i], sc))
		}
	}
	if len(parts) == 0 {
		return "no votes"
	}
	return strings.Join(parts, ", ")
}

// VoteMap is a vote breakdown by option letter, over the options that got
// a vote (for protocol_json).
func VoteMap(letters []string, scores []float64) map[string]float64 {
	m := map[string]float64{}
	for i, sc := range scores {
		if sc != 0 && i < len(letters) {
			m[letters[i]] = sc
		}
	}
	return m
}

// JoinAnd lists items as "A, B and C".
func JoinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// Numbered turns 0-based agent indexes into 1-based agent numbers (never nil).
func Numbered(idx []int) []int {
	out := make([]int, len(idx))
	for i, k := range idx {
		out[i] = k + 1
	}
	return out
}

// AgentList names 0-based agents in a message: "agent 3", "agents 1 and 3".
func AgentList(idx []int) string {
	nums := make([]string, len(idx))
	for i, k := range idx {
		nums[i] = strconv.Itoa(k + 1)
	}
	if len(nums) == 1 {
		return "agent " + nums[0]
	}
	return "agents " + JoinAnd(nums)
}

// Reply is a response's text as the answer parsers take it (answer.MarkReply):
// marked cut off, refused or filtered by its finish reason and refusal.
// Every protocol call that reads a model's reply goes through it.
func Reply(resp llm.Response) string {
	return answer.MarkReply(resp.Text, resp.FinishReason, resp.Refusal)
}
