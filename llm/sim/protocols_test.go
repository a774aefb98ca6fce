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

var (
	askFacts = [2]string{"facts", "FACTS"}
	askRisk  = [2]string{"risk", "RISK"}
	askVeto  = [2]string{"veto", "VETO"}
)

// TestFirstAnswerAnswersWhatIsAsked: a first answer states facts, a risk and
// a veto flag only when the request asks for them (teamwork's facts with
// SMM, veto's ballot), and asking changes nothing else of the answer.
func TestFirstAnswerAnswersWhatIsAsked(t *testing.T) {
	items, ids := synthItems(200, 4)
	m := New(cleanProfile(t), items)
	for _, schema := range []bool{true, false} {
		facts := 0
		for i, id := range ids {
			req := protocolReq(id, letters(4), kindFirst, i%3, int64(i), schema)
			plain := mustChat(t, m, req).Text
			withFacts := mustChat(t, m, asking(req, askFacts)).Text
			withVeto := mustChat(t, m, asking(req, askRisk, askVeto)).Text
			if strings.Contains(strings.ToLower(plain), "facts") || strings.Contains(strings.ToLower(plain), "veto") {
				t.Fatalf("schema=%v: the shared first answer states more than asked: %q", schema, plain)
			}
			if !strings.HasPrefix(withFacts, plain[:len(plain)-1]) || !strings.HasPrefix(withVeto, plain[:len(plain)-1]) {
				t.Fatalf("schema=%v: asking for more changed the shared fields:\n%q\n%q\n%q", schema, plain, withFacts, withVeto)
			}
			if strings.Contains(strings.ToLower(withFacts), "facts") {
				facts++
			}
			if !strings.Contains(strings.ToLower(withVeto), "veto") || strings.Contains(strings.ToLower(withVeto), "facts") {
				t.Fatalf("schema=%v: veto ballot %q", schema, withVeto)
			}
		}
		if facts < len(ids)*9/10 { // the malformed shapes aside
			t.Fatalf("schema=%v: facts in %d of %d answers that asked", schema, facts, len(ids))
		}
	}
}

// TestFirstAnswerRisk: the stated risk tracks 1 − confidence, so wrong
// answers carry more risk and more vetoes; a veto iff risk ≥ 0.5.
func TestFirstAnswerRisk(t *testing.T) {
	items, ids := synthItems(1500, 4)
	m := New(cleanProfile(t), items)
	var risk, veto, n [2]float64 // by correctness
	correct := 0
	for i, id := range ids {
		obj, _ := decodeJSON(mustChat(t, m, asking(protocolReq(id, letters(4), kindFirst, i%3, 1, true), askRisk, askVeto)).Text)
		first := obj["ranking"].([]any)[0].(string)
		c := 0
		if first == items[id].Gold {
			c, correct = 1, correct+1
		}
		r, v := obj["risk"].(float64), obj["veto"].(bool)
		if v != (r >= 0.5) {
			t.Fatalf("risk %v veto %v", r, v)
		}
		risk[c] += r
		n[c]++
		if v {
			veto[c]++
		}
	}
	if acc := float64(correct) / float64(len(ids)); acc < 0.6 || acc > 0.72 {
		t.Fatalf("first-answer accuracy %.3f, want the predict band", acc)
	}
	t.Logf("accuracy %.3f; wrong: risk %.2f veto %.2f; correct: risk %.2f veto %.2f", float64(correct)/float64(len(ids)), risk[0]/n[0], veto[0]/n[0], risk[1]/n[1], veto[1]/n[1])
	if risk[0]/n[0] < risk[1]/n[1]+0.15 || veto[0]/n[0] < 2*veto[1]/n[1] {
		t.Fatalf("wrong answers: risk %.2f veto %.2f; correct: risk %.2f veto %.2f", risk[0]/n[0], veto[0]/n[0], risk[1]/n[1], veto[1]/n[1])
	}
}
