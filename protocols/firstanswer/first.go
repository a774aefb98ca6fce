// Package firstanswer is the independent first answer — chain of thought:
// reasoning first, then a ranking of every option, then a confidence — that
// every family asks an independent agent for (docs/protocols.md#first-answer):
// cot (agent 0, greedy), sc (sample i), vote, judge and council (stage 1,
// agent i), debate (round 1) and teamwork (the initial prediction, wherever
// the arm's components leave that prompt unchanged). It is one request shape
// — the same system prompt, the same user prompt, the same seed for agent i
// (derived from the run seed, repeat, question and the call's identity:
// phase "answer", kind "first", turn 0, agent i) — so a sweep over these
// protocols sends agent i's request once at each temperature (the response
// cache and the runner's per-question sharing serve the rest) and compares
// the families on the same first answers (DESIGN §5 "Fidelity", equal terms).
//
// A protocol that needs more asks for it by adding to the request, never by
// changing it: Extra puts context after the question block (teamwork's role
// with TO∧L, its question analysis with SMM) and asks for more fields after
// the shared ones (teamwork's facts with SMM); or it takes Call and appends
// to its text and to Props. The shared request then stays byte-identical in
// every protocol that adds nothing.
package firstanswer

import (
	"context"
	"embed"
	"fmt"
	"slices"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/kit"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

// Prompts is the prompt set of the first answer.
var Prompts = kit.MustPrompts(promptFS, "prompts/*.tmpl")

// Props are the properties of the first answer's JSON schema in wire order:
// reasoning first, so a structured-output backend writes the reasoning
// before the ranking it supports. A protocol that asks for more appends to
// a copy (slices.Concat(Props, …)).
var Props = []kit.Prop{kit.P("reasoning", kit.String), kit.P("ranking", kit.Strings), kit.P("confidence", kit.Number)}

// Schema is the JSON schema of the shared first answer.
var Schema = kit.Schema(kit.KindFirst, Props...)

// Extra is what a protocol adds to the first answer. The zero value adds
// nothing: the request is the shared one.
type Extra struct {
	// Context is shown right after the question block, before the
	// instructions (e.g. "YOUR ROLE: Cardiologist\n"); "" for none.
	Context string
	// Fields are asked for after the shared ones, in this order.
	Fields []Field
}

// Field is one more field of the answer.
type Field struct {
	Name  string // JSON property name
	Type  any    // its schema type (kit.String, kit.Strings, …)
	JSON  string // what the JSON instruction shows as its value, e.g. `[<up to 3 facts>]`
	Label string // its labelled line in text mode, e.g. "FACTS"
	Text  string // what that line shows after the label, e.g. "<facts separated by semicolons>"
}

type promptData struct {
	Question string
	Context  string
	Fields   []Field
	JSON     bool
}

// Prompt renders the first answer for a question block (kit.QuestionBlock):
// its system and user prompts and its schema (sent only with structured
// output). With a zero Extra it is the shared request's.
func Prompt(question string, structured bool, x Extra) (system, user string, schema *llm.Schema, err error) {
	d := &promptData{Question: question, Context: x.Context, Fields: x.Fields, JSON: structured}
	if system, err = Prompts.Render("first_system", d); err != nil {
		return "", "", nil, err
	}
	if user, err = Prompts.Render("first_user", d); err != nil {
		return "", "", nil, err
	}
	schema = Schema
	if len(x.Fields) > 0 {
		props := slices.Clone(Props)
		for _, f := range x.Fields {
			props = append(props, kit.P(f.Name, f.Type))
		}
		schema = kit.Schema(kit.KindFirst, props...)
	}
	return system, user, schema, nil
}

// Call is agent i's first-answer call at temperature temp: the one shape.
// It depends on the question, the agent index, the temperature and whether
// the answer is structured — never on the protocol, the arm or the team size.
func Call(s *kit.Session, agent int, temp float64) (kit.Call, error) {
	return CallWith(s, agent, temp, Extra{})
}

// CallWith is Call with what a protocol adds (Extra). Its identity (phase,
// kind, turn, agent — and so its seed) is the shared call's.
func CallWith(s *kit.Session, agent int, temp float64, x Extra) (kit.Call, error) {
	system, user, schema, err := Prompt(s.Question, s.Structured, x)
	if err != nil {
		return kit.Call{}, err
	}
	return kit.Call{Phase: kit.PhaseAnswer, Kind: kit.KindFirst, Agent: agent, Role: fmt.Sprintf("Expert %d", agent+1),
		Temperature: temp, System: system, User: user, Schema: schema}, nil
}

// Ask asks agents 0…n−1 for their first answers at once and records how
// each was read (in agent order). Model-call errors end the question;
// unreadable answers are abstentions.
func Ask(ctx context.Context, s *kit.Session, n int, temp float64) ([]Answer, error) {
	out := make([]Answer, n)
	err := s.Parallel(ctx, n, func(ctx context.Context, i int) error {
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

// Answers returns the answers as the answer package reads them.
func Answers(as []Answer) []answer.Answer {
	out := make([]answer.Answer, len(as))
	for i, a := range as {
		out[i] = a.Answer
	}
	return out
}
