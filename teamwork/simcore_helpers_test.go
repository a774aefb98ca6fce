package teamwork_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/teamwork"
)

// The simulator's tests that exercise its mechanisms through teamwork's
// kinds (simcore_*_test.go), moved here from llm/sim: the core knows no
// teamwork word, teamwork's behaviour (sim.go) reads its prompt lines and
// writes its answers. They register teamwork.Sim itself and reach the
// core's draws only through its exported API (sim.Model.Traits and the
// fixed texts); the names below keep the tests' wording.
type (
	Model   = sim.Model
	Item    = sim.Item
	Profile = sim.Profile
)

// New is sim.New.
func New(p Profile, items map[string]Item, bs ...sim.Behaviour) *Model {
	return sim.New(p, items, bs...)
}

var (
	testTeam     = teamwork.Sim
	Profiles     = sim.Profiles
	decodeTier   = sim.DecodeTier
	tierMid      = sim.TierMid
	tierOf       = sim.TierOf
	specialtyIdx = sim.SpecialtyIndex
)

const (
	kindAssess         = teamwork.KindAssess
	kindRecruit        = teamwork.KindRecruit
	kindPredict        = teamwork.KindPredict
	kindSynthesize     = teamwork.KindSynthesize
	kindDiscuss        = teamwork.KindDiscuss
	kindFinal          = teamwork.KindFinal
	kindMediate        = teamwork.KindMediate
	kindMonitorSelect  = teamwork.KindMonitorSelect
	kindMonitorRespond = teamwork.KindMonitorRespond
	kindMonitorRate    = teamwork.KindMonitorRate
	kindTieBreak       = teamwork.KindTieBreak

	phasePrediction  = teamwork.PhasePrediction
	phaseDiscussion  = teamwork.PhaseDiscussion
	phaseAggregation = teamwork.PhaseAggregation
)

// qualityCues are the core's cue sentences by tier; factBank its facts.
var (
	qualityCues = func() (q [sim.NTiers][2]string) {
		for t := range q {
			q[t] = [2]string{sim.QualityCue(t, 0), sim.QualityCue(t, 1)}
		}
		return q
	}()
	factBank = func() (b [sim.NFacts]string) {
		for i := range b {
			b[i] = sim.Fact(i)
		}
		return b
	}()
)

// traits are question id's traits in m.
func traits(t testing.TB, m *Model, id string) sim.Traits {
	t.Helper()
	tr, ok := m.Traits(id)
	if !ok {
		t.Fatalf("no traits for %q", id)
	}
	return tr
}

// rate is a score as the core writes it: clamped to [0, 1], two decimals.
func rate(x float64) float64 { return sim.Round2(sim.Clamp(x, 0, 1)) }

var testSchema = &llm.Schema{Name: "answer", Schema: json.RawMessage(`{"type":"object"}`)}

func letters(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('A' + i))
	}
	return out
}

// synthItems makes n questions with the given number of options and a
// pseudo-random gold.
func synthItems(n, options int) (map[string]Item, []string) {
	r := rand.New(rand.NewPCG(1, 2))
	items := make(map[string]Item, n)
	ids := make([]string, n)
	for i := range ids {
		id := fmt.Sprintf("q%05d", i)
		ls := letters(options)
		items[id] = Item{Letters: ls, Gold: ls[r.IntN(options)]}
		ids[i] = id
	}
	return items, ids
}

func optionsBlock(ls []string) string {
	var b strings.Builder
	b.WriteString("OPTIONS:\n")
	for _, l := range ls {
		fmt.Fprintf(&b, "%s) option text %s\n", l, strings.ToLower(l))
	}
	return b.String()
}

// agentReq builds a request for an agent kind; body holds the marker lines.
func agentReq(id string, ls []string, kind string, agent, turn int, seed int64, schema bool, body string) llm.Request {
	phase := phasePrediction
	if kind != kindPredict {
		phase = phaseDiscussion
	}
	req := llm.Request{
		Model: "sim",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are a medical expert on a team answering a multiple-choice question."},
			{Role: llm.RoleUser, Content: "A 54-year-old presents with chest pain radiating to the left arm.\n" + optionsBlock(ls) + body},
		},
		Seed: seed,
		Meta: llm.Meta{QuestionID: id, Arm: "base", Phase: phase, Kind: kind, Turn: turn, Agent: agent},
	}
	if schema {
		req.Schema = testSchema
	}
	return req
}

// leaderReq builds a request for a leader kind.
func leaderReq(id string, ls []string, kind string, turn int, seed int64, schema bool, body string) llm.Request {
	req := agentReq(id, ls, kind, -1, turn, seed, schema, body)
	req.Meta.Phase = phaseAggregation
	return req
}

// decodeJSON extracts the JSON object of text (fences allowed).
func decodeJSON(text string) (map[string]any, bool) {
	s := text
	if i := strings.Index(s, "```json"); i >= 0 {
		s = s[i+len("```json"):]
		if j := strings.Index(s, "```"); j >= 0 {
			s = s[:j]
		}
	}
	s = strings.TrimSpace(s)
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, false
	}
	return m, true
}

// firstChoice returns the first letter of the ranking in a JSON answer.
func firstChoice(text string) (string, float64, bool) {
	m, ok := decodeJSON(text)
	if !ok {
		return "", 0, false
	}
	rk, ok := m["ranking"].([]any)
	if !ok || len(rk) == 0 {
		return "", 0, false
	}
	l, _ := rk[0].(string)
	conf, _ := m["confidence"].(float64)
	return l, conf, l != ""
}

func mustChat(t testing.TB, m *Model, req llm.Request) llm.Response {
	t.Helper()
	for attempt := 0; ; attempt++ {
		resp, err := m.Chat(context.Background(), req)
		if err == nil {
			return resp
		}
		if llm.ClassOf(err).Retryable() && attempt < 50 {
			continue
		}
		t.Fatalf("Chat(%s %s): %v", req.Meta.QuestionID, req.Meta.Kind, err)
	}
}

func mustProfile(t testing.TB, name string) Profile {
	t.Helper()
	p, err := sim.LookupProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func positionLine(who string, rank []string, conf float64) string {
	s := "POSITION " + who + ": " + strings.Join(rank, " > ")
	if conf > 0 {
		s += fmt.Sprintf(" (confidence %.2f)", conf)
	}
	return s + "\n"
}

// rankWith returns the option letters with first moved to the front.
func rankWith(ls []string, first string) []string {
	out := []string{first}
	for _, l := range ls {
		if l != first {
			out = append(out, l)
		}
	}
	return out
}
