package sim

import (
	"math"
	"slices"
)

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
func (c *call) chairman(a *answer) {
	c.sortPeers()
	r := c.rng(tagChair)
	switch {
	case r.float() < c.know(c.skill()):
		a.letter = c.it.gold
	case c.pr.npeer == 0:
		a.letter = c.it.distractor
	default:
		a.letter = c.strategyPick(&r)
	}
	c.credit(a)
	c.verdictSentence(a, &chairSentences)
}

func (c *call) strategyPick(r *stream) int8 {
	switch c.pr.strategy {
	case strategyRiskAverse:
		return c.riskAverse(r)
	case strategyGoalSeeking:
		return c.goalSeeking(r)
	case strategyNovelty:
		return c.novelty(r)
	}
	return c.mostBacked(nil, r)
}

// rankBonus breaks ties of counts toward better peer-ranked backers; its
// sum over any team stays below one vote.
func (c *call) rankBonus(num int) float64 {
	if rk := c.pr.rankOf(num); rk > 0 {
		return 0.001 / rk
	}
	return 0
}

// mostBacked is the first choice most of the allowed experts hold (nil: all).
func (c *call) mostBacked(allowed []bool, r *stream) int8 {
	var w [maxLetters]float64
	for i := range w {
		w[i] = math.Inf(-1)
	}
	for k := 0; k < c.pr.npeer; k++ {
		if allowed != nil && !allowed[k] {
			continue
		}
		p := &c.pr.peers[k]
		f := p.rank.first()
		w[f] = max(w[f], 0) + 1 + c.rankBonus(p.num)
	}
	return c.argmax(&w, r)
}

// riskAverse keeps the confident, well-reviewed experts.
func (c *call) riskAverse(r *stream) int8 {
	var ranks []float64
	for k := 0; k < c.pr.npeer; k++ {
		if rk := c.pr.rankOf(c.pr.peers[k].num); rk > 0 {
			ranks = append(ranks, rk)
		}
	}
	slices.Sort(ranks)
	median := math.Inf(1)
	if n := len(ranks); n > 0 {
		median = (ranks[(n-1)/2] + ranks[n/2]) / 2
	}
	allowed := make([]bool, c.pr.npeer)
	kept := false
	for k := 0; k < c.pr.npeer; k++ {
		p := &c.pr.peers[k]
		rk := c.pr.rankOf(p.num)
		allowed[k] = p.conf >= 0.5 && rk > 0 && rk <= median
		kept = kept || allowed[k]
	}
	if !kept {
		allowed = nil
	}
	return c.mostBacked(allowed, r)
}

// goalSeeking backs the best peer-ranked expert.
func (c *call) goalSeeking(r *stream) int8 {
	best, score := int8(-1), math.Inf(-1)
	for k := 0; k < c.pr.npeer; k++ {
		p := &c.pr.peers[k]
		s := c.seen(p.num, r) // perceived quality breaks ties of rank
		if rk := c.pr.rankOf(p.num); rk > 0 {
			s += 100 / rk
		}
		if s > score {
			best, score = p.rank.first(), s
		}
	}
	return best
}

// novelty backs the least held first choice; when all agree, the most
// common second choice.
func (c *call) novelty(r *stream) int8 {
	var cnt [maxLetters]float64
	distinct := 0
	for k := 0; k < c.pr.npeer; k++ {
		f := c.pr.peers[k].rank.first()
		if cnt[f] == 0 {
			distinct++
		}
		cnt[f]++
	}
	var w [maxLetters]float64
	for i := range w {
		w[i] = math.Inf(-1)
	}
	for k := 0; k < c.pr.npeer; k++ {
		p := &c.pr.peers[k]
		if distinct > 1 {
			f := p.rank.first()
			w[f] = -cnt[f] + c.rankBonus(p.num)
		} else if p.rank.n > 1 {
			s := p.rank.idx[1]
			w[s] = max(w[s], 0) + 1 + c.rankBonus(p.num)
		}
	}
	if distinct == 1 && slices.Max(w[:c.n]) == math.Inf(-1) {
		return c.pr.peers[0].rank.first()
	}
	return c.argmax(&w, r)
}

// credit lists the experts whose first choice is the answer, weighted by the
// inverse of their mean peer rank (0.5 when unranked), summing to 1.
func (c *call) credit(a *answer) {
	total := 0.0
	for k := 0; k < c.pr.npeer && a.ncontrib < len(a.contrib); k++ {
		p := &c.pr.peers[k]
		if p.rank.first() != a.letter {
			continue
		}
		w := 0.5
		if rk := c.pr.rankOf(p.num); rk > 0 {
			w = 1 / rk
		}
		a.contrib[a.ncontrib], a.cweight[a.ncontrib] = p.num, w
		a.ncontrib++
		total += w
	}
	rest := 1.0
	for i := 0; i < a.ncontrib; i++ {
		if i == a.ncontrib-1 {
			a.cweight[i] = round2(rest)
			break
		}
		a.cweight[i] = round2(a.cweight[i] / total)
		rest -= a.cweight[i]
	}
}
