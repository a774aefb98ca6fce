package firstanswer

import (
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
)

var facts = Field{Name: "facts", Type: kit.Strings, JSON: `[<up to 3 facts>]`, Label: "FACTS", Text: "<facts separated by semicolons>"}

// TestPromptIsChainOfThought: the shared first answer asks for the reasoning
// first, then the ranking, then the confidence — in the schema's wire order,
// in the JSON instruction and in the labelled lines — and caps the
// reasoning nowhere (only --max-tokens bounds it).
func TestPromptIsChainOfThought(t *testing.T) {
	order, err := kit.PropertyOrder(Schema.Schema)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []string{"reasoning", "ranking", "confidence"}) {
		t.Fatalf("schema order %v", order)
	}
	for _, structured := range []bool{true, false} {
		_, user, _, err := Prompt(kit.QuestionBlock(kittest.Item), structured, Extra{})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{`"reasoning"`, `"ranking"`, `"confidence"`}
		if !structured {
			want = []string{"\nREASONING:", "\nRANKING:", "\nCONFIDENCE:"}
		}
		at := -1
		for _, w := range want {
			i := strings.Index(user, w)
			if i <= at {
				t.Fatalf("structured=%v: %q out of order in\n%s", structured, w, user)
			}
			at = i
		}
		if strings.Contains(user, "sentence") || strings.Contains(user, "risk") || strings.Contains(strings.ToLower(user), "veto") {
			t.Fatalf("structured=%v: a length cap or a protocol's field in the shared prompt:\n%s", structured, user)
		}
	}
}

// TestExtraAddsWithoutChanging: a protocol's additions put context after the
// question block and ask for fields after the shared ones; everything of the
// shared request is still there, in its order; the zero Extra is the shared
// request itself.
func TestExtraAddsWithoutChanging(t *testing.T) {
	q := kit.QuestionBlock(kittest.Item)
	for _, structured := range []bool{true, false} {
		sys0, user0, schema0, _ := Prompt(q, structured, Extra{})
		sys1, user1, schema1, _ := Prompt(q, structured, Extra{Context: "YOUR ROLE: Cardiologist\n", Fields: []Field{facts}})
		if sys1 != sys0 || schema0 != Schema {
			t.Fatal("the system prompt or the shared schema changed")
		}
		if !strings.HasPrefix(user1, q+"YOUR ROLE: Cardiologist\n") || strings.Replace(user1, "YOUR ROLE: Cardiologist\n", "", 1) == user0 {
			t.Fatalf("structured=%v: context not after the question, or fields not asked:\n%s", structured, user1)
		}
		shared := strings.Replace(user1, "YOUR ROLE: Cardiologist\n", "", 1)
		if structured {
			if shared != strings.TrimSuffix(user0, "}.")+`, "facts": [<up to 3 facts>]}.` {
				t.Fatalf("JSON fields not appended after the shared ones:\n%s", user1)
			}
		} else if shared != user0+"\nFACTS: <facts separated by semicolons>" {
			t.Fatalf("lines not appended after the shared ones:\n%s", user1)
		}
		order, _ := kit.PropertyOrder(schema1.Schema)
		if !slices.Equal(order, []string{"reasoning", "ranking", "confidence", "facts"}) || schema1.Name != Schema.Name {
			t.Fatalf("extended schema %s %v", schema1.Name, order)
		}
	}
	// Props is not aliased by an extension.
	if len(Props) != 3 {
		t.Fatalf("Props grew: %v", Props)
	}
}

// TestCallIdentity: Call is the shared identity (phase answer, kind first,
// turn 0, agent i) at the temperature given; CallWith keeps the identity.
func TestCallIdentity(t *testing.T) {
	s := kit.NewSession(nil, kittest.Item, kittest.Unit("x"), true, 0)
	c, err := Call(s, 2, 0.7)
	if err != nil {
		t.Fatal(err)
	}
	cx, _ := CallWith(s, 2, 0.7, Extra{Fields: []Field{facts}})
	if c.Phase != kit.PhaseAnswer || c.Kind != kit.KindFirst || c.Turn != 0 || c.Agent != 2 || c.Temperature != 0.7 || c.Schema != Schema {
		t.Fatalf("call %+v", c)
	}
	if s.Request(c).Seed != s.Request(cx).Seed || cx.User == c.User {
		t.Fatal("CallWith changed the identity or added nothing")
	}
}
