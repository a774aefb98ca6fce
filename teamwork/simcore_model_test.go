package teamwork_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm/sim"
)

// singleAgentAccuracy simulates predict calls of three agents over the items
// and returns the accuracy among well-formed answers, and the mean
// confidence of correct and of wrong answers.
func singleAgentAccuracy(t testing.TB, p Profile, items map[string]Item, ids []string, body string) (acc, confRight, confWrong float64) {
	m := New(p, items, testTeam)
	var parsed, right int
	var sumR, sumW float64
	for i, id := range ids {
		for a := 0; a < 3; a++ {
			req := agentReq(id, items[id].Letters, kindPredict, a, 0, int64(i*3+a), true, body)
			l, conf, ok := firstChoice(mustChat(t, m, req).Text)
			if !ok {
				continue
			}
			parsed++
			if l == items[id].Gold {
				right++
				sumR += conf
			} else {
				sumW += conf
			}
		}
	}
	return float64(right) / float64(parsed), sumR / float64(right), sumW / float64(parsed-right)
}

func TestAccuracyBands(t *testing.T) {
	items, ids := synthItems(2000, 4)
	bands := map[string][2]float64{
		"default":       {0.60, 0.75},
		"misled":        {0.60, 0.75},
		"weak":          {0.35, 0.45},
		"strong":        {0.85, 0.90},
		"overconfident": {0.60, 0.75},
		"noisy":         {0.60, 0.75},
		"flaky":         {0.60, 0.75},
		"slow":          {0.60, 0.75},
	}
	for _, name := range Profiles() {
		t.Run(name, func(t *testing.T) {
			p := mustProfile(t, name)
			p.Latency = 0 // same skills as "slow"; no need to wait 2 minutes
			acc, cr, cw := singleAgentAccuracy(t, p, items, ids, "")
			t.Logf("%s: single-agent accuracy %.3f, confidence correct %.3f wrong %.3f", name, acc, cr, cw)
			b := bands[name]
			if acc < b[0] || acc > b[1] {
				t.Fatalf("%s: accuracy %.3f outside [%.2f, %.2f]", name, acc, b[0], b[1])
			}
		})
	}
}

func TestConfidence(t *testing.T) {
	items, ids := synthItems(1000, 4)
	def := mustProfile(t, "default")
	_, cr, cw := singleAgentAccuracy(t, def, items, ids, "")
	if cr < cw+0.1 {
		t.Fatalf("default: mean confidence correct %.3f vs wrong %.3f; want correct clearly higher", cr, cw)
	}
	over := def
	over.Overconfidence = 1.5
	_, ocr, ocw := singleAgentAccuracy(t, over, items, ids, "")
	if ocr < cr+0.05 || ocw < cw+0.1 {
		t.Fatalf("Overconfidence 1.5: confidence %.3f/%.3f vs %.3f/%.3f; want higher", ocr, ocw, cr, cw)
	}
	if _, cr, cw := singleAgentAccuracy(t, mustProfile(t, "overconfident"), items, ids, ""); cr < 0.85 || cw < 0.7 {
		t.Fatalf("overconfident profile: confidence %.3f/%.3f", cr, cw)
	}
}

// wrongLetter returns a wrong letter of the item other than avoid.
func wrongLetter(it Item, avoid string) string {
	for _, l := range it.Letters {
		if l != it.Gold && l != avoid {
			return l
		}
	}
	return ""
}

// discussOutcome runs a discuss call where the agent holds own and the peers
// (three agents and the leader) all hold peer; it returns the new first choice.
func discussOutcome(t testing.TB, m *Model, id string, it Item, own, peer string, seed int64) string {
	body := positionLine("you", rankWith(it.Letters, own), 0.6)
	for n := 2; n <= 4; n++ {
		body += positionLine(fmt.Sprintf("agent %d", n), rankWith(it.Letters, peer), 0.7)
	}
	body += "POSITION leader: " + peer + "\n"
	req := agentReq(id, it.Letters, kindDiscuss, 0, 1, seed, true, body)
	l, _, ok := firstChoice(mustChat(t, m, req).Text)
	if !ok {
		t.Fatalf("discuss answer does not decode")
	}
	return l
}

func TestPersuadability(t *testing.T) {
	items, ids := synthItems(1000, 4)
	m := New(cleanProfile(t), items, testTeam)
	var wrongToGoldPeersGold, wrongToGoldPeersWrong, wrongSwitch, rightSwitch int
	for i, id := range ids {
		it := items[id]
		w1 := wrongLetter(it, "")
		w2 := wrongLetter(it, w1)
		if discussOutcome(t, m, id, it, w1, it.Gold, int64(i)) == it.Gold {
			wrongToGoldPeersGold++
			wrongSwitch++
		}
		if discussOutcome(t, m, id, it, w1, w2, int64(i)) == it.Gold {
			wrongToGoldPeersWrong++
		}
		if discussOutcome(t, m, id, it, it.Gold, w1, int64(i)) != it.Gold {
			rightSwitch++
		}
	}
	t.Logf("wrong agent reaches gold: peers on gold %d, peers on a wrong letter %d; switches: wrong agent %d, correct agent %d (of %d)",
		wrongToGoldPeersGold, wrongToGoldPeersWrong, wrongSwitch, rightSwitch, len(ids))
	if wrongToGoldPeersGold < 4*wrongToGoldPeersWrong || wrongToGoldPeersGold < len(ids)/2 {
		t.Fatalf("a wrong agent shown peers on the gold switched to it %d times, vs %d when shown a wrong letter", wrongToGoldPeersGold, wrongToGoldPeersWrong)
	}
	if rightSwitch >= wrongSwitch*8/10 {
		t.Fatalf("correct agents shown wrong peers switched %d times, wrong agents shown right peers %d; want fewer", rightSwitch, wrongSwitch)
	}
}

func TestPersuasionScalesWithShare(t *testing.T) {
	items, ids := synthItems(1000, 4)
	m := New(cleanProfile(t), items, testTeam)
	count := func(npeersOnGold int) int {
		n := 0
		for i, id := range ids {
			it := items[id]
			w := wrongLetter(it, "")
			body := positionLine("you", rankWith(it.Letters, w), 0.6)
			for k := 0; k < 4; k++ {
				peer := w
				if k < npeersOnGold {
					peer = it.Gold
				}
				body += positionLine(fmt.Sprintf("agent %d", k+2), rankWith(it.Letters, peer), 0)
			}
			req := agentReq(id, it.Letters, kindDiscuss, 0, 2, int64(i), true, body)
			if l, _, _ := firstChoice(mustChat(t, m, req).Text); l == it.Gold {
				n++
			}
		}
		return n
	}
	// With 2 of 4 peers on the gold and 2 agreeing with own, the majority is tied
	// with own, so no pull; 3 of 4 pulls; 4 of 4 pulls harder.
	c2, c3, c4 := count(2), count(3), count(4)
	t.Logf("reach gold with 2/3/4 of 4 peers on it: %d %d %d", c2, c3, c4)
	if !(c2 < c3 && c3 < c4) {
		t.Fatalf("switching does not grow with the share of peers: %d %d %d", c2, c3, c4)
	}
}

func TestLeaderKinds(t *testing.T) {
	items, ids := synthItems(2000, 4)
	p := cleanProfile(t)
	m := New(p, items, testTeam)

	counts := map[float64]int{}
	for i, id := range ids {
		obj, _ := decodeJSON(mustChat(t, m, leaderReq(id, letters(4), kindAssess, 0, int64(i), true, "")).Text)
		counts[obj["agents"].(float64)]++
	}
	if counts[3] < counts[2]+counts[4]-200 || counts[2] < 300 || counts[4] < 300 {
		t.Fatalf("assess agent counts %v; want 2–4 weighted toward 3", counts)
	}

	// Tiebreak: the gold among the tied wins more than a coin flip; it never
	// answers outside the tied letters.
	goldWins := 0
	for i, id := range ids[:1000] {
		it := items[id]
		w := wrongLetter(it, "")
		obj, _ := decodeJSON(mustChat(t, m, leaderReq(id, it.Letters, kindTieBreak, 0, int64(i), true, "TIED: "+w+", "+it.Gold+"\n")).Text)
		switch obj["answer"] {
		case it.Gold:
			goldWins++
		case w:
		default:
			t.Fatalf("tiebreak answered %v outside TIED: %s, %s", obj["answer"], w, it.Gold)
		}
	}
	if goldWins < 650 {
		t.Fatalf("tiebreak chose the tied gold %d of 1000 times", goldWins)
	}

	// Mediate: with every peer on a wrong letter the leaning is still the gold
	// when the leader knows it.
	leanGold := 0
	for i, id := range ids[:1000] {
		it := items[id]
		w := wrongLetter(it, "")
		body := positionLine("agent 1", rankWith(it.Letters, w), 0) + positionLine("agent 2", rankWith(it.Letters, w), 0)
		obj, _ := decodeJSON(mustChat(t, m, leaderReq(id, it.Letters, kindMediate, 1, int64(i), true, body)).Text)
		switch obj["leaning"] {
		case it.Gold:
			leanGold++
		case w:
		default:
			t.Fatalf("mediate leaning %v is neither the gold nor the peers' majority", obj["leaning"])
		}
	}
	if leanGold < 400 || leanGold > 900 {
		t.Fatalf("mediate leaned to the gold %d of 1000 times against a unanimous wrong team", leanGold)
	}
}

func TestRecruit(t *testing.T) {
	items, ids := synthItems(200, 4)
	m := New(cleanProfile(t), items, testTeam)
	for i, id := range ids {
		for _, n := range []int{1, 2, 4, 6} {
			for _, rank := range []string{"yes", "no"} {
				body := fmt.Sprintf("TEAM SIZE: %d\nRANK SPECIALTIES: %s\n", n, rank)
				req := leaderReq(id, letters(4), kindRecruit, 0, int64(i), true, body)
				obj, _ := decodeJSON(mustChat(t, m, req).Text)
				roles := obj["roles"].([]any)
				if len(roles) != n {
					t.Fatalf("TEAM SIZE %d: %d roles", n, len(roles))
				}
				seen := map[string]bool{}
				for k, r := range roles {
					name := r.(map[string]any)["name"].(string)
					if seen[name] {
						t.Fatalf("role %q repeated", name)
					}
					seen[name] = true
					if rank == "yes" && specialtyIdx(name) != int(traits(t, m, id).Relevance[k]) {
						t.Fatalf("ranked recruitment: role %d is %q, not the %d-th most relevant", k+1, name, k+1)
					}
				}
				// Roles do not depend on the seed: they are per question.
				req.Seed += 1000
				if obj2, _ := decodeJSON(mustChat(t, m, req).Text); fmt.Sprint(obj2["roles"]) != fmt.Sprint(obj["roles"]) {
					t.Fatalf("roles changed with the seed")
				}
			}
		}
	}
}

func TestBonuses(t *testing.T) {
	items, ids := synthItems(2000, 4)
	p := cleanProfile(t)
	p.SpecialistBonus, p.AnalysisBonus = 0.3, 0.3
	base, _, _ := singleAgentAccuracy(t, p, items, ids, "")
	analysis, _, _ := singleAgentAccuracy(t, p, items, ids, "QUESTION ANALYSIS:\nThe stem tests a mechanism.\n")
	m := New(p, items, testTeam)
	// A relevant role (top of each question's list) against an irrelevant one.
	var relevant, irrelevant, n int
	for i, id := range ids {
		it := items[id]
		tr := traits(t, m, id)
		rel := sim.SpecialtyName(tr.Relevance[0])
		irr := sim.SpecialtyName(tr.Relevance[sim.NSpecialties-1])
		for _, c := range []struct {
			role string
			hit  *int
		}{{rel, &relevant}, {irr, &irrelevant}} {
			req := agentReq(id, it.Letters, kindPredict, 0, 0, int64(i), true, "YOUR ROLE: "+c.role+"\n")
			if l, _, _ := firstChoice(mustChat(t, m, req).Text); l == it.Gold {
				*c.hit++
			}
		}
		n++
	}
	rel, irr := float64(relevant)/float64(n), float64(irrelevant)/float64(n)
	t.Logf("accuracy: base %.3f, with analysis %.3f, relevant role %.3f, irrelevant role %.3f", base, analysis, rel, irr)
	if analysis < base+0.05 || rel < irr+0.03 || irr < base+0.02 {
		t.Fatal("bonuses do not raise accuracy as documented")
	}
}

func TestFacts(t *testing.T) {
	items, ids := synthItems(1000, 4)
	m := New(cleanProfile(t), items, testTeam)
	inPool := func(id string, f string) bool {
		k := strings.TrimSuffix(f, ".")
		for _, x := range traits(t, m, id).Supportive {
			if x == k {
				return true
			}
		}
		return false
	}
	var rightIn, rightAll, wrongIn, wrongAll int
	for i, id := range ids {
		it := items[id]
		for a := 0; a < 3; a++ {
			obj, _ := decodeJSON(mustChat(t, m, agentReq(id, it.Letters, kindPredict, a, 0, int64(i), true, "")).Text)
			facts := obj["facts"].([]any)
			if len(facts) < 1 || len(facts) > 3 {
				t.Fatalf("predict gave %d facts", len(facts))
			}
			right := obj["ranking"].([]any)[0] == it.Gold
			for _, f := range facts {
				s := f.(string)
				if sim.FactIndex(strings.TrimSuffix(s, ".")) < 0 || strings.ContainsAny(s, ";") {
					t.Fatalf("fact %q is not from the bank", s)
				}
				in := inPool(id, s)
				if right {
					rightAll++
					if in {
						rightIn++
					}
				} else {
					wrongAll++
					if in {
						wrongIn++
					}
				}
			}
		}
	}
	if rightIn != rightAll {
		t.Fatalf("correct agents stated %d of %d facts from the supportive pool; want all", rightIn, rightAll)
	}
	if share := float64(wrongIn) / float64(wrongAll); share < 0.25 || share > 0.55 {
		t.Fatalf("wrong agents stated %.2f supportive facts; want about 0.4", share)
	}

	// Supportive verified facts help a wrong agent find the gold (FactsBonus
	// raises the insight rate); distractor facts do not.
	p := cleanProfile(t)
	p.FactsBonus, p.Insight = 1.0, 0.3
	mf := New(p, items, testTeam)
	reach := func(pool func(sim.Traits) [5]string) int {
		n := 0
		for i, id := range ids {
			it := items[id]
			body := "VERIFIED FACTS:\n"
			facts := pool(traits(t, mf, id))
			for _, f := range facts[:3] {
				body += "- " + f + ".\n"
			}
			body += positionLine("you", rankWith(it.Letters, wrongLetter(it, "")), 0.6)
			if l, _, _ := firstChoice(mustChat(t, mf, agentReq(id, it.Letters, kindDiscuss, 0, 1, int64(i), true, body)).Text); l == it.Gold {
				n++
			}
		}
		return n
	}
	good := reach(func(tr sim.Traits) [5]string { return tr.Supportive })
	bad := reach(func(tr sim.Traits) [5]string { return tr.Misleading })
	t.Logf("wrong agent alone reaches gold: supportive facts %d, distractor facts %d of %d", good, bad, len(ids))
	if good < bad+len(ids)/20 {
		t.Fatalf("supportive facts (%d) do not help more than distractor facts (%d)", good, bad)
	}
}

func TestDiscussWithoutOwnPosition(t *testing.T) {
	// Without "POSITION you" the agent draws an independent ranking, so its
	// accuracy alone matches predict.
	items, ids := synthItems(2000, 4)
	m := New(cleanProfile(t), items, testTeam)
	right := 0
	for i, id := range ids {
		l, _, _ := firstChoice(mustChat(t, m, agentReq(id, items[id].Letters, kindFinal, 1, 3, int64(i), true, "FINAL TURN: yes\n")).Text)
		if l == items[id].Gold {
			right++
		}
	}
	if acc := float64(right) / float64(len(ids)); acc < 0.6 || acc > 0.78 {
		t.Fatalf("final without positions: accuracy %.3f", acc)
	}
}

// TestTeamProtocol plays a small team protocol (3 agents: predict, two
// discussion turns with positions, final, majority vote) to check that the
// pieces fit and that the team stays in a plausible accuracy range.
func TestTeamProtocol(t *testing.T) {
	items, ids := synthItems(1000, 4)
	for _, name := range []string{"weak", "default", "strong", "misled"} {
		p := mustProfile(t, name)
		p.MalformedRate, p.FenceRate = 0, 0
		m := New(p, items, testTeam)
		var single, team, unanimous int
		for qi, id := range ids {
			it := items[id]
			const nAgents = 3
			ranks := make([][]string, nAgents)
			confs := make([]float64, nAgents)
			for a := range nAgents {
				obj, _ := decodeJSON(mustChat(t, m, agentReq(id, it.Letters, kindPredict, a, 0, int64(qi*100+a), true, "")).Text)
				ranks[a] = toStrings(obj["ranking"])
				confs[a] = obj["confidence"].(float64)
			}
			if ranks[0][0] == it.Gold {
				single++
			}
			for turn := 1; turn <= 3; turn++ {
				kind := kindDiscuss
				if turn == 3 {
					kind = kindFinal
				}
				next := make([][]string, nAgents)
				for a := range nAgents {
					body := positionLine("you", ranks[a], confs[a])
					for b := range nAgents {
						if b != a {
							body += positionLine(fmt.Sprintf("agent %d", b+1), ranks[b], confs[b])
						}
					}
					obj, _ := decodeJSON(mustChat(t, m, agentReq(id, it.Letters, kind, a, turn, int64(qi*100+turn*10+a), true, body)).Text)
					next[a] = toStrings(obj["ranking"])
					confs[a] = obj["confidence"].(float64)
				}
				ranks = next
			}
			votes := map[string]int{}
			best := ""
			for a := range nAgents {
				votes[ranks[a][0]]++
				if best == "" || votes[ranks[a][0]] > votes[best] {
					best = ranks[a][0]
				}
			}
			if votes[best] == nAgents {
				unanimous++
			}
			if best == it.Gold {
				team++
			}
		}
		n := float64(len(ids))
		t.Logf("%s: single agent %.3f, team after discussion %.3f, unanimous %.3f", name, float64(single)/n, float64(team)/n, float64(unanimous)/n)
		if name == "default" && (float64(team)/n < 0.6 || float64(team)/n > 0.85) {
			t.Fatalf("default team accuracy %.3f implausible", float64(team)/n)
		}
	}
}

func toStrings(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, len(arr))
	for i, x := range arr {
		out[i], _ = x.(string)
	}
	return out
}
