package teamwork

import (
	"context"
	"fmt"
	"strconv"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// The initial prediction (seed 002 phase 2, "R₂[aᵢ] ← aᵢ.Predict(Context_i)")
// is the shared first answer of package firstanswer: agent i's request is
// firstanswer's — the same system prompt, user prompt, temperature (the
// agent temperature) and seed (call identity phase "answer", kind "first",
// turn 0, agent i) — so it is byte-identical to vote's, judge's, council's
// and debate's agent i and to sc's sample i, and a sweep sends it once.
//
// Context_i adds to it only what the arm's components put there (seed 002
// phase 2): with SMM the question analysis (shown after the question) and a
// request for the facts the answer rests on (asked after the shared fields;
// SMM's verified facts are built from them); with TO∧L the agent's role.
// Nothing else is shown at this point — facts, the report and trust come
// after the prediction — so base, l, t, l+t+mm and every arm whose
// components add nothing here (TO without L shows no role: the seed gives
// generic roles without L) send exactly the shared request.

// factsField is what SMM adds to the first answer.
var factsField = firstanswer.Field{Name: "facts", Type: kit.Strings,
	JSON: "[<up to 3 short medical facts your answer rests on>]", Label: "FACTS",
	Text: "<up to 3 short medical facts your answer rests on, separated by semicolons>"}

// firstExtra is what the arm's components add to agent i's first answer.
func (s *session) firstExtra(i int) (firstanswer.Extra, error) {
	var x firstanswer.Extra
	d := &promptData{SharedLayout: s.c.SharedLayout}
	d.Role, d.Focus = s.shownRole(i)
	if s.c.SMM {
		d.Analysis = s.smm.Analysis
		x.Fields = []firstanswer.Field{factsField}
	}
	ctx, err := render("first_context", d)
	if err != nil {
		return x, err
	}
	x.Context = ctx
	return x, nil
}

// first makes agent i's initial prediction: the shared first answer, with
// what the components add (firstExtra).
func (s *session) first(ctx context.Context, i int) (string, error) {
	x, err := s.firstExtra(i)
	if err != nil {
		return "", err
	}
	system, user, schema, err := firstanswer.Prompt(s.question, s.c.Structured, x)
	if err != nil {
		return "", err
	}
	// The identity is the shared first answer's; Order keeps the call's
	// place in teamwork's sequence (after recruitment).
	meta := llm.Meta{QuestionID: s.item.ID, Arm: s.t.Arm, Repeat: s.t.Repeat, Phase: kit.PhaseAnswer, Kind: kit.KindFirst,
		Order: callOrder(PhasePrediction, KindPredict, 0, i), Turn: 0, Agent: i, Role: s.roleName(i)}
	req := llm.Request{
		Model:       s.t.Model,
		Messages:    []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}},
		Temperature: s.c.AgentTemperature,
		MaxTokens:   s.c.MaxTokens,
		Seed:        llm.DeriveSeed(s.t.RunSeed, s.t.Repeat, s.item.ID, meta),
		Meta:        meta,
	}
	if s.c.Structured {
		req.Schema = schema
	}
	if i == 0 { // only agent 0's call writes it: parallel agents never race here
		s.out.FirstPrompt = kit.PromptHash(system, user, req.Schema)
	}
	resp, err := s.client.Chat(ctx, req)
	if err != nil {
		return "", fmt.Errorf("%s call (%s, turn 0, agent %s): %w", kit.KindFirst, kit.PhaseAnswer, strconv.Itoa(i+1), err)
	}
	return kit.Reply(resp), nil
}
