package teamwork_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

var allKinds = []string{
	kindAssess, kindRecruit, kindPredict, kindSynthesize,
	kindDiscuss, kindFinal, kindMediate, kindMonitorSelect,
	kindMonitorRespond, kindMonitorRate, kindTieBreak,
}

func isLeaderKind(k string) bool {
	switch k {
	case kindAssess, kindRecruit, kindSynthesize, kindMediate,
		kindMonitorSelect, kindMonitorRate, kindTieBreak:
		return true
	}
	return false
}

// kindBody returns the marker lines a prompt of kind would carry.
func kindBody(kind string, ls []string) string {
	last := ls[len(ls)-1]
	switch kind {
	case kindRecruit:
		return "TEAM SIZE: 3\nRANK SPECIALTIES: yes\n"
	case kindPredict:
		return "YOUR ROLE: Cardiologist\nQUESTION ANALYSIS:\nThe stem asks for the diagnosis.\n"
	case kindSynthesize:
		return leaderBlock(ls, []shown{{ls[0], 3, false}, {ls[1], -1, false}, {last, 0, false}})
	case kindMediate, kindMonitorSelect:
		return positionLine("agent 1", rankWith(ls, ls[0]), 0.7) +
			positionLine("agent 2", rankWith(ls, ls[1]), 0.6) +
			positionLine("agent 3", rankWith(ls, last), 0) +
			history(ls, []statement{{1, "initial answer", 2, ls[0]}, {2, "initial answer", 4, ls[1]}, {3, "turn 1", 1, last}})
	case kindDiscuss, kindFinal:
		return "YOUR ROLE: Neurologist\nVERIFIED FACTS:\n- " + factBank[3] + ".\n- some unrelated fact\n\n" +
			positionLine("you", rankWith(ls, ls[1]), 0.65) +
			positionLine("agent 2", rankWith(ls, ls[0]), 0.8) +
			positionLine("agent 3", rankWith(ls, ls[0]), 0.5) +
			"POSITION leader: " + ls[0] + "\n"
	case kindMonitorRespond:
		return "TARGET: agent 1\nCONCERN: Agent 1 ignores the timing.\n" +
			positionLine("you", rankWith(ls, last), 0.6) +
			positionLine("agent 2", rankWith(ls, ls[0]), 0.7)
	case kindMonitorRate:
		return "TARGET: agent 2\nCONCERN: Agent 2 ignores the timing.\n" +
			positionLine("agent 2", rankWith(ls, ls[1]), 0.7) +
			"RESPONSE: I have considered it, but " + ls[1] + " remains ahead. " + qualityCues[3][0] + "\n"
	case kindTieBreak:
		return "TIED: " + ls[0] + ", " + last + "\n" +
			leaderBlock(ls, []shown{{ls[0], 1, false}, {"", 0, true}, {last, 2, false}})
	}
	return ""
}

func kindReq(id string, ls []string, kind string, agent, turn int, seed int64, schema bool) llm.Request {
	if isLeaderKind(kind) {
		return leaderReq(id, ls, kind, turn, seed, schema, kindBody(kind, ls))
	}
	return agentReq(id, ls, kind, agent, turn, seed, schema, kindBody(kind, ls))
}

func TestDeterminism(t *testing.T) {
	items, ids := synthItems(40, 5)
	p := mustProfile(t, "noisy") // exercises fences and malformed shapes too
	m := New(p, items, testTeam)
	m2 := New(p, items, testTeam)
	for _, kind := range allKinds {
		for _, schema := range []bool{true, false} {
			for i, id := range ids {
				req := kindReq(id, items[id].Letters, kind, i%3, 1, int64(i), schema)
				a := mustChat(t, m, req).Text
				if b := mustChat(t, m, req).Text; a != b {
					t.Fatalf("%s: same request answered differently:\n%q\n%q", kind, a, b)
				}
				if b := mustChat(t, m2, req).Text; a != b {
					t.Fatalf("%s: a second model answered differently:\n%q\n%q", kind, a, b)
				}
				req.Meta.Arm, req.Meta.Repeat = "other-arm", 7
				if b := mustChat(t, m, req).Text; a != b {
					t.Fatalf("%s: Arm/Repeat changed the answer:\n%q\n%q", kind, a, b)
				}
			}
		}
	}
}

func TestSeedChangesAnswers(t *testing.T) {
	items, ids := synthItems(200, 4)
	m := New(mustProfile(t, "default"), items, testTeam)
	changed := 0
	for _, id := range ids {
		req := kindReq(id, items[id].Letters, kindPredict, 0, 0, 1, true)
		a := mustChat(t, m, req).Text
		req.Seed = 2
		if mustChat(t, m, req).Text != a {
			changed++
		}
	}
	if changed < len(ids)*8/10 {
		t.Fatalf("changing Seed changed %d of %d answers; want most", changed, len(ids))
	}
}

func TestConcurrentEqualsSequential(t *testing.T) {
	items, ids := synthItems(50, 4)
	m := New(mustProfile(t, "noisy"), items, testTeam)
	var reqs []llm.Request
	for i := 0; len(reqs) < 500; i++ {
		id := ids[i%len(ids)]
		kind := allKinds[i%len(allKinds)]
		reqs = append(reqs, kindReq(id, items[id].Letters, kind, i%4, i%3, int64(i/7), i%2 == 0))
	}
	seq := make([]string, len(reqs))
	for i, r := range reqs {
		seq[i] = mustChat(t, m, r).Text
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			// Each goroutine walks the requests in its own order.
			for k := range reqs {
				i := (k*7 + g*61) % len(reqs)
				resp, err := m.Chat(context.Background(), reqs[i])
				if err != nil {
					t.Errorf("Chat: %v", err)
					return
				}
				if resp.Text != seq[i] {
					t.Errorf("request %d: concurrent answer differs from sequential", i)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	if got, want := m.Requests(), int64(len(reqs)*9); got != want {
		t.Fatalf("Requests() = %d, want %d", got, want)
	}
}

// jsonKeys are the keys FORMATS.md requires in each kind's JSON object.
var jsonKeys = map[string][]string{
	kindAssess:         {"agents", "analysis"},
	kindRecruit:        {"roles"},
	kindPredict:        {"reasoning", "ranking", "confidence", "facts"},
	kindSynthesize:     {"facts", "report", "quality"},
	kindDiscuss:        {"reasoning", "ranking", "confidence"},
	kindFinal:          {"reasoning", "ranking", "confidence"},
	kindMediate:        {"summary", "leaning"},
	kindMonitorSelect:  {"agent", "concern"},
	kindMonitorRespond: {"response", "accepts", "ranking", "confidence"},
	kindMonitorRate:    {"quality", "debated_point"},
	kindTieBreak:       {"answer", "reasoning"},
}

// plainLabels are the labelled lines of each kind's plain-text answer, in order.
var plainLabels = map[string][]string{
	kindAssess:         {"ANALYSIS: ", "AGENTS: "},
	kindRecruit:        {"ROLE 1: ", "ROLE 2: ", "ROLE 3: "},
	kindPredict:        {"REASONING: ", "RANKING: ", "CONFIDENCE: ", "FACTS: "},
	kindSynthesize:     {"FACTS: ", "REPORT: ", "QUALITY: "},
	kindDiscuss:        {"REASONING: ", "RANKING: ", "CONFIDENCE: "},
	kindFinal:          {"REASONING: ", "RANKING: ", "CONFIDENCE: "},
	kindMediate:        {"SUMMARY: ", "LEANING: "},
	kindMonitorSelect:  {"CONCERN: ", "AGENT: "},
	kindMonitorRespond: {"RESPONSE: ", "ACCEPTS: ", "RANKING: ", "CONFIDENCE: "},
	kindMonitorRate:    {"DEBATED: ", "QUALITY: "},
	kindTieBreak:       {"REASONING: ", "ANSWER: "},
}

func checkUnit(t *testing.T, kind string, key string, v any) {
	t.Helper()
	f, ok := v.(float64)
	if !ok || f < 0 || f > 1 {
		t.Fatalf("%s: %s = %v, want a number in [0,1]", kind, key, v)
	}
}

func TestKindsJSON(t *testing.T) {
	for _, nopt := range []int{2, 4, 10} {
		items, ids := synthItems(30, nopt)
		m := New(cleanProfile(t), items, testTeam)
		for _, kind := range allKinds {
			for i, id := range ids {
				ls := items[id].Letters
				req := kindReq(id, ls, kind, 0, 1, int64(i), true)
				text := mustChat(t, m, req).Text
				obj, ok := decodeJSON(text)
				if !ok {
					t.Fatalf("%s: not one JSON object: %q", kind, text)
				}
				for _, k := range jsonKeys[kind] {
					if _, ok := obj[k]; !ok {
						t.Fatalf("%s: key %q missing in %q", kind, k, text)
					}
				}
				for k, v := range obj {
					switch k {
					case "ranking":
						checkRanking(t, kind, v, ls)
					case "confidence":
						f, _ := v.(float64)
						if f < 0.05 || f > 0.99 {
							t.Fatalf("%s: confidence %v outside [0.05,0.99]", kind, v)
						}
					case "quality":
						if kind == kindSynthesize {
							arr, _ := v.([]any)
							if len(arr) != 3 {
								t.Fatalf("synthesize: quality %v, want 3 scores", v)
							}
							for n, x := range arr {
								e, _ := x.(map[string]any)
								if len(e) != 2 || e["agent"] != float64(n+1) {
									t.Fatalf("synthesize: quality entry %v, want {agent: %d, score}", x, n+1)
								}
								checkUnit(t, kind, k, e["score"])
							}
						} else {
							checkUnit(t, kind, k, v)
						}
					case "leaning", "answer":
						s, _ := v.(string)
						if !slices.Contains(ls, s) {
							t.Fatalf("%s: %s %q not among %v", kind, k, s, ls)
						}
						if kind == kindTieBreak && s != ls[0] && s != ls[len(ls)-1] {
							t.Fatalf("tiebreak: answer %q not among the tied letters", s)
						}
					case "agents":
						if f, _ := v.(float64); f < 2 || f > 4 {
							t.Fatalf("assess: agents = %v", v)
						}
					case "agent":
						if f, _ := v.(float64); f < 1 || f > 3 {
							t.Fatalf("monitor_select: agent = %v, want one of the positions 1-3", v)
						}
					case "roles":
						arr, _ := v.([]any)
						if len(arr) != 3 {
							t.Fatalf("recruit: %d roles, want TEAM SIZE 3", len(arr))
						}
						names := map[string]bool{}
						for _, r := range arr {
							ro, _ := r.(map[string]any)
							name, _ := ro["name"].(string)
							focus, _ := ro["focus"].(string)
							if specialtyIdx(name) < 0 || focus == "" || names[name] {
								t.Fatalf("recruit: bad role %v", r)
							}
							names[name] = true
						}
					case "facts":
						arr, _ := v.([]any)
						if len(arr) < 1 || len(arr) > 4 {
							t.Fatalf("%s: %d facts", kind, len(arr))
						}
					case "accepts":
						if _, ok := v.(bool); !ok {
							t.Fatalf("%s: accepts = %v", kind, v)
						}
					}
				}
			}
		}
	}
}

func TestKindsPlain(t *testing.T) {
	items, ids := synthItems(30, 5)
	m := New(cleanProfile(t), items, testTeam)
	for _, kind := range allKinds {
		for i, id := range ids {
			ls := items[id].Letters
			req := kindReq(id, ls, kind, 0, 1, int64(i), false)
			text := mustChat(t, m, req).Text
			if strings.Contains(text, "{") {
				t.Fatalf("%s: plain answer contains JSON: %q", kind, text)
			}
			lines := strings.Split(text, "\n")
			labels := plainLabels[kind]
			if len(lines) != len(labels) {
				t.Fatalf("%s: %d lines, want %d: %q", kind, len(lines), len(labels), text)
			}
			for k, lab := range labels {
				if !strings.HasPrefix(lines[k], lab) || len(lines[k]) == len(lab) {
					t.Fatalf("%s: line %d = %q, want label %q", kind, k+1, lines[k], lab)
				}
				val := strings.TrimPrefix(lines[k], lab)
				switch lab {
				case "RANKING: ":
					got := strings.Split(val, ", ")
					sorted := slices.Clone(got)
					slices.Sort(sorted)
					if !slices.Equal(sorted, ls) {
						t.Fatalf("%s: ranking %q is not a permutation of %v", kind, val, ls)
					}
				case "LEANING: ", "ANSWER: ":
					if !slices.Contains(ls, val) {
						t.Fatalf("%s: %q not a letter of %v", kind, val, ls)
					}
				case "ACCEPTS: ":
					if val != "yes" && val != "no" {
						t.Fatalf("accepts %q", val)
					}
				}
			}
		}
	}
}

func TestNoHintsFromText(t *testing.T) {
	items, ids := synthItems(100, 4)
	m := New(mustProfile(t, "default"), items, testTeam)
	for _, kind := range allKinds {
		for i, id := range ids {
			ls := items[id].Letters
			req := kindReq(id, ls, kind, 1, 1, int64(i), i%2 == 0)
			a := mustChat(t, m, req).Text
			hinted := req
			hinted.Messages = slices.Clone(req.Messages)
			hint := fmt.Sprintf("gold: %s\nThe correct answer is %s.\nANSWER: %s\nRANKING: %s\nAgent 1, reply: %s\nReasoning of agent 3: %s\n",
				ls[(i+1)%4], ls[(i+1)%4], ls[(i+1)%4], ls[(i+1)%4], qualityCues[0][0], qualityCues[4][1])
			hinted.Messages[1].Content = hint + req.Messages[1].Content + "\n" + hint
			hinted.Messages = append(hinted.Messages, llm.Message{Role: llm.RoleAssistant, Content: "POSITION you: " + ls[(i+1)%4]})
			if b := mustChat(t, m, hinted).Text; a != b {
				t.Fatalf("%s: a hint in the text changed the answer:\n%q\n%q", kind, a, b)
			}
		}
	}
}
