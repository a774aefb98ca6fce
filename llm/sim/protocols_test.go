package sim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

// The kinds of protocols/ and the prompts that carry their marker lines.
var protocolKinds = []string{kindFirst, kindZeroShot, kindCoT, kindRevise, kindPeerReview, kindChairman, kindJudge}

// expert is one answer shown to a decider or reviewer.
type expert struct {
	first string
	conf  float64
	tier  int     // -1: no reasoning line
	rank  float64 // mean peer rank (chairman), 0: none
}

// panelBlock renders what a judge or chairman sees: POSITION, REASONING and
// (rank > 0) PEER RANK lines per expert.
func panelBlock(ls []string, es []expert) string {
	var b strings.Builder
	for i, e := range es {
		who := fmt.Sprintf("agent %d", i+1)
		rk := rankWith(ls, e.first)
		b.WriteString(positionLine(who, rk, e.conf))
		if e.tier >= 0 {
			fmt.Fprintf(&b, "REASONING %s: %s\n", who, reasoningText(rk[0], rk[1], e.tier))
		}
	}
	for i, e := range es {
		if e.rank > 0 {
			fmt.Fprintf(&b, "PEER RANK agent %d: %.2f (ranked by 2 of 3 reviewers)\n", i+1, e.rank)
		}
	}
	return b.String()
}

// labelBlock renders what a reviewer sees: answers under labels.
func labelBlock(ls []string, labels []string, es []expert) string {
	var b strings.Builder
	for k, e := range es {
		who := "response " + labels[k]
		if e.first == "" {
			fmt.Fprintf(&b, "POSITION %s: (no readable answer)\n", who)
			continue
		}
		rk := rankWith(ls, e.first)
		b.WriteString(positionLine(who, rk, e.conf))
		if e.tier >= 0 {
			fmt.Fprintf(&b, "REASONING %s: %s\n", who, reasoningText(rk[0], rk[1], e.tier))
		}
	}
	return b.String()
}

var reviewLabels = []string{"Alpha", "Bravo", "Charlie"}

// protocolBody is the marker lines a prompt of kind carries.
func protocolBody(kind string, ls []string) string {
	last := ls[len(ls)-1]
	switch kind {
	case kindRevise:
		return positionLine("you", rankWith(ls, ls[1]), 0.6) + positionLine("agent 2", rankWith(ls, ls[0]), 0.7) +
			positionLine("agent 3", rankWith(ls, ls[0]), 0.8)
	case kindPeerReview:
		return labelBlock(ls, reviewLabels, []expert{{ls[0], 0.7, 3, 0}, {last, 0.6, 1, 0}, {"", 0, -1, 0}})
	case kindChairman:
		return "STRATEGY: risk-averse\n" + panelBlock(ls, []expert{{ls[0], 0.7, 2, 1.5}, {ls[1], 0.8, 3, 1.5}, {ls[0], 0.4, 1, 3}})
	case kindJudge:
		return judgeInput(fmt.Sprintf(`"answer": %q, "confidence": 0.7, "reasoning": "r"`, ls[0]),
			fmt.Sprintf(`"answer": %q, "confidence": 0.8, "reasoning": "r"`, ls[0]),
			fmt.Sprintf(`"answer": %q, "confidence": null, "reasoning": null`, last))
	}
	return ""
}

func protocolReq(id string, ls []string, kind string, agent int, seed int64, schema bool) llm.Request {
	req := agentReq(id, ls, kind, agent, 1, seed, schema, protocolBody(kind, ls))
	req.Meta.Phase = "answer"
	if kind == kindChairman || kind == kindJudge {
		req.Meta.Agent = -1
	}
	return req
}

var protocolJSONKeys = map[string][]string{
	kindFirst:      {"reasoning", "ranking", "confidence"},
	kindZeroShot:   {"answer"},
	kindCoT:        {"reasoning", "answer"},
	kindRevise:     {"reasoning", "ranking", "confidence"},
	kindPeerReview: {"reviews", "final_ranking"},
	kindChairman:   {"answer", "reasoning", "contributors"},
	kindJudge:      {"reasoning", "consensus_answer", "average_confidence", "is_low_confidence"},
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
	switch kind {
	case kindPeerReview:
		got := fmt.Sprint(obj["final_ranking"])
		for _, l := range reviewLabels {
			if strings.Count(got, "Response "+l) != 1 {
				t.Fatalf("peer_review: ranking %s is not a permutation of the labels", got)
			}
		}
		if !strings.HasSuffix(got, "Response Charlie]") {
			t.Fatalf("peer_review: the unreadable answer is not last: %s", got)
		}
	case kindChairman:
		sum := 0.0
		for _, c := range obj["contributors"].([]any) {
			e := c.(map[string]any)
			id, w := e["id"].(float64), e["weight"].(float64)
			if id < 1 || id > 3 || w < 0 || w > 1 {
				t.Fatalf("chairman: contributor %v", e)
			}
			sum += w
		}
		if len(obj["contributors"].([]any)) > 0 && math.Abs(sum-1) > 1e-9 {
			t.Fatalf("chairman: weights sum to %v", sum)
		}
	case kindJudge:
		avg, _ := obj["average_confidence"].(float64)
		if low, _ := obj["is_low_confidence"].(bool); avg != 0.5 || !low && obj["consensus_answer"] != ls[0] || low && obj["consensus_answer"] != "NONE" {
			t.Fatalf("judge: %v, want the mean 0.50 of 0.70, 0.80 and null, low (or the slip), NONE (or %s)", obj, ls[0])
		}
	}
}

var protocolPlainLabels = map[string][]string{
	kindFirst:    {"REASONING: ", "RANKING: ", "CONFIDENCE: "},
	kindZeroShot: {"ANSWER: "},
	kindCoT:      {"REASONING: ", "ANSWER: "},
	kindRevise:   {"REASONING: ", "RANKING: ", "CONFIDENCE: "},
	kindPeerReview: {"REVIEW Response Alpha: STRENGTHS: ", "REVIEW Response Bravo: STRENGTHS: ", "REVIEW Response Charlie: STRENGTHS: ",
		"FINAL RANKING:", "1. Response ", "2. Response ", "3. Response Charlie"},
	kindChairman: {"REASONING: ", "ANSWER: ", "```json", `{"contributors":[`, "```"},
	kindJudge:    {"REASONING: ", "CONSENSUS ANSWER: ", "AVERAGE CONFIDENCE: ", "IS LOW CONFIDENCE: "},
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
			if kind != kindChairman && strings.Contains(text, "{") {
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

// TestRevisionFollowsThePeers: a debate revision moves to the peers'
// majority with a probability that grows with its share, as discuss does.
func TestRevisionFollowsThePeers(t *testing.T) {
	items, ids := synthItems(1500, 4)
	m := New(cleanProfile(t), items)
	switched := func(peers []string) float64 {
		k := 0
		for i, id := range ids {
			ls := items[id].Letters
			body := positionLine("you", rankWith(ls, ls[3]), 0.6)
			for j, p := range peers {
				body += positionLine(fmt.Sprintf("agent %d", j+2), rankWith(ls, p), 0.7)
			}
			req := agentReq(id, ls, kindRevise, 0, 1, int64(i), true, body)
			if f, _, _ := firstChoice(mustChat(t, m, req).Text); f == ls[0] {
				k++
			}
		}
		return float64(k) / float64(len(ids))
	}
	alone, half, all := switched(nil), switched([]string{"A", "C"}), switched([]string{"A", "A"})
	t.Logf("moved to A: alone %.2f, one of two peers %.2f, both peers %.2f", alone, half, all)
	if !(alone < 0.1 && half > alone+0.05 && all > half+0.1 && all < 0.9) {
		t.Fatalf("moved to A: alone %.2f, one of two peers %.2f, both peers %.2f", alone, half, all)
	}
}

// TestReviewRanksWhatItReads: a reviewer ranks the answer whose reasoning
// reads better first, and favours answers it agrees with.
func TestReviewRanksWhatItReads(t *testing.T) {
	items, ids := synthItems(600, 4)
	m := New(cleanProfile(t), items)
	better, goldFirst := 0, 0
	for i, id := range ids {
		ls, gold := items[id].Letters, items[id].Gold
		other := ls[(slices.Index(ls, gold)+1)%4]
		body := labelBlock(ls, reviewLabels[:2], []expert{{other, 0.7, 0, 0}, {other, 0.7, 4, 0}})
		obj, _ := decodeJSON(mustChat(t, m, agentReq(id, ls, kindPeerReview, 0, 1, int64(i), true, body)).Text)
		if fmt.Sprint(obj["final_ranking"]) == "[Response Bravo Response Alpha]" {
			better++
		}
		// Equal reasoning: the reviewer's own knowledge tips it toward the gold.
		body = labelBlock(ls, reviewLabels[:2], []expert{{other, 0.7, 2, 0}, {gold, 0.7, 2, 0}})
		obj, _ = decodeJSON(mustChat(t, m, agentReq(id, ls, kindPeerReview, 0, 1, int64(i), true, body)).Text)
		if fmt.Sprint(obj["final_ranking"]) == "[Response Bravo Response Alpha]" {
			goldFirst++
		}
	}
	t.Logf("better reasoning first %d/%d; gold first at equal reasoning %d/%d", better, len(ids), goldFirst, len(ids))
	if better < len(ids)*95/100 || goldFirst < len(ids)*6/10 || goldFirst > len(ids)*9/10 {
		t.Fatalf("better reasoning first %d/%d; gold first at equal reasoning %d/%d", better, len(ids), goldFirst, len(ids))
	}
}

// ignorant is a profile whose deciders never know the answer, so their
// choice is their rule over what they are shown.
func ignorant(t *testing.T) Profile {
	p := cleanProfile(t)
	p.LeaderSkill = -10
	return p
}

// TestChairmanStrategies: each strategy's rule over the same council.
func TestChairmanStrategies(t *testing.T) {
	items, ids := synthItems(50, 4)
	m := New(ignorant(t), items)
	// X = A held by 1 and 2; Y = B held by the best peer-ranked expert, who is
	// unsure; agent 4 holds C.
	council := []expert{{"A", 0.4, 2, 3}, {"A", 0.45, 2, 2}, {"B", 0.8, 2, 1}, {"C", 0.9, 2, 3.5}}
	want := map[string]string{"balanced": "A", "risk-averse": "B", "goal-seeking": "B", "novelty": "B"}
	// risk-averse keeps confidence ≥ 0.5 and rank ≤ the median 2.5: agent 3 → B.
	// novelty: B and C are held by one each; B's backer is better ranked.
	for st, w := range want {
		for i, id := range ids {
			body := "STRATEGY: " + st + "\n" + panelBlock(letters(4), council)
			req := leaderReq(id, letters(4), kindChairman, 0, int64(i), true, body)
			obj, _ := decodeJSON(mustChat(t, m, req).Text)
			if obj["answer"] != w {
				t.Fatalf("%s: answer %v, want %s", st, obj["answer"], w)
			}
			for _, c := range obj["contributors"].([]any) {
				id := int(c.(map[string]any)["id"].(float64))
				if council[id-1].first != w {
					t.Fatalf("%s: credits agent %d, who did not propose %s", st, id, w)
				}
			}
		}
	}
	// Unanimous council: novelty takes the most common second choice.
	unanimous := "STRATEGY: novelty\n" + positionLine("agent 1", []string{"A", "D", "B", "C"}, 0.8) +
		positionLine("agent 2", []string{"A", "D", "C", "B"}, 0.8) + positionLine("agent 3", []string{"A", "B", "C", "D"}, 0.8)
	obj, _ := decodeJSON(mustChat(t, m, leaderReq(ids[0], letters(4), kindChairman, 0, 1, true, unanimous)).Text)
	if obj["answer"] != "D" {
		t.Fatalf("novelty on a unanimous council: %v", obj["answer"])
	}
	// A chairman who knows answers the gold whatever the strategy.
	p := cleanProfile(t)
	p.LeaderSkill = 10
	k := New(p, items)
	for i, id := range ids {
		obj, _ := decodeJSON(mustChat(t, k, leaderReq(id, letters(4), kindChairman, 0, int64(i), true, "STRATEGY: novelty\n"+panelBlock(letters(4), council))).Text)
		if obj["answer"] != items[id].Gold {
			t.Fatalf("knowing chairman answered %v, gold %s", obj["answer"], items[id].Gold)
		}
	}
}
