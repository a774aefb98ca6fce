package teamwork

// Reading one answer from free text.
//
// A free text answers only where it commits to an option. Commitments are
//   - statements: "The answer is B", "Final answer: (B)", "the correct option
//     is B", "the most likely diagnosis is B", "My pick: B", <answer>B</answer>,
//     the same in German, Spanish, French, Portuguese, Italian, Dutch,
//     Turkish, Polish, Russian, Chinese, Japanese and Korean ("Antwort: B",
//     "La respuesta correcta es B", "答案：B"), and \boxed{B};
//   - picks: "I'd go with B", "I choose B", "I think it's B", "not A but B",
//     "B is correct", "B fits best", "Doxycycline is the drug of choice", a
//     line that is only an option ("B", "**B**", "Doxycycline"), a line's last
//     sentence that is only one ("… can be excluded. C."), a reply that opens
//     with one ("B) because …", "Yes, …"), and a prose ranking ("C, then A,
//     then B").
// Marks — $B$, **B**, (B) — are read only when nothing commits.
//
// A mention is no commitment when it is negated or excluded ("B is not
// indicated", "Option B, insulin glargine, is not indicated", "not B",
// "rather than B", "A, B and D can be excluded"), asked ("Is it B?"), or
// conditional ("B would be correct in adults", "the answer would be B if
// …"). A commitment to several options ("B or C", "both A and C", "B, C") or
// to a letter given with another option's text ("B) Ceftriaxone" when
// ceftriaxone is C) is ambiguous. Lines that are each only an option but
// name different ones are a list of the options, not commitments.
//
// Commitments that agree give their option. When they disagree, the last
// option named decides only if its commitments include a clear conclusion —
// a final answer ("final answer", "in conclusion", \boxed) — or follow a
// revision ("wait", "on reflection", "actually") after the option they
// replace; otherwise the answer is ambiguous. Marks that name several options
// are ambiguous too, even when some are rejected: keeping the one left would
// be a guess by elimination. A text with more than maxCommits commitments
// (or marks) of one kind is ambiguous and its scan stops there.

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/medteam-bench/medteam/qa"
)

// commit is one place where the text names an option as its answer.
type commit struct {
	pos, end int      // the commitment's start and the end of the option named
	L        string   // the option letter ("" when bad is set)
	bad      string   // a letter named as the answer that is not an option
	final    bool     // a clear conclusion: a final answer, \boxed, "in conclusion"
	alt      bool     // names alternatives: "B or C"
	rank     []string // a prose ranking (rank[0] == L)
	neg      bool     // a mark that the text rejects ("(C) misses it")
	method   ParseMethod
}

// value is what the commitment names, for comparing commitments.
func (c *commit) value() string {
	switch {
	case c.alt:
		return "?"
	case c.bad != "":
		return "!" + c.bad
	}
	return c.L
}

// verdict is the result of reading a free text.
type verdict struct {
	rank   []string
	method ParseMethod
	reason string // when rank is empty: ReasonAmbiguous, ReasonNotAnOption or "" (nothing found)
	err    string
}

// textAnswer reads a free text: the structured ranking if there is one
// (authoritative), else its commitments.
func textAnswer(text string, os *optSet) verdict {
	lines := strings.Split(text, "\n")
	rk, m, reason := rankingFromText(lines, os)
	if len(rk) > 0 {
		os.noteStated(text, rk[0])
		return verdict{rank: rk, method: m}
	}
	if reason != "" {
		return verdict{reason: reason, err: "the RANKING line names no option of " + os.list()}
	}
	cs := statements(text, os)
	cs = append(cs, picks(text, os)...)
	cs = append(cs, barePicks(text, lines, os)...)
	if c, ok := openingPick(text, lines, os); ok {
		cs = append(cs, c)
	}
	cs = append(cs, proseRankings(text, lines, os)...)
	if os.overflow {
		return verdict{reason: ReasonAmbiguous, err: fmt.Sprintf("more than %d places commit to an option; not read", maxCommits)}
	}
	if v, ok := decide(text, cs); ok {
		return v
	}
	v := decideMarks(text, os)
	if os.overflow {
		return verdict{reason: ReasonAmbiguous, err: fmt.Sprintf("more than %d options are marked; not read", maxCommits)}
	}
	return v
}

// maxCommits bounds the commitments (and the marks) of one kind that a text
// is searched for. A reply with more is not an answer to read: it is
// ambiguous, and its scan stays short.
const maxCommits = 64

// capped returns the first maxCommits matches, noting an overflow.
func (os *optSet) capped(ms [][]int) [][]int {
	if len(ms) > maxCommits {
		os.overflow = true
		return ms[:maxCommits]
	}
	return ms
}

// StatedAnswer returns the option letter that a free text explicitly
// commits to as the answer — an answer statement in any supported language
// ("The answer is B", "Answer: B", "the correct option is B", "答案：B"), a
// pick ("I'd go with B") or "B is correct" — or "" when it commits to none
// or to different options without a clear conclusion. Descriptions do not
// count: "option B is a distractor", "consider whether B or C", a bare "B"
// line. It is meant for texts that should not name an answer, such as a
// question analysis.
func StatedAnswer(text string, options []qa.Option) string {
	os := newOptSet(options)
	if len(os.letters) == 0 {
		return ""
	}
	_, body := prepare(text)
	cs := append(statements(body, os), picks(body, os)...)
	if v, ok := decide(body, cs); ok && len(v.rank) > 0 && !os.overflow {
		return v.rank[0]
	}
	return ""
}

// noteStated notes a text (the reasoning beside a structured ranking) that
// states another option as the answer than the ranking's first. It runs on
// every structured answer, so it looks only when the text speaks of an
// answer, a choice or an option, or may be in another language.
func (os *optSet) noteStated(text, first string) {
	if text == "" || !answerCues.in(text) {
		return
	}
	v, ok := decide(text, statements(text, os))
	if ok && len(v.rank) > 0 && v.rank[0] != first {
		os.note("the text states %s as the answer but the ranking puts %s first; the ranking is used", v.rank[0], first)
	}
}

// ---------------------------------------------------------------------------
// Deciding

// decide resolves statements and picks (ok=false when there are none).
func decide(text string, cs []commit) (verdict, bool) {
	if len(cs) == 0 {
		return verdict{}, false
	}
	slices.SortStableFunc(cs, func(a, b commit) int { return a.pos - b.pos })
	// run is the trailing run of commitments naming what the last one names;
	// prev is the commitment before it, which names something else.
	last := cs[len(cs)-1].value()
	start := len(cs) - 1
	for start > 0 && cs[start-1].value() == last {
		start--
	}
	run := cs[start:]
	if start > 0 {
		prev := cs[start-1]
		settled := false
		for _, c := range run {
			settled = settled || c.final
		}
		if from, to := prev.end, run[0].pos; !settled && from < to {
			settled = revisionCues.in(text[from:to])
		}
		if !settled {
			return verdict{reason: ReasonAmbiguous, err: "the text commits to " + conflict(cs) + " without a clear conclusion"}, true
		}
	}
	c := run[0]
	switch {
	case c.alt:
		return verdict{reason: ReasonAmbiguous, err: "the text names more than one option as its answer"}, true
	case c.bad != "":
		return verdict{reason: ReasonNotAnOption, err: "the text names " + c.bad + ", not one of the options"}, true
	}
	v := verdict{rank: []string{c.L}, method: c.method}
	for i := len(run) - 1; i >= 0; i-- {
		if run[i].rank != nil {
			v.rank, v.method = run[i].rank, MethodProseRanking
			break
		}
	}
	return v, true
}

// conflict lists what the commitments name, in order: "B and C".
func conflict(cs []commit) string {
	var names []string
	for _, c := range cs {
		n := c.L
		switch {
		case c.alt:
			n = "alternatives"
		case c.bad != "":
			n = c.bad
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return strings.Join(names, "")
}

// decideMarks reads the marks ($B$, **B**, (B)) when nothing else commits:
// the one option they all name, unless the text rejects it. Marks naming
// several options are a discussion of them (ambiguous), even when some are
// rejected: keeping the one left would be a guess by elimination.
func decideMarks(text string, os *optSet) verdict {
	ms := dollarMarks(text, os)
	ms = append(ms, boldMarks(text, os)...)
	ms = append(ms, parenMarks(text, os)...)
	if len(ms) == 0 {
		return verdict{}
	}
	for _, m := range ms[1:] {
		if m.value() != ms[0].value() {
			return verdict{reason: ReasonAmbiguous, err: "the text marks " + conflict(ms) + " without committing to one"}
		}
	}
	i := slices.IndexFunc(ms, func(c commit) bool { return !c.neg }) // the first method in order latex, bold, paren
	switch {
	case i < 0:
		return verdict{}
	case ms[i].alt:
		return verdict{reason: ReasonAmbiguous, err: "the text marks a letter with another option's text"}
	case ms[i].bad != "":
		os.noteBad(ms[i].bad)
		return verdict{reason: ReasonNotAnOption, err: "the text marks " + ms[i].bad + ", not one of the options"}
	}
	return verdict{rank: []string{ms[i].L}, method: ms[i].method}
}

// ---------------------------------------------------------------------------
// Statements

var (
	// "ANSWER: B", "Final answer: (C)", "The answer is D", "correct option is B",
	// "**Answer:** $B$", "answer would be: B", "My pick: C", "the most likely
	// diagnosis in this patient is C", "the best next step is E", "Most
	// likely: C", "<answer>C</answer>".
	reAnswerMarker = regexp.MustCompile(`(?i)<(?:final[_ ]?)?answer>[ \t]*|(?:\bmost\s+likely|\bbest\s+guess|\bverdict|\b(?:final|correct|best|right|true|my|our|most\s+likely|most\s+probable|overall|single\s+best|most\s+appropriate|next\s+best|best\s+next|best\s+initial|preferred)\s+(?:answer|choice|option|selection|pick|vote|guess|(?:next\s+)?step|diagnosis|treatment|therapy|management|drug|medication|test|investigation|intervention|cause|mechanism|explanation)s?(?:\s+(?:in|for|of)(?:\s+[\w-]+){1,4}?)?|\banswers?|\bchoice)(?:\s+(?:choice|option|letter))?[ \t]*(?:\([^)\n]*\))?[ \t]*[*_]{0,2}[ \t]*(?:[:=]|->|→|[-–—]\s|\bis\b[ \t]*:?|\b(?:would|will|should|must|could|may|might)\s+be\b[ \t]*:?|\b(?:appears|seems)\s+to\s+be\b|\bremains\b[ \t]*:?)[ \t]*(?:(?:therefore|thus|then|now|likely|most\s+likely|probably|clearly|definitely|still|also|indeed|simply)\b[ \t]*[,:]?[ \t]*)?`)
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
		"mechanism", "explanation")
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
		for _, w := range c.byFirst[b-'a'] {
			stem := c.bounded && w[len(w)-1] == '*'
			if stem {
				w = w[:len(w)-1]
			}
			end := i + len(w)
			if end <= len(text) && containsFold(text[i:end], w) &&
				(!c.bounded || stem || end == len(text) || !isWordByte(text[end])) {
				return true
			}
		}
	}
	return false
}

// statements finds the answer statements of a text.
func statements(text string, os *optSet) []commit {
	var out []commit
	if mayBeEnglish(text) {
		for _, m := range os.capped(reAnswerMarker.FindAllStringIndex(text, maxCommits+1)) {
			out = statementAt(text, m[0], m[1], os, out)
		}
	}
	if mayBeForeign(text) {
		for _, m := range os.capped(reForeignMarker().FindAllStringIndex(text, maxCommits+1)) {
			out = statementAt(text, m[0], m[1], os, out)
		}
	}
	if strings.Contains(text, `\boxed`) {
		for _, m := range os.capped(reBoxed.FindAllStringSubmatchIndex(text, maxCommits+1)) {
			c := commit{pos: m[0], end: m[1], final: true, method: MethodLatex}
			if c.name(text[m[2]:m[3]], os) {
				out = append(out, c)
			}
		}
	}
	return out
}

// statementAt reads the statement whose marker is text[m0:m1].
func statementAt(text string, m0, m1 int, os *optSet, out []commit) []commit {
	if reDemoted.MatchString(text[max(0, m0-24):m0]) || reClauseNeg.MatchString(clauseBefore(text, m0)) {
		return out
	}
	c := commit{pos: m0, method: MethodAnswerLine}
	if !c.readLead(text, m1, os, true) {
		return out
	}
	if reModal.MatchString(text[m0:m1]) && reCondition.MatchString(sentenceAfter(text, c.end)) {
		return out // "the answer would be B if the patient were not pregnant"
	}
	c.final = reFinalCue.MatchString(text[m0:m1]) || reFinalCue.MatchString(sentenceBefore(text, m0))
	return append(out, c)
}

// name sets the commitment's option from a one-letter string; false when it
// is not a letter.
func (c *commit) name(s string, os *optSet) bool {
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
func (c *commit) readLead(text string, at int, os *optSet, loose bool) bool {
	i := at
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i < len(text) && text[i] == '\n' {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n') {
			i++
		}
	}
	line := text[i:]
	if k := strings.IndexByte(line, '\n'); k >= 0 {
		line = line[:k]
	}
	if len(line) > maxLead {
		line = line[:maxLead]
	}
	cl := cleanLead(line)
	if w := leadingWord(cl); w == "both" || w == "either" { // "both A and C": alternatives
		cl = strings.TrimLeft(cl[len(w):], " \t")
	}
	if cl == "" {
		return false
	}
	start := i + len(line) - len(cl)
	if L := readLetter(cl, os, loose); L != "" {
		c.L, c.end = L, start+1
		c.alt = os.clash(cl, L) != "" // "B) Ceftriaxone" when ceftriaxone is C
	} else if L := os.letter(cl[0]); L != "" && cl[0] <= 'Z' && alternativeIsOption(cl[1:], os) {
		c.L, c.end = L, start+1 // "A or C": alternatives (checkTail), not the article
	} else if L, n := textPrefix(cl, os); L != "" && textEnds(cl[n:], os.text(L)) {
		c.L, c.end = L, start+n
	} else if raw := strings.TrimLeft(line, " \t*_`\"'$([{"); raw != cl {
		if L, n := textPrefix(raw, os); L != "" && textEnds(raw[n:], os.text(L)) {
			c.L, c.end = L, i+len(line)-len(raw)+n
		}
	}
	if c.L == "" {
		L := os.badLetter(cl)
		if L == "" {
			return false
		}
		c.bad, c.end = L, start+1
	}
	return c.checkTail(text, os)
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
	return after == "" || !isWordRune(r) || len(after) < len(rest) && connectors[leadingWord(after)]
}

// checkTail rejects a commitment whose sentence goes on to ask ("B?"), to
// negate ("B is not indicated") or to exclude it ("B, C and D can be
// excluded"), and marks one that names alternatives ("B or C").
func (c *commit) checkTail(text string, os *optSet) bool {
	tail := text[c.end:min(len(text), c.end+maxLead)]
	if asked(tail) || negatedAfter(tail, c.L, os) {
		return false
	}
	c.alt = c.alt || alternativeIsOption(tail, os) || reSeries.MatchString(tail)
	if c.bad != "" {
		os.noteBad(c.bad)
	}
	return true
}

// ---------------------------------------------------------------------------
// Negation and exclusion

var (
	// What may sit between an option and its predicate: ", insulin glargine,"
	// or "(insulin glargine)" (at most 90 bytes, checked after matching:
	// a counted repetition would compile into as many instructions).
	reAside = regexp.MustCompile(`^[ \t]*(?:\([^()\n]*\)|,[^,.;:!?\n]+,)`)
	// An aside that rejects the option: "(incorrect)", "(ruled out)" — not
	// one about the certainty: "(not confident)".
	// A singular verb, whose subject is only the last of a list of options.
	reSingular = regexp.MustCompile(`(?i)^[ \t]*(?:is|was|seems|appears|looks|remains|does|has)\b`)
	// Further options listed with it: ", B and D", " or C", "/D".
	reLetterList = regexp.MustCompile(`^(?:(?:[ \t]*,[ \t]*(?:(?:and|or|nor)[ \t]+)?|[ \t]+(?:and|or|nor)[ \t]+|[ \t]*[&/][ \t]*)(?i:(?:options?|choices?)[ \t]+)?[(*_]*([A-J])\b[)*_.]*)+`)
	// What may follow "A" or "I" ending such a list when they are letters,
	// not the article or the pronoun ("No, I don't think so").
	reListVerb = regexp.MustCompile(`^[ \t]+(?:are|is|can|could|should|must|may|might|would|will|were|was|have|has|do|does|did|seem|seems|appear|appears|remain|remains|look|looks)\b`)
	// A series of options right after the option: "B, C", "B, C and D" (but
	// not "B, C is wrong").
	reSeries = regexp.MustCompile(`^[)*_\]"'.]*(?:[ \t]*,[ \t]*(?i:(?:options?|choices?)[ \t]+)?[(*_"']*[A-J]\b[)*_"']*)+(?:[ \t]*(?:[,.;)\n]|$)|[ \t]+(?i:and|or)\b)`)
	// Alternatives named right after the option: "B or C", "B/C", "B and C".
	reAlternative = regexp.MustCompile(`^[)*_\]"'.]*(?:[ \t]*,)?[ \t]*(?:(?i:or|and/or|and|nor|vs\.?|versus)[ \t]+|[ \t]*/[ \t]*)(?i:(?:options?|choices?)[ \t]+)?[(*_"']*([A-J])\b`)
)

// negatedAfter reports whether the sentence after the option L goes on to
// reject it.
func negatedAfter(tail, L string, os *optSet) bool {
	s := strings.TrimLeft(tail, ")]}*_\"'`$")
	if L != "" {
		if t := os.text(L); t != "" {
			s2 := strings.TrimLeft(s, " \t.:)-–—")
			if n, ok := textPrefixLen(s2, t); ok {
				s = strings.TrimLeft(s2[n:], ")]}*_\"'`")
			}
		}
	}
	for range 2 {
		if m := reAside.FindStringIndex(s); m != nil && m[1] <= 90 {
			if negAside(s[:m[1]]) {
				return true // "B (incorrect)"
			}
			s = s[m[1]:]
		}
		if m := reLetterList.FindStringSubmatchIndex(s); m != nil {
			if c := s[m[2]]; (c == 'A' || c == 'I') && m[1] < len(s) && s[m[1]] == ' ' && !reListVerb.MatchString(s[m[1]:]) {
				break // ", I don't": the pronoun, not a listed letter
			}
			s = s[m[1]:]
			if reSingular.MatchString(s) {
				return false // "B, C is wrong": the predicate is C's alone
			}
		}
	}
	return negPredicate(s)
}

// Words of a predicate that rejects the option just named: an optional
// copula and adverb ("is also"), then a rejection ("not indicated",
// "incorrect", "a distractor"), or a modal one ("can be excluded",
// "should be avoided"). ASCII words must end a word.
var (
	copulaWords = []string{"is", "are", "was", "were", "seems", "seem", "appears", "appear", "looks", "look", "remains", "remain",
		"would be", "will be", "becomes", "become", "ist", "es", "est"}
	adverbWords = []string{"also", "therefore", "thus", "clearly", "definitely", "probably", "likely", "still", "then", "hence",
		"so", "much", "far", "safely", "easily", "now"}
	modalWords   = []string{"can", "could", "should", "must", "may", "might", "would", "will"}
	modalRejects = []string{"excluded", "ruled out", "eliminated", "discarded", "rejected", "dismissed", "avoided", "not"}
	rejectWords  = []string{"not", "n't", "n’t", "never", "no longer", "hardly", "unlikely", "less likely", "least likely",
		"improbable", "incorrect", "wrong", "false", "inaccurate", "invalid", "excluded", "ruled out", "eliminated",
		"discarded", "rejected", "dismissed", "inappropriate", "contraindicated", "unnecessary", "ineffective",
		"a distractor", "the distractor", "a trap", "the trap", "a red herring", "distractor", "distractors",
		"inconsistent", "incompatible", "implausible", "irrelevant", "out", "avoided", "can't", "can’t", "cannot",
		"can not", "does not", "do not", "did not", "doesn't", "don't", "didn't", "doesn’t", "don’t", "didn’t",
		"fails", "fail", "misses", "lacks", "isn't", "aren't", "wasn't", "weren't", "won't", "wouldn't", "shouldn't",
		"couldn't", "isn’t", "aren’t", "wasn’t", "weren’t", "won’t", "wouldn’t", "shouldn’t", "couldn’t",
		"falsch", "nicht", "incorrecto", "incorrecta", "falso", "falsa", "errado", "errada", "n'est pas", "n’est pas",
		"fausse", "faux", "incorrecte", "não é", "non è", "sbagliato", "sbagliata", "不是", "错误", "錯誤", "不正确", "不正確", "排除"}
)

// negPredicate reports whether s opens with a predicate that rejects the
// option just named: "is not indicated", "- incorrect", "can be excluded",
// "does not fit", "ist falsch".
func negPredicate(s string) bool {
	s = strings.TrimLeft(s, " \t")
	if r, n := utf8.DecodeRuneInString(s); strings.ContainsRune(":=-–—", r) {
		s = strings.TrimLeft(s[n:], " \t")
	}
	s = skipWord(s, copulaWords)
	if wordPrefix(s, rejectWords) {
		return true
	}
	s = skipWord(s, adverbWords)
	if wordPrefix(s, rejectWords) {
		return true
	}
	if t := skipWord(s, modalWords); t != s {
		t = skipWord(skipWord(skipWord(t, adverbWords), []string{"be"}), adverbWords)
		return wordPrefix(t, modalRejects)
	}
	return false
}

// wordPrefix reports whether s starts with one of the words, ignoring ASCII
// case; a word ending in an ASCII letter must end a word of s.
func wordPrefix(s string, words []string) bool { return wordPrefixLen(s, words) > 0 }

func wordPrefixLen(s string, words []string) int {
	for _, w := range words {
		if len(s) < len(w) || !containsFold(s[:len(w)], w) {
			continue
		}
		if c := w[len(w)-1]; c < 0x80 && isWordByte(c) && len(s) > len(w) && isWordByte(s[len(w)]) {
			continue
		}
		return len(w)
	}
	return 0
}

// skipSpace skips spaces and tabs.
func skipSpace(s string) string { return strings.TrimLeft(s, " \t") }

// skipWord skips one of the words (and the white space after it) at the
// start of s.
func skipWord(s string, words []string) string {
	if n := wordPrefixLen(s, words); n > 0 {
		return strings.TrimLeft(s[n:], " \t")
	}
	return s
}

// Cues just before an option that reject it: "not B", "rather than B",
// "exclude A, B and D", "unlike (B)". Lower case; ASCII cues must start a
// word.
var negCues = [...]string{
	"not", "n't", "n’t", "never", "rather than", "instead of", "over", "except", "except for", "excluding",
	"exclude", "excludes", "excluded", "rule out", "rules out", "ruled out", "ruling out", "eliminate",
	"eliminates", "eliminated", "eliminating", "against", "unlike", "other than", "versus", "vs", "vs.", "nor",
	"neither", "reject", "rejects", "rejected", "rejecting", "discard", "discards", "discarded", "discarding",
	"dismiss", "dismisses", "dismissed", "dismissing", "avoid", "avoids", "avoided", "avoiding", "why", "besides",
	"nicht", "no es", "pas", "não", "non", "不是", "排除",
}

// negatedBefore reports whether the words just before pos reject what is
// named there, looking past "the option(s)" and a list of further letters
// ("exclude A, B and"). It scans back from pos, in time linear in the
// clause (no end-anchored regular expression, which would retry from every
// start).
func negatedBefore(text string, pos int) bool {
	s := clauseBefore(text, pos)
	for range 2 {
		s = strings.TrimRight(s, " \t*_(\"'`[")
		s = trimWordSuffix(s, "options", "option", "choices", "choice", "answers", "answer", "letters", "letter")
		s = trimWordSuffix(strings.TrimRight(s, " \t"), "the")
		s = trimLetterList(s)
	}
	s = strings.TrimRight(s, " \t")
	for _, c := range negCues {
		if hasWordSuffix(s, c) {
			return true
		}
	}
	return false
}

// hasWordSuffix reports whether s ends with the cue w (ASCII case folded),
// starting a word when w is ASCII.
func hasWordSuffix(s, w string) bool {
	k := len(s) - len(w)
	if k < 0 || !containsFold(s[k:], w) {
		return false
	}
	return k == 0 || w[0] >= 0x80 || w == "n't" || w == "n’t" || !isWordByte(s[k-1])
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// trimWordSuffix cuts the first of the words that s ends with.
func trimWordSuffix(s string, words ...string) string {
	for _, w := range words {
		if hasWordSuffix(s, w) {
			return s[:len(s)-len(w)]
		}
	}
	return s
}

// trimLetterList cuts a list of option letters that ends s: "A, B and ",
// "C or ", "A/".
func trimLetterList(s string) string {
	for {
		t := strings.TrimRight(s, " \t")
		switch {
		case strings.HasSuffix(t, ",") || strings.HasSuffix(t, "&") || strings.HasSuffix(t, "/"):
			t = t[:len(t)-1]
		default:
			u := trimWordSuffix(t, "and", "or", "nor")
			if u == t {
				return s
			}
			t = strings.TrimSuffix(strings.TrimRight(u, " \t"), ",")
		}
		t = strings.TrimRight(t, " \t)*_")
		n := len(t)
		if n == 0 || t[n-1] < 'A' || t[n-1] > 'J' || n > 1 && isWordByte(t[n-2]) {
			return s
		}
		t = strings.TrimRight(t[:n-1], "(*_")
		s = t
	}
}

// asked reports whether the sentence that goes on in tail is a question.
func asked(tail string) bool {
	for i := 0; i < len(tail); i++ {
		switch tail[i] {
		case '?':
			return true
		case '\n', '!', ';':
			return false
		case '.':
			if i+1 == len(tail) || tail[i+1] == ' ' || tail[i+1] == '\n' {
				return false
			}
		}
	}
	return false
}

// alternativeIsOption: the letter after "or" is an option (not "B or a
// similar drug").
func alternativeIsOption(tail string, os *optSet) bool {
	m := reAlternative.FindStringSubmatch(tail)
	return m != nil && os.letter(m[1][0]) != ""
}

// clauseBefore is the clause that ends at pos: from the last sentence or
// clause boundary (. ! ? ; , new line, "but", "however") at most 120 bytes back.
func clauseBefore(text string, pos int) string {
	s := text[max(0, pos-120):pos]
	if k := strings.LastIndexAny(s, ".!?;,\n"); k >= 0 {
		s = s[k+1:]
	}
	for _, w := range [...]string{" but ", " however ", " yet ", " though ", " although ", " whereas "} {
		if k := lastIndexFold(s, w); k >= 0 {
			s = s[k+len(w):]
		}
	}
	return s
}

// lastIndexFold is strings.LastIndex ignoring ASCII case (w lower case),
// with offsets into s itself (strings.ToLower may change byte lengths).
func lastIndexFold(s, w string) int {
	for i := len(s) - len(w); i >= 0; i-- {
		if containsFold(s[i:i+len(w)], w) {
			return i
		}
	}
	return -1
}

// sentenceAfter is the rest of the sentence that goes on at pos (at most
// maxLead bytes).
func sentenceAfter(text string, pos int) string {
	s := text[pos:min(len(text), pos+maxLead)]
	if k := strings.IndexAny(s, "!?;\n"); k >= 0 {
		s = s[:k]
	}
	if k := strings.Index(s, ". "); k >= 0 {
		s = s[:k]
	}
	return s
}

// sentenceBefore is the sentence that ends at pos (at most 120 bytes back).
func sentenceBefore(text string, pos int) string {
	s := text[max(0, pos-120):pos]
	if k := strings.LastIndexAny(s, "!?\n"); k >= 0 {
		s = s[k+1:]
	}
	if k := strings.LastIndex(s, ". "); k >= 0 {
		s = s[k+2:]
	}
	return s
}

// ---------------------------------------------------------------------------
// Picks

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
	if n := wordPrefixLen(u, posCopulas); n > 0 {
		u = skipWord(skipWord(skipSpace(u[n:]), posAdverbs), posArticles)
		if n := wordPrefixLen(u, posWholes); n > 0 {
			after = u[n:]
		} else {
			u = skipWord(u, posDegrees)
			n := wordPrefixLen(u, posAdjectives)
			if n == 0 {
				return 0
			}
			after = u[n:]
			if v := strings.TrimLeft(after, " \t"); len(v) < len(after) {
				if k := wordPrefixLen(v, posNouns); k > 0 {
					after = v[k:]
				}
			}
		}
	} else if n := wordPrefixLen(u, posVerbs); n > 0 {
		v := skipSpace(u[n:])
		if strings.EqualFold(u[:n], "explains") {
			v = skipWord(v, posArticles[:1])
			k := wordPrefixLen(v, posExplained)
			if k == 0 {
				return 0
			}
			v = skipSpace(v[k:])
		}
		k := wordPrefixLen(v, posFinishers)
		if k == 0 {
			return 0
		}
		after = v[k:]
	} else {
		return 0
	}
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
func firstPerson(text string, os *optSet) []pickMarker {
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
func picks(text string, os *optSet) []commit {
	var out []commit
	for _, m := range firstPerson(text, os) {
		c := commit{pos: m.start, method: MethodAnswerLine}
		if c.readLead(text, m.end, os, m.loose) {
			c.final = reFinalCue.MatchString(sentenceBefore(text, m.start))
			out = append(out, c)
		}
	}
	for _, m := range os.capped(reButPick.FindAllStringIndex(text, maxCommits+1)) {
		c := commit{pos: m[0], method: MethodAnswerLine}
		if c.readLead(text, m[1], os, false) {
			c.final = reFinalCue.MatchString(sentenceBefore(text, m[0]))
			out = append(out, c)
		}
	}
	// "B is correct": a subject, then the predicate. A predicate may end on
	// the punctuation that opens the next subject ("B is correct, C is also
	// correct"), so the search resumes on it.
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
	// "Doxycycline is the drug of choice."
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
func barePicks(text string, lines []string, os *optSet) []commit {
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
func bareAt(t string, at int, os *optSet) (commit, bool) {
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
func openingPick(text string, lines []string, os *optSet) (commit, bool) {
	first, at := -1, 0
	for i, line := range lines {
		if strings.TrimSpace(line) != "" {
			first = i
			break
		}
		at += len(line) + 1
	}
	if first < 0 {
		return commit{}, false
	}
	line := lines[first]
	if len(line) > 2000 || bareOption(line, os) != "" {
		return commit{}, false // a bare line is read by barePicks
	}
	single := true
	for _, l := range lines[first+1:] {
		if strings.TrimSpace(l) != "" {
			single = false
			break
		}
	}
	cl := cleanLead(line)
	start := at + len(line) - len(cl)
	c := commit{pos: start}
	if L := readLetter(cl, os, false); L != "" {
		rest := strings.TrimLeft(cl[1:], "*_")
		// in a reply of several lines the letter must be set off: "B)", "B:", "B -", "B. <its text>"
		setOff := strings.HasPrefix(rest, ")") || strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, " -") || strings.HasPrefix(rest, " –")
		if !setOff && strings.HasPrefix(rest, ".") {
			_, setOff = textPrefixLen(rest[1:], os.text(L))
			setOff = setOff && os.text(L) != ""
		}
		if !single && !setOff || optionHeadings(lines, os) || reSeries.MatchString(cl[1:]) || alternativeIsOption(cl[1:], os) {
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
	return unicode.IsSpace(r) && (connectors[leadingWord(after)] || strings.ContainsRune("—–-:", r2))
}

// optionHeadings reports whether two or more lines open with different
// options followed by text ("A. Tetracycline - …", "**B)** …"): an analysis
// of the options, whose headings are not answers.
func optionHeadings(lines []string, os *optSet) bool {
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

// ---------------------------------------------------------------------------
// Marks

var (
	reDollar = regexp.MustCompile(`\$\s*(?:\\[A-Za-z]+\s*\{\s*)?\(?([A-Z])\)?\s*\}?\s*\$`)
	reBold   = regexp.MustCompile(`\*\*([^*\n]+?)\*\*|__([^_\n]+?)__`)
	reParen  = regexp.MustCompile(`\(([A-Z])\)`)
)

// mark makes a mark at text[lo:hi] naming the one-letter s (false when s
// is not a letter), rejected or not.
func mark(text string, lo, hi int, s string, m ParseMethod, os *optSet) (commit, bool) {
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
func dollarMarks(text string, os *optSet) []commit {
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
func boldMarks(text string, os *optSet) []commit {
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
		lo, hi := m[2], m[3]
		if lo < 0 {
			lo, hi = m[4], m[5]
		}
		if hi-lo > 200 {
			continue // a bold passage, not a marked option
		}
		cl := cleanLead(text[lo:hi])
		L := readLetter(cl, os, false)
		if L == "" {
			// a bold letter that is not an option counts only on its own: "**E**", not "**E. coli**"
			if L = os.badLetter(cl); L == "" || strings.Trim(cl[1:], " \t)]}.:") != "" {
				continue
			}
		}
		c, ok := mark(text, m[0], m[1], L, MethodBold, os)
		if !ok {
			continue
		}
		c.alt = c.L != "" && os.clash(cl, c.L) != "" // "**B. Ceftriaxone**" when ceftriaxone is C
		// A heading starts its line (after at most a short bullet or
		// number) and has words after it on the same line. Both looks are
		// bounded so that a long line without breaks stays linear.
		before := text[max(0, m[0]-16):m[0]]
		atStart := m[0] <= 16 || strings.IndexByte(before, '\n') >= 0
		if k := strings.LastIndexByte(before, '\n'); k >= 0 {
			before = before[k+1:]
		}
		after := text[m[1]:min(len(text), m[1]+200)]
		if k := strings.IndexByte(after, '\n'); k >= 0 {
			after = after[:k]
		}
		heading := atStart && strings.Trim(before, " \t-*•0123456789.)#>") == "" &&
			strings.IndexFunc(after, isWordRune) >= 0
		if heading && !headLetters[L[0]-'A'] {
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

// parenMarks: "(B)".
func parenMarks(text string, os *optSet) []commit {
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

// refusal reports whether a text that names no option declines to answer.
func refusal(text string) bool {
	for _, m := range reRefusal.FindAllStringIndex(text, maxCommits) {
		if wordPrefix(text[m[1]:], refusalVerbs) {
			return true
		}
	}
	return refusalPhrases.in(text)
}
