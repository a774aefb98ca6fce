package sim

import (
	"math"
)

// Behaviour of the shared call kinds of the protocols under protocols/: the
// first answer (protocols/firstanswer, with the additions a request asks
// for), zeroshot and cot. As everywhere in the simulator, the gold enters
// only through an agent's own knowledge (the correctness draw, know) and
// the quality of its reasoning; what a call is shown moves it only through
// the mechanisms below.

// independent is an agent's independent answer, as Ranked (ranking,
// confidence, reasoning with its quality cue) without facts.
func (c *call) independent(a *answer) {
	skill := c.skill()
	a.rank = c.drawRanking(skill)
	correct := a.rank.first() == c.it.gold
	cr := c.rng(tagConf)
	a.conf = c.confidence(correct, &cr)
	tr := c.rng(tagText)
	c.rankSentence(a, &tr)
	a.setCue(c.latentQuality(skill, a.rank.first(), c.reasoningNoise()), &tr)
}

// argmax returns the option of the greatest weight, a seeded draw among
// equal ones.
func (c *call) argmax(w *[maxLetters]float64, r *stream) int8 {
	var tied [maxLetters]int8
	nt, best := 0, math.Inf(-1)
	for i := 0; i < c.n; i++ {
		switch {
		case w[i] > best:
			best, nt = w[i], 0
			fallthrough
		case w[i] == best:
			tied[nt] = int8(i)
			nt++
		}
	}
	return tied[r.intn(nt)]
}

// verdictSentence writes a decider's sentence: its choice, and the most
// common other first choice (or any other option) as the alternative.
func (c *call) verdictSentence(a *answer, sents *[2][3]string) {
	tr := c.rng(tagText)
	a.sent = &sents[tr.intn(len(sents))]
	a.l1 = a.letter
	l1, l2 := c.mostCommonFirsts()
	switch {
	case l1 >= 0 && l1 != a.letter:
		a.l2 = l1
	case l2 >= 0 && l2 != a.letter:
		a.l2 = l2
	default:
		a.l2 = int8((int(a.letter) + 1) % c.n)
	}
}
