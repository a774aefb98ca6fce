package sim

import (
	"strconv"
	"strings"
)

// format renders the answer as one JSON object (Schema set) or as the
// labelled plain-text lines of FORMATS.md, then applies the malformed and
// fence draws.
func (c *call) format(a *answer) string {
	var arr [1024]byte
	b := arr[:0]
	asJSON := c.req.Schema != nil
	if asJSON {
		b = c.writeJSON(b, a)
	} else {
		b = c.writePlain(b, a)
	}
	b = c.appendDiagnosis(b, a, asJSON)
	if c.p.MalformedRate > 0 {
		if r := c.rng(tagMalformed); r.float() < c.p.MalformedRate {
			return c.malformed(b, a, &r)
		}
	}
	if asJSON && c.p.FenceRate > 0 {
		if r := c.rng(tagFence); r.float() < c.p.FenceRate {
			return fencePrefaces[r.intn(len(fencePrefaces))] + "```json\n" + string(b) + "\n```"
		}
	}
	return string(b)
}

// WrongDiagnosis is the diagnosis a simulated agent states on a triage item
// when its first choice is not the gold level (it matches no gold).
const WrongDiagnosis = "Nonspecific presentation"

// appendDiagnosis adds, on a triage item's agent answer, the diagnosis the
// agent states (see Item): a DIAGNOSIS line, or a "diagnosis" member before
// the JSON object's closing brace.
func (c *call) appendDiagnosis(b []byte, a *answer, asJSON bool) []byte {
	if c.it.diagnosis == "" {
		return b
	}
	switch a.mech {
	case Ranked, Reconsider, Concern, mechFirst:
	default:
		return b
	}
	return c.appendStatedDiagnosis(b, a, asJSON)
}

// appendStatedDiagnosis adds the diagnosis an agent answer states on a
// triage item (nothing on another item).
func (c *call) appendStatedDiagnosis(b []byte, a *answer, asJSON bool) []byte {
	if c.it.diagnosis == "" {
		return b
	}
	dx := WrongDiagnosis
	if first := a.rank.first(); first >= 0 && first == c.it.gold {
		dx = c.it.diagnosis
	}
	if !asJSON {
		return append(append(b, "\nDIAGNOSIS: "...), dx...)
	}
	if n := len(b); n > 0 && b[n-1] == '}' {
		b = appendQuoted(append(b[:n-1], `,"diagnosis":`...), dx)
		return append(b, '}')
	}
	return b
}

// Malformed shapes. A parser is expected to rescue the bare letters (bold
// and LaTeX) and, where the cut falls after the ranking or answer, some
// truncated objects; it must abstain on prose, empty answers and the other
// truncations.
const (
	shapeTruncated = iota
	shapeProse
	shapeEmpty
	shapeBold
	shapeLatex
	nShapes
)

func (c *call) malformed(full []byte, a *answer, r *stream) string {
	letter := a.letter
	switch a.mech {
	case Ranked, Reconsider, Concern, mechFirst:
		letter = a.rank.first()
	}
	shape := r.intn(nShapes)
	if letter < 0 && (shape == shapeBold || shape == shapeLatex) {
		shape -= shapeBold // truncated or prose
	}
	switch shape {
	case shapeTruncated:
		cut := int(float64(len(full)) * (0.3 + 0.5*r.float()))
		return string(full[:cut])
	case shapeProse:
		return proseAnswers[r.intn(len(proseAnswers))]
	case shapeEmpty:
		return ""
	case shapeBold:
		return "**" + c.it.letters[letter] + "**"
	default:
		return "The answer is $" + c.it.letters[letter] + "$."
	}
}

// writeJSON writes the answer as the JSON object FORMATS.md gives for its
// kind.
func (c *call) writeJSON(b []byte, a *answer) []byte {
	it := c.it
	switch a.mech {
	case TeamSize:
		b = append(b, `{"analysis":`...)
		b = appendQuoted(b, a.analysis)
		b = append(b, `,"agents":`...)
		b = strconv.AppendInt(b, int64(a.agents), 10)
		b = append(b, '}')
	case Roles:
		b = c.recruitJSON(b, a)
	case Ranked, Reconsider:
		b = c.rankedJSON(b, a)
	case Report:
		b = c.synthesisJSON(b, a)
	case Lean:
		b = append(b, `{"summary":`...)
		b = c.appendSentence(b, a, true)
		b = append(b, `,"leaning":`...)
		b = appendQuoted(b, it.letters[a.letter])
		b = append(b, '}')
	case Select:
		b = append(b, `{"concern":"`...)
		b = c.appendConcern(b, a)
		b = append(b, `","agent":`...)
		b = strconv.AppendInt(b, int64(a.agent), 10)
		b = append(b, '}')
	case Concern:
		b = c.monitorResponseJSON(b, a)
	case Rate:
		b = append(b, `{"debated_point":`...)
		b = c.appendSentence(b, a, true)
		b = append(b, `,"quality":`...)
		b = strconv.AppendFloat(b, a.q, 'f', 2, 64)
		b = append(b, '}')
	case Decide:
		b = append(b, `{"reasoning":`...)
		b = c.appendSentence(b, a, true)
		b = append(b, `,"answer":`...)
		b = appendQuoted(b, it.letters[a.letter])
		b = append(b, '}')
	default:
		b = c.protocolJSON(b, a)
	}
	return b
}

// recruitJSON writes the roles, each with its name and focus.
func (c *call) recruitJSON(b []byte, a *answer) []byte {
	b = append(b, `{"roles":[`...)
	for i := 0; i < a.nroles; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		s := &specialties[a.roles[i]]
		b = append(b, `{"name":`...)
		b = appendQuoted(b, s.name)
		b = append(b, `,"focus":`...)
		b = appendQuoted(b, s.focus)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// rankedJSON writes an agent's answer (Ranked, Reconsider): reasoning,
// ranking, confidence and its facts, if any.
func (c *call) rankedJSON(b []byte, a *answer) []byte {
	b = append(b, `{"reasoning":`...)
	b = c.appendSentence(b, a, true)
	b = append(b, `,"ranking":`...)
	b = c.appendRankingJSON(b, &a.rank)
	b = append(b, `,"confidence":`...)
	b = strconv.AppendFloat(b, a.conf, 'f', 2, 64)
	if a.nfacts > 0 {
		b = append(b, `,"facts":`...)
		b = c.appendFactsJSON(b, a)
	}
	return append(b, '}')
}

// synthesisJSON writes the leader's synthesis: facts, report and a quality
// score per agent.
func (c *call) synthesisJSON(b []byte, a *answer) []byte {
	b = append(b, `{"facts":`...)
	b = c.appendFactsJSON(b, a)
	b = append(b, `,"report":`...)
	b = c.appendSentence(b, a, true)
	b = append(b, `,"quality":[`...)
	for i := 0; i < a.nquality; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"agent":`...)
		b = strconv.AppendInt(b, int64(a.qagent[i]), 10)
		b = append(b, `,"score":`...)
		b = strconv.AppendFloat(b, a.quality[i], 'f', 2, 64)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// monitorResponseJSON writes an agent's reply to a concern: response,
// whether it accepts, ranking and confidence.
func (c *call) monitorResponseJSON(b []byte, a *answer) []byte {
	b = append(b, `{"response":`...)
	b = c.appendSentence(b, a, true)
	b = append(b, `,"accepts":`...)
	b = strconv.AppendBool(b, a.accepts)
	b = append(b, `,"ranking":`...)
	b = c.appendRankingJSON(b, &a.rank)
	b = append(b, `,"confidence":`...)
	b = strconv.AppendFloat(b, a.conf, 'f', 2, 64)
	return append(b, '}')
}

// writePlain writes the answer as the labelled lines FORMATS.md gives for
// its kind.
func (c *call) writePlain(b []byte, a *answer) []byte {
	it := c.it
	switch a.mech {
	case TeamSize:
		b = append(b, "ANALYSIS: "...)
		b = append(b, a.analysis...)
		b = append(b, "\nAGENTS: "...)
		b = strconv.AppendInt(b, int64(a.agents), 10)
	case Roles:
		b = c.recruitPlain(b, a)
	case Ranked, Reconsider:
		b = c.rankedPlain(b, a)
	case Report:
		b = c.synthesisPlain(b, a)
	case Lean:
		b = append(b, "SUMMARY: "...)
		b = c.appendSentence(b, a, false)
		b = append(b, "\nLEANING: "...)
		b = append(b, it.letters[a.letter]...)
	case Select:
		b = append(b, "CONCERN: "...)
		b = c.appendConcern(b, a)
		b = append(b, "\nAGENT: "...)
		b = strconv.AppendInt(b, int64(a.agent), 10)
	case Concern:
		b = c.monitorResponsePlain(b, a)
	case Rate:
		b = append(b, "DEBATED: "...)
		b = c.appendSentence(b, a, false)
		b = append(b, "\nQUALITY: "...)
		b = strconv.AppendFloat(b, a.q, 'f', 2, 64)
	case Decide:
		b = append(b, "REASONING: "...)
		b = c.appendSentence(b, a, false)
		b = append(b, "\nANSWER: "...)
		b = append(b, it.letters[a.letter]...)
	default:
		b = c.protocolPlain(b, a)
	}
	return b
}

// recruitPlain writes one "ROLE i: name - focus" line per role.
func (c *call) recruitPlain(b []byte, a *answer) []byte {
	for i := 0; i < a.nroles; i++ {
		if i > 0 {
			b = append(b, '\n')
		}
		s := &specialties[a.roles[i]]
		b = append(b, "ROLE "...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, ": "...)
		b = append(b, s.name...)
		b = append(b, " - "...)
		b = append(b, s.focus...)
	}
	return b
}

// rankedPlain writes an agent's answer (Ranked, Reconsider): reasoning,
// ranking, confidence and its facts, if any.
func (c *call) rankedPlain(b []byte, a *answer) []byte {
	b = append(b, "REASONING: "...)
	b = c.appendSentence(b, a, false)
	b = append(b, "\nRANKING: "...)
	b = c.appendRankingPlain(b, &a.rank)
	b = append(b, "\nCONFIDENCE: "...)
	b = strconv.AppendFloat(b, a.conf, 'f', 2, 64)
	if a.nfacts > 0 {
		b = append(b, "\nFACTS: "...)
		b = c.appendFactsPlain(b, a)
	}
	return b
}

// synthesisPlain writes the leader's synthesis: facts, report and a quality
// score per agent.
func (c *call) synthesisPlain(b []byte, a *answer) []byte {
	b = append(b, "FACTS: "...)
	b = c.appendFactsPlain(b, a)
	b = append(b, "\nREPORT: "...)
	b = c.appendSentence(b, a, false)
	b = append(b, "\nQUALITY: "...)
	for i := 0; i < a.nquality; i++ {
		if i > 0 {
			b = append(b, "; "...)
		}
		b = append(b, "agent "...)
		b = strconv.AppendInt(b, int64(a.qagent[i]), 10)
		b = append(b, ": "...)
		b = strconv.AppendFloat(b, a.quality[i], 'f', 2, 64)
	}
	return b
}

// monitorResponsePlain writes an agent's reply to a concern: response,
// whether it accepts, ranking and confidence.
func (c *call) monitorResponsePlain(b []byte, a *answer) []byte {
	b = append(b, "RESPONSE: "...)
	b = c.appendSentence(b, a, false)
	b = append(b, "\nACCEPTS: "...)
	if a.accepts {
		b = append(b, "yes"...)
	} else {
		b = append(b, "no"...)
	}
	b = append(b, "\nRANKING: "...)
	b = c.appendRankingPlain(b, &a.rank)
	b = append(b, "\nCONFIDENCE: "...)
	return strconv.AppendFloat(b, a.conf, 'f', 2, 64)
}

// appendSentence writes the answer's sentence; quoted as a JSON string when asJSON.
func (c *call) appendSentence(b []byte, a *answer, asJSON bool) []byte {
	if asJSON {
		b = append(b, '"')
	}
	s := a.sent
	b = append(b, s[0]...)
	b = c.appendLetter(b, a.l1, asJSON)
	b = append(b, s[1]...)
	b = c.appendLetter(b, a.l2, asJSON)
	b = append(b, s[2]...)
	if a.cue != "" {
		b = append(b, ' ')
		b = append(b, a.cue...)
	}
	if asJSON {
		b = append(b, '"')
	}
	return b
}

func (c *call) appendLetter(b []byte, i int8, asJSON bool) []byte {
	if asJSON {
		return appendEscaped(b, c.it.letters[i])
	}
	return append(b, c.it.letters[i]...)
}

func (c *call) appendConcern(b []byte, a *answer) []byte {
	b = append(b, a.concern[0]...)
	b = strconv.AppendInt(b, int64(a.agent), 10)
	return append(b, a.concern[1]...)
}

func (c *call) appendRankingJSON(b []byte, r *ranking) []byte {
	b = append(b, '[')
	for k := 0; k < r.n; k++ {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendQuoted(b, c.it.letters[r.idx[k]])
	}
	return append(b, ']')
}

func (c *call) appendRankingPlain(b []byte, r *ranking) []byte {
	for k := 0; k < r.n; k++ {
		if k > 0 {
			b = append(b, ", "...)
		}
		b = append(b, c.it.letters[r.idx[k]]...)
	}
	return b
}

func (c *call) appendFactsJSON(b []byte, a *answer) []byte {
	b = append(b, '[')
	for k := 0; k < a.nfacts; k++ {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, factBank[a.facts[k]]...)
		b = append(b, '"')
	}
	return append(b, ']')
}

func (c *call) appendFactsPlain(b []byte, a *answer) []byte {
	for k := 0; k < a.nfacts; k++ {
		if k > 0 {
			b = append(b, "; "...)
		}
		b = append(b, factBank[a.facts[k]]...)
	}
	return b
}

func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s)
	return append(b, '"')
}

// appendEscaped writes s escaped for a JSON string (quote, backslash and
// control characters; everything else is passed through).
func appendEscaped(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= 0x20 && ch != '"' && ch != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch ch {
		case '"', '\\':
			b = append(b, '\\', ch)
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[ch>>4], hex[ch&15])
		}
		start = i + 1
	}
	return append(b, s[start:]...)
}

// diagnosisVerdict answers the runner's diagnosis judge: "MATCH: yes" when
// the prompt's "Stated diagnosis:" line is the item's diagnosis (what a
// simulated agent states when it chose the gold level), "MATCH: no"
// otherwise.
func (c *call) diagnosisVerdict() string {
	stated := ""
	for _, m := range c.req.Messages {
		for _, line := range strings.Split(m.Content, "\n") {
			if s, ok := strings.CutPrefix(line, "Stated diagnosis: "); ok {
				stated = s
			}
		}
	}
	if stated != "" && stated == strings.Join(strings.Fields(c.it.diagnosis), " ") {
		return "MATCH: yes"
	}
	return "MATCH: no"
}
