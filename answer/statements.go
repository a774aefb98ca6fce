package answer

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Statements: the places where a free text states its answer ("The answer
// is B", "Final answer: (B)", "答案：B", \boxed{B}), found by their marker,
// with the option read after it (readLead) and the rest of the sentence
// checked (checkTail).

var (
	// "ANSWER: B", "Final answer: (C)", "The answer is D", "correct option is B",
	// "**Answer:** $B$", "answer would be: B", "My pick: C", "the most likely
	// diagnosis in this patient is C", "the best next step is E", "Most
	// likely: C", "<answer>C</answer>".
	reAnswerMarker = regexp.MustCompile(`(?i)<(?:final[_ ]?)?answer>[ \t]*|(?:\bmost\s+likely|\bbest\s+guess|\bverdict|\b(?:final|correct|best|right|true|my|our|most\s+likely|most\s+probable|overall|single\s+best|most\s+appropriate|next\s+best|best\s+next|best\s+initial|preferred)\s+(?:answer|choice|option|selection|pick|vote|guess|(?:next\s+)?step|diagnosis|treatment|therapy|management|drug|medication|test|investigation|intervention|cause|mechanism|explanation|course\s+of\s+action)s?(?:\s+(?:in|for|of)(?:\s+[\w-]+){1,4}?)?|\banswers?|\bchoice)(?:\s+(?:choice|option|letter))?[ \t]*(?:\([^)\n]*\))?[ \t]*[*_]{0,2}[ \t]*(?:[:=]|->|→|[-–—]\s|\bis\b[ \t]*:?|\b(?:would|will|should|must|could|may|might)\s+be\b[ \t]*:?|\b(?:appears|seems)\s+to\s+be\b|\bremains\b[ \t]*:?)[ \t]*(?:(?:therefore|thus|then|now|likely|most\s+likely|probably|clearly|definitely|still|also|indeed|simply)\b[ \t]*[,:]?[ \t]*)?`)
	// The same in other languages. A label needs a colon or a verb ("ist",
	// "es", "是"), so that "la respuesta depende" is not read; CJK labels
	// may run straight into the letter ("答案C").
	// Compiled on first use: most runs never meet a foreign label.
	reForeignMarker = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:(?:\b(?:die\s+)?(?:(?:richtige|korrekte|endgültige|finale)\s+)?antwort|\b(?:la\s+|a\s+)?(?:respuesta|réponse|reponse|resposta|risposta)(?:\s+(?:correcta|correcte|correta|corretta|exacte|final|finale|definitiva|giusta|certa))?|\b(?:la\s+)?(?:bonne|vraie)\s+réponse|\b(?:het\s+)?(?:juiste\s+)?antwoord|\b(?:doğru\s+)?cevap|\b(?:prawidłowa\s+|poprawna\s+)?odpowiedź|(?:правильный\s+)?ответ)(?:[ \t]*\([^)\n]{0,40}\))?[ \t]*[*_]{0,2}[ \t]*(?:[:=][ \t]*|(?:ist|lautet|wäre|es|sería|est|serait|é|seria|è|sarebbe|is|to|jest)(?:[ \t]+|[ \t]*:[ \t]*))|(?:最终答案|最終答案|正确答案|正確答案|正确选项|正確選項|答案|正解|答え|정답|답)[ \t]*(?:[:=]|是|为|為|应该是|應該是|应为|應為|は|은|는)?[ \t]*(?:(?:是|为|為|は|은|는|입니다)[ \t]*)?)(?:(?-i:la|el|le|il|die|der|a|o)[ \t]+)?(?:(?:opción|opcion|opção|opcao|opzione|alternativa|letra|lettera|lettre|option|选项|選項)[ \t]*)?`)
	})
	// \boxed{B}: a final answer by convention.
	reBoxed = regexp.MustCompile(`\\boxed\s*\{\s*(?:\\[A-Za-z]+\s*\{\s*)?\(?\s*([A-Za-z])\s*\)?(?:[^A-Za-z0-9}][^}\n]*)?\s*\}`)
	// A marker that introduces another answer than the text's own: "the
	// second-best answer is", "the least likely answer is".
	reDemoted = regexp.MustCompile(`(?i)(?:second|next|2nd|runner[- ]up|alternat\w*|wrong|incorrect|worst|least|less|another|other|false)(?:[\s-]+(?:best|likely|correct|right))?[\s-]*$`)
	// Cues in the clause before a statement that make it no commitment.
	reClauseNeg = regexp.MustCompile(`(?i)\b(?:not|never|whether|if|unless|nor|neither|unlikely|unsure|uncertain|wonder(?:ing)?|doubt(?:ful)?)\b|n['’]t\b`)
	// A statement in the conditional, and a condition after it.
	reModal     = regexp.MustCompile(`(?i)\b(?:would|could|might)\b`)
	reCondition = regexp.MustCompile(`(?i)\b(?:if|unless|were|otherwise|provided)\b`)
	// A clear conclusion, in a statement or just before it.
	reFinalCue = regexp.MustCompile(`(?i)\b(?:final(?:ly)?|finale|in\s+conclusion|to\s+conclude|in\s+summary|to\s+sum\s+up|ultimately|all\s+things\s+considered|definitive(?:ly)?|endgültige?)\b|最终|最終`)
)

// Cheap tests, each one pass over the text: words without which
// reAnswerMarker cannot match; words (or any non-ASCII byte) without which
// reForeignMarker cannot; and, for noteStated, explicit answer words.
var (
	englishCues = newCueWords(false, "answer", "choice", "option", "select", "pick", "vote", "guess", "likely", "verdict", "step",
		"diagnos", "treatment", "therap", "management", "drug", "medication", "test", "investigation", "intervention", "cause",
		"mechanism", "explanation", "course")
	foreignCues = newCueWords(true, "antw", "respuesta", "resposta", "reponse", "risposta", "cevap")
	answerCues  = newCueWords(true, "answer", "choice", "option", "antw", "respuesta", "resposta", "reponse", "risposta", "cevap")
	// A revision between a commitment and the one that replaces it.
	revisionCues = newWordCues("wait", "actually", "on reflection", "on further reflection", "on second thought",
		"on further thought", "on further consideration", "second thoughts", "reconsider*", "re-evaluat*", "reevaluat*",
		"correction", "i was wrong", "i revise", "i change", "i retract", "i correct myself", "i misread", "revise",
		"revised", "revising", "change my answer", "changed my answer", "changing my answer", "change my mind",
		"changed my mind", "scratch that", "upon review", "upon further review", "after review", "after further review",
		"let me correct")
)

// mayBeEnglish is a cheap test for a text that may hold an English statement.
func mayBeEnglish(text string) bool { return englishCues.in(text) }

// mayBeForeign is a cheap test for a text that may hold a foreign label.
func mayBeForeign(text string) bool { return foreignCues.in(text) }

// cueWords are lower-case ASCII words, by their first letter, found in one
// pass over a text. nonASCII makes any byte outside ASCII a cue too. With
// bounded a cue must be a whole word (a cue ending in "*" is a stem: only
// its start is bounded); without, any substring counts (a pre-filter).
type cueWords struct {
	byFirst  [26][]string
	nonASCII bool
	bounded  bool
}

func newCueWords(nonASCII bool, words ...string) *cueWords {
	c := &cueWords{nonASCII: nonASCII}
	for _, w := range words {
		c.byFirst[w[0]-'a'] = append(c.byFirst[w[0]-'a'], w)
	}
	return c
}

// newWordCues makes bounded cue words.
func newWordCues(words ...string) *cueWords {
	c := newCueWords(false, words...)
	c.bounded = true
	return c
}

// in reports whether text holds a cue, ignoring ASCII case.
func (c *cueWords) in(text string) bool {
	for i := 0; i < len(text); i++ {
		b := text[i]
		if b >= 0x80 {
			if c.nonASCII {
				return true
			}
			continue
		}
		if b |= 0x20; b < 'a' || b > 'z' || c.bounded && i > 0 && isWordByte(text[i-1]) {
			continue
		}
		if c.at(text, i, b) {
			return true
		}
	}
	return false
}

// at reports whether a cue starting with the letter b (lower case) starts
// at text[i].
func (c *cueWords) at(text string, i int, b byte) bool {
	for _, w := range c.byFirst[b-'a'] {
		stem := c.bounded && w[len(w)-1] == '*'
		if stem {
			w = w[:len(w)-1]
		}
		end := i + len(w)
		if end <= len(text) && ContainsFold(text[i:end], w) &&
			(!c.bounded || stem || end == len(text) || !isWordByte(text[end])) {
			return true
		}
	}
	return false
}

// statements finds the answer statements of a text.
func statements(text string, os *Set) []commit {
	var out []commit
	if mayBeEnglish(text) {
		for _, m := range os.capped(findAnswerMarkers(text, maxCommits+1)) {
			out = statementAt(text, m[0], m[1], os, out)
		}
	}
	if mayBeForeign(text) {
		for _, m := range os.capped(reForeignMarker().FindAllStringIndex(text, maxCommits+1)) {
			out = statementAt(text, m[0], m[1], os, out)
		}
	}
	out = urgencyStatements(text, os, out)
	if ContainsFold(text, "none of the") || ContainsFold(text, "answer is not") {
		for _, m := range os.capped(reNoneStated.FindAllStringIndex(text, maxCommits+1)) {
			out = append(out, commit{pos: m[0], end: m[1], none: true, stmt: true, method: MethodAnswerLine})
		}
	}
	if strings.Contains(text, `\boxed`) {
		for _, m := range os.capped(reBoxed.FindAllStringSubmatchIndex(text, maxCommits+1)) {
			c := commit{pos: m[0], end: m[1], final: true, stmt: true, method: MethodLatex}
			if c.name(text[m[2]:m[3]], os) {
				out = append(out, c)
			}
		}
	}
	return out
}

// statementAt reads the statement whose marker is text[m0:m1].
func statementAt(text string, m0, m1 int, os *Set, out []commit) []commit {
	if reDemoted.MatchString(text[max(0, m0-24):m0]) || reClauseNeg.MatchString(clauseBefore(text, m0)) {
		return out
	}
	c := commit{pos: m0, method: MethodAnswerLine, stmt: true}
	if c.readLead(text, m1, os, true) {
		if listFollows(text, m1, os) {
			return out
		}
	} else if !c.closingMark(text, m1, os) {
		return out
	}
	if reModal.MatchString(text[m0:m1]) && reCondition.MatchString(sentenceAfter(text, c.end)) {
		return out // "the answer would be B if the patient were not pregnant"
	}
	c.final = reFinalCue.MatchString(text[m0:m1]) || reFinalCue.MatchString(sentenceBefore(text, m0))
	c.closing = ContainsFold(text[m0:m1], "answer") && !reModal.MatchString(text[m0:m1]) && onLastLine(text, c.end)
	return append(out, c)
}

// name sets the commitment's option from a one-letter string; false when it
// is not a letter.
func (c *commit) name(s string, os *Set) bool {
	if len(s) != 1 {
		return false
	}
	if L := os.letter(s[0]); L != "" {
		c.L = L
		return true
	}
	if L := anyLetters.letter(s[0]); L != "" {
		c.bad = L
		os.noteBad(L)
		return true
	}
	return false
}

// readLead reads the option named right after a marker ending at at (on the
// same line, or on the next one when the marker ends its line): a letter (any
// upper-case letter but A and I may be followed by anything when loose), or
// an option's text. It then checks the rest of the sentence (checkTail).
func (c *commit) readLead(text string, at int, os *Set, loose bool) bool {
	i, line := leadLine(text, at)
	cl := cleanLead(line)
	several := false
	if w := LeadingWord(cl); w == "both" || w == "either" { // "both A and C": alternatives
		cl = strings.TrimLeft(cl[len(w):], " \t")
	} else if m := reCombination.FindString(cl); m != "" { // "a combination of (C), (F) and (I)"
		cl, several = cleanLead(cl[len(m):]), true
	}
	if cl == "" {
		return false
	}
	c.nameLead(line, i, cl, os, loose)
	if c.L == "" {
		L := os.badLetter(cl)
		if L == "" {
			return false
		}
		c.bad, c.end = L, i+len(line)-len(cl)+1
	}
	c.alt = c.alt || several
	return c.checkTail(text, os)
}

// leadLine is where the option after a marker ending at at is read: the
// rest of the marker's line, or the next line when the marker ends its line,
// at most maxLead bytes; i is where line starts in text.
func leadLine(text string, at int) (i int, line string) {
	i = at
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i < len(text) && text[i] == '\n' {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n') {
			i++
		}
	}
	line = text[i:]
	if k := strings.IndexByte(line, '\n'); k >= 0 {
		line = line[:k]
	}
	if len(line) > maxLead {
		line = line[:maxLead]
	}
	return i, line
}

// nameLead sets the option that cl, the lead of line (which starts at text
// position i) cleaned of markup, names: its letter, the letter of "A or C"
// (alternatives, which checkTail marks), or an option's text, with or
// without the markup. It leaves c.L "" when cl names no option.
func (c *commit) nameLead(line string, i int, cl string, os *Set, loose bool) {
	start := i + len(line) - len(cl)
	if L := readLetter(cl, os, loose); L != "" {
		c.L, c.end = L, start+1
		c.clash = os.clash(cl, L) != "" // "B) Ceftriaxone" when ceftriaxone is C
		c.alt = c.clash
		return
	}
	if L := os.letter(cl[0]); L != "" && cl[0] <= 'Z' && alternativeIsOption(cl[1:], os) {
		c.L, c.end = L, start+1 // "A or C": alternatives (checkTail), not the article
		return
	}
	if L, n, t := textPrefixT(cl, os); L != "" && (textEnds(cl[n:], t) || aliasAlternative(cl[n:], L, os)) {
		c.L, c.end, c.byText = L, start+n, t == os.text(L) // "em or ne": alternatives (checkTail)
		return
	}
	if raw := strings.TrimLeft(line, " \t*_`\"'$([{"); raw != cl {
		if L, n, t := textPrefixT(raw, os); L != "" && textEnds(raw[n:], t) {
			c.L, c.end, c.byText = L, i+len(line)-len(raw)+n, t == os.text(L)
		}
	}
}

// textEnds reports whether an option text t read after a marker ends there:
// a one-word text ("no", "yes", "doxycycline") must not run on into another
// word ("no longer", "doxycycline levels") other than a connector.
func textEnds(rest, t string) bool {
	if strings.IndexByte(t, ' ') >= 0 {
		return true
	}
	after := strings.TrimLeft(rest, " \t")
	r, _ := utf8.DecodeRuneInString(after)
	return after == "" || !isWordRune(r) || len(after) < len(rest) && connectors[LeadingWord(after)]
}

// checkTail rejects a commitment whose sentence goes on to ask ("B?"), to
// negate ("B is not indicated") or to exclude it ("B, C and D can be
// excluded"), and marks one that names alternatives ("B or C").
func (c *commit) checkTail(text string, os *Set) bool {
	tail := text[c.end:min(len(text), c.end+maxLead)]
	if asked(tail) || !(c.stmt && closedParen(tail)) && negatedAfter(tail, c.L, os) {
		return false
	}
	c.alt = c.alt || alternativeIsOption(tail, os) || reSeries.MatchString(tail) || aliasAlternative(tail, c.L, os) ||
		alternativeAfterText(tail, c.L, os)
	if c.bad != "" {
		os.noteBad(c.bad)
	}
	return true
}

// alternativeAfterText: the letter L is followed by its own text and then
// another option: "(H) Rods and (G) Cones", "B. Doxycycline or C".
func alternativeAfterText(tail, L string, os *Set) bool {
	if L == "" {
		return false
	}
	t := os.text(L)
	if t == "" {
		return false
	}
	s := strings.TrimLeft(tail, ")]}*_ \t.:-–—")
	n, ok := textPrefixLen(s, t)
	if !ok {
		return false
	}
	return alternativeIsOption(s[n:], os)
}

// reCombination opens a statement of several options: "a combination of
// (C), (F) and (I)", "all of B, C and D".
var reCombination = regexp.MustCompile(`(?i)^(?:a\s+)?(?:combination|mix(?:ture)?)\s+of\s+|^all\s+of\s+`)

// closedParen reports whether the tail after a statement's letter closes
// its sentence right after a bracket: "The answer is (C). HMG-CoA reductase
// is not involved …". The next sentence explains the answer (to a question
// asking which is NOT …); it does not reject it.
func closedParen(tail string) bool {
	t := strings.TrimLeft(tail, "*_")
	if !strings.HasPrefix(t, ")") {
		return false
	}
	t = strings.TrimLeft(t[1:], "*_")
	return strings.HasPrefix(t, ". ") || strings.HasPrefix(t, ".\n") || t == "."
}

// onLastLine reports whether position pos of text is on its last line that
// holds anything.
func onLastLine(text string, pos int) bool {
	i := strings.IndexByte(text[pos:], '\n')
	return i < 0 || strings.TrimSpace(text[pos+i:]) == ""
}

// listFollows reports whether a marker ending at at ends its line and the
// lines after it (single blank lines between them allowed) open with two or
// more different options: a list of the
// options under a heading ("Now, let's summarize all the answers:" then
// "A. Ventral", "B. Dorsal", …), not an answer.
func listFollows(text string, at int, os *Set) bool {
	i, _ := leadLine(text, at)
	if !strings.Contains(text[at:i], "\n") {
		return false
	}
	first, n, blanks := "", 0, 0
	for _, line := range strings.SplitN(text[i:], "\n", 24) {
		if strings.TrimSpace(line) == "" {
			if blanks++; blanks > 1 {
				break
			}
			continue
		}
		blanks = 0
		L := readLetter(cleanLead(line), os, false)
		if L == "" {
			break
		}
		if n++; first == "" {
			first = L
		} else if L != first {
			return true
		}
	}
	return false
}

var (
	// reTailMark: an option in parentheses that ends a text: "… (option A).",
	// "… (A)".
	reTailMark = regexp.MustCompile(`\((?i:(?:option|choice|answer)[ \t]+)?([A-Z])\)[*_]*[.!]?[*_ \t\n]*$`)
	// What a closing statement may not hold before its option mark: a
	// sentence end, a letter (another option), alternatives or a contrast.
	reTailEnd   = regexp.MustCompile(`[.!?;:](?:\s|$)|\n`)
	reTailOther = regexp.MustCompile(`(?:^|[^\w'’-])[A-HJ-Z](?:$|[^\w'’-])|(?i:\b(?:or|versus|vs|than|instead|rather|except|either|both)\b)|/`)
)

// closingMark reads a statement whose lead names no option but whose
// sentence closes the text and ends with an option in parentheses: "After
// weighing the options, the most appropriate next step would be to perform
// a lumbar puncture (option A)." (issue 33). The words between the marker
// (ending at m1) and the option must be one clause that names no other
// letter, no alternatives ("or", "rather than") and no negation or
// condition ("not", "if", "were").
func (c *commit) closingMark(text string, m1 int, os *Set) bool {
	rest := text[m1:]
	if len(rest) > maxLead {
		return false
	}
	m := reTailMark.FindStringSubmatchIndex(rest)
	if m == nil {
		return false
	}
	between := rest[:m[0]]
	if strings.TrimSpace(between) == "" || reTailEnd.MatchString(between) || reTailOther.MatchString(between) ||
		reClauseNeg.MatchString(between) || reCondition.MatchString(between) {
		return false
	}
	c.end = m1 + m[3] + 1
	return c.name(rest[m[2]:m[3]], os)
}
