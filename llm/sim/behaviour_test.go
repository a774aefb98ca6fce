package sim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
)

// toyPick is the smallest protocol behaviour: one kind, an independent
// answer from the core's mechanisms.
var toyPick = sim.Behaviour{Protocol: "toy", Kinds: map[string]uint64{"toy_pick": 200},
	Answer: func(c *sim.Call) string {
		rk := c.DrawRanking(c.Skill())
		return c.Finish([]byte("ANSWER: "+c.Letter(rk.First())), rk.First(), false)
	}}

func toyReq(kind string) llm.Request {
	return llm.Request{Model: "sim", Seed: 1, Messages: []llm.Message{{Role: llm.RoleUser, Content: "Q?"}},
		Meta: llm.Meta{QuestionID: "q1", Kind: kind, Agent: 0}}
}

// TestAddingABehaviour: a protocol's kind is answered exactly when its
// behaviour is passed to New (the core knows it not), deterministically;
// a kind or code clash is refused at New, naming both owners.
func TestAddingABehaviour(t *testing.T) {
	p, err := sim.LookupProfile("default")
	if err != nil {
		t.Fatal(err)
	}
	p.MalformedRate = 0
	items := map[string]sim.Item{"q1": {Letters: []string{"A", "B", "C", "D"}, Gold: "C"}}
	if _, err := sim.New(p, items).Chat(context.Background(), toyReq("toy_pick")); llm.ClassOf(err) != llm.ClassBadRequest || !strings.Contains(err.Error(), `"toy_pick"`) {
		t.Fatalf("core without the behaviour: %v, want a bad request naming the kind", err)
	}
	m := sim.New(p, items, toyPick)
	a, err := m.Chat(context.Background(), toyReq("toy_pick"))
	if err != nil || !strings.HasPrefix(a.Text, "ANSWER: ") {
		t.Fatalf("with the behaviour: %q, %v", a.Text, err)
	}
	if b, _ := m.Chat(context.Background(), toyReq("toy_pick")); b.Text != a.Text {
		t.Fatalf("not deterministic: %q then %q", a.Text, b.Text)
	}
	for _, tc := range []struct {
		name string
		bs   []sim.Behaviour
		want string
	}{
		{"same kind twice", []sim.Behaviour{toyPick, {Protocol: "other", Kinds: map[string]uint64{"toy_pick": 201}, Answer: toyPick.Answer}}, `kind "toy_pick" is claimed by toy and other`},
		{"same code", []sim.Behaviour{toyPick, {Protocol: "other", Kinds: map[string]uint64{"other_pick": 200}, Answer: toyPick.Answer}}, "code 200, already toy's kind toy_pick"},
		{"a core kind", []sim.Behaviour{{Protocol: "other", Kinds: map[string]uint64{"first": 300}, Answer: toyPick.Answer}}, `"first" is one of the core's kinds`},
		{"a core code", []sim.Behaviour{{Protocol: "other", Kinds: map[string]uint64{"other_pick": 12}, Answer: toyPick.Answer}}, "already the core's kind first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), tc.want) {
					t.Fatalf("panic %v, want one containing %q", r, tc.want)
				}
			}()
			sim.New(p, items, tc.bs...)
		})
	}
}
