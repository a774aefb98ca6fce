package answer

import (
	"fmt"
	"slices"
	"strings"
)

// letterStr is "A" to "Z": a letter read is one of these strings, never
// a new one.
var letterStr = func() (t [26]string) {
	for i := range t {
		t[i] = string(rune('A' + i))
	}
	return t
}()

// Set is what one reading may name — the question's option letters (upper
// case) and texts — and what that reading notes (see the package comment).
// A Set serves one reading, such as one call of Parse, and is not safe for
// concurrent use (the shared anyLetters is normalised up front and never
// written afterwards).
type Set struct {
	letters []string
	idx     [26]uint8 // 1 + the index in letters of each option letter; 0 when not an option
	texts   []string  // in letters order: the option texts, normalised in place on first use
	normed  bool      // texts are lower case, single-spaced, outer punctuation trimmed

	tied     bool     // the letters are the tied options of a tie-break (for notes)
	notes    []string // see the package comment
	nbad     int      // letters read that are not options (counted even when the note repeats)
	nunknown int      // ranking elements whose option is unknown: a letter with another option's text, a shared best rank
	overflow bool     // a free text had more than maxCommits commitments of one kind
	// markedCut: the reply read was marked cut off at its token limit (MarkCut)
	markedCut bool

	aliases [][]string // in letters order: the options' other names, normalised; nil when none has any
}

// NewSet makes the Set of a question's options. Letters are read without
// case or surrounding white space; an option whose letter is not one ASCII
// letter, or repeats an earlier one, is left out, as are options past the
// 26th.
func NewSet(options []Option) *Set {
	n := min(len(options), 26)
	back := make([]string, 0, 2*n) // one allocation for letters and texts
	s := &Set{letters: back[:0:n], texts: back[n:n]}
	for _, o := range options {
		l := strings.TrimSpace(o.Letter)
		if len(l) != 1 {
			continue
		}
		c := upperASCII(l[0])
		if c < 'A' || c > 'Z' || s.idx[c-'A'] != 0 || len(s.letters) == n {
			continue
		}
		s.letters = append(s.letters, letterStr[c-'A'])
		s.texts = append(s.texts, o.Text)
		s.idx[c-'A'] = uint8(len(s.letters))
		s.addAliases(len(s.letters)-1, o.Aliases)
	}
	return s
}

// isOption reports whether the upper-case ASCII letter c is an option.
func (s *Set) isOption(c byte) bool { return c >= 'A' && c <= 'Z' && s.idx[c-'A'] != 0 }

// text is the normalised text of the option with letter L (computed on first
// use: a clean JSON ranking of letters never needs it).
func (s *Set) text(L string) string {
	if !s.normed {
		for i, t := range s.texts {
			s.texts[i] = normText(t)
		}
		s.normed = true
	}
	return s.texts[s.idx[L[0]-'A']-1]
}

// lettersOnly is the Set of letters without texts.
func lettersOnly(letters []string) *Set {
	opts := make([]Option, len(letters))
	for i, l := range letters {
		opts[i] = Option{Letter: l}
	}
	s := NewSet(opts)
	s.normed = true
	return s
}

// anyLetters is A–Z without texts (read-only after init): what a model may
// name as an option letter, used only to notice a letter that is not one of
// the options.
var anyLetters = lettersOnly(strings.Split("A,B,C,D,E,F,G,H,I,J,K,L,M,N,O,P,Q,R,S,T,U,V,W,X,Y,Z", ","))

// note records a note once.
func (s *Set) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	if !slices.Contains(s.notes, n) {
		s.notes = append(s.notes, n)
	}
}

// noteBad records that the letter L was named but is not an option.
func (s *Set) noteBad(L string) {
	s.nbad++
	if s.tied {
		s.note("letter %q is not a tied option (tied options %s); ignored", L, s.span())
		return
	}
	s.note("letter %q is not an option (options %s); ignored", L, s.span())
}

// span shows the options compactly: "A–D" when they run from A, else the list.
func (s *Set) span() string {
	n := len(s.letters)
	if n > 2 && s.letters[0] == "A" && s.letters[n-1] == letterStr[n-1] {
		return "A–" + s.letters[n-1]
	}
	return s.List()
}

// badLetter reads a letter that is not an option at the start of s (markup
// already stripped), strictly (as readLetter without loose): "" when s does
// not start with a letter or starts with an option's letter.
func (s *Set) badLetter(c string) string {
	L := readLetter(c, anyLetters, false)
	if L == "" || s.isOption(L[0]) {
		return ""
	}
	return L
}

// elem reads one element naming an option (letterOf). An element that is a
// letter outside the options is noted; so is one whose letter and text name
// different options ("B) Ceftriaxone" when ceftriaxone is C), which also
// counts in nunknown: a ranking stops there, as the option meant is unknown.
func (s *Set) elem(e string) string {
	if L := letterOf(e, s); L != "" {
		return L
	}
	c := cleanLead(e)
	if L := readLetter(c, s, false); L != "" {
		if L2 := s.clash(c, L); L2 != "" {
			s.nunknown++
			if len(e) > 60 {
				e = e[:60] + "…"
			}
			s.note("%q names %s but the text of %s; not read", strings.TrimSpace(e), L, L2)
		}
		return ""
	}
	if L := s.badLetter(c); L != "" {
		s.noteBad(L)
	}
	return ""
}

// clash returns the other option whose text follows the letter L that c
// starts with ("B) Ceftriaxone" when ceftriaxone is C's text), or "".
func (s *Set) clash(c, L string) string {
	rest := strings.TrimLeft(c[1:], ")]}.:*_ \t-–—")
	if rest == "" {
		return ""
	}
	if t := s.text(L); t != "" {
		if _, ok := textPrefixLen(rest, t); ok || wordsPrefix(rest, t) {
			return ""
		}
	}
	if L2, _ := textPrefix(rest, s); L2 != L {
		return L2
	}
	return ""
}

// upperASCII is the upper case of an ASCII letter, and c itself otherwise.
func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// letter returns the upper-case letter for the ASCII letter c when it is one
// of the options.
func (s *Set) letter(c byte) string {
	c = upperASCII(c)
	if !s.isOption(c) {
		return ""
	}
	return letterStr[c-'A']
}

// List lists the option letters: "A, B, C".
func (s *Set) List() string { return strings.Join(s.letters, ", ") }

// wordsPrefix reports whether the words of s (letters and digits, any case)
// begin with all the words of the option text t, whatever the punctuation
// between them: "The foramen ovale, rotundum, and spinosum" begins with
// the words of "The foramen ovale, rotundum and spinosum". A letter given
// with its own text in other punctuation is not a clash with a shorter
// option's text that it also begins with.
func wordsPrefix(s, t string) bool {
	tw := strings.FieldsFunc(t, notWordRune)
	if len(tw) == 0 {
		return false
	}
	sw := strings.FieldsFunc(s[:min(len(s), 4*len(t)+16)], notWordRune)
	if len(sw) < len(tw) {
		return false
	}
	for i, w := range tw {
		if !strings.EqualFold(sw[i], w) {
			return false
		}
	}
	return true
}

func notWordRune(r rune) bool { return !isWordRune(r) }
