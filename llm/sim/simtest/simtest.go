// Package simtest builds the requests and items the simulator's tests use,
// for the tests of a protocol's simulated behaviour (sim.Behaviour) beside
// the protocol: synthetic items, requests carrying marker lines, and the
// readers of the answers. It is what llm/sim's own tests use, exported.
package simtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
)

// Schema is a request's schema: set, the simulator answers in JSON.
var Schema = &llm.Schema{Name: "answer", Schema: json.RawMessage(`{"type":"object"}`)}

// Letters are the first n option letters.
func Letters(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('A' + i))
	}
	return out
}

// Items makes n questions with the given number of options and a
// pseudo-random gold (seeded: the same every run), and their ids in order.
func Items(n, options int) (map[string]sim.Item, []string) {
	r := rand.New(rand.NewPCG(1, 2))
	items := make(map[string]sim.Item, n)
	ids := make([]string, n)
	for i := range ids {
		id := fmt.Sprintf("q%05d", i)
		ls := Letters(options)
		items[id] = sim.Item{Letters: ls, Gold: ls[r.IntN(options)]}
		ids[i] = id
	}
	return items, ids
}

// AgentReq is a request of kind for agent (0-based; -1 the leader) whose
// user message shows a stem, the options and body (the marker lines).
func AgentReq(id string, ls []string, kind string, agent, turn int, seed int64, schema bool, body string) llm.Request {
	req := llm.Request{
		Model: "sim",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are a medical expert on a team answering a multiple-choice question."},
			{Role: llm.RoleUser, Content: "A 54-year-old presents with chest pain radiating to the left arm.\n" + OptionsBlock(ls) + body},
		},
		Seed: seed,
		Meta: llm.Meta{QuestionID: id, Arm: "base", Phase: "discussion", Kind: kind, Turn: turn, Agent: agent},
	}
	if schema {
		req.Schema = Schema
	}
	return req
}

// LeaderReq is AgentReq for the leader (Agent −1, phase aggregation).
func LeaderReq(id string, ls []string, kind string, turn int, seed int64, schema bool, body string) llm.Request {
	req := AgentReq(id, ls, kind, -1, turn, seed, schema, body)
	req.Meta.Phase = "aggregation"
	return req
}

// PositionLine is a "POSITION who: A > B …" line (with its confidence when
// conf > 0).
func PositionLine(who string, rank []string, conf float64) string {
	s := "POSITION " + who + ": " + strings.Join(rank, " > ")
	if conf > 0 {
		s += fmt.Sprintf(" (confidence %.2f)", conf)
	}
	return s + "\n"
}

// RankWith is the option letters with first moved to the front.
func RankWith(ls []string, first string) []string {
	out := []string{first}
	for _, l := range ls {
		if l != first {
			out = append(out, l)
		}
	}
	return out
}

// ReasoningText is reasoning for first over second carrying the cue of
// quality tier t.
func ReasoningText(first, second string, t int) string {
	return "The key findings point to " + first + "; " + second + " is the closest alternative. " + sim.QualityCue(t, t%2)
}

// DecodeJSON extracts the JSON object of text (fences allowed).
func DecodeJSON(text string) (map[string]any, bool) {
	s := text
	if i := strings.Index(s, "```json"); i >= 0 {
		s = s[i+len("```json"):]
		if j := strings.Index(s, "```"); j >= 0 {
			s = s[:j]
		}
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &m); err != nil {
		return nil, false
	}
	return m, true
}

// FirstChoice is the first letter of the ranking in a JSON answer and its
// confidence.
func FirstChoice(text string) (string, float64, bool) {
	m, ok := DecodeJSON(text)
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

// Chat is m's answer to req, retrying injected faults.
func Chat(t testing.TB, m *sim.Model, req llm.Request) llm.Response {
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

// Profile is the named profile.
func Profile(t testing.TB, name string) sim.Profile {
	t.Helper()
	p, err := sim.LookupProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Clean is the default profile without malformed or fenced answers.
func Clean(t testing.TB) sim.Profile {
	p := Profile(t, "default")
	p.MalformedRate, p.FenceRate = 0, 0
	return p
}

// CoreRefuses fails t unless the simulator's core alone (no behaviour)
// refuses req as a bad request naming its kind: a protocol's kind is
// answered only by the behaviour the protocol registers.
func CoreRefuses(t testing.TB, items map[string]sim.Item, req llm.Request) {
	t.Helper()
	_, err := sim.New(Clean(t), items).Chat(context.Background(), req)
	if llm.ClassOf(err) != llm.ClassBadRequest || !strings.Contains(fmt.Sprint(err), req.Meta.Kind) {
		t.Fatalf("the core answered %s without the protocol's behaviour: %v", req.Meta.Kind, err)
	}
}

// Carries fails t unless b (a protocol's registered behaviour) answers every
// one of kinds.
func Carries(t testing.TB, b *sim.Behaviour, kinds ...string) {
	t.Helper()
	if b == nil {
		t.Fatal("the protocol registers no simulated behaviour (Sim is nil)")
	}
	for _, k := range kinds {
		if _, ok := b.Kinds[k]; !ok {
			t.Errorf("the behaviour of %s lacks kind %s", b.Protocol, k)
		}
	}
}

// Share is the share of ids for which hit (given each id's index and id)
// is true.
func Share(ids []string, hit func(i int, id string) bool) float64 {
	k := 0
	for i, id := range ids {
		if hit(i, id) {
			k++
		}
	}
	return float64(k) / float64(len(ids))
}

// JSONObject is the JSON object of a kind's answer text; it fails t unless
// the object has exactly keys.
func JSONObject(t testing.TB, kind, text string, keys []string) map[string]any {
	t.Helper()
	obj, ok := DecodeJSON(text)
	if !ok || len(obj) != len(keys) {
		t.Fatalf("%s: not the JSON object of its kind (keys %v): %q", kind, keys, text)
	}
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			t.Fatalf("%s: key %q missing in %q", kind, k, text)
		}
	}
	return obj
}

// Labelled fails t unless the lines of a kind's plain answer text start
// with labels in order; exact: and there are no more lines than labels.
func Labelled(t testing.TB, kind, text string, labels []string, exact bool) {
	t.Helper()
	lines := strings.Split(text, "\n")
	if len(lines) < len(labels) || exact && len(lines) != len(labels) {
		t.Fatalf("%s: %d lines, want %d: %q", kind, len(lines), len(labels), text)
	}
	for k, lab := range labels {
		if !strings.HasPrefix(lines[k], lab) {
			t.Fatalf("%s: line %d = %q, want %q", kind, k+1, lines[k], lab)
		}
	}
}

// OptionsBlock is the OPTIONS block AgentReq shows for the letters ls.
func OptionsBlock(ls []string) string {
	var b strings.Builder
	b.WriteString("OPTIONS:\n")
	for _, l := range ls {
		fmt.Fprintf(&b, "%s) option text %s\n", l, strings.ToLower(l))
	}
	return b.String()
}

// CheckRanking fails t unless v (a decoded JSON "ranking") ranks every
// letter of ls once.
func CheckRanking(t testing.TB, kind string, v any, ls []string) {
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
