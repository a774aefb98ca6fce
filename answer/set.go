package answer

import "strings"

// What a Set offers the parsers of other replies that name an option (a
// leader's leaning, a tie-break): the same reading of letters, commitments
// and free text as Parse, and the same notes.

// TiedSet is the set of the tied letters of a tie-break. It has no option
// texts, and a letter read that is not among the tied ones is noted as "not
// a tied option".
func TiedSet(letters []string) *Set {
	s := lettersOnly(letters)
	s.tied = true
	return s
}

// Len is the number of options.
func (s *Set) Len() int { return len(s.letters) }

// Notes are what the readings with s read but did not take as written (see
// the package comment), each once, in the order noted.
func (s *Set) Notes() []string { return s.notes }

// Letter reads one element that should name one option: "B", "b)",
// "Option B", "B) Tetracycline", "**B**", "(B)", the whole text of one
// option, or "Tetracycline (B)". It returns "" when the element is not
// clearly one of the options, or names a letter with another option's text.
func (s *Set) Letter(e string) string { return letterOf(e, s) }

// NotOption returns the letter that e starts with (after markup) when it is
// not one of the options, and notes it; "" when e starts with no letter or
// with an option's.
func (s *Set) NotOption(e string) string {
	L := s.badLetter(cleanLead(e))
	if L != "" {
		s.noteBad(L)
	}
	return L
}

// Lead is the option a value names at its start, read by ReadLead.
type Lead struct {
	Letter       string // the option; "" when NotOption is set
	NotOption    string // a letter named that is not an option (noted)
	Alternatives bool   // it names alternatives ("B or C"), or a letter with another option's text
}

// ReadLead reads the option named at the start of v as after an answer
// label ("ANSWER: B"): a letter (any capital but A and I may be followed by
// anything) or an option's text. ok is false when v does not start with
// one, or when its sentence goes on to ask about it or to reject it ("B is
// not indicated").
func (s *Set) ReadLead(v string) (l Lead, ok bool) {
	var c commit
	if !c.readLead(v, 0, s, true) {
		return Lead{}, false
	}
	return Lead{Letter: c.L, NotOption: c.bad, Alternatives: c.alt}, true
}

// One reads a short value that should name one option, such as a leader's
// leaning: the option itself ("B", "Ceftriaxone", "B, tentatively"), an
// option named at its start as after a label, or a sentence read like free
// text (Read). It returns the letter, or "" and why (a Reason constant).
func (s *Set) One(v string) (letter, reason string) {
	if strings.TrimSpace(v) == "" {
		return "", ReasonNoAnswer
	}
	bad := s.nbad
	if L := s.elem(v); L != "" {
		return L, ""
	}
	var c commit
	if c.readLead(v, 0, s, true) {
		switch {
		case c.alt:
			return "", ReasonAmbiguous
		case c.bad != "":
			return "", ReasonNotAnOption
		}
		return c.L, ""
	}
	if s.nbad > bad {
		return "", ReasonNotAnOption
	}
	if v := textAnswer(v, s); len(v.Ranking) > 0 {
		return v.Ranking[0], ""
	} else if v.Reason != "" {
		return "", v.Reason
	}
	return "", ReasonNoAnswer
}

// Read reads a free text as Parse does once no JSON object holds the
// answer: a structured ranking in the text (authoritative) if there is
// one, else its explicit commitments, else its marks ($B$, **B**, (B)).
func (s *Set) Read(text string) Verdict {
	return textAnswer(text, s)
}
