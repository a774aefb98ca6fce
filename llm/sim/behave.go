package sim

import (
	"math"

	"github.com/medteam-bench/medteam/llm"
)

// Call is one request being answered: what a Behaviour is handed (its
// exported methods are the core's mechanisms, behaviour_core.go).
type Call struct {
	m   *Model
	p   *Profile
	it  *item
	req *llm.Request
	key uint64
	n   int // number of options
	pr  prompt
	b   *Behaviour // the protocol's behaviour answering the call; nil: the core's kind
}

// call is the core's name for a Call.
type call = Call

func (c *call) rng(tag uint64) stream { return newStream(c.key, tag) }

// Answer is the latent content of a response, before formatting: what a
// mechanism computes, which the behaviour writes in its protocol's format.
type Answer struct {
	rank    ranking
	conf    float64
	facts   [4]uint8
	nfacts  int
	accepts bool

	// sent is the kind's one sentence, written as sent[0] l1 sent[1] l2 sent[2];
	// an agent's reasoning is followed by the cue of its quality tier.
	sent   *[3]string
	l1, l2 int8
	cue    string

	quality  [maxPeers]float64
	qagent   [maxPeers]int // agent number of each quality score
	nquality int
	letter   int8
	agent    int
	concern  *[2]string
	q        float64
}

// answer is the core's name for an Answer.
type answer = Answer

func newAnswer() answer { return answer{letter: -1, l1: -1, l2: -1} }

// respond answers the call: the core's own kinds here, every other with
// its behaviour.
func (c *call) respond() string {
	if c.req.Meta.Kind == kindFirst {
		return c.firstAnswer()
	}
	c.pr.leader = -1
	return c.b.Answer(c)
}

// firstAnswer is the shared first answer: an agent's independent answer
// (independent) in the first answer's format, then the fields a
// behaviour adds to it that the request asks for (FirstField), possibly
// malformed.
func (c *call) firstAnswer() string {
	self := 0
	if c.req.Meta.Agent >= 0 {
		self = c.req.Meta.Agent + 1
	}
	c.ReadPrompt(self, false)
	a := newAnswer()
	c.independent(&a)
	var arr [1024]byte
	asJSON := c.req.Schema != nil
	b := c.AppendRanked(arr[:0], &a, asJSON)
	correct := a.rank.first() == c.it.gold
	for _, f := range c.m.first {
		if asks(c.req, f.Name, f.Label) {
			if v := f.Value(c, &a, correct, asJSON); len(v) > 0 {
				b = appendField(b, f.Name, f.Label, v, asJSON)
			}
		}
	}
	b = c.appendStatedDiagnosis(b, &a, asJSON)
	return c.Finish(b, a.rank.first(), asJSON)
}

// skill is the addressed member's effective skill for this call.
func (c *call) skill() float64 {
	p := c.p
	a := c.req.Meta.Agent
	var s float64
	if a < 0 {
		s = p.LeaderSkill
	} else {
		r := newStream(c.it.qhash^mix64(uint64(a)+1), tagAgentSkill)
		s = p.AgentSkill + p.AgentSkillSpread*(r.float()-0.5)
	}
	if c.pr.hasRole {
		rel := 0.5
		if i := specialtyIndex(c.pr.role); i >= 0 && c.it.relRank[i] < topRelevant {
			rel = 1
		}
		s += p.SpecialistBonus * rel
	}
	if c.pr.analysis {
		s += p.AnalysisBonus
	}
	if c.pr.factsTotal > 0 {
		q := (float64(c.pr.factsTrue) + 0.5*float64(c.pr.factsUnknown)) / float64(c.pr.factsTotal)
		s += p.FactsBonus * q
	}
	return s
}

// know is σ(Slope·(skill − d)): the probability of knowing the answer.
func (c *call) know(skill float64) float64 {
	return sigmoid(c.p.Slope * (skill - c.it.difficulty))
}

// pCorrect is the probability that an independent first choice is correct.
func (c *call) pCorrect(skill float64) float64 {
	g := 1 / float64(c.n)
	return g + (1-g)*c.know(skill)
}

// drawRanking draws an independent full ranking.
func (c *call) drawRanking(skill float64) ranking {
	it := c.it
	r := c.rng(tagChoice)
	// The correctness draw mixes a per-question normal shared by all agents
	// (AgentCorrelation) with the call's own (Gaussian copula).
	rho := c.p.AgentCorrelation
	u := phi(math.Sqrt(rho)*it.zq + math.Sqrt(1-rho)*r.normal())
	var first int8
	switch {
	case u < c.pCorrect(skill):
		first = it.gold
	case c.n == 2 || r.float() < c.p.ErrorCorrelation:
		first = it.distractor
	default:
		k := r.intn(c.n - 1)
		if k >= int(it.gold) {
			k++
		}
		first = int8(k)
	}
	var rk ranking
	rk.idx[0] = first
	rk.n = 1
	for i := 0; i < c.n; i++ {
		if int8(i) != first {
			rk.idx[rk.n] = int8(i)
			rk.n++
		}
	}
	rr := c.rng(tagRank)
	for i := c.n - 1; i > 1; i-- {
		j := 1 + rr.intn(i)
		rk.idx[i], rk.idx[j] = rk.idx[j], rk.idx[i]
	}
	if first != it.gold && rr.float() < c.p.RankSignal {
		for i := 2; i < rk.n; i++ {
			if rk.idx[i] == it.gold {
				copy(rk.idx[2:i+1], rk.idx[1:i])
				rk.idx[1] = it.gold
				break
			}
		}
	}
	return rk
}

// confidence draws a confidence for an answer that is (not) correct.
func (c *call) confidence(correct bool, r *stream) float64 {
	z := 0.7 + c.p.Overconfidence + c.p.ConfidenceNoise*r.normal()
	if correct {
		z += c.p.ConfidenceSignal
	} else {
		z -= c.p.ConfidenceSignal
	}
	return round2(clamp(sigmoid(z), 0.05, 0.99))
}

// drawFacts appends k facts: each from the supportive pool with probability
// pTrue, else from the distractor pool, without repeats.
func (c *call) drawFacts(a *answer, k int, pTrue float64, r *stream) {
	var usedT, usedF uint8
	for ; k > 0 && a.nfacts < len(a.facts); k-- {
		pool, used := &c.it.truePool, &usedT
		if r.float() >= pTrue {
			pool, used = &c.it.falsePool, &usedF
		}
		if *used == 1<<poolSize-1 {
			continue
		}
		j := r.intn(poolSize)
		for *used&(1<<j) != 0 {
			j = (j + 1) % poolSize
		}
		*used |= 1 << j
		a.facts[a.nfacts] = pool[j]
		a.nfacts++
	}
}

func (c *call) rankSentence(a *answer, r *stream) {
	if c.pr.hasRole {
		a.sent = &roleSentences[r.intn(len(roleSentences))]
	} else {
		a.sent = &rankSentences[r.intn(len(rankSentences))]
	}
	a.l1, a.l2 = a.rank.idx[0], a.rank.idx[1]
}

// ranked is an independent answer with 1–3 facts, each supportive when
// its first choice is right, else with probability 0.4 (each draw on its
// own stream, so the facts change nothing else of the answer).
func (c *call) ranked(a *answer) {
	c.independent(a)
	fr := c.rng(tagFacts)
	pTrue := 0.4
	if a.rank.first() == c.it.gold {
		pTrue = 1
	}
	c.drawFacts(a, 1+fr.intn(3), pTrue, &fr)
}

// majority returns the peers' most common first choice (agents count 1,
// the leader LeaderInfluence; ties broken by confidence weight, then by a
// seeded draw) when it differs from own, and its share: the weight of the
// peers backing it over the weight of all peers, a peer weighing its
// confidence when weighted (0.5 when unstated), else 1. It returns -1 when
// own is among the most common (or there are no peers).
func (c *call) majority(own int8, weighted bool) (int8, float64) {
	var cnt, w [maxLetters]float64
	total := c.tally(&cnt, &w, weighted)
	if total <= 0 {
		return -1, 0
	}
	best := 0.0
	for i := 0; i < c.n; i++ {
		best = max(best, cnt[i])
	}
	if best <= 0 || (own >= 0 && cnt[own] >= best) {
		return -1, 0
	}
	m := c.heaviest(&cnt, &w, best)
	return m, w[m] / total
}

// tally counts the first choices of the peers and the leader into cnt and
// their weights into w (see majority), and returns the total weight.
func (c *call) tally(cnt, w *[maxLetters]float64, weighted bool) float64 {
	total := 0.0
	for k := 0; k < c.pr.npeer; k++ {
		pos := &c.pr.peers[k]
		x := 1.0
		if weighted {
			x = pos.conf
			if x < 0 {
				x = 0.5
			}
		}
		f := pos.rank.first()
		cnt[f]++
		w[f] += x
		total += x
	}
	if l := c.pr.leader; l >= 0 && c.p.LeaderInfluence > 0 {
		cnt[l] += c.p.LeaderInfluence
		w[l] += c.p.LeaderInfluence
		total += c.p.LeaderInfluence
	}
	return total
}

// heaviest returns, among the options counted best times, the one of the
// greatest weight; a seeded draw among those of equal weight.
func (c *call) heaviest(cnt, w *[maxLetters]float64, best float64) int8 {
	var tied [maxLetters]int8
	nt := 0
	bw := 0.0
	for i := 0; i < c.n; i++ {
		if cnt[i] != best {
			continue
		}
		switch {
		case w[i] > bw:
			bw, nt = w[i], 0
			fallthrough
		case w[i] == bw:
			tied[nt] = int8(i)
			nt++
		}
	}
	if nt <= 1 {
		return tied[0]
	}
	r := c.rng(tagMajority)
	return tied[r.intn(nt)]
}

// reconsidered is the Reconsider and ReconsiderConcern mechanisms (the
// latter with the sentences of an answer to a concern). The agent's
// reasoning quality q0 for its current position sets how easily it is moved
// (susceptibility); nothing here looks at the gold except the correctness
// term of q0 and the agent's own insight.
func (c *call) reconsidered(a *answer, concern *ConcernSentences) {
	it := c.it
	skill := c.skill()
	own, ownConf := c.ownPosition(skill)
	orig := own.first()
	noise := c.reasoningNoise()
	q0 := c.latentQuality(skill, orig, noise)
	c.reconsider(concern != nil, &own, skill, q0)

	changed := own.first() != orig
	a.rank = own
	a.accepts = changed
	correct := own.first() == it.gold

	cr := c.rng(tagConf)
	a.conf = c.confidence(correct, &cr)
	if !changed && ownConf >= 0 {
		a.conf = round2(0.5*ownConf + 0.5*a.conf)
	}

	tr := c.rng(tagText)
	c.reconsiderSentence(a, concern, changed, &tr)
	a.l1 = own.idx[0]
	a.l2 = own.idx[1]
	if changed {
		a.l2 = orig
	}
	a.setCue(c.latentQuality(skill, own.first(), noise), &tr)
}

// ownPosition is the agent's position before this call, completed to a
// full ranking, and its stated confidence; without a "POSITION you" line, an
// independent ranking and -1.
func (c *call) ownPosition(skill float64) (ranking, float64) {
	if !c.pr.hasYou {
		return c.drawRanking(skill), -1
	}
	own := c.pr.you.rank
	own.complete(c.n)
	return own, c.pr.you.conf
}

// reconsider moves own to the front the peers' majority with probability
// Persuadability × its share — a concern (Concern) adds
// ConcernEffect and, without a majority, targets own's runner-up — scaled
// by the susceptibility of reasoning quality q0; then to the gold with
// probability Insight × 2 × know.
func (c *call) reconsider(concern bool, own *ranking, skill, q0 float64) {
	p := c.p
	target, share := c.majority(own.first(), p.ConfidenceWeighted)
	prob := 0.0
	if target >= 0 {
		prob = p.Persuadability * share
	}
	if concern {
		// A concern pushes the target, right or wrong, toward the peers'
		// majority, else toward its own runner-up.
		prob += p.ConcernEffect
		if target < 0 && own.n > 1 {
			target = own.idx[1]
		}
	}
	prob *= c.susceptibility(q0)
	r := c.rng(tagSwitch)
	if target >= 0 && r.float() < prob {
		own.moveFront(target)
	}
	if u := r.float(); own.first() != c.it.gold && u < p.Insight*2*c.know(skill) {
		own.moveFront(c.it.gold)
	}
}

// reconsiderSentence picks the sentence of a reconsidered answer: accepting or
// rejecting a concern (the caller's sentences), switching, holding against
// peers, or (alone) the plain ranking sentence.
func (c *call) reconsiderSentence(a *answer, concern *ConcernSentences, changed bool, tr *stream) {
	switch {
	case concern != nil && changed:
		a.sent = &concern.Accept[tr.intn(len(concern.Accept))]
	case concern != nil:
		a.sent = &concern.Reject[tr.intn(len(concern.Reject))]
	case changed:
		a.sent = &switchSentences[tr.intn(len(switchSentences))]
	case c.pr.npeer > 0:
		a.sent = &holdSentences[tr.intn(len(holdSentences))]
	default:
		c.rankSentence(a, tr)
	}
}

// specialists are n specialties for the question (n ≤ 0: its TeamSize):
// the n most relevant when ranked, else n from a per-question shuffle of
// the most relevant max(recruitPool, n).
func (c *call) specialists(n int, ranked bool) []uint8 {
	if n <= 0 {
		n = c.it.agents
	}
	n = min(n, nSpecialties)
	if ranked {
		return append([]uint8(nil), c.it.relevance[:n]...)
	}
	pool := max(recruitPool, n)
	var list [nSpecialties]uint8
	copy(list[:], c.it.relevance[:])
	r := newStream(c.it.qhash, tagRoleOrder)
	for i := pool - 1; i > 0; i-- {
		j := r.intn(i + 1)
		list[i], list[j] = list[j], list[i]
	}
	return append([]uint8(nil), list[:n]...)
}

// sortPeers orders the peer positions by agent number.
func (c *call) sortPeers() {
	ps := c.pr.peers[:c.pr.npeer]
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].num < ps[j-1].num; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// topTwo returns the most and second most common first choices of the peers
// (plain count, ties by option order); l1 falls back to fallback, l2 to the
// runner-up of the top position, then to any other option.
func (c *call) topTwo(fallback int8) (int8, int8) {
	l1, l2 := c.mostCommonFirsts()
	if l1 < 0 {
		l1 = fallback
	}
	if l2 < 0 {
		l2 = c.runnerUp(l1)
	}
	return l1, l2
}

// mostCommonFirsts returns the two most common first choices of the peers
// (plain count, ties by option order), -1 for each that is missing.
func (c *call) mostCommonFirsts() (int8, int8) {
	var cnt [maxLetters]int
	for k := 0; k < c.pr.npeer; k++ {
		cnt[c.pr.peers[k].rank.first()]++
	}
	l1, l2 := int8(-1), int8(-1)
	for i := 0; i < c.n; i++ {
		if cnt[i] == 0 {
			continue
		}
		switch {
		case l1 < 0 || cnt[i] > cnt[l1]:
			l1, l2 = int8(i), l1
		case l2 < 0 || cnt[i] > cnt[l2]:
			l2 = int8(i)
		}
	}
	return l1, l2
}

// runnerUp returns the second choice of the first peer whose first choice
// is l1 and who ranks more than one option, else option 0 (1 when l1 is 0).
func (c *call) runnerUp(l1 int8) int8 {
	for k := 0; k < c.pr.npeer; k++ {
		if pos := &c.pr.peers[k]; pos.rank.first() == l1 && pos.rank.n > 1 {
			return pos.rank.idx[1]
		}
	}
	if l1 == 0 {
		return 1
	}
	return 0
}

// seen is the perceived quality of agent n's reasoning in this prompt:
// perceive(tier shown for n).
func (c *call) seen(n int, r *stream) float64 { return c.perceive(c.pr.tierFor(n), r) }

// leaderView is the leader's own first choice: the gold when it knows
// (probability know), else the first choice of the agent whose reasoning it
// perceives as best (see bestBacked); the distractor when there are no peers.
func (c *call) leaderView(r *stream) int8 {
	if r.float() < c.know(c.skill()) {
		return c.it.gold
	}
	return c.bestBacked(nil, r, c.it.distractor)
}

// bestBacked returns the first choice of the agent with the highest
// perceived quality, among the agents whose first choice is allowed (all
// when allowed is nil); fallback when there is none.
func (c *call) bestBacked(allowed *ranking, r *stream, fallback int8) int8 {
	c.sortPeers()
	best, letter := math.Inf(-1), fallback
	for k := 0; k < c.pr.npeer; k++ {
		pos := &c.pr.peers[k]
		f := pos.rank.first()
		if allowed != nil && !allowed.has(f) {
			continue
		}
		if v := c.seen(pos.num, r); v > best {
			best, letter = v, f
		}
	}
	return letter
}

// report is a reader's synthesis of the agents' answers: a quality score
// per agent shown (by perceived reasoning), facts and a sentence of sents
// naming the two most common first choices.
func (c *call) report(a *answer, sents *[2][3]string) {
	c.sortPeers()
	qr := c.rng(tagQuality)
	for k := 0; k < c.pr.npeer; k++ {
		num := c.pr.peers[k].num
		a.qagent[k] = num
		a.quality[k] = rate(c.seen(num, &qr))
	}
	a.nquality = c.pr.npeer
	fr := c.rng(tagFacts)
	know := c.know(c.skill())
	c.drawFacts(a, 2+fr.intn(3), 0.5+0.5*know, &fr)
	lr := c.rng(tagLeader)
	view := c.leaderView(&lr)
	tr := c.rng(tagText)
	a.sent = &sents[tr.intn(len(sents))]
	a.l1, a.l2 = c.topTwo(view)
}

// lean is the option a reader leans to (leaderView) and a sentence of
// sents naming the two most common first choices.
func (c *call) lean(a *answer, sents *[2][3]string) {
	lr := c.rng(tagLeader)
	a.letter = c.leaderView(&lr)
	tr := c.rng(tagText)
	a.sent = &sents[tr.intn(len(sents))]
	a.l1, a.l2 = c.topTwo(a.letter)
}

// selectTarget targets the agent whose reasoning the leader perceives as
// weakest (lowest perceived quality; unseen reasoning counts as
// uninformedQuality), among the agents with a position, with a sentence of
// sents around its number.
func (c *call) selectTarget(a *answer, sents *[2][2]string) {
	c.sortPeers()
	r := c.rng(tagSelect)
	a.agent = 1
	best := math.Inf(1)
	for k := 0; k < c.pr.npeer; k++ {
		num := c.pr.peers[k].num
		if v := c.seen(num, &r); v < best {
			best, a.agent = v, num
		}
	}
	tr := c.rng(tagText)
	a.concern = &sents[tr.intn(len(sents))]
}

// rateReply rates agent target's reply (the ReadsReply line) by its
// perceived quality, with a sentence of sents naming the target's two first
// options (else the two most common first choices).
func (c *call) rateReply(a *answer, target int, sents *[2][3]string) {
	var pos *position
	for k := 0; k < c.pr.npeer; k++ {
		if c.pr.peers[k].num == target {
			pos = &c.pr.peers[k]
		}
	}
	qr := c.rng(tagQuality)
	a.q = rate(c.perceive(c.pr.resp-1, &qr))
	if pos != nil {
		a.l1 = pos.rank.idx[0]
		a.l2 = -1
		if pos.rank.n > 1 {
			a.l2 = pos.rank.idx[1]
		}
	}
	if a.l1 < 0 || a.l2 < 0 {
		a.l1, a.l2 = c.topTwo(c.it.distractor)
	}
	tr := c.rng(tagText)
	a.sent = &sents[tr.intn(len(sents))]
}

// decide picks the tied gold when the leader knows it (probability know),
// else the tied letter of the agent whose reasoning it perceives as best
// among those whose first choice is tied; else a seeded tied letter; with
// a sentence of sents. No tied option: all are.
func (c *call) decide(a *answer, tied ranking, sents *[2][3]string) {
	if tied.n == 0 {
		tied.complete(c.n)
	}
	r := c.rng(tagTie)
	if u := r.float(); tied.has(c.it.gold) && u < c.know(c.skill()) {
		a.letter = c.it.gold
	} else {
		a.letter = c.bestBacked(&tied, &r, -1)
		if a.letter < 0 {
			a.letter = tied.idx[r.intn(tied.n)]
		}
	}
	a.l1 = a.letter
	a.l2 = tied.idx[0]
	if a.l2 == a.letter && tied.n > 1 {
		a.l2 = tied.idx[1]
	}
	if a.l2 == a.letter {
		a.l2 = c.it.distractor
		if a.l2 == a.letter {
			a.l2 = c.it.gold
		}
	}
	tr := c.rng(tagText)
	a.sent = &sents[tr.intn(len(sents))]
}
