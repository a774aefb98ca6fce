package sim

import "strconv"

// The answers of the kinds of protocols/ (protocols/FORMATS.md), as JSON
// (Schema set) or labelled lines.

// protocolJSON writes the answer of a kind of protocols/ as JSON.
func (c *call) protocolJSON(b []byte, a *answer) []byte {
	switch a.kind {
	case kindFirst:
		b = c.rankedJSON(b, a)
		if !a.hasVeto {
			return b
		}
		b = b[:len(b)-1] // reopen the object
		b = append(b, `,"risk":`...)
		b = strconv.AppendFloat(b, a.risk, 'f', 2, 64)
		b = append(b, `,"veto":`...)
		b = strconv.AppendBool(b, a.veto)
		return append(b, '}')
	case kindRevise:
		return c.rankedJSON(b, a)
	case kindZeroShot:
		b = append(b, `{"answer":`...)
		b = appendQuoted(b, c.it.letters[a.rank.first()])
		return append(b, '}')
	case kindCoT:
		b = append(b, `{"reasoning":`...)
		b = c.appendSentence(b, a, true)
		b = append(b, `,"answer":`...)
		b = appendQuoted(b, c.it.letters[a.rank.first()])
		return append(b, '}')
	case kindPeerReview:
		return c.reviewJSON(b, a)
	case kindChairman:
		b = append(b, `{"reasoning":`...)
		b = c.appendSentence(b, a, true)
		b = append(b, `,"answer":`...)
		b = appendQuoted(b, c.it.letters[a.letter])
		b = append(b, ',')
		b = c.contributorsJSON(b, a)
		return append(b, '}')
	case kindJudge:
		return c.consensusJSON(b, a)
	case kindVetoDebate, kindVetoBallot:
		return c.vetoJSON(b, a)
	}
	return b
}

func (c *call) reviewJSON(b []byte, a *answer) []byte {
	b = append(b, `{"reviews":[`...)
	for k := 0; k < c.pr.nlabel; k++ {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"response":"Response `...)
		b = appendEscaped(b, c.pr.labels[k].name)
		b = append(b, `","strengths":"`...)
		b = c.appendStrength(b, a, k, true)
		b = append(b, `","weaknesses":"`...)
		b = append(b, c.weakness(a, k)...)
		b = append(b, `"}`...)
	}
	b = append(b, `],"final_ranking":[`...)
	for i := 0; i < a.nreview; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `"Response `...)
		b = appendEscaped(b, c.pr.labels[a.review[i]].name)
		b = append(b, '"')
	}
	return append(b, "]}"...)
}

func (c *call) contributorsJSON(b []byte, a *answer) []byte {
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
		b = appendQuoted(b, contribReasons[i%len(contribReasons)])
		b = append(b, '}')
	}
	return append(b, ']')
}

// protocolPlain writes the answer of a kind of protocols/ as labelled lines.
func (c *call) protocolPlain(b []byte, a *answer) []byte {
	switch a.kind {
	case kindFirst:
		b = c.rankedPlain(b, a)
		if !a.hasVeto {
			return b
		}
		b = append(b, "\nRISK: "...)
		b = strconv.AppendFloat(b, a.risk, 'f', 2, 64)
		b = append(b, "\nVETO: "...)
		return append(b, yesNo(a.veto)...)
	case kindRevise:
		return c.rankedPlain(b, a)
	case kindZeroShot:
		b = append(b, "ANSWER: "...)
		return append(b, c.it.letters[a.rank.first()]...)
	case kindCoT:
		b = append(b, "REASONING: "...)
		b = c.appendSentence(b, a, false)
		b = append(b, "\nANSWER: "...)
		return append(b, c.it.letters[a.rank.first()]...)
	case kindPeerReview:
		return c.reviewPlain(b, a)
	case kindChairman:
		b = append(b, "REASONING: "...)
		b = c.appendSentence(b, a, false)
		b = append(b, "\nANSWER: "...)
		b = append(b, c.it.letters[a.letter]...)
		b = append(b, "\n```json\n{"...)
		b = c.contributorsJSON(b, a)
		return append(b, "}\n```"...)
	case kindJudge:
		return c.consensusPlain(b, a)
	case kindVetoDebate, kindVetoBallot:
		return c.vetoPlain(b, a)
	}
	return b
}

func (c *call) reviewPlain(b []byte, a *answer) []byte {
	for k := 0; k < c.pr.nlabel; k++ {
		b = append(b, "REVIEW Response "...)
		b = append(b, c.pr.labels[k].name...)
		b = append(b, ": STRENGTHS: "...)
		b = c.appendStrength(b, a, k, false)
		b = append(b, " WEAKNESSES: "...)
		b = append(b, c.weakness(a, k)...)
		b = append(b, '\n')
	}
	b = append(b, "FINAL RANKING:"...)
	for i := 0; i < a.nreview; i++ {
		b = append(b, '\n')
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, ". Response "...)
		b = append(b, c.pr.labels[a.review[i]].name...)
	}
	return b
}

// appendStrength writes what a review says label k's answer does well.
func (c *call) appendStrength(b []byte, a *answer, k int, asJSON bool) []byte {
	l := &c.pr.labels[k]
	if !l.has {
		return append(b, "It gives no readable answer."...)
	}
	s := &reviewStrengths[(k+int(c.key%2))%len(reviewStrengths)]
	b = append(b, s[0]...)
	b = c.appendLetter(b, l.pos.rank.first(), asJSON)
	return append(b, s[1]...)
}

// weakness is what a review says is missing in label k's answer, by the
// tier of the quality the reviewer perceived.
func (c *call) weakness(a *answer, k int) string {
	if !c.pr.labels[k].has {
		return reviewWeaknesses[0]
	}
	return reviewWeaknesses[tierOf(clamp(a.rscore[k], 0, 0.999))]
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}
