package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

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
	req := llm.Request{
		Model: "sim",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are a medical expert on a team answering a multiple-choice question."},
			{Role: llm.RoleUser, Content: "A 54-year-old presents with chest pain radiating to the left arm.\n" + optionsBlock(ls) + body},
		},
		Seed: seed,
		Meta: llm.Meta{QuestionID: id, Arm: "base", Phase: "answer", Kind: kind, Turn: turn, Agent: agent},
	}
	if schema {
		req.Schema = testSchema
	}
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
	p, err := LookupProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func cleanProfile(t testing.TB) Profile {
	p := mustProfile(t, "default")
	p.MalformedRate, p.FenceRate = 0, 0
	return p
}

func checkRanking(t *testing.T, kind string, v any, ls []string) {
	t.Helper()
	arr, ok := v.([]any)
	if !ok || len(arr) != len(ls) {
		t.Fatalf("%s: ranking %v is not a full ranking of %v", kind, v, ls)
	}
	seen := map[string]bool{}
	for _, x := range arr {
		s, _ := x.(string)
		if !slices.Contains(ls, s) || seen[s] {
			t.Fatalf("%s: ranking %v has a letter outside %v or a repeat", kind, v, ls)
		}
		seen[s] = true
	}
}
