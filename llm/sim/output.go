package sim

import "strconv"

// WrongDiagnosis is the diagnosis a simulated agent states on a triage item
// when its first choice is not the gold level (it matches no gold).
const WrongDiagnosis = "Nonspecific presentation"

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

// malformed is a malformed answer in place of full, whose chosen option
// is letter (-1: none).
func (c *call) malformed(full []byte, letter int8, r *stream) string {
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

// rankedJSON writes an agent's answer (Ranked, Reconsider) in the shared
// first answer's fields: reasoning, ranking, confidence.
func (c *call) rankedJSON(b []byte, a *answer) []byte {
	b = append(b, `{"reasoning":`...)
	b = c.appendSentence(b, a, true)
	b = append(b, `,"ranking":`...)
	b = c.appendRankingJSON(b, &a.rank)
	b = append(b, `,"confidence":`...)
	b = strconv.AppendFloat(b, a.conf, 'f', 2, 64)
	return append(b, '}')
}

// rankedPlain writes an agent's answer (Ranked, Reconsider) in the shared
// first answer's lines: reasoning, ranking, confidence.
func (c *call) rankedPlain(b []byte, a *answer) []byte {
	b = append(b, "REASONING: "...)
	b = c.appendSentence(b, a, false)
	b = append(b, "\nRANKING: "...)
	b = c.appendRankingPlain(b, &a.rank)
	b = append(b, "\nCONFIDENCE: "...)
	b = strconv.AppendFloat(b, a.conf, 'f', 2, 64)
	return b
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
