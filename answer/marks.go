package answer

import (
	"cmp"
	"regexp"
	"strings"
)

// Marks ($B$, **B**, (B)), read only when nothing commits, and refusals.

var (
	reDollar = regexp.MustCompile(`\$\s*(?:\\[A-Za-z]+\s*\{\s*)?\(?([A-Z])\)?\s*\}?\s*\$`)
	reBold   = regexp.MustCompile(`\*\*([^*\n]+?)\*\*|__([^_\n]+?)__`)
	reParen  = regexp.MustCompile(`\(([A-Z])\)`)
)

// mark makes a mark at text[lo:hi] naming the one-letter s (false when s
// is not a letter), rejected or not.
func mark(text string, lo, hi int, s string, m Method, os *Set) (commit, bool) {
	c := commit{pos: lo, end: hi, method: m}
	if len(s) != 1 {
		return commit{}, false
	}
	if c.L = os.letter(s[0]); c.L == "" {
		if c.bad = anyLetters.letter(s[0]); c.bad == "" {
			return commit{}, false
		}
	}
	c.neg = negatedBefore(text, lo) || negatedAfter(text[hi:min(len(text), hi+maxLead)], c.L, os)
	return c, true
}

// dollarMarks: $B$, $\mathbf{B}$.
func dollarMarks(text string, os *Set) []commit {
	if !strings.Contains(text, "$") {
		return nil
	}
	var out []commit
	for _, m := range os.capped(reDollar.FindAllStringSubmatchIndex(text, maxCommits+1)) {
		if c, ok := mark(text, m[0], m[1], text[m[2]:m[3]], MethodLatex, os); ok {
			out = append(out, c)
		}
	}
	return out
}

// boldMarks: "**B**", "**B)**", "**B. text**". Bold options that head their
// own line followed by text ("**A.** unlikely because ...", "**B.
// Doxycycline** – ...") are an option-by-option analysis when they name two
// or more letters, and are then ignored.
func boldMarks(text string, os *Set) []commit {
	if !strings.Contains(text, "**") && !strings.Contains(text, "__") {
		return nil
	}
	type hit struct {
		c       commit
		heading bool
	}
	var hits []hit
	var headLetters [26]bool
	nHead := 0
	for _, m := range os.capped(reBold.FindAllStringSubmatchIndex(text, maxCommits+1)) {
		c, ok := boldMark(text, m, os)
		if !ok {
			continue
		}
		heading := boldHeading(text, m[0], m[1])
		if L := cmp.Or(c.L, c.bad); heading && !headLetters[L[0]-'A'] {
			headLetters[L[0]-'A'] = true
			nHead++
		}
		hits = append(hits, hit{c, heading})
	}
	var out []commit
	for _, h := range hits {
		if !h.heading || nHead <= 1 {
			out = append(out, h.c)
		}
	}
	return out
}

// boldMark reads the bold span of the match m of reBold as a mark; ok is
// false when the span is no mark.
func boldMark(text string, m []int, os *Set) (commit, bool) {
	lo, hi := m[2], m[3]
	if lo < 0 {
		lo, hi = m[4], m[5]
	}
	if hi-lo > 200 {
		return commit{}, false // a bold passage, not a marked option
	}
	cl := cleanLead(text[lo:hi])
	L := readLetter(cl, os, false)
	if L == "" {
		// a bold letter that is not an option counts only on its own: "**E**", not "**E. coli**"
		if L = os.badLetter(cl); L == "" || strings.Trim(cl[1:], " \t)]}.:") != "" {
			return commit{}, false
		}
	}
	c, ok := mark(text, m[0], m[1], L, MethodBold, os)
	if ok {
		c.alt = c.L != "" && os.clash(cl, c.L) != "" // "**B. Ceftriaxone**" when ceftriaxone is C
	}
	return c, ok
}

// boldHeading reports whether the bold span text[lo:hi] heads its line: it
// starts the line (after at most a short bullet or number) and words follow
// it on the same line. Both looks are bounded so that a long line without
// breaks stays linear.
func boldHeading(text string, lo, hi int) bool {
	before := text[max(0, lo-16):lo]
	atStart := lo <= 16 || strings.IndexByte(before, '\n') >= 0
	if k := strings.LastIndexByte(before, '\n'); k >= 0 {
		before = before[k+1:]
	}
	after := text[hi:min(len(text), hi+200)]
	if k := strings.IndexByte(after, '\n'); k >= 0 {
		after = after[:k]
	}
	return atStart && strings.Trim(before, " \t-*•0123456789.)#>") == "" &&
		strings.IndexFunc(after, isWordRune) >= 0
}

// parenMarks: "(B)".
func parenMarks(text string, os *Set) []commit {
	if !strings.Contains(text, "(") {
		return nil
	}
	var out []commit
	for _, m := range os.capped(reParen.FindAllStringSubmatchIndex(text, maxCommits+1)) {
		if c, ok := mark(text, m[0], m[1], text[m[2]:m[3]], MethodParen, os); ok {
			out = append(out, c)
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// Refusals

var (
	// "I cannot", "I'm unable to", "I won't" … followed by refusalVerbs.
	reRefusal    = regexp.MustCompile(`(?i)\bI(?:\s+am|['’]m)?\s+(?:cannot|can['’]?t|can\s+not|unable\s+to|not\s+able\s+to|won['’]t|will\s+not|must\s+decline\s+to|decline\s+to|do\s+not\s+feel\s+comfortable)\s+(?:to\s+)?`)
	refusalVerbs = []string{"answer", "provide", "determine", "choose", "select", "help", "assist", "give", "offer", "make",
		"pick", "comply", "recommend", "diagnose", "respond"}
	refusalPhrases = newWordCues("as an ai", "medical advice", "consult a doctor", "consult your doctor",
		"consult a physician", "consult your physician", "consult a healthcare", "consult your healthcare", "consult a medical")
)

// Refusal reports whether a text that names no option declines to answer.
func Refusal(text string) bool {
	for _, m := range reRefusal.FindAllStringIndex(text, maxCommits) {
		if wordPrefix(text[m[1]:], refusalVerbs) {
			return true
		}
	}
	return refusalPhrases.in(text)
}
