package answer

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Picks: commitments without an answer label — first-person picks ("I'd go
// with B"), "B is correct", a line that is only an option, a reply that
// opens with one.

var (
	// "not A, not B, but C", "not B but rather C".
	reButPick = regexp.MustCompile(`(?i)\bnot\b[^.;!?\n]+?,?[ \t]+but[ \t]+(?:rather[ \t]+|instead[ \t]+)?`)
	// An option opening a sentence (or after "option", "so", "only") before
	// a verb a pick may follow with: checked by posPredicate.
	reSubject = regexp.MustCompile(`(?m)(?:^[ \t*_>•-]*|[.!?;:,][ \t]+|\b(?i:option|choice|letter|so|thus|hence|therefore|overall|only)[ \t]+)[(*_]*([A-Z])([)*_]*)[ \t]+(?i:is|remains|seems|appears|fits|matches|explains)\b`)
	// A connector that may open a sentence before an option: "So, C."
	reOpener = regexp.MustCompile(`(?i)^(?:so|thus|hence|therefore|overall|in\s+conclusion|in\s+summary|ultimately|finally|final|answer|the\s+answer)\b[ \t]*[,:]?[ \t]*`)
)

// Words of a predicate that picks the option just named: "is correct", "is
// the best answer", "is also correct", "is the drug of choice", "is better",
// "fits best" — but not "is the best alternative", "is better tolerated" or
// the conditional "would be correct in adults".
var (
	posCopulas    = []string{"is", "remains", "seems to be", "appears to be"}
	posAdverbs    = []string{"also", "still", "clearly", "definitely", "indeed", "certainly", "truly", "really"}
	posArticles   = []string{"the", "my", "our"}
	posWholes     = []string{"answer", "drug of choice", "treatment of choice"}
	posDegrees    = []string{"single", "clear", "overall"}
	posAdjectives = []string{"best", "better", "correct", "right", "most likely", "most appropriate", "most accurate",
		"most probable", "most consistent", "likeliest", "final", "preferred"}
	posNouns = []string{"answer", "choice", "option", "fit", "explanation", "selection", "diagnosis", "treatment",
		"management", "step", "next step", "drug", "cause", "mechanism", "test", "investigation", "one"}
	posVerbs     = []string{"fits", "matches", "explains"}
	posExplained = []string{"case", "findings", "picture", "presentation"}
	posFinishers = []string{"best", "better", "most"}
	posFollowers = []string{"here", "overall", "because", "since", "as", "given", "for", "in", "of", "among", "to",
		"with", "at", "on", "than"}
)

// posPredicate returns the length of the predicate that picks the option
// named just before s, 0 when s does not open with one. The predicate must
// end the clause: punctuation (counted in the length), the end of the line,
// or a word such as "here", "because", "than".
func posPredicate(s string) int {
	t := strings.TrimLeft(s, ")*_]\"'")
	u := strings.TrimLeft(t, " \t")
	if len(u) == len(t) {
		return 0
	}
	var after string
	var ok bool
	if n := wordPrefixLen(u, posCopulas); n > 0 {
		after, ok = copulaPredicate(u[n:])
	} else if n := wordPrefixLen(u, posVerbs); n > 0 {
		after, ok = verbPredicate(u[:n], u[n:])
	}
	if !ok {
		return 0
	}
	return predicateEnd(s, after)
}

// copulaPredicate reads what follows a copula ("is") in a pick: an optional
// adverb and article, then a whole ("the answer", "the drug of choice") or
// an adjective and an optional noun ("correct", "the best answer"). It
// returns the text after it.
func copulaPredicate(rest string) (after string, ok bool) {
	u := skipWord(skipWord(skipSpace(rest), posAdverbs), posArticles)
	if n := wordPrefixLen(u, posWholes); n > 0 {
		return u[n:], true
	}
	u = skipWord(u, posDegrees)
	n := wordPrefixLen(u, posAdjectives)
	if n == 0 {
		return "", false
	}
	after = u[n:]
	if v := strings.TrimLeft(after, " \t"); len(v) < len(after) {
		if k := wordPrefixLen(v, posNouns); k > 0 {
			after = v[k:]
		}
	}
	return after, true
}

// verbPredicate reads what follows a verb in a pick: "fits best", "matches
// better", "explains the findings best". It returns the text after it.
func verbPredicate(verb, rest string) (after string, ok bool) {
	v := skipSpace(rest)
	if strings.EqualFold(verb, "explains") {
		v = skipWord(v, posArticles[:1])
		k := wordPrefixLen(v, posExplained)
		if k == 0 {
			return "", false
		}
		v = skipSpace(v[k:])
	}
	k := wordPrefixLen(v, posFinishers)
	if k == 0 {
		return "", false
	}
	return v[k:], true
}

// predicateEnd is the length of the predicate of s that ends where after
// starts, 0 when it does not end the clause there (see posPredicate).
func predicateEnd(s, after string) int {
	v := strings.TrimLeft(after, " \t")
	switch {
	case v == "" || v[0] == '\n':
		return len(s) - len(v)
	case strings.IndexByte(".,;:!)", v[0]) >= 0:
		return len(s) - len(v) + 1
	case len(v) < len(after) && wordPrefix(v, posFollowers):
		return len(s) - len(v)
	}
	return 0
}

// Words of an aside that rejects the option before it: "(incorrect)".
var negAsideWords = []string{"incorrect", "wrong", "false", "excluded", "ruled out", "eliminated", "unlikely",
	"contraindicated", "a distractor", "distractor", "not correct", "not right", "not indicated",
	"not appropriate", "not the answer", "not it"}

// negAside reports whether an aside (as matched by reAside) rejects the
// option: "(incorrect)", "(ruled out)" — not "(not confident)".
func negAside(aside string) bool {
	t := strings.TrimLeft(aside, " \t")
	if !strings.HasPrefix(t, "(") {
		return false
	}
	t = strings.TrimLeft(t[1:], " \t")
	n := wordPrefixLen(t, negAsideWords)
	return n > 0 && strings.TrimLeft(t[n:], " \t.!") == ")"
}

// Words of a first-person pick: "I choose B", "I'd go with option C", "we
// prefer D", "let's go with B", "I would answer no", "leaning towards C",
// "so it's B" (read loosely, as after an answer label), and "I think it's
// C", "I'd say C" (read strictly: "I think C is unlikely" is no pick).
var (
	pickSubjects = []string{"i", "we"}
	pickAux      = []string{"would still", "would", "will", "am going to", "now", "still", "therefore", "thus"}
	pickContract = []string{"'d", "’d", "'ll", "’ll", "'m going to", "’m going to"}
	chooseVerbs  = []string{"choose", "select", "pick", "go with", "opt for", "vote for", "settle on", "favour", "favor",
		"prefer", "lean towards", "lean toward", "stick with", "stay with", "answer"}
	thinkVerbs = []string{"think", "believe", "say", "guess", "suspect", "reckon", "feel"}
	pickHeads  = []string{"let's go with", "let’s go with", "lets go with", "let us go with", "going with",
		"leaning towards", "leaning toward"}
	pickSo      = []string{"so", "thus", "hence", "therefore"}
	pickItIs    = []string{"it's", "it’s", "it is", "it would be", "it must be", "it should be", "it has to be"}
	pickAdverbs = []string{"probably", "likely", "most likely", "definitely", "clearly"}
	pickObjects = []string{"answer", "option", "choice"}
)

// pickMarker is where a first-person pick's option is to be read: after end,
// loosely or not.
type pickMarker struct {
	start, end int
	loose      bool
}

// firstPerson finds the first-person picks of a text (at most maxCommits).
func firstPerson(text string, os *Set) []pickMarker {
	var out []pickMarker
	for i := 0; i < len(text); i++ {
		if i > 0 && isWordByte(text[i-1]) || !isWordByte(text[i]) {
			continue
		}
		if n, loose := pickAt(text[i:]); n > 0 {
			if len(out) == maxCommits {
				os.overflow = true
				break
			}
			out = append(out, pickMarker{i, i + n, loose})
		}
	}
	return out
}

// pickAt returns the length of a first-person pick marker opening s (0 when
// there is none) and whether its option is read loosely.
func pickAt(s string) (int, bool) {
	var u string
	loose := true
	switch {
	case wordPrefix(s, pickHeads):
		u = s[wordPrefixLen(s, pickHeads):]
	case wordPrefix(s, pickSo):
		after := strings.TrimPrefix(s[wordPrefixLen(s, pickSo):], ",")
		v := skipSpace(after)
		n := wordPrefixLen(v, pickItIs[:3])
		if n == 0 || len(v) == len(after) {
			return 0, false
		}
		u = v[n:]
	case wordPrefix(s, pickSubjects):
		n := wordPrefixLen(s, pickSubjects)
		v := s[n:]
		if k := wordPrefixLen(v, pickContract); k > 0 {
			v = v[k:]
		} else if w := skipSpace(v); len(w) < len(v) {
			if k := wordPrefixLen(w, pickAux); k > 0 {
				v = w[k:]
			}
		}
		w := skipSpace(v)
		if len(w) == len(v) {
			return 0, false
		}
		if k := wordPrefixLen(w, chooseVerbs); k > 0 {
			u = w[k:]
			break
		}
		k := wordPrefixLen(w, thinkVerbs)
		if k == 0 || n != 1 { // "I think", not "we think"
			return 0, false
		}
		v = skipSpace(w[k:])
		v = skipWord(skipWord(skipWord(v, []string{"that"}), pickItIs), pickAdverbs)
		return len(s) - len(v), false
	default:
		return 0, false
	}
	// an optional object ("the answer") and colon
	if v := skipSpace(u); len(v) < len(u) {
		if w := skipWord(v, posArticles[:1]); wordPrefix(w, pickObjects) {
			u = w[wordPrefixLen(w, pickObjects):]
		}
	}
	u = strings.TrimLeft(u, " \t")
	u = strings.TrimPrefix(u, ":")
	return len(s) - len(u), loose
}

// picks finds first-person picks and "B is correct" (for a letter or an
// option's text opening a sentence).
func picks(text string, os *Set) []commit {
	out := personPicks(text, os, nil)
	out = butPicks(text, os, out)
	out = subjectPicks(text, os, out)
	return textSubjectPicks(text, os, out)
}

// personPicks appends the first-person picks: "I'd go with B".
func personPicks(text string, os *Set, out []commit) []commit {
	for _, m := range firstPerson(text, os) {
		c := commit{pos: m.start, method: MethodAnswerLine}
		if c.readLead(text, m.end, os, m.loose) {
			c.final = reFinalCue.MatchString(sentenceBefore(text, m.start))
			out = append(out, c)
		}
	}
	return out
}

// butPicks appends the picks after a rejection: "not A, not B, but C".
func butPicks(text string, os *Set, out []commit) []commit {
	for _, m := range os.capped(reButPick.FindAllStringIndex(text, maxCommits+1)) {
		c := commit{pos: m[0], method: MethodAnswerLine}
		if c.readLead(text, m[1], os, false) {
			c.final = reFinalCue.MatchString(sentenceBefore(text, m[0]))
			out = append(out, c)
		}
	}
	return out
}

// subjectPicks appends "B is correct": a letter as the subject, then the
// predicate. A predicate may end on the punctuation that opens the next
// subject ("B is correct, C is also correct"), so the search resumes on it.
func subjectPicks(text string, os *Set, out []commit) []commit {
	for from, n := 0, 0; from < len(text); {
		m := reSubject.FindStringSubmatchIndex(text[from:])
		if m == nil {
			break
		}
		for i := range m {
			m[i] += from
		}
		from = m[1]
		p := posPredicate(text[m[5]:min(len(text), m[5]+maxLead)])
		if p == 0 {
			continue
		}
		if n++; n > maxCommits {
			os.overflow = true
			break
		}
		end := m[5] + p
		from = end
		if strings.IndexByte(".,;:!", text[end-1]) >= 0 {
			from = end - 1
		}
		c := commit{pos: m[2], end: end, method: MethodAnswerLine}
		if !c.name(text[m[2]:m[3]], os) || asked(text[end:min(len(text), end+maxLead)]) {
			continue
		}
		c.final = reFinalCue.MatchString(sentenceBefore(text, m[2]))
		out = append(out, c)
	}
	return out
}

// textSubjectPicks appends the picks of an option's text as a sentence's
// subject: "Doxycycline is the drug of choice."
func textSubjectPicks(text string, os *Set, out []commit) []commit {
	forSentences(text, func(at int) {
		s := text[at:min(len(text), at+maxLead)]
		s = strings.TrimLeft(s, " \t*_>•-\"'")
		if m := reOpener.FindStringIndex(s); m != nil {
			s = s[m[1]:]
		}
		L, n := textPrefix(s, os)
		if L == "" || posPredicate(s[n:]) == 0 {
			return
		}
		pos := at + strings.Index(text[at:], s[:n])
		if asked(s[n:]) {
			return
		}
		out = append(out, commit{pos: pos, end: pos + n, L: L, method: MethodOptionText})
	})
	return out
}

// forSentences calls f with the start of each sentence (at most
// maxTextSpans): the text's start, each line's and each after ". ", "! ",
// "? ", "; ".
func forSentences(text string, f func(at int)) {
	n := 0
	f(0)
	for i := 0; i+1 < len(text) && n < maxTextSpans; i++ {
		switch text[i] {
		case '\n':
			f(i + 1)
			n++
		case '.', '!', '?', ';':
			if text[i+1] == ' ' {
				f(i + 2)
				n++
			}
		}
	}
}

// barePicks: lines that are only an option ("B", "**B**", "B) Doxycycline",
// "Doxycycline", "Answer: B."), and a line's last sentence that is only one
// ("… can be excluded. C."). When they name different options they are a
// list of the options and none counts.
func barePicks(text string, lines []string, os *Set) []commit {
	var out []commit
	pos := 0
	for _, line := range lines {
		at := pos
		pos += len(line) + 1
		t := strings.TrimSpace(line)
		if t == "" || len(t) > 2000 {
			continue
		}
		at += strings.Index(line, t)
		if c, ok := bareAt(t, at, os); ok {
			out = append(out, c)
			continue
		}
		// the last sentence of a line of several
		k := max(strings.LastIndex(t[:len(t)-1], ". "), strings.LastIndex(t[:len(t)-1], "! "), strings.LastIndex(t[:len(t)-1], "? "))
		if k < 0 {
			continue
		}
		last := strings.TrimSpace(t[k+2:])
		if m := reOpener.FindStringIndex(last); m != nil && m[1] < len(last) {
			last = last[m[1]:]
		}
		if c, ok := bareAt(last, at+strings.LastIndex(t, last), os); ok {
			out = append(out, c)
		}
	}
	for _, c := range out[min(1, len(out)):] {
		if c.value() != out[0].value() {
			return nil
		}
	}
	return out
}

// bareAt reads t (at text position at) when it is only an option, or only a
// letter that is not one.
func bareAt(t string, at int, os *Set) (commit, bool) {
	if len(t) > 120 {
		return commit{}, false
	}
	c := commit{pos: at, end: at + len(t), method: MethodAnswerLine}
	cl := cleanLead(t)
	if L := bareOption(t, os); L != "" {
		c.L = L
		if readLetter(cl, os, false) == "" {
			c.method = MethodOptionText
		}
		return c, true
	}
	if L := os.badLetter(cl); L != "" && strings.Trim(cl[1:], " \t)]}*_$.:!\"'`\\") == "" {
		c.bad = L
		os.noteBad(L)
		return c, true
	}
	return commit{}, false
}

// openingPick: a reply whose first line opens with an option set off from
// what follows — "B) because …", "B, because …", "B - first line",
// "Yes, the data …", "No. The trial …" — unless the lines open with several
// options (an option-by-option analysis) or the sentence rejects it
// ("Option B, insulin glargine, is not indicated").
func openingPick(text string, lines []string, os *Set) (commit, bool) {
	first, at := firstNonBlank(lines)
	if first < 0 {
		return commit{}, false
	}
	line := lines[first]
	if len(line) > 2000 || bareOption(line, os) != "" {
		return commit{}, false // a bare line is read by barePicks
	}
	cl := cleanLead(line)
	start := at + len(line) - len(cl)
	c := commit{pos: start}
	if L := readLetter(cl, os, false); L != "" {
		// in a reply of several lines the letter must be set off: "B)", "B:", "B -", "B. <its text>"
		if !blank(lines[first+1:]) && !setOff(cl, L, os) || optionHeadings(lines, os) ||
			reSeries.MatchString(cl[1:]) || alternativeIsOption(cl[1:], os) {
			return commit{}, false // "A, B, C, D." or "B or C?" lists options
		}
		c.L, c.end, c.method, c.alt = L, start+1, MethodAnswerLine, os.clash(cl, L) != ""
	} else if L, n := textPrefix(cl, os); L != "" && openerEnds(cl[n:]) {
		c.L, c.end, c.method = L, start+n, MethodOptionText
	} else {
		return commit{}, false
	}
	return c, c.checkTail(text, os)
}

// firstNonBlank is the index of the first line that is not blank (-1 when
// none is) and its position in the text the lines were split from.
func firstNonBlank(lines []string) (first, at int) {
	for i, line := range lines {
		if strings.TrimSpace(line) != "" {
			return i, at
		}
		at += len(line) + 1
	}
	return -1, at
}

// blank reports whether every line is blank.
func blank(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// setOff reports whether the option letter L that cl opens with is set off
// from what follows it: "B)", "B:", "B -", "B –", or "B. <B's text>".
func setOff(cl, L string, os *Set) bool {
	rest := strings.TrimLeft(cl[1:], "*_")
	if strings.HasPrefix(rest, ")") || strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, " -") || strings.HasPrefix(rest, " –") {
		return true
	}
	if !strings.HasPrefix(rest, ".") {
		return false
	}
	t := os.text(L)
	_, ok := textPrefixLen(rest[1:], t)
	return ok && t != ""
}

// openerEnds: what follows an option's text that opens a reply sets it off:
// the end, punctuation, a spaced dash ("No — the biopsy …") or a connector
// ("Doxycycline because …").
func openerEnds(rest string) bool {
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	if strings.ContainsRune(".,;:!—–-)*_", r) {
		return true
	}
	after := strings.TrimLeft(rest, " \t")
	r2, _ := utf8.DecodeRuneInString(after)
	return unicode.IsSpace(r) && (connectors[LeadingWord(after)] || strings.ContainsRune("—–-:", r2))
}

// optionHeadings reports whether two or more lines open with different
// options followed by text ("A. Tetracycline - …", "**B)** …"): an analysis
// of the options, whose headings are not answers.
func optionHeadings(lines []string, os *Set) bool {
	first := ""
	for _, line := range lines {
		cl := cleanLead(line)
		L := readLetter(cl, os, false)
		if L == "" || strings.TrimSpace(strings.Trim(cl[1:], " \t)]}*_$.:-–—")) == "" {
			continue
		}
		if first == "" {
			first = L
		} else if L != first {
			return true
		}
	}
	return false
}
