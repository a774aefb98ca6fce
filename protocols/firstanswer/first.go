// Package firstanswer is the independent first answer that vote, veto,
// judge, council (stage 1), sc (sample i) and debate (round 0) share: one
// request shape — the same system prompt, the same user prompt, the same
// seed for agent i (derived from the run seed, repeat, question and the
// call's identity: phase "answer", kind "first", turn 0, agent i) and the
// same temperature (the agent temperature) — so a sweep over these
// protocols sends agent i's request once (the response cache and the
// runner's per-question sharing serve the rest) and compares them on the
// same first answers.
//
// The answer is a ranking of every option with reasoning and a confidence
// (read by package answer), plus what seed 004's rule needs: a stated risk
// and a veto flag. Every protocol asks for all of it, so the request does not
// depend on which protocol sends it; each uses what its rule reads.
package firstanswer

import (
	"context"
	"embed"
	"fmt"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

// Prompts is the prompt set of the first answer.
var Prompts = kit.MustPrompts(promptFS, "prompts/*.tmpl")

// Schema is the JSON schema of the first answer.
var Schema = kit.Schema(kit.KindFirst,
	kit.P("reasoning", kit.String), kit.P("ranking", kit.Strings), kit.P("confidence", kit.Number), kit.P("risk", kit.Number), kit.P("veto", kit.Boolean))

type promptData struct {
	Question string
	JSON     bool
}

// Call is agent i's first-answer call at temperature temp: the one shape.
// It depends on the question, the agent index, the temperature and whether
// the answer is structured — never on the protocol, the arm or the team size.
func Call(s *kit.Session, agent int, temp float64) (kit.Call, error) {
	d := &promptData{Question: s.Question, JSON: s.Structured}
	system, err := Prompts.Render("first_system", d)
	if err != nil {
		return kit.Call{}, err
	}
	user, err := Prompts.Render("first_user", d)
	if err != nil {
		return kit.Call{}, err
	}
	return kit.Call{Phase: kit.PhaseAnswer, Kind: kit.KindFirst, Agent: agent, Role: fmt.Sprintf("Expert %d", agent+1),
		Temperature: temp, System: system, User: user, Schema: Schema}, nil
}

// Ask asks agents 0…n−1 for their first answers at once and records how
// each was read (in agent order). Model-call errors end the question;
// unreadable answers are abstentions.
func Ask(ctx context.Context, s *kit.Session, n int, temp float64) ([]Answer, error) {
	out := make([]Answer, n)
	err := kit.Parallel(ctx, n, func(ctx context.Context, i int) error {
		c, err := Call(s, i, temp)
		if err != nil {
			return err
		}
		text, err := s.Do(ctx, c)
		if err != nil {
			return err
		}
		out[i] = Parse(text, s.Options)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, a := range out {
		s.NoteAnswer(kit.KindFirst, 0, i, a.Answer)
	}
	return out, nil
}

// Answers returns the answers without their risk and veto flag.
func Answers(as []Answer) []answer.Answer {
	out := make([]answer.Answer, len(as))
	for i, a := range as {
		out[i] = a.Answer
	}
	return out
}
