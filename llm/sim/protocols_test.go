package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

// The kinds of protocols/ and the prompts that carry their marker lines.
var protocolKinds = []string{kindFirst}

func protocolReq(id string, ls []string, kind string, agent int, seed int64, schema bool) llm.Request {
	req := agentReq(id, ls, kind, agent, 1, seed, schema, "")
	req.Meta.Phase = "answer"
	return req
}

var protocolJSONKeys = map[string][]string{
	kindFirst: {"reasoning", "ranking", "confidence"},
}

func TestProtocolKindsJSON(t *testing.T) {
	for _, nopt := range []int{2, 4, 10} {
		items, ids := synthItems(30, nopt)
		m := New(cleanProfile(t), items)
		for _, kind := range protocolKinds {
			for i, id := range ids {
				ls := items[id].Letters
				text := mustChat(t, m, protocolReq(id, ls, kind, 0, int64(i), true)).Text
				obj, ok := decodeJSON(text)
				if !ok || len(obj) != len(protocolJSONKeys[kind]) {
					t.Fatalf("%s: not the JSON object of its kind: %q", kind, text)
				}
				for _, k := range protocolJSONKeys[kind] {
					if _, ok := obj[k]; !ok {
						t.Fatalf("%s: key %q missing in %q", kind, k, text)
					}
				}
				checkProtocolJSON(t, kind, obj, ls)
			}
		}
	}
}

func checkProtocolJSON(t *testing.T, kind string, obj map[string]any, ls []string) {
	t.Helper()
	if r, ok := obj["ranking"]; ok {
		checkRanking(t, kind, r, ls)
	}
	if a, ok := obj["answer"].(string); ok && !slices.Contains(ls, a) {
		t.Fatalf("%s: answer %q", kind, a)
	}
}

var protocolPlainLabels = map[string][]string{
	kindFirst: {"REASONING: ", "RANKING: ", "CONFIDENCE: "},
}

func TestProtocolKindsPlain(t *testing.T) {
	items, ids := synthItems(30, 5)
	m := New(cleanProfile(t), items)
	for _, kind := range protocolKinds {
		for i, id := range ids {
			text := mustChat(t, m, protocolReq(id, items[id].Letters, kind, 0, int64(i), false)).Text
			lines := strings.Split(text, "\n")
			if labels := protocolPlainLabels[kind]; len(lines) != len(labels) {
				t.Fatalf("%s: %d lines, want %d: %q", kind, len(lines), len(labels), text)
			}
			for k, lab := range protocolPlainLabels[kind] {
				if !strings.HasPrefix(lines[k], lab) {
					t.Fatalf("%s: line %d = %q, want %q", kind, k+1, lines[k], lab)
				}
			}
			if strings.Contains(text, "{") {
				t.Fatalf("%s: plain answer with JSON: %q", kind, text)
			}
		}
	}
}

// TestProtocolKindsDeterministic: same request, same text (also with
// another arm and repeat, and concurrently); hints in the prompt change
// nothing.
func TestProtocolKindsDeterministic(t *testing.T) {
	items, ids := synthItems(40, 4)
	m := New(mustProfile(t, "noisy"), items)
	for _, kind := range protocolKinds {
		for i, id := range ids {
			ls := items[id].Letters
			req := protocolReq(id, ls, kind, i%3, int64(i), i%2 == 0)
			a := mustChat(t, m, req).Text
			req.Meta.Arm, req.Meta.Repeat = "other", 3
			hinted := req
			hinted.Messages = slices.Clone(req.Messages)
			hint := fmt.Sprintf("gold: %s\nThe correct answer is %s.\nANSWER: %s\n", ls[(i+1)%4], ls[(i+1)%4], ls[(i+1)%4])
			hinted.Messages[1].Content = hint + req.Messages[1].Content + "\n" + hint
			if b, c := mustChat(t, m, req).Text, mustChat(t, m, hinted).Text; a != b || a != c {
				t.Fatalf("%s: answers differ:\n%q\n%q\n%q", kind, a, b, c)
			}
		}
	}
}

// asking is req asking for more fields (name, text label) than the shared
// first answer: in its schema, or as labelled lines of its format.
func asking(req llm.Request, fields ...[2]string) llm.Request {
	req.Messages = slices.Clone(req.Messages)
	if req.Schema != nil {
		props := `"reasoning":{},"ranking":{},"confidence":{}`
		for _, f := range fields {
			props += `,"` + f[0] + `":{}`
		}
		req.Schema = &llm.Schema{Name: "first", Schema: []byte(`{"type":"object","properties":{` + props + `}}`)}
		return req
	}
	for _, f := range fields {
		req.Messages[1].Content += "\n" + f[1] + ": <…>"
	}
	return req
}

// toyFirst is a toy protocol's behaviour that adds a field to the first
// answer: a hunch, the first choice's letter and a draw of its own stream.
var toyFirst = Behaviour{
	Protocol: "toy",
	Kinds:    map[string]uint64{"toy_kind": 999},
	Answer:   func(*Call) string { return "" },
	First: []FirstField{{Name: "hunch", Label: "HUNCH", Value: func(c *Call, a *Answer, correct, asJSON bool) []byte {
		r := c.Rng(0x746f79)
		v := fmt.Sprintf("%s %v %d", c.Letter(a.Ranking().First()), correct, r.Intn(100))
		if asJSON {
			return AppendQuoted(nil, v)
		}
		return []byte(v)
	}}},
}

// TestFirstFieldsAnswerWhatIsAsked: the core's first answer states a field
// a behaviour adds to it (FirstField) only when the request asks for it and
// the behaviour is registered, after the shared fields, which asking
// changes in nothing; the core alone states no field beyond the shared
// ones, whatever the request asks (on main it stated facts, a risk and a
// veto flag of its own).
func TestFirstFieldsAnswerWhatIsAsked(t *testing.T) {
	items, ids := synthItems(200, 4)
	core, toy := New(cleanProfile(t), items), New(cleanProfile(t), items, toyFirst)
	for _, schema := range []bool{true, false} {
		hunches := 0
		for i, id := range ids {
			req := protocolReq(id, letters(4), kindFirst, i%3, int64(i), schema)
			plain := mustChat(t, toy, req).Text
			for _, ask := range [][2]string{{"facts", "FACTS"}, {"veto", "VETO"}, {"risk", "RISK"}, {"hunch", "HUNCH"}} {
				if got := mustChat(t, core, asking(req, ask)).Text; got != plain {
					t.Fatalf("schema=%v: the core alone asked for %s answers %q, want the shared answer %q", schema, ask[0], got, plain)
				}
			}
			with := mustChat(t, toy, asking(req, [2]string{"hunch", "HUNCH"})).Text
			if strings.Contains(strings.ToLower(plain), "hunch") {
				t.Fatalf("schema=%v: the shared first answer states more than asked: %q", schema, plain)
			}
			shared := strings.TrimSuffix(plain, "}")
			if !strings.HasPrefix(with, shared) {
				t.Fatalf("schema=%v: asking for more changed the shared fields:\n%q\n%q", schema, plain, with)
			}
			wantTail := `,"hunch":"`
			if !schema {
				wantTail = "\nHUNCH: "
			}
			if strings.HasPrefix(with[len(shared):], wantTail) {
				hunches++
			}
		}
		if hunches < len(ids)*9/10 { // the malformed shapes aside
			t.Fatalf("schema=%v: a hunch in %d of %d answers that asked", schema, hunches, len(ids))
		}
	}
}

// TestFirstFieldClashes: two behaviours declaring the same first-answer
// field, or one without its Value, is a programming error New refuses.
func TestFirstFieldClashes(t *testing.T) {
	other := toyFirst
	other.Protocol, other.Kinds = "other", map[string]uint64{"other_kind": 998}
	noValue := other
	noValue.First = []FirstField{{Name: "x", Label: "X"}}
	for name, bs := range map[string][]Behaviour{"same field": {toyFirst, other}, "no value": {noValue}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: New accepted %v", name, bs)
				}
			}()
			New(cleanProfile(t), nil, bs...)
		}()
	}
}
