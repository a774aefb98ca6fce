package mdagents

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// step is one call: its identity (kit.Call: phase, kind, turn, agent, role,
// temperature, user prompt, schema), the position it sorts at among the
// question's calls (order) and whether it is agent 0's first answer (its
// prompt names the row's first_prompt).
type step struct {
	kit.Call
	order int
	first bool
}

// agent is one of the method's agents: a system prompt and, as in the
// public code (an Agent object that keeps its chat), the exchanges it has
// had — every later call of the agent sends them before its new message.
// The code's first exchange of most agents (the agent's own instruction
// sent as a user message, the reply kept) is not made: see the docs'
// deviations.
type agent struct {
	system  string
	history []llm.Message
}

// ask sends st's user prompt after the agent's exchanges (and extra
// exchanges, the few-shot turns of the basic agent, before them), records
// the exchange and returns the reply.
func (g *agent) ask(ctx context.Context, s *kit.Session, st step, extra ...llm.Message) (string, error) {
	st.System = g.system
	req := s.Request(st.Call)
	msgs := make([]llm.Message, 0, 2+len(extra)+len(g.history))
	msgs = append(msgs, req.Messages[0])
	msgs = append(msgs, extra...)
	msgs = append(msgs, g.history...)
	msgs = append(msgs, req.Messages[1])
	req.Messages = msgs
	req.Meta.Order = st.order
	if st.first && s.Out.FirstPrompt == "" {
		s.Out.FirstPrompt = kit.PromptHash(st.System, st.User, req.Schema)
	}
	resp, err := s.Client.Chat(ctx, req)
	if err != nil {
		who := st.Role
		if who == "" {
			who = fmt.Sprintf("agent %d", st.Agent+1)
		}
		return "", fmt.Errorf("%s call (%s, turn %d, %s): %w", st.Kind, st.Phase, st.Turn, who, err)
	}
	g.history = append(g.history, llm.Message{Role: llm.RoleUser, Content: st.User}, llm.Message{Role: llm.RoleAssistant, Content: resp.Text})
	return kit.Reply(resp), nil
}

// once is a call of an agent that speaks once (the router, a recruiter, an
// exemplar's reason, the moderator, the decision maker).
func once(ctx context.Context, s *kit.Session, system string, st step) (string, error) {
	g := agent{system: system}
	return g.ask(ctx, s, st)
}

// clip is another agent's text as a prompt shows it: white space joined
// (one line), at most n bytes when n > 0 (--peer-chars), else in full.
func clip(text string, n int) string {
	if n <= 0 {
		return strings.Join(strings.Fields(text), " ")
	}
	return kit.Truncate(text, n)
}

// lowerFirst lowers the first letter of s and drops a final period
// ("Specializes in X." → "specializes in X"), for the code's "You are a
// {role} who {description.lower()}."
func lowerFirst(s string) string {
	s = strings.TrimRight(strings.TrimSpace(s), ". ")
	if s == "" {
		return s
	}
	c, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(c)) + s[n:]
}
