package council

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// Sim is the council's simulated behaviour (llm/sim's Behaviour): a peer
// review ranks the answers it is shown under anonymous labels by the
// quality it perceives in their reasoning plus ReviewAgreement for an
// answer it agrees with; the chairman answers by its strategy (below). The
// codes seed every draw of a call: they never change.
var Sim = sim.Behaviour{
	Protocol: "council",
	Kinds:    map[string]uint64{kit.KindPeerReview: 16, kit.KindChairman: 17},
	Answer:   simAnswer,
}

// simAnswer answers a peer review or the chairman: the core reads the
// positions shown ("POSITION agent N", "REASONING agent N"), the council's
// own lines are read here (councilPrompt), then the answer is written in
// the format asked for (protocols/FORMATS.md).
func simAnswer(c *sim.Call) string {
	c.ReadPrompt(0, true)
	var p councilPrompt
	p.scan(c)
	a := c.NewAnswer()
	asJSON := c.Request().Schema != nil
	var arr [1024]byte
	b := arr[:0]
	if c.Request().Meta.Kind == kit.KindPeerReview {
		var rv review
		peerReview(c, &p, &rv)
		if asJSON {
			b = reviewJSON(c, &p, &rv, b)
		} else {
			b = reviewPlain(c, &p, &rv, b)
		}
		return c.Finish(b, a.Letter(), asJSON)
	}
	var cr credits
	chairman(c, &p, &a, &cr)
	if asJSON {
		b = append(b, `{"reasoning":`...)
		b = c.AppendSentence(b, &a, true)
		b = append(b, `,"answer":`...)
		b = sim.AppendQuoted(b, c.Letter(a.Letter()))
		b = append(b, ',')
		b = contributorsJSON(&cr, b)
		b = append(b, '}')
	} else {
		b = append(b, "REASONING: "...)
		b = c.AppendSentence(b, &a, false)
		b = append(b, "\nANSWER: "...)
		b = append(b, c.Letter(a.Letter())...)
		b = append(b, "\n```json\n{"...)
		b = contributorsJSON(&cr, b)
		b = append(b, "}\n```"...)
	}
	return c.Finish(b, a.Letter(), asJSON)
}

// review is a peer review's ranking of the labels shown (indexes into
// councilPrompt.labels, best first) and the perceived quality of each.
type review struct {
	order [maxLabels]int8
	score [maxLabels]float64
	n     int
}

// credits are a chairman's contributors: agent numbers, weights summing to 1.
type credits struct {
	contrib  [maxLabels]int
	cweight  [maxLabels]float64
	ncontrib int
}

// The purpose tags of a review's and a chairman's draws (Call.Rng): 28
// and 29, the values they had in the simulator's core, which keeps them
// free.
const (
	tagReview uint64 = 28
	tagChair  uint64 = 29
)

// peerReview ranks the answers shown under labels by the reviewer's
// perceived quality of their reasoning (the cue it reads, PerceptionNoise)
// plus ReviewAgreement when an answer's first choice is the reviewer's own
// (an independent draw of its knowledge); labels without a readable answer
// come last, in the order shown.
func peerReview(c *sim.Call, p *councilPrompt, a *review) {
	view := c.DrawRanking(c.Skill())
	own := view.First()
	r := c.Rng(tagReview)
	n := p.nlabel
	for k := 0; k < n; k++ {
		l := &p.labels[k]
		a.order[k] = int8(k)
		a.score[k] = math.Inf(-1)
		if !l.has {
			continue
		}
		a.score[k] = c.Perceive(l.tier-1, &r)
		if l.rank.First() == own {
			a.score[k] += c.Profile().ReviewAgreement
		}
	}
	a.n = n
	// Stable insertion sort by score, best first.
	for i := 1; i < n; i++ {
		for j := i; j > 0 && a.score[a.order[j]] > a.score[a.order[j-1]]; j-- {
			a.order[j], a.order[j-1] = a.order[j-1], a.order[j]
		}
	}
}

// chairman decides a council's answer under its strategy (the STRATEGY
// line): the gold when it knows it (probability know, its own skill), else
// by the strategy's rule over the experts' answers, their confidences and
// their aggregate peer ranking (the PEER RANK lines):
//
//   - balanced: the first choice most experts hold;
//   - risk-averse: the same among the experts whose confidence is 0.5 or more
//     and whose peer rank is no worse than the median (all experts when none
//     is left);
//   - goal-seeking: the first choice of the best peer-ranked expert, even
//     alone (by perceived quality when no expert is ranked);
//   - novelty: the first choice fewest experts hold; when all agree, the
//     most common second choice.
//
// Ties go to the option whose backers have the better peer rank, then to a
// seeded draw. It credits the experts whose first choice is its answer,
// weighted by the inverse of their mean peer rank (0.5 when unranked),
// normalised to sum to 1.
func chairman(c *sim.Call, p *councilPrompt, a *sim.Answer, cr *credits) {
	c.SortPeers()
	r := c.Rng(tagChair)
	switch {
	case r.Float() < c.Know(c.Skill()):
		a.SetLetter(c.Gold())
	case c.Peers() == 0:
		a.SetLetter(c.Distractor())
	default:
		a.SetLetter(strategyPick(c, p, &r))
	}
	credit(c, p, a.Letter(), cr)
	c.VerdictSentence(a, &chairSentences)
}

func strategyPick(c *sim.Call, p *councilPrompt, r *sim.Stream) int8 {
	switch p.strategy {
	case strategyRiskAverse:
		return riskAverse(c, p, r)
	case strategyGoalSeeking:
		return goalSeeking(c, p, r)
	case strategyNovelty:
		return novelty(c, p, r)
	}
	return mostBacked(c, p, nil, r)
}

// rankBonus breaks ties of counts toward better peer-ranked backers; its
// sum over any team stays below one vote.
func rankBonus(c *sim.Call, p *councilPrompt, num int) float64 {
	if rk := p.rankOf(num); rk > 0 {
		return 0.001 / rk
	}
	return 0
}

// mostBacked is the first choice most of the allowed experts hold (nil: all).
func mostBacked(c *sim.Call, p *councilPrompt, allowed []bool, r *sim.Stream) int8 {
	var w [sim.MaxLetters]float64
	for i := range w {
		w[i] = math.Inf(-1)
	}
	for k := 0; k < c.Peers(); k++ {
		if allowed != nil && !allowed[k] {
			continue
		}
		num, f, _ := c.Peer(k)
		w[f] = max(w[f], 0) + 1 + rankBonus(c, p, num)
	}
	return c.Argmax(&w, r)
}

// riskAverse keeps the confident, well-reviewed experts.
func riskAverse(c *sim.Call, p *councilPrompt, r *sim.Stream) int8 {
	var ranks []float64
	for k := 0; k < c.Peers(); k++ {
		num, _, _ := c.Peer(k)
		if rk := p.rankOf(num); rk > 0 {
			ranks = append(ranks, rk)
		}
	}
	slices.Sort(ranks)
	median := math.Inf(1)
	if n := len(ranks); n > 0 {
		median = (ranks[(n-1)/2] + ranks[n/2]) / 2
	}
	allowed := make([]bool, c.Peers())
	kept := false
	for k := 0; k < c.Peers(); k++ {
		num, _, conf := c.Peer(k)
		rk := p.rankOf(num)
		allowed[k] = conf >= 0.5 && rk > 0 && rk <= median
		kept = kept || allowed[k]
	}
	if !kept {
		allowed = nil
	}
	return mostBacked(c, p, allowed, r)
}

// goalSeeking backs the best peer-ranked expert.
func goalSeeking(c *sim.Call, p *councilPrompt, r *sim.Stream) int8 {
	best, score := int8(-1), math.Inf(-1)
	for k := 0; k < c.Peers(); k++ {
		num, first, _ := c.Peer(k)
		s := c.Seen(num, r) // perceived quality breaks ties of rank
		if rk := p.rankOf(num); rk > 0 {
			s += 100 / rk
		}
		if s > score {
			best, score = first, s
		}
	}
	return best
}

// novelty backs the least held first choice; when all agree, the most
// common second choice.
func novelty(c *sim.Call, p *councilPrompt, r *sim.Stream) int8 {
	var cnt [sim.MaxLetters]float64
	distinct := 0
	for k := 0; k < c.Peers(); k++ {
		_, f, _ := c.Peer(k)
		if cnt[f] == 0 {
			distinct++
		}
		cnt[f]++
	}
	var w [sim.MaxLetters]float64
	for i := range w {
		w[i] = math.Inf(-1)
	}
	for k := 0; k < c.Peers(); k++ {
		num, f, _ := c.Peer(k)
		if rk := c.PeerRanking(k); distinct > 1 {
			w[f] = -cnt[f] + rankBonus(c, p, num)
		} else if rk.Len() > 1 {
			s := rk.At(1)
			w[s] = max(w[s], 0) + 1 + rankBonus(c, p, num)
		}
	}
	if distinct == 1 && slices.Max(w[:c.N()]) == math.Inf(-1) {
		_, f, _ := c.Peer(0)
		return f
	}
	return c.Argmax(&w, r)
}

// credit lists the experts whose first choice is the answer, weighted by the
// inverse of their mean peer rank (0.5 when unranked), summing to 1.
func credit(c *sim.Call, p *councilPrompt, letter int8, a *credits) {
	total := 0.0
	for k := 0; k < c.Peers() && a.ncontrib < len(a.contrib); k++ {
		num, first, _ := c.Peer(k)
		if first != letter {
			continue
		}
		w := 0.5
		if rk := p.rankOf(num); rk > 0 {
			w = 1 / rk
		}
		a.contrib[a.ncontrib], a.cweight[a.ncontrib] = num, w
		a.ncontrib++
		total += w
	}
	rest := 1.0
	for i := 0; i < a.ncontrib; i++ {
		if i == a.ncontrib-1 {
			a.cweight[i] = sim.Round2(rest)
			break
		}
		a.cweight[i] = sim.Round2(a.cweight[i] / total)
		rest -= a.cweight[i]
	}
}

// maxLabels bounds the labels and contributors read (the core's peers).
const maxLabels = 16

// councilPrompt is what the council's own marker lines show
// (protocols/FORMATS.md): the answers a reviewer sees under anonymous
// labels ("POSITION response Alpha: …", "REASONING response Alpha: …"),
// the aggregate peer ranking the chairman sees ("PEER RANK agent N: 1.50",
// stored +1 so that 0 is none) and its strategy ("STRATEGY: …"). Lines are
// read as the core reads its markers: trimmed, in every non-assistant
// message, a later line replacing an earlier one.
type councilPrompt struct {
	labels   [maxLabels]labelled
	nlabel   int
	peerRank [maxLabels + 1]float64
	strategy strategy
}

// labelled is one answer shown under an anonymous label.
type labelled struct {
	name string // the label word, as written in the prompt
	rank sim.Ranking
	has  bool // a readable position was shown
	tier int8 // reasoning tier + 1; 0: none read
}

// strategy is a council chairman's directive.
type strategy uint8

const (
	strategyBalanced strategy = iota
	strategyRiskAverse
	strategyGoalSeeking
	strategyNovelty
)

func (p *councilPrompt) scan(c *sim.Call) {
	for _, m := range c.Request().Messages {
		if m.Role == llm.RoleAssistant {
			continue
		}
		for _, line := range strings.Split(m.Content, "\n") {
			line = sim.TrimSpace(line)
			if rest, ok := sim.CutPrefix(line, "POSITION response "); ok {
				p.position(c, rest)
			} else if rest, ok := sim.CutPrefix(line, "REASONING response "); ok {
				p.labelReasoning(rest)
			} else if rest, ok := sim.CutPrefix(line, "PEER RANK agent "); ok {
				p.peerRankLine(rest)
			} else if rest, ok := sim.CutPrefix(line, "STRATEGY:"); ok {
				p.strategy = strategyOf(sim.TrimSpace(rest))
			}
		}
	}
}

// position reads "Alpha: A > B (confidence 0.70)" (after "POSITION
// response "), as the core reads a position.
func (p *councilPrompt) position(c *sim.Call, s string) {
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		return
	}
	name, body := sim.TrimSpace(s[:colon]), s[colon+1:]
	body, _ = sim.CutConfidence(body)
	sep := byte('>')
	if strings.IndexByte(body, '>') < 0 {
		sep = ','
	}
	rk := c.ParseLetters(body, sep)
	if l := p.label(sim.TrimSpace(name)); l != nil {
		l.rank, l.has = rk, rk.Len() > 0
	}
}

// label returns the entry of label name, adding it in the order first seen;
// nil when the prompt already holds maxLabels labels or name is empty.
func (p *councilPrompt) label(name string) *labelled {
	if name == "" {
		return nil
	}
	for k := 0; k < p.nlabel; k++ {
		if p.labels[k].name == name {
			return &p.labels[k]
		}
	}
	if p.nlabel == maxLabels {
		return nil
	}
	p.labels[p.nlabel] = labelled{name: name}
	p.nlabel++
	return &p.labels[p.nlabel-1]
}

// labelReasoning reads "Alpha: text" (after "REASONING response ").
func (p *councilPrompt) labelReasoning(rest string) {
	colon := strings.IndexByte(rest, ':')
	if colon < 0 {
		return
	}
	if l := p.label(sim.TrimSpace(rest[:colon])); l != nil {
		l.tier = sim.DecodeTier(rest[colon+1:]) + 1
	}
}

// peerRankLine reads "N: 1.50 (…)" ("unranked" leaves none).
func (p *councilPrompt) peerRankLine(rest string) {
	n, body, ok := sim.AgentNumber(rest)
	if !ok {
		return
	}
	body = sim.TrimSpace(strings.TrimPrefix(body, ":"))
	if j := strings.IndexByte(body, ' '); j >= 0 {
		body = body[:j]
	}
	if v, err := strconv.ParseFloat(body, 64); err == nil && v >= 1 {
		p.peerRank[n] = v + 1
	}
}

// strategyOf reads a strategy name; anything unknown is balanced (the seed's
// default).
func strategyOf(s string) strategy {
	switch {
	case sim.EqualFoldASCII(s, "risk-averse"):
		return strategyRiskAverse
	case sim.EqualFoldASCII(s, "goal-seeking"):
		return strategyGoalSeeking
	case sim.EqualFoldASCII(s, "novelty"):
		return strategyNovelty
	}
	return strategyBalanced
}

// rankOf is agent n's mean peer rank, 0 when the prompt shows none.
func (p *councilPrompt) rankOf(n int) float64 {
	if n < 1 || n > maxLabels || p.peerRank[n] == 0 {
		return 0
	}
	return p.peerRank[n] - 1
}

func reviewJSON(c *sim.Call, p *councilPrompt, a *review, b []byte) []byte {
	b = append(b, `{"reviews":[`...)
	for k := 0; k < p.nlabel; k++ {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"response":"Response `...)
		b = sim.AppendEscaped(b, p.labels[k].name)
		b = append(b, `","strengths":"`...)
		b = appendStrength(c, p, b, k, true)
		b = append(b, `","weaknesses":"`...)
		b = append(b, weakness(p, a, k)...)
		b = append(b, `"}`...)
	}
	b = append(b, `],"final_ranking":[`...)
	for i := 0; i < a.n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `"Response `...)
		b = sim.AppendEscaped(b, p.labels[a.order[i]].name)
		b = append(b, '"')
	}
	return append(b, "]}"...)
}

func contributorsJSON(a *credits, b []byte) []byte {
	b = append(b, `"contributors":[`...)
	for i := 0; i < a.ncontrib; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, int64(a.contrib[i]), 10)
		b = append(b, `,"weight":`...)
		b = strconv.AppendFloat(b, a.cweight[i], 'f', 2, 64)
		b = append(b, `,"reason":`...)
		b = sim.AppendQuoted(b, contribReasons[i%len(contribReasons)])
		b = append(b, '}')
	}
	return append(b, ']')
}

func reviewPlain(c *sim.Call, p *councilPrompt, a *review, b []byte) []byte {
	for k := 0; k < p.nlabel; k++ {
		b = append(b, "REVIEW Response "...)
		b = append(b, p.labels[k].name...)
		b = append(b, ": STRENGTHS: "...)
		b = appendStrength(c, p, b, k, false)
		b = append(b, " WEAKNESSES: "...)
		b = append(b, weakness(p, a, k)...)
		b = append(b, '\n')
	}
	b = append(b, "FINAL RANKING:"...)
	for i := 0; i < a.n; i++ {
		b = append(b, '\n')
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, ". Response "...)
		b = append(b, p.labels[a.order[i]].name...)
	}
	return b
}

// appendStrength writes what a review says label k's answer does well.
func appendStrength(c *sim.Call, p *councilPrompt, b []byte, k int, asJSON bool) []byte {
	l := &p.labels[k]
	if !l.has {
		return append(b, "It gives no readable answer."...)
	}
	s := &reviewStrengths[(k+int(c.Key()%2))%len(reviewStrengths)]
	b = append(b, s[0]...)
	b = c.AppendLetter(b, l.rank.First(), asJSON)
	return append(b, s[1]...)
}

// weakness is what a review says is missing in label k's answer, by the
// tier of the quality the reviewer perceived.
func weakness(p *councilPrompt, a *review, k int) string {
	if !p.labels[k].has {
		return reviewWeaknesses[0]
	}
	return reviewWeaknesses[sim.TierOf(sim.Clamp(a.score[k], 0, 0.999))]
}

// Sentences of the council's kinds. As everywhere in the simulator, they
// contain no single-letter word but the letters written into them, no
// semicolon, no quote, and no quality cue.

// Two-letter sentences of the chairman: %1 the choice, %2 the alternative.
var chairSentences = [...][3]string{
	{"Under the directive the council should answer ", " rather than ", "."},
	{"Weighing the peer evaluations, ", " is preferred to ", "."},
}

// A review's strength names the reviewed answer's first choice.
var reviewStrengths = [...][2]string{
	{"The case for ", " is clearly argued."},
	{"It weighs the findings behind ", " with care."},
}

// A review's weakness, by the tier of the perceived quality (worst first).
var reviewWeaknesses = [sim.NTiers]string{
	"The key findings are left unexplained.",
	"Findings that do not fit are skipped over.",
	"The main alternative could be addressed more directly.",
	"The argument could be more concise.",
	"Nothing important is missing.",
}

// What a chairman says of a contributor.
var contribReasons = [...]string{
	"Proposed the answer with well reviewed reasoning",
	"Backed the answer the council adopted",
}
