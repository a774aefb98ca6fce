package teamwork

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/qa"
)

func sampleQuestions(t testing.TB, n int) []qa.Question {
	t.Helper()
	qs, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if n < len(qs) {
		qs = qs[:n]
	}
	return qs
}

func simFor(t testing.TB, profile string, qs []qa.Question) *sim.Model {
	t.Helper()
	p, err := sim.LookupProfile(profile)
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]sim.Item{}
	for _, q := range qs {
		items[q.ID] = sim.Item{Letters: q.Letters(), Gold: q.Gold}
	}
	return sim.New(p, items, Sim)
}

// TestCallAccounting runs every preset × N ∈ {2,3,4} × turns ∈ {2,3} on the
// simulator and checks that the measured calls of every question, phase by
// phase, equal the accounting of DESIGN §4 (the tie-break call included
// exactly when a tie happened under leadership).
func TestCallAccounting(t *testing.T) {
	qs := sampleQuestions(t, 20)
	model := simFor(t, "weak", qs) // disagreement (ties) and malformed answers exercise every path
	ties := 0
	for _, preset := range PresetNames() {
		for _, turns := range []int{2, 3} {
			for n := 2; n <= 4; n++ {
				for _, mode := range []DiscussionMode{RoundRobin, Parallel} {
					c, err := ParseComponents(preset, Default())
					if err != nil {
						t.Fatal(err)
					}
					c.Turns, c.Agents, c.Discussion = turns, n, mode
					team := &Team{Config: c, Model: "sim", Arm: c.Label(), RunSeed: 7}
					for _, q := range qs {
						meter := llm.NewMeter(model, false)
						out, err := team.Run(context.Background(), meter, q.Item())
						if err != nil {
							t.Fatalf("%s: %v", c.Label(), err)
						}
						if out.N != n {
							t.Fatalf("%s: team of %d, want %d", c.Label(), out.N, n)
						}
						tie := c.Leadership && out.Decision.Tie
						if tie {
							ties++
						}
						want := ExpectedCalls(c, n, tie)
						by := meter.ByPhase()
						got := CallCount{
							Recruitment: by[PhaseRecruitment].Calls,
							Prediction:  by[kit.PhaseAnswer].Calls + by[PhasePrediction].Calls,
							Discussion:  by[PhaseDiscussion].Calls,
							Aggregation: by[PhaseAggregation].Calls,
						}
						if got != want {
							t.Fatalf("%s N=%d T=%d question %s: measured %+v (total %d), formula %+v (total %d)",
								c.Label(), n, turns, q.ID, got, got.Total(), want, want.Total())
						}
						if len(out.Parses) != got.Total() {
							t.Fatalf("%s: %d parse notes for %d calls", c.Label(), len(out.Parses), got.Total())
						}
					}
				}
			}
		}
	}
	t.Logf("leader tie-breaks exercised: %d", ties)
	if ties == 0 {
		t.Error("no leader tie-break happened; the +1 tie term went untested")
	}
}

// TestDynamicTeamSize: without --agents the recruiter's count is used.
func TestDynamicTeamSize(t *testing.T) {
	qs := sampleQuestions(t, 50)
	model := simFor(t, "default", qs)
	c, _ := ParseComponents("base", Default())
	sizes := map[int]int{}
	for _, q := range qs {
		out, err := (&Team{Config: c, Model: "sim", RunSeed: 1}).Run(context.Background(), model, q.Item())
		if err != nil {
			t.Fatal(err)
		}
		sizes[out.N]++
	}
	if len(sizes) < 2 {
		t.Fatalf("dynamic team sizes %v: the recruiter's count is not used", sizes)
	}
	for n := range sizes {
		if n < 2 || n > 4 {
			t.Fatalf("team size %d outside 2–4", n)
		}
	}
}

// TestNoGoldReachesTheProtocol proves structurally that neither the item a
// protocol receives nor any request it sends has a field that could carry the
// gold answer, and behaviourally that the simulator learns the gold only at
// construction: two simulators built with different golds receive the same
// first request for a question (so the request did not depend on the gold)
// yet answer differently.
func TestNoGoldReachesTheProtocol(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[qa.Item](), reflect.TypeFor[llm.Request]()} {
		walkFields(t, typ, typ.Name())
	}
	q := sampleQuestions(t, 1)[0]
	other := q
	for _, l := range q.Letters() {
		if l != q.Gold {
			other.Gold = l
			break
		}
	}
	c, _ := ParseComponents("full", Default())
	var first [2]string
	var firstPredicts [2]string
	for i, qq := range []qa.Question{q, other} {
		model := simFor(t, "strong", []qa.Question{qq})
		rec := &recorder{next: model}
		if _, err := (&Team{Config: c, Model: "sim", RunSeed: 3}).Run(context.Background(), rec, qq.Item()); err != nil {
			t.Fatal(err)
		}
		first[i] = llm.RenderMessages(rec.reqs[0].Messages)
		firstPredicts[i] = rec.predictAnswers()
	}
	if first[0] != first[1] {
		t.Fatal("the first request differs between golds: the protocol saw the gold")
	}
	if firstPredicts[0] == firstPredicts[1] {
		t.Fatal("the simulator answered identically for different golds: it did not learn them at construction")
	}
}

func walkFields(t *testing.T, typ reflect.Type, path string) {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct {
		return
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name := strings.ToLower(f.Name)
		if strings.Contains(name, "gold") || strings.Contains(name, "correct") || name == "answer" || name == "answeridx" {
			t.Errorf("%s.%s could carry the gold answer to the protocol", path, f.Name)
		}
		walkFields(t, f.Type, path+"."+f.Name)
	}
}

type recorder struct {
	next llm.Client
	mu   sync.Mutex
	reqs []llm.Request
	resp []string
}

func (r *recorder) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := r.next.Chat(ctx, req)
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.resp = append(r.resp, resp.Text)
	r.mu.Unlock()
	return resp, err
}

func (r *recorder) predictAnswers() string {
	var sb strings.Builder
	for i, q := range r.reqs {
		if q.Meta.Kind == kit.KindFirst {
			sb.WriteString(r.resp[i])
		}
	}
	return sb.String()
}

// scripted answers each call kind with a fixed text per (kind, agent).
type scripted struct {
	mu    sync.Mutex
	calls []llm.Meta
	reply func(m llm.Meta, prompt string) string
}

func (s *scripted) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	s.calls = append(s.calls, req.Meta)
	s.mu.Unlock()
	return llm.Response{Text: s.reply(req.Meta, req.Messages[len(req.Messages)-1].Content), Usage: llm.Usage{PromptTokens: 1, CompletionTokens: 1}, Attempts: 1}, nil
}

func (s *scripted) count(k string) int {
	n := 0
	for _, m := range s.calls {
		if m.Kind == k {
			n++
		}
	}
	return n
}

var fourOptions = qa.Item{ID: "q1", Stem: "Which drug?", Options: []qa.Option{
	{Letter: "A", Text: "Aspirin"}, {Letter: "B", Text: "Heparin"}, {Letter: "C", Text: "Warfarin"}, {Letter: "D", Text: "Alteplase"},
}}

// tieScript: agent 0 ranks A first, agent 1 B first: a plain Borda tie.
func tieScript(tiebreak string) func(m llm.Meta, _ string) string {
	return func(m llm.Meta, _ string) string {
		switch m.Kind {
		case KindAssess:
			return `{"agents": 2, "analysis": "Watch the timing."}`
		case KindRecruit:
			return `{"roles": [{"name": "Cardiologist", "focus": "ischaemia"}, {"name": "Neurologist", "focus": "stroke"}]}`
		case kit.KindFirst, KindDiscuss, KindFinal:
			if m.Agent == 0 {
				return `{"reasoning": "r", "ranking": ["A","B","C","D"], "confidence": 0.6, "facts": ["x"]}`
			}
			return `{"reasoning": "r", "ranking": ["B","A","C","D"], "confidence": 0.6, "facts": ["x"]}`
		case KindMediate:
			return `{"summary": "split", "leaning": "B"}`
		case KindTieBreak:
			return tiebreak
		}
		return "{}"
	}
}

func TestTieRules(t *testing.T) {
	tests := []struct {
		preset, tiebreak string
		wantBy           string
		wantPred         string
		tieCalls         int
	}{
		{"c2", `{"reasoning": "heparin", "answer": "B"}`, "leader", "B", 1},
		// correction authority (seed 002 §2.2): an option outside the tie overrides the team
		{"c2", `{"reasoning": "both tied answers misread the ECG", "answer": "C"}`, "leader_override", "C", 1},
		{"c2", `{"reasoning": "not an option", "answer": "F"}`, "seeded_draw_leader_unparsed", "", 1},
		{"c2", `I am not sure.`, "seeded_draw_leader_unparsed", "", 1},
		{"base", "", "seeded_draw", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.preset+"/"+tt.wantBy, func(t *testing.T) {
			c, _ := ParseComponents(tt.preset, Default())
			s := &scripted{reply: tieScript(tt.tiebreak)}
			out, err := (&Team{Config: c, RunSeed: 11}).Run(context.Background(), s, fourOptions)
			if err != nil {
				t.Fatal(err)
			}
			if !out.Decision.Tie || fmt.Sprint(out.Decision.Tied) != "[A B]" {
				t.Fatalf("decision %+v, want a tie of A and B", out.Decision)
			}
			if out.TieBrokenBy != tt.wantBy || s.count(KindTieBreak) != tt.tieCalls {
				t.Fatalf("broken by %q with %d calls, want %q with %d", out.TieBrokenBy, s.count(KindTieBreak), tt.wantBy, tt.tieCalls)
			}
			if tt.wantPred != "" && out.Predicted != tt.wantPred {
				t.Fatalf("predicted %q, want %q", out.Predicted, tt.wantPred)
			}
			if (out.Predicted != "A" && out.Predicted != "B") != (tt.wantBy == "leader_override") {
				t.Fatalf("predicted %q (broken by %s): among the tied iff not an override", out.Predicted, out.TieBrokenBy)
			}
		})
	}
	// The seeded draw is not "the first letter": over many run seeds both tied options win.
	won := map[string]int{}
	c, _ := ParseComponents("base", Default())
	for seed := range int64(40) {
		out, err := (&Team{Config: c, RunSeed: seed}).Run(context.Background(), &scripted{reply: tieScript("")}, fourOptions)
		if err != nil {
			t.Fatal(err)
		}
		won[out.Predicted]++
	}
	if won["A"] == 0 || won["B"] == 0 {
		t.Fatalf("seeded draw always picks the same option: %v", won)
	}
}

func TestAllAbstainIsAnAbstention(t *testing.T) {
	c, _ := ParseComponents("c4", Default())
	s := &scripted{reply: func(m llm.Meta, _ string) string {
		switch m.Kind {
		case KindAssess:
			return "AGENTS: 3"
		case KindRecruit:
			return "ROLE 1: Cardiologist - heart"
		}
		return "A 45-year-old man presents with chest pain. I cannot decide."
	}}
	out, err := (&Team{Config: c}).Run(context.Background(), s, fourOptions)
	if err != nil {
		t.Fatal(err)
	}
	if out.Predicted != "" || out.AbstainReason == "" || !out.Decision.Abstained() {
		t.Fatalf("want a team abstention, got %q (%+v)", out.Predicted, out.Decision)
	}
	if out.ParseFailures() != 3+3*2 { // predictions and both turns; the recruiter's lines parse
		t.Fatalf("parse failures %d", out.ParseFailures())
	}
	if out.Roles[1] != "Expert 2" {
		t.Fatalf("missing roles must be generic experts: %v", out.Roles)
	}
}

// TestMonitoringAndTrust checks the monitoring exchange and its trust update.
func TestMonitoringAndTrust(t *testing.T) {
	c, _ := ParseComponents("c5", Default()) // l+t+mm
	c.Agents = 2
	s := &scripted{reply: func(m llm.Meta, prompt string) string {
		switch m.Kind {
		case KindAssess:
			return `{"agents": 2, "analysis": ""}`
		case KindRecruit:
			return `{"roles": [{"name": "A1", "focus": ""}, {"name": "A2", "focus": ""}]}`
		case KindSynthesize:
			return `{"facts": [], "report": "", "quality": [1.0, 0.0]}`
		case KindMonitorSelect:
			return `{"agent": 2, "concern": "Heparin is wrong here."}`
		case KindMonitorRespond:
			if !strings.Contains(prompt, "CONCERN: Heparin is wrong here.") || !strings.Contains(prompt, "TARGET: agent 2") {
				return "missing concern"
			}
			return `{"response": "Agreed.", "accepts": true, "ranking": ["A","B","C","D"], "confidence": 0.7}`
		case KindMonitorRate:
			return `{"quality": 1.0, "debated_point": "heparin vs aspirin"}`
		case KindMediate:
			return `{"summary": "s", "leaning": "A"}`
		}
		if m.Agent == 0 {
			return `{"reasoning": "r", "ranking": ["A","B","C","D"], "confidence": 0.9}`
		}
		return `{"reasoning": "r", "ranking": ["B","A","C","D"], "confidence": 0.4}`
	}}
	out, err := (&Team{Config: c}).Run(context.Background(), s, fourOptions)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Monitoring) != 1 {
		t.Fatalf("monitoring rounds %d, want 1 (between 2 turns)", len(out.Monitoring))
	}
	mr := out.Monitoring[0]
	if mr.Target != 1 || mr.TargetFallback || !mr.Accepted || mr.Before != "B" || mr.After != "A" || mr.Quality != 1.0 {
		t.Fatalf("monitor round %+v", mr)
	}
	// Trust: start 0.8; synthesis Q = {1, 0}: {0.86, 0.56}; agent 2 rated 1.0: 0.7·0.56+0.3 = 0.692.
	want := []float64{0.86, 0.692}
	for i := range want {
		if d := out.Trust[i] - want[i]; d > 1e-9 || d < -1e-9 {
			t.Fatalf("trust %v, want %v", out.Trust, want)
		}
	}
	if out.Decision.Rule != "trust_borda" {
		t.Fatalf("rule %q", out.Decision.Rule)
	}
	if len(out.Debated) != 0 {
		t.Fatalf("SMM is off: no debated points expected, got %q", out.Debated)
	}
}
