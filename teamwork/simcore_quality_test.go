package teamwork_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm/sim"
)

// shown is one agent as a leader prompt shows it.
type shown struct {
	first   string
	tier    int // tier of the REASONING line's cue; -1: no REASONING line
	abstain bool
}

// reasoningText is agent reasoning in the simulator's style with the cue of tier t.
func reasoningText(first, second string, t int) string {
	return "The key findings point to " + first + "; " + second + " is the closest alternative. " + qualityCues[t][t%2]
}

// leaderBlock renders the per-agent block of the synthesis and tie-break
// prompts (FORMATS.md "What the leader sees").
func leaderBlock(ls []string, agents []shown) string {
	var b strings.Builder
	for i, a := range agents {
		n := i + 1
		if a.abstain {
			fmt.Fprintf(&b, "POSITION agent %d: (no readable answer)\n", n)
			continue
		}
		rk := rankWith(ls, a.first)
		b.WriteString(positionLine(fmt.Sprintf("agent %d", n), rk, 0.7))
		if a.tier >= 0 {
			fmt.Fprintf(&b, "REASONING agent %d: %s\n", n, reasoningText(rk[0], rk[1], a.tier))
		}
		fmt.Fprintf(&b, "FACTS agent %d: %s; %s\n", n, factBank[n], factBank[n+9])
	}
	return b.String()
}

// history renders a DISCUSSION SO FAR block; each statement is (agent, tier, first).
type statement struct {
	agent int
	what  string
	tier  int // -1: reasoning without a cue
	first string
}

func history(ls []string, st []statement) string {
	var b strings.Builder
	b.WriteString("DISCUSSION SO FAR:\n")
	for _, s := range st {
		rk := rankWith(ls, s.first)
		text := "I keep " + rk[0] + " first."
		if s.tier >= 0 {
			text = reasoningText(rk[0], rk[1], s.tier)
		}
		fmt.Fprintf(&b, "Agent %d, %s: %s [ranking %s]\n", s.agent, s.what, text, strings.Join(rk, " > "))
	}
	b.WriteString("\n")
	return b.String()
}

func qualityScores(t *testing.T, text string) map[int]float64 {
	t.Helper()
	obj, ok := decodeJSON(text)
	if !ok {
		t.Fatalf("synthesize answer does not decode: %q", text)
	}
	out := map[int]float64{}
	for _, x := range obj["quality"].([]any) {
		e := x.(map[string]any)
		out[int(e["agent"].(float64))] = e["score"].(float64)
	}
	return out
}

// TestReasoningCarriesQuality checks that every agent answer's reasoning
// carries the cue of its latent quality's tier.
func TestReasoningCarriesQuality(t *testing.T) {
	items, ids := synthItems(600, 4)
	// No skill term and no noise: q = σ(±2 + 2·[distractor]), so a correct
	// answer is tier 4 (σ(2) = 0.88), the distractor tier 2 (σ(0)), any
	// other wrong answer tier 0 (σ(−2) = 0.12).
	p := cleanProfile(t)
	p.QualitySkill, p.QualityNoise, p.QualitySignal, p.DistractorFluency = 0, 0, 2, 2
	m := New(p, items, testTeam)
	for i, id := range ids {
		it := items[id]
		for _, kind := range []string{kindPredict, kindDiscuss, kindFinal, kindMonitorRespond} {
			for _, schema := range []bool{true, false} {
				body := ""
				if kind != kindPredict {
					body = positionLine("you", rankWith(it.Letters, it.Letters[i%4]), 0.6)
				}
				if kind == kindMonitorRespond {
					body = "TARGET: agent 1\nCONCERN: Agent 1 ignores the timing.\n" + body
				}
				text := mustChat(t, m, agentReq(id, it.Letters, kind, i%3, 1, int64(i), schema, body)).Text
				var reasoning, first string
				if schema {
					obj, _ := decodeJSON(text)
					key := "reasoning"
					if kind == kindMonitorRespond {
						key = "response"
					}
					reasoning, first = obj[key].(string), toStrings(obj["ranking"])[0]
				} else {
					for _, line := range strings.Split(text, "\n") {
						if v, ok := strings.CutPrefix(line, "REASONING: "); ok {
							reasoning = v
						} else if v, ok := strings.CutPrefix(line, "RESPONSE: "); ok {
							reasoning = v
						} else if v, ok := strings.CutPrefix(line, "RANKING: "); ok {
							first = strings.Split(v, ", ")[0]
						}
					}
				}
				want := int8(0)
				switch {
				case first == it.Gold:
					want = 4
				case first == it.Letters[traits(t, m, id).Distractor]:
					want = 2
				}
				if got := decodeTier(reasoning); got != want {
					t.Fatalf("%s (json %v): first %s (gold %s), reasoning %q carries tier %d, want %d", kind, schema, first, it.Gold, reasoning, got, want)
				}
			}
		}
	}

	// The default profile: correlated with correctness, not determined by it.
	m = New(cleanProfile(t), items, testTeam)
	var sum [2]float64
	var n [2]int
	var tiers [2][sim.NTiers]int
	for i, id := range ids {
		for a := 0; a < 3; a++ {
			obj, _ := decodeJSON(mustChat(t, m, agentReq(id, items[id].Letters, kindPredict, a, 0, int64(i), true, "")).Text)
			right := 0
			if toStrings(obj["ranking"])[0] == items[id].Gold {
				right = 1
			}
			tier := decodeTier(obj["reasoning"].(string))
			tiers[right][tier]++
			sum[right] += tierMid(tier)
			n[right]++
		}
	}
	wrong, right := sum[0]/float64(n[0]), sum[1]/float64(n[1])
	t.Logf("default: tiers of wrong answers %v (mean %.2f), of correct answers %v (mean %.2f)", tiers[0], wrong, tiers[1], right)
	if right < wrong+0.2 || tiers[0][3]+tiers[0][4] == 0 || tiers[1][0]+tiers[1][1] == 0 {
		t.Fatalf("reasoning quality should be higher for correct answers on average, and overlap")
	}
}

// TestLeaderRatesWhatItReads checks that synthesis quality scores come from
// the REASONING lines and nothing else.
func TestLeaderRatesWhatItReads(t *testing.T) {
	items, ids := synthItems(500, 4)
	exact := cleanProfile(t)
	exact.PerceptionNoise = 0
	m := New(exact, items, testTeam)
	id := ids[0]
	ls := items[id].Letters
	agents := []shown{{ls[0], 4, false}, {ls[1], -1, false}, {"", 0, true}, {ls[2], 0, false}}
	for _, schema := range []bool{true, false} {
		text := mustChat(t, m, leaderReq(id, ls, kindSynthesize, 0, 1, schema, leaderBlock(ls, agents))).Text
		if schema {
			got := qualityScores(t, text)
			want := map[int]float64{1: 0.9, 2: 0.5, 4: 0.1}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("quality %v, want %v (agent 3 abstained: no entry)", got, want)
			}
			if !strings.Contains(text, `"quality":[{"agent":1,"score":0.90},{"agent":2,"score":0.50},{"agent":4,"score":0.10}]`) {
				t.Fatalf("quality not keyed by agent in order: %s", text)
			}
		} else if !strings.Contains(text, "\nQUALITY: agent 1: 0.90; agent 2: 0.50; agent 4: 0.10") {
			t.Fatalf("plain quality line: %q", text)
		}
	}

	// With noise the scores still follow the text, whoever is right: the
	// agent on the gold with weak reasoning rates below the wrong agent with
	// strong reasoning; the same prompt rates alike whatever the gold.
	def := cleanProfile(t)
	m = New(def, items, testTeam)
	alt := map[string]Item{}
	for _, id := range ids {
		it := items[id]
		alt[id] = Item{Letters: it.Letters, Gold: wrongLetter(it, "")}
	}
	mAlt := New(def, alt, testTeam)
	var goldWeak, wrongStrong float64
	for i, id := range ids {
		it := items[id]
		body := leaderBlock(it.Letters, []shown{{it.Gold, 0, false}, {wrongLetter(it, ""), 4, false}, {it.Gold, 2, false}})
		req := leaderReq(id, it.Letters, kindSynthesize, 0, int64(i), true, body)
		q := qualityScores(t, mustChat(t, m, req).Text)
		goldWeak += q[1]
		wrongStrong += q[2]
		if qa := qualityScores(t, mustChat(t, mAlt, req).Text); fmt.Sprint(qa) != fmt.Sprint(q) {
			t.Fatalf("quality changed with the gold alone: %v vs %v", q, qa)
		}
	}
	goldWeak /= float64(len(ids))
	wrongStrong /= float64(len(ids))
	t.Logf("mean score: gold-first with weak reasoning %.3f, wrong with strong reasoning %.3f", goldWeak, wrongStrong)
	if math.Abs(goldWeak-0.1) > 0.05 || math.Abs(wrongStrong-0.9) > 0.05 {
		t.Fatalf("scores do not follow the reasoning shown")
	}

	// Without REASONING lines the leader knows nothing: the scores do not
	// depend on who holds the gold.
	var sumGold, sumWrong float64
	for i, id := range ids {
		it := items[id]
		w := wrongLetter(it, "")
		a := leaderBlock(it.Letters, []shown{{it.Gold, -1, false}, {w, -1, false}})
		b := leaderBlock(it.Letters, []shown{{w, -1, false}, {it.Gold, -1, false}})
		qa := qualityScores(t, mustChat(t, m, leaderReq(id, it.Letters, kindSynthesize, 0, int64(i), true, a)).Text)
		qb := qualityScores(t, mustChat(t, m, leaderReq(id, it.Letters, kindSynthesize, 0, int64(i), true, b)).Text)
		if fmt.Sprint(qa) != fmt.Sprint(qb) {
			t.Fatalf("without reasoning lines the scores moved with the positions: %v vs %v", qa, qb)
		}
		sumGold += qa[1]
		sumWrong += qa[2]
	}
	if d := (sumGold - sumWrong) / float64(len(ids)); math.Abs(d) > 0.03 {
		t.Fatalf("without reasoning lines gold-first agents rate %.3f higher", d)
	}
}

func monitorTarget(t *testing.T, m *Model, id string, ls []string, seed int64, body string) int {
	t.Helper()
	obj, ok := decodeJSON(mustChat(t, m, leaderReq(id, ls, kindMonitorSelect, 1, seed, true, body)).Text)
	if !ok {
		t.Fatal("monitor_select answer does not decode")
	}
	return int(obj["agent"].(float64))
}

func TestMonitorSelectTargetsWeakestPerceived(t *testing.T) {
	items, ids := synthItems(1000, 4)
	exact := cleanProfile(t)
	exact.PerceptionNoise = 0
	mx := New(exact, items, testTeam)
	m := New(cleanProfile(t), items, testTeam)
	alt := map[string]Item{}
	for _, id := range ids {
		alt[id] = Item{Letters: items[id].Letters, Gold: wrongLetter(items[id], "")}
	}
	mAlt := New(cleanProfile(t), alt, testTeam)

	var weakest, noHistory [4]int
	for i, id := range ids {
		it := items[id]
		ls := it.Letters
		w := wrongLetter(it, "")
		pos := positionLine("agent 1", rankWith(ls, it.Gold), 0.7) + positionLine("agent 2", rankWith(ls, w), 0.7) + positionLine("agent 3", rankWith(ls, it.Gold), 0.7)
		// The latest statement of an agent counts; leader lines do not.
		hist := history(ls, []statement{
			{1, "initial answer", 3, it.Gold}, {2, "initial answer", 0, w}, {3, "initial answer", 4, it.Gold},
			{2, "turn 1", 4, w}, {1, "turn 1", 1, it.Gold},
		}) // agent 1 now weakest
		hist = strings.Replace(hist, "\n\n", "\nLeader, concern to Agent 3: "+qualityCues[0][0]+"\n\n", 1)
		if got := monitorTarget(t, mx, id, ls, int64(i), pos+hist); got != 1 {
			t.Fatalf("PerceptionNoise 0: target %d, want agent 1 (the weakest latest reasoning)", got)
		}
		// With noise: mostly the weakest, here the wrong agent 2 holds strong
		// reasoning and the right agent 1 weak reasoning.
		body := pos + history(ls, []statement{{1, "turn 1", 0, it.Gold}, {2, "turn 1", 4, w}, {3, "turn 1", 4, it.Gold}})
		got := monitorTarget(t, m, id, ls, int64(i), body)
		weakest[got]++
		if gotAlt := monitorTarget(t, mAlt, id, ls, int64(i), body); gotAlt != got {
			t.Fatalf("monitor_select changed with the gold alone: %d vs %d", got, gotAlt)
		}
		// Without statements the leader has no information.
		noHistory[monitorTarget(t, m, id, ls, int64(i), pos)]++
		// An abstaining agent is not a candidate.
		abst := pos + "POSITION agent 2: (no readable answer)\n" + history(ls, []statement{{1, "turn 1", 4, it.Gold}, {2, "turn 1", 0, w}, {3, "turn 1", 4, it.Gold}})
		if got := monitorTarget(t, m, id, ls, int64(i), abst); got == 2 {
			t.Fatalf("monitor_select targeted an agent shown as abstaining")
		}
	}
	t.Logf("targets (agents 1-3): weakest reasoning on agent 1 %v; no statements %v", weakest[1:], noHistory[1:])
	if weakest[1] < 950 {
		t.Fatalf("the right agent with the weakest reasoning was targeted %d of 1000 times", weakest[1])
	}
	for a := 1; a <= 3; a++ {
		if noHistory[a] < 250 || noHistory[a] > 420 {
			t.Fatalf("without statements targets should be uniform: %v", noHistory[1:])
		}
	}
}

func TestMonitorRateReadsResponse(t *testing.T) {
	items, ids := synthItems(200, 4)
	exact := cleanProfile(t)
	exact.PerceptionNoise = 0
	m := New(exact, items, testTeam)
	for i, id := range ids {
		it := items[id]
		for _, first := range []string{it.Gold, wrongLetter(it, "")} {
			for tier := -1; tier < sim.NTiers; tier++ {
				body := positionLine("agent 2", rankWith(it.Letters, first), 0.7) + "TARGET: agent 2\nCONCERN: Agent 2 ignores the timing.\n"
				want := 0.5
				if tier >= 0 {
					body += "RESPONSE: I have considered it, but " + first + " remains ahead. " + qualityCues[tier][i%2] + "\n"
					want = tierMid(int8(tier))
				}
				obj, _ := decodeJSON(mustChat(t, m, leaderReq(id, it.Letters, kindMonitorRate, 1, int64(i), true, body)).Text)
				if got := obj["quality"].(float64); math.Abs(got-want) > 1e-9 {
					t.Fatalf("response tier %d (target on %s, gold %s): quality %v, want %v", tier, first, it.Gold, got, want)
				}
			}
		}
	}
}

// respond plays a monitor_respond call for an agent holding own (and peers
// when given); it returns the new first choice, accepts and the reply's tier.
func respond(t *testing.T, m *Model, id string, ls []string, own string, peers string, seed int64) (string, bool, int8) {
	t.Helper()
	body := "TARGET: agent 1\nCONCERN: Agent 1 ignores the timing.\n" + positionLine("you", rankWith(ls, own), 0.6) + peers
	obj, _ := decodeJSON(mustChat(t, m, agentReq(id, ls, kindMonitorRespond, 0, 1, seed, true, body)).Text)
	return toStrings(obj["ranking"])[0], obj["accepts"].(bool), decodeTier(obj["response"].(string))
}

// TestConcernMovesAnyAgent: a concern can talk a right agent out of the
// right answer, the more easily the weaker its reasoning.
func TestConcernMovesAnyAgent(t *testing.T) {
	items, ids := synthItems(3000, 4)
	// Quality independent of the first choice: the reply's tier is the tier
	// of the reasoning the agent defended.
	p := cleanProfile(t)
	p.QualitySignal, p.DistractorFluency = 0, 0
	m := New(p, items, testTeam)
	var acc, all [sim.NTiers]int
	movedWrong := 0
	for i, id := range ids {
		it := items[id]
		first, accepts, tier := respond(t, m, id, it.Letters, it.Gold, "", int64(i))
		all[tier]++
		if accepts {
			acc[tier]++
			if first == it.Gold {
				t.Fatalf("accepts but kept %s", first)
			}
			if want := rankWith(it.Letters, it.Gold)[1]; first != want {
				t.Fatalf("without peers a concern moves to the own second choice %s, got %s", want, first)
			}
			movedWrong++
		}
	}
	rate := func(lo, hi int) float64 {
		a, n := 0, 0
		for k := lo; k <= hi; k++ {
			a += acc[k]
			n += all[k]
		}
		return float64(a) / float64(n)
	}
	t.Logf("right agents accepting a concern by reply tier: %v of %v (%d moved to a wrong answer)", acc, all, movedWrong)
	if movedWrong == 0 || rate(0, 1) < rate(3, 4)+0.1 {
		t.Fatalf("a concern should move right agents, weak reasoning more often: low tiers %.3f, high tiers %.3f", rate(0, 1), rate(3, 4))
	}

	// With no resistance the tier does not matter: ConcernEffect for all.
	p.QualityResistance = 0
	m = New(p, items, testTeam)
	moved := 0
	for i, id := range ids {
		if _, accepts, _ := respond(t, m, id, items[id].Letters, items[id].Gold, "", int64(i)); accepts {
			moved++
		}
	}
	if r := float64(moved) / float64(len(ids)); math.Abs(r-p.ConcernEffect) > 0.03 {
		t.Fatalf("QualityResistance 0: %.3f of right agents accepted, want ConcernEffect %.2f", r, p.ConcernEffect)
	}

	// In the default profile wrong agents (weaker reasoning on average)
	// accept more often than right ones, and right ones still do.
	m = New(cleanProfile(t), items, testTeam)
	var right, wrong int
	for i, id := range ids {
		it := items[id]
		if _, a, _ := respond(t, m, id, it.Letters, it.Gold, "", int64(i)); a {
			right++
		}
		if _, a, _ := respond(t, m, id, it.Letters, wrongLetter(it, ""), "", int64(i)); a {
			wrong++
		}
	}
	t.Logf("default: concerns accepted by right agents %d, wrong agents %d of %d", right, wrong, len(ids))
	if right == 0 || wrong < right*3/2 {
		t.Fatalf("default: right agents accepted %d, wrong agents %d", right, wrong)
	}
}

// TestNoPullTowardGold: with Insight 0 and reasoning quality independent
// of the gold, discussion and monitoring answers do not depend on the gold
// at all; with Insight the only difference is toward the gold.
func TestNoPullTowardGold(t *testing.T) {
	items, ids := synthItems(600, 4)
	alt := map[string]Item{}
	for _, id := range ids {
		alt[id] = Item{Letters: items[id].Letters, Gold: wrongLetter(items[id], "")}
	}
	p := cleanProfile(t)
	p.Insight, p.QualitySignal, p.DistractorFluency = 0, 0, 0
	withInsight := p
	withInsight.Insight = 0.3
	for _, tc := range []struct {
		p       Profile
		insight bool
	}{{p, false}, {withInsight, true}} {
		m, mAlt := New(tc.p, items, testTeam), New(tc.p, alt, testTeam)
		differ := 0
		for i, id := range ids {
			ls := items[id].Letters
			for _, kind := range []string{kindDiscuss, kindFinal, kindMonitorRespond} {
				body := positionLine("you", rankWith(ls, ls[i%4]), 0.6) +
					positionLine("agent 2", rankWith(ls, ls[(i+1)%4]), 0.7) +
					positionLine("agent 3", rankWith(ls, ls[(i+1)%4]), 0.4) +
					"POSITION leader: " + ls[(i+2)%4] + "\n"
				if kind == kindMonitorRespond {
					body = "TARGET: agent 1\nCONCERN: Agent 1 ignores the timing.\n" + body
				}
				req := agentReq(id, ls, kind, 0, 1, int64(i), true, body)
				a, _, _ := firstChoice(mustChat(t, m, req).Text)
				b, _, _ := firstChoice(mustChat(t, mAlt, req).Text)
				if a == b {
					continue
				}
				differ++
				if !tc.insight {
					t.Fatalf("%s: first choice %s with gold %s, %s with gold %s (Insight 0)", kind, a, items[id].Gold, b, alt[id].Gold)
				}
				if a != items[id].Gold && b != alt[id].Gold {
					t.Fatalf("%s: answers differ (%s, %s) but neither moved to its gold", kind, a, b)
				}
			}
		}
		if tc.insight && differ == 0 {
			t.Fatal("Insight 0.3 never found the gold")
		}
	}
}

// TestLeaderLeaningFollowsPerception: a leader that does not know the
// answer leans (mediate) and breaks ties toward the agent whose reasoning
// it perceives as best.
func TestLeaderLeaningFollowsPerception(t *testing.T) {
	items, ids := synthItems(300, 4)
	p := cleanProfile(t)
	p.LeaderSkill, p.PerceptionNoise = -10, 0 // never knows; reads exactly
	m := New(p, items, testTeam)
	for i, id := range ids {
		it := items[id]
		ls := it.Letters
		w := wrongLetter(it, "")
		pos := positionLine("agent 1", rankWith(ls, w), 0.7) + positionLine("agent 2", rankWith(ls, w), 0.7) + positionLine("agent 3", rankWith(ls, it.Gold), 0.7)
		for _, tc := range []struct {
			tiers [3]int
			want  string
		}{{[3]int{1, 1, 4}, it.Gold}, {[3]int{4, 1, 1}, w}} {
			body := pos + history(ls, []statement{{1, "turn 1", tc.tiers[0], w}, {2, "turn 1", tc.tiers[1], w}, {3, "turn 1", tc.tiers[2], it.Gold}})
			obj, _ := decodeJSON(mustChat(t, m, leaderReq(id, ls, kindMediate, 1, int64(i), true, body)).Text)
			if obj["leaning"] != tc.want {
				t.Fatalf("mediate: tiers %v, leaning %v, want %s", tc.tiers, obj["leaning"], tc.want)
			}
			tb := "TIED: " + w + ", " + it.Gold + "\n" + leaderBlock(ls, []shown{{w, tc.tiers[0], false}, {w, tc.tiers[1], false}, {it.Gold, tc.tiers[2], false}})
			obj, _ = decodeJSON(mustChat(t, m, leaderReq(id, ls, kindTieBreak, 0, int64(i), true, tb)).Text)
			if obj["answer"] != tc.want {
				t.Fatalf("tiebreak: tiers %v, answer %v, want %s", tc.tiers, obj["answer"], tc.want)
			}
		}
	}
}

// playTeam plays a small teamwork protocol on one question: three agents
// predict; turn 1 discusses round-robin (each sees the latest positions and
// the statements so far); with leader, a mediation whose leaning the next
// turn sees; with monitor (needs leader), a concern to the agent the leader
// selects, its answer replacing its position; turn 2 is final; plain Borda
// (ties to the earliest letter). Seeds depend on the call, not the arm.
func playTeam(t *testing.T, m *Model, qi int, id string, it Item, leader, monitor bool) bool {
	const n = 3
	ls := it.Letters
	ranks := make([][]string, n)
	confs := make([]float64, n)
	hist := "DISCUSSION SO FAR:\n"
	say := func(a int, what string, obj map[string]any, key string) {
		ranks[a] = toStrings(obj["ranking"])
		confs[a] = obj["confidence"].(float64)
		hist += fmt.Sprintf("Agent %d, %s: %s [ranking %s]\n", a+1, what, obj[key], strings.Join(ranks[a], " > "))
	}
	for a := range n {
		obj, _ := decodeJSON(mustChat(t, m, agentReq(id, ls, kindPredict, a, 0, int64(qi*100+a), true, "")).Text)
		say(a, "initial answer", obj, "reasoning")
	}
	positions := func(self int) string {
		s := ""
		for b := range n {
			who := fmt.Sprintf("agent %d", b+1)
			if b == self {
				who = "you"
			}
			s += positionLine(who, ranks[b], confs[b])
		}
		return s
	}
	leaning := ""
	for turn := 1; turn <= 2; turn++ {
		kind := kindDiscuss
		if turn == 2 {
			kind = kindFinal
		}
		for a := range n {
			body := positions(a) + leaning + hist + "\n"
			obj, _ := decodeJSON(mustChat(t, m, agentReq(id, ls, kind, a, turn, int64(qi*100+turn*10+a), true, body)).Text)
			say(a, fmt.Sprintf("turn %d", turn), obj, "reasoning")
		}
		if !leader || turn == 2 {
			continue
		}
		obj, _ := decodeJSON(mustChat(t, m, leaderReq(id, ls, kindMediate, turn, int64(qi*100+turn*10+9), true, positions(-1)+leaning+hist+"\n")).Text)
		leaning = "POSITION leader: " + obj["leaning"].(string) + "\n"
		if !monitor {
			continue
		}
		obj, _ = decodeJSON(mustChat(t, m, leaderReq(id, ls, kindMonitorSelect, turn, int64(qi*100+turn*10+8), true, positions(-1)+leaning+hist+"\n")).Text)
		target := int(obj["agent"].(float64)) - 1
		body := positions(target) + leaning + hist + "\n" + fmt.Sprintf("TARGET: agent %d\nCONCERN: %s\n", target+1, obj["concern"])
		obj, _ = decodeJSON(mustChat(t, m, agentReq(id, ls, kindMonitorRespond, target, turn, int64(qi*100+turn*10+target), true, body)).Text)
		say(target, "reply", obj, "response")
	}
	score := map[string]int{}
	for _, rk := range ranks {
		for p, l := range rk {
			score[l] += len(ls) - 1 - p
		}
	}
	best := ls[0]
	for _, l := range ls {
		if score[l] > score[best] {
			best = l
		}
	}
	return best == it.Gold
}

// TestComponentEffects plays the small protocol with and without
// leadership and monitoring: in the default profile they help; in the
// misled profile (a leader that judges by fluency, a fluent distractor, a
// deferential team) leadership hurts.
func TestComponentEffects(t *testing.T) {
	items, ids := synthItems(1000, 4)
	arms := []struct {
		name            string
		leader, monitor bool
	}{{"base", false, false}, {"l", true, false}, {"l+mm", true, true}}
	for _, name := range []string{"default", "misled"} {
		p := mustProfile(t, name)
		p.MalformedRate, p.FenceRate = 0, 0
		m := New(p, items, testTeam)
		correct := make([][]bool, len(arms))
		acc := make([]float64, len(arms))
		for k, arm := range arms {
			correct[k] = make([]bool, len(ids))
			for qi, id := range ids {
				correct[k][qi] = playTeam(t, m, qi, id, items[id], arm.leader, arm.monitor)
				if correct[k][qi] {
					acc[k]++
				}
			}
			acc[k] /= float64(len(ids))
		}
		flows := func(a, b int) (rw, wr int) {
			for qi := range ids {
				switch {
				case correct[a][qi] && !correct[b][qi]:
					rw++
				case !correct[a][qi] && correct[b][qi]:
					wr++
				}
			}
			return
		}
		lrw, lwr := flows(0, 1)
		mrw, mwr := flows(1, 2)
		t.Logf("%s: accuracy base %.3f, l %.3f, l+mm %.3f; base→l right→wrong %d wrong→right %d; l→l+mm right→wrong %d wrong→right %d",
			name, acc[0], acc[1], acc[2], lrw, lwr, mrw, mwr)
		switch name {
		case "default":
			if acc[1] < acc[0] || acc[2] < acc[1]-0.005 {
				t.Fatalf("default: leadership or monitoring lowers accuracy")
			}
		case "misled":
			if acc[1] > acc[0]-0.02 || lrw < 2*lwr {
				t.Fatalf("misled: leadership should clearly lower accuracy")
			}
		}
	}
}
