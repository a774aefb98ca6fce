package mdagents

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/qa"
)

var (
	reasonSchema = kit.Schema(KindReason, kit.P("reasoning", kit.String))
	answerSchema = kit.Schema("md_answer", kit.P("reasoning", kit.String), kit.P("answer", kit.String))
)

// exemplar is one few-shot exemplar: a training question, its answer and
// the reason the model wrote for it.
type exemplar struct {
	id     string
	block  string // the question block
	letter string // the gold letter
	answer string // "B) text"
	reason string
}

// fewshotName is the training split's name ("" without one).
func (a Arm) fewshotName() string {
	if a.fewshot == nil {
		return ""
	}
	return a.fewshot.Name
}

// pool is the training questions an item may be shown: those of its kind
// (multiple choice or triage), never the item itself (same id or same
// stem; the plan refuses a split that shares a question with the evaluated
// set, this is a second guard).
func (a Arm) pool(item qa.Item) []qa.Question {
	if a.fewshot == nil {
		return nil
	}
	stem := strings.Join(strings.Fields(item.Stem), " ")
	var out []qa.Question
	for _, q := range a.fewshot.Questions {
		if q.Kind != item.Kind || q.ID == item.ID || strings.Join(strings.Fields(q.Stem), " ") == stem {
			continue
		}
		out = append(out, q)
	}
	return out
}

// exemplarCounts are the fewest and most exemplars a question of the arm
// is shown (over the item kinds: the split may hold none of one kind).
func (a Arm) exemplarCounts() (lo, hi int) {
	if a.fewshot == nil {
		return 0, 0
	}
	n := map[string]int{qa.KindMultipleChoice: 0, qa.KindTriage: 0}
	for _, q := range a.fewshot.Questions {
		n[q.Kind]++
	}
	lo, hi = Exemplars, 0
	for _, k := range n {
		lo, hi = min(lo, min(k, Exemplars)), max(hi, min(k, Exemplars))
	}
	return lo, hi
}

// exemplars draws the question's exemplars (Exemplars of the pool, or all
// when fewer, by a shuffle seeded from the question and the run — the code
// shuffles without a seed) and asks the model for each one's reason, all at
// once (one call each, the agent temperature). The draw does not depend on
// the route, so every path and every forced-route arm shows the same
// exemplars with the same reasons (shared requests).
func (r *run) exemplars(ctx context.Context) ([]exemplar, error) {
	pool := r.pool(r.s.Item)
	k := min(Exemplars, len(pool))
	if k == 0 {
		r.det.ZeroShot = true
		return nil, nil
	}
	seed := r.s.DrawSeed(kindExemplarDraw, -1)
	perm := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)).Perm(len(pool))
	ex := make([]exemplar, k)
	for i := range ex {
		q := pool[perm[i]]
		ex[i] = exemplar{id: q.ID, block: kit.QuestionBlock(q.Item()), letter: q.Gold, answer: q.Gold + ") " + optionText(q, q.Gold)}
		r.det.Exemplars = append(r.det.Exemplars, q.ID)
	}
	system := render("reason_system", r.data())
	methods := make([]answer.Method, k)
	err := r.s.Parallel(ctx, k, func(ctx context.Context, i int) error {
		st := step{Call: kit.Call{Phase: PhaseExemplars, Kind: KindReason, Turn: i + 1, Agent: -1, Role: "exemplar reasoner",
			Temperature: r.agentTemp, User: render("reason", r.data("Exemplar", ex[i].block, "Answer", ex[i].answer)), Schema: reasonSchema},
			order: order(PhaseExemplars, KindReason, i+1, -1, 0)}
		text, err := once(ctx, r.s, system, st)
		if err != nil {
			return err
		}
		ex[i].reason, methods[i] = ParseReason(text)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, e := range ex {
		if e.reason == "" {
			r.s.Note(KindReason, i+1, -1, answer.MethodNone, "empty reason", answer.ReasonEmpty, []string{"exemplar shown without a reason"})
			continue
		}
		r.s.Note(KindReason, i+1, -1, methods[i], "", "", nil)
	}
	return ex, nil
}

// optionText is the text of option letter l of q.
func optionText(q qa.Question, l string) string {
	for _, o := range q.Options {
		if o.Letter == l {
			return o.Text
		}
	}
	return ""
}

// shown is an exemplar's answer as the agent would give it, reasoning
// first: the answer object (JSON) or the REASONING and ANSWER lines.
func (r *run) shown(e exemplar) string {
	if r.structured {
		b, _ := json.Marshal(struct {
			Reasoning string `json:"reasoning"`
			Answer    string `json:"answer"`
		}{e.reason, e.letter})
		return string(b)
	}
	return "REASONING: " + clip(e.reason, 0) + "\nANSWER: " + e.letter
}

// examplesBlock is the exemplars as the intermediate experts' first opinion
// shows them (the code's "[Example k]" block): question, reason, answer.
func (r *run) examplesBlock(ex []exemplar) string {
	var sb strings.Builder
	for i, e := range ex {
		fmt.Fprintf(&sb, "[Example %d]\n%sREASONING: %s\nANSWER: %s\n\n", i+1, e.block, clip(e.reason, 0), e.answer)
	}
	return sb.String()
}

// basic is the basic path (utils.py process_basic_query): the exemplars'
// reasons, then one agent that sees each exemplar as a question and its
// answer (reasoning first) before the query, at temperature 0 (the code's
// temp_responses).
func (r *run) basic(ctx context.Context) error {
	ex, err := r.exemplars(ctx)
	if err != nil {
		return err
	}
	var shots []llm.Message
	for _, e := range ex {
		shots = append(shots, llm.Message{Role: llm.RoleUser, Content: e.block}, llm.Message{Role: llm.RoleAssistant, Content: r.shown(e)})
	}
	g := agent{system: render("basic_system", r.data())}
	st := step{Call: kit.Call{Phase: PhaseBasic, Kind: KindBasic, Agent: 0, Role: "medical agent", Temperature: 0,
		User: render("basic", r.data()), Schema: answerSchema}, order: order(PhaseBasic, KindBasic, 0, 0, 0), first: true}
	text, err := g.ask(ctx, r.s, st, shots...)
	if err != nil {
		return err
	}
	ans := r.parseAnswer(text, KindBasic, 0, 0)
	r.s.Out.N, r.s.Out.Roles = 1, []string{"medical agent"}
	r.s.Out.Rounds = [][]answer.Answer{{ans}}
	r.decide(ans, []answer.Answer{ans}, RuleBasic, RuleBasicUnparsed)
	return nil
}
