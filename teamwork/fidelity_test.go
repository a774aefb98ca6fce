package teamwork

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/qa"
)

// fullLog records every request by "kind/turn/agent" (the last one wins).
type fullLog struct {
	next llm.Client
	reqs map[string]llm.Request
}

func (f *fullLog) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	f.reqs[callKey(req.Meta)] = req
	return f.next.Chat(ctx, req)
}

func runLogged(t *testing.T, c Config, item qa.Item, model llm.Client) (*protocol.Outcome, map[string]llm.Request) {
	t.Helper()
	log := &fullLog{next: model, reqs: map[string]llm.Request{}}
	out, err := (&Team{Config: c, Model: "m", Arm: c.Label(), RunSeed: 5, Repeat: 1}).Run(context.Background(), noConcurrency{log}, item)
	if err != nil {
		t.Fatal(err)
	}
	return out, log.reqs
}

// noConcurrency serialises calls (fullLog's map is not locked).
type noConcurrency struct{ next llm.Client }

var serial = make(chan struct{}, 1)

func (n noConcurrency) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	serial <- struct{}{}
	defer func() { <-serial }()
	return n.next.Chat(ctx, req)
}

// TestPredictionIsTheSharedFirstAnswer (issue 22 item 3): agent i's initial
// prediction is exactly firstanswer's request for agent i — system prompt,
// user prompt, temperature, seed, schema — in every arm whose components
// add nothing to it (base, l, t, l+t+mm, and to without l, which shows no
// role); SMM adds the question analysis and asks for facts, TO∧L adds the
// role, each after the shared text, never changing it.
func TestPredictionIsTheSharedFirstAnswer(t *testing.T) {
	qs := sampleQuestions(t, 3)
	model := simFor(t, "default", qs)
	for _, structured := range []bool{true, false} {
		for _, q := range qs {
			item := q.Item()
			s := kit.NewSession(nil, item, protocol.Unit{Model: "m", Arm: "vote", RunSeed: 5, Repeat: 1}, structured, 0)
			for _, spec := range []string{"base", "c2", "c4", "c5", "c7", "to", "t+to", "smm", "c3", "c6", "full"} {
				c, err := ParseComponents(spec, Default())
				if err != nil {
					t.Fatal(err)
				}
				c.Agents, c.Structured = 3, structured
				_, reqs := runLogged(t, c, item, model)
				adds := c.SMM || c.Orientation && c.Leadership
				for i := range 3 {
					got, ok := reqs[fmt.Sprintf("%s/0/%d", kit.KindFirst, i)]
					if !ok {
						t.Fatalf("%s: no first answer of agent %d", spec, i+1)
					}
					fc, _ := firstanswer.Call(s, i, c.AgentTemperature)
					want := s.Request(fc)
					same := llm.RequestHash(got) == llm.RequestHash(want)
					if same == adds {
						t.Fatalf("%s (structured %v) agent %d: request is the shared first answer: %v, want %v\n%s", spec, structured, i+1, same, !adds, got.Messages[1].Content)
					}
					if got.Seed != want.Seed || got.Temperature != want.Temperature || got.Messages[0] != want.Messages[0] {
						t.Fatalf("%s agent %d: seed, temperature or system prompt differ from the shared first answer", spec, i+1)
					}
					user, shared := got.Messages[1].Content, want.Messages[1].Content
					if c.SMM != strings.Contains(user, "QUESTION ANALYSIS:") || c.SMM != strings.Contains(user, "FACTS:") && !structured ||
						(c.Orientation && c.Leadership) != strings.Contains(user, "YOUR ROLE:") {
						t.Fatalf("%s agent %d: additions wrong:\n%s", spec, i+1, user)
					}
					// An addition adds: the shared prompt's text survives in order.
					if !strings.HasPrefix(user, s.Question) || !strings.Contains(user, strings.TrimPrefix(strings.TrimSuffix(shared, "}."), s.Question)) {
						t.Fatalf("%s agent %d: the shared prompt was changed, not added to:\n%s\n--- shared:\n%s", spec, i+1, user, shared)
					}
				}
			}
		}
	}
}

// TestRolesHiddenWithoutLeadership (issue 22 item 9): under TO without L the
// agents are generic experts — no prompt shows a recruited role (seed 002
// §3: specialist roles only when TO and L); with TO∧L every agent prompt
// does.
func TestRolesHiddenWithoutLeadership(t *testing.T) {
	qs := sampleQuestions(t, 2)
	model := simFor(t, "default", qs)
	for _, spec := range []string{"to", "t+to", "smm+to", "l+to", "full"} {
		c, _ := ParseComponents(spec, Default())
		c.Agents = 3
		out, reqs := runLogged(t, c, qs[0].Item(), model)
		shown := c.Leadership
		for k, req := range reqs {
			if req.Meta.Agent < 0 {
				continue
			}
			all := req.Messages[0].Content + req.Messages[len(req.Messages)-1].Content
			role := strings.TrimSuffix(out.Roles[req.Meta.Agent], HiddenRole) // the name as recruited
			has := strings.Contains(all, "YOUR ROLE:") || strings.Contains(all, role)
			if has != shown {
				t.Fatalf("%s %s: shows the role %q: %v, want %v\n%s", spec, k, out.Roles[req.Meta.Agent], has, shown, all)
			}
		}
	}
}

// TestNeutralMediator (issue 22 item 9): the leader's mediation is neutral
// as in the reference implementation — its leaning is asked for the record
// but no agent prompt shows it — unless the arm asks for it ("leaning"),
// when agents see it as a POSITION leader line and in the history.
func TestNeutralMediator(t *testing.T) {
	qs := sampleQuestions(t, 4)
	model := simFor(t, "default", qs)
	for _, spec := range []string{"c2", "full", "c2:leaning", "full:leaning"} {
		a, _, err := Protocol.Parse(spec, protocol.Settings{Turns: 2, Agents: 3, Discussion: string(RoundRobin), Structured: true, AgentTemp: 0.7, LeaderTemp: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		c := a.(Arm).Config
		show := strings.HasSuffix(spec, ":leaning")
		if c.ShowLeaning != show || strings.HasSuffix(c.Label(), "/leaning") != show {
			t.Fatalf("%s: ShowLeaning %v label %q", spec, c.ShowLeaning, c.Label())
		}
		for _, q := range qs {
			out, reqs := runLogged(t, c, q.Item(), model)
			leaned := false
			for _, l := range out.Leanings {
				leaned = leaned || l != ""
			}
			if !leaned {
				t.Fatalf("%s: no leaning recorded %v", spec, out.Leanings)
			}
			seen := false
			for k, req := range reqs {
				p := req.Messages[len(req.Messages)-1].Content
				if req.Meta.Agent >= 0 {
					seen = seen || strings.Contains(p, "POSITION leader:") || strings.Contains(p, "[leaning ")
				}
				if req.Meta.Kind == KindMediate && strings.Contains(p, "do not see it") == show {
					t.Fatalf("%s %s: the mediation prompt does not say who sees the leaning:\n%s", spec, k, p)
				}
			}
			if seen != show {
				t.Fatalf("%s question %s: agents see the leader's leaning: %v, want %v", spec, q.ID, seen, show)
			}
		}
	}
	for _, bad := range []string{"t:leaning", "base:leaning", "full:loud"} {
		if _, _, err := Protocol.Parse(bad, protocol.Settings{Turns: 2, Discussion: string(RoundRobin), AgentTemp: 0.7, LeaderTemp: 0.5}); err == nil {
			t.Fatalf("%s accepted", bad)
		}
	}
}

// TestPeerCharsBoundsWhatOthersSee (issue 22 item 2): another member's text
// in a prompt — the history's reasoning, the leader's view — is shown in full
// by default and cut to --peer-chars bytes when set; no hidden constant.
func TestPeerCharsBoundsWhatOthersSee(t *testing.T) {
	long := strings.Repeat("The troponin rise and the ST elevation point to an acute infarction. ", 20) // ~1,400 bytes
	reply := func(m llm.Meta, _ string) string {
		switch m.Kind {
		case KindAssess:
			return `{"analysis": "a", "agents": 2}`
		case KindRecruit:
			return `{"roles": [{"name": "R1", "focus": ""}, {"name": "R2", "focus": ""}]}`
		case KindSynthesize:
			return `{"facts": [], "report": "", "quality": [{"agent": 1, "score": 0.5}, {"agent": 2, "score": 0.5}]}`
		case KindMediate:
			return `{"summary": "s", "leaning": "A"}`
		}
		return `{"reasoning": "` + long + `", "ranking": ["A","B","C","D"], "confidence": 0.6}`
	}
	for _, peer := range []int{0, 100} {
		c, _ := ParseComponents("l+t", Default())
		c.PeerChars = peer
		log := &fullLog{next: &scripted{reply: reply}, reqs: map[string]llm.Request{}}
		if _, err := (&Team{Config: c, RunSeed: 1}).Run(context.Background(), noConcurrency{log}, fourOptions); err != nil {
			t.Fatal(err)
		}
		syn := log.reqs[callKey(llm.Meta{Kind: KindSynthesize, Agent: -1})].Messages[1].Content
		disc := log.reqs[callKey(llm.Meta{Kind: KindDiscuss, Turn: 1, Agent: 1})].Messages[1].Content
		full := strings.TrimSpace(long)
		if peer == 0 && (!strings.Contains(syn, "REASONING agent 1: "+full+"\n") || !strings.Contains(disc, full+" [ranking")) {
			t.Fatalf("peer chars 0: a peer's reasoning was cut:\n%s", disc)
		}
		if peer == 100 && (!strings.Contains(syn, "REASONING agent 1: "+kit.Truncate(full, 100)+"\n") || strings.Contains(disc, full)) {
			t.Fatalf("peer chars 100: a peer's reasoning was not cut to 100 bytes:\n%s", syn)
		}
	}
}
