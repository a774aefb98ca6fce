package answer

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
)

// commit is one place where the text names an option as its answer.
type commit struct {
	pos, end int      // the commitment's start and the end of the option named
	L        string   // the option letter ("" when bad is set)
	bad      string   // a letter named as the answer that is not an option
	final    bool     // a clear conclusion: a final answer, \boxed, "in conclusion"
	closing  bool     // an answer statement on the text's last line ("The answer is (B).")
	stmt     bool     // an answer statement (statements), not a pick or a mark
	byText   bool     // the option is named by its text, not its letter
	clash    bool     // a letter given with another option's text (alt is set too)
	none     bool     // the text states that no option is the answer (reNoneStated)
	alt      bool     // names alternatives: "B or C"
	rank     []string // a prose ranking (rank[0] == L)
	neg      bool     // a mark that the text rejects ("(C) misses it")
	method   Method
}

// value is what the commitment names, for comparing commitments.
func (c *commit) value() string {
	switch {
	case c.none:
		return "-"
	case c.alt:
		return "?"
	case c.bad != "":
		return "!" + c.bad
	}
	return c.L
}

// Verdict is what a free text names: a ranking, best first, and how it was
// read; or, when Ranking is empty, why not.
type Verdict struct {
	Ranking []string
	Method  Method
	Reason  string // when Ranking is empty: ReasonAmbiguous, ReasonNotAnOption, or "" when nothing was found
	Err     string // when Ranking is empty and Reason is set: what was found
}

// textAnswer reads a free text: the structured ranking if there is one
// (authoritative), else its commitments.
func textAnswer(text string, os *Set) Verdict {
	lines := strings.Split(text, "\n")
	rk, m, reason, listed := rankingFromText(lines, os)
	if len(rk) > 0 {
		if v, ok := statedOverList(text, rk, listed, os); ok {
			return v
		}
		os.noteStated(text, rk[0])
		return Verdict{Ranking: rk, Method: m}
	}
	if reason != "" {
		return Verdict{Reason: reason, Err: "the RANKING line names no option of " + os.List()}
	}
	cs := statements(text, os)
	cs = append(cs, picks(text, os)...)
	cs = append(cs, barePicks(text, lines, os)...)
	if c, ok := openingPick(text, lines, os); ok {
		cs = append(cs, c)
	}
	cs = append(cs, proseRankings(text, lines, os)...)
	if os.overflow {
		return Verdict{Reason: ReasonAmbiguous, Err: fmt.Sprintf("more than %d places commit to an option; not read", maxCommits)}
	}
	if v, ok := decide(text, cs); ok {
		return v
	}
	v := decideMarks(text, os)
	if os.overflow {
		return Verdict{Reason: ReasonAmbiguous, Err: fmt.Sprintf("more than %d options are marked; not read", maxCommits)}
	}
	return v
}

// statedOverList reads the answer statements of a text whose ranking rk is
// a numbered list without a RANKING label (listed): facts, or option texts
// restated, are numbered too ("1. Growth hormone 2. Prolactin … The answer
// is (F)."). An explicit answer statement outranks such a list: ok when
// the statements decide (one option, or an abstention: "The answer is (H),
// (I), (J).") and do not name the list's first item.
func statedOverList(text string, rk []string, listed bool, os *Set) (Verdict, bool) {
	if !listed {
		return Verdict{}, false
	}
	v, ok := decide(text, statements(text, os))
	if !ok || os.overflow || len(v.Ranking) > 0 && v.Ranking[0] == rk[0] {
		return Verdict{}, false
	}
	return v, true
}

// maxCommits bounds the commitments (and the marks) of one kind that a text
// is searched for. A reply with more is not an answer to read: it is
// ambiguous, and its scan stays short.
const maxCommits = 64

// capped returns the first maxCommits matches, noting an overflow.
func (os *Set) capped(ms [][]int) [][]int {
	if len(ms) > maxCommits {
		os.overflow = true
		return ms[:maxCommits]
	}
	return ms
}

// Stated returns the option letter that a free text explicitly
// commits to as the answer — an answer statement in any supported language
// ("The answer is B", "Answer: B", "the correct option is B", "答案：B"), a
// pick ("I'd go with B") or "B is correct" — or "" when it commits to none
// or to different options without a clear conclusion. Descriptions do not
// count: "option B is a distractor", "consider whether B or C", a bare "B"
// line. It is meant for texts that should not name an answer, such as a
// question analysis.
func Stated(text string, options []Option) string {
	os := NewSet(options)
	if len(os.letters) == 0 {
		return ""
	}
	_, body := Prepare(text)
	cs := append(statements(body, os), picks(body, os)...)
	if v, ok := decide(body, cs); ok && len(v.Ranking) > 0 && !os.overflow {
		return v.Ranking[0]
	}
	return ""
}

// noteStated notes a text (the reasoning beside a structured ranking) that
// states another option as the answer than the ranking's first. It runs on
// every structured answer, so it looks only when the text speaks of an
// answer, a choice or an option, or may be in another language.
func (os *Set) noteStated(text, first string) {
	if text == "" || !answerCues.in(text) {
		return
	}
	v, ok := decide(text, statements(text, os))
	if ok && len(v.Ranking) > 0 && v.Ranking[0] != first {
		os.note("the text states %s as the answer but the ranking puts %s first; the ranking is used", v.Ranking[0], first)
	}
}

// ---------------------------------------------------------------------------
// Deciding

// decide resolves statements and picks (ok=false when there are none).
func decide(text string, cs []commit) (Verdict, bool) {
	slices.SortStableFunc(cs, func(a, b commit) int { return a.pos - b.pos })
	// "none of the options is correct" counts only as the last word
	cs = slices.DeleteFunc(cs, func(c commit) bool { return c.none && c.pos < cs[len(cs)-1].pos })
	if len(cs) == 0 {
		return Verdict{}, false
	}
	// run is the trailing run of commitments naming what the last one names;
	// prev is the commitment before it, which names something else.
	last := cs[len(cs)-1].value()
	start := len(cs) - 1
	for start > 0 && cs[start-1].value() == last {
		start--
	}
	run := cs[start:]
	if start > 0 && !settled(text, cs, start) {
		return Verdict{Reason: ReasonAmbiguous, Err: "the text commits to " + conflict(cs) + " without a clear conclusion"}, true
	}
	c := run[0]
	switch {
	case c.none:
		return Verdict{Reason: ReasonNoAnswer, Err: "the text states that none of the options is the answer"}, true
	case c.alt:
		return Verdict{Reason: ReasonAmbiguous, Err: "the text names more than one option as its answer"}, true
	case c.bad != "":
		return Verdict{Reason: ReasonNotAnOption, Err: "the text names " + c.bad + ", not one of the options"}, true
	}
	v := Verdict{Ranking: []string{c.L}, Method: c.method}
	for i := len(run) - 1; i >= 0; i-- {
		if run[i].rank != nil {
			v.Ranking, v.Method = run[i].rank, MethodProseRanking
			break
		}
	}
	return v, true
}

// settled reports whether the trailing run cs[start:] of commitments
// settles the conflict with those before it: one of them is a clear
// conclusion, or a closing answer line without a rival answer statement,
// or a revision cue stands between it and the commitment it replaces.
func settled(text string, cs []commit, start int) bool {
	run, last := cs[start:], cs[len(cs)-1].value()
	for _, c := range run {
		if c.final || c.closing && !rivalStatement(cs[:start], last) {
			return true
		}
	}
	from, to := cs[start-1].end, run[0].pos
	return from < to && revisionCues.in(text[from:to])
}

// rivalStatement reports whether a commitment of cs that names another
// value than v is an answer statement naming a letter. A closing answer
// line ("The answer is (J).") settles rival picks and option texts quoted
// in the reasoning ("E is correct", per-option verdicts, "the most likely
// diagnosis is aortic stenosis") and a rival statement of several options
// that it narrows to one ("the answer is (B), (F) and (E). However, since
// we can only choose one … The answer is (F)."), never a rival answer
// statement naming one letter ("The answer is B. … the answer is C." stays
// ambiguous).
func rivalStatement(cs []commit, v string) bool {
	return slices.ContainsFunc(cs, func(c commit) bool {
		return c.stmt && !c.byText && (!c.alt || c.clash) && c.value() != v
	})
}

// conflict lists what the commitments name, in order: "B and C".
func conflict(cs []commit) string {
	var names []string
	for _, c := range cs {
		n := c.L
		switch {
		case c.none:
			n = "none of the options"
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

// reNoneStated: the text states that no option is the answer; its marks
// then name options discussed, not chosen.
var reNoneStated = regexp.MustCompile(`(?i)\bnone\s+of\s+the\s+(?:given\s+|provided\s+|listed\s+)?(?:options|choices|answers|above)\b[^.\n]{0,30}?\b(?:is|are|fits?|describes?|matches|perfectly)\b|\b(?:the\s+)?(?:correct\s+)?answer\s+is\s+not\s+(?:in|among|listed|provided|given)\b`)

// decideMarks reads the marks ($B$, **B**, (B)) when nothing else commits:
// the one option they all name, unless the text rejects it. Marks naming
// several options are a discussion of them (ambiguous), even when some are
// rejected: keeping the one left would be a guess by elimination.
func decideMarks(text string, os *Set) Verdict {
	if reNoneStated.MatchString(text) {
		return Verdict{} // "none of the options is correct … option (A) is a distractor"
	}
	ms := dollarMarks(text, os)
	ms = append(ms, boldMarks(text, os)...)
	ms = append(ms, parenMarks(text, os)...)
	if len(ms) == 0 {
		return Verdict{}
	}
	for _, m := range ms[1:] {
		if m.value() != ms[0].value() {
			return Verdict{Reason: ReasonAmbiguous, Err: "the text marks " + conflict(ms) + " without committing to one"}
		}
	}
	i := slices.IndexFunc(ms, func(c commit) bool { return !c.neg }) // the first method in order latex, bold, paren
	switch {
	case i < 0:
		return Verdict{}
	case ms[i].alt:
		return Verdict{Reason: ReasonAmbiguous, Err: "the text marks a letter with another option's text"}
	case ms[i].bad != "":
		os.noteBad(ms[i].bad)
		return Verdict{Reason: ReasonNotAnOption, Err: "the text marks " + ms[i].bad + ", not one of the options"}
	}
	return Verdict{Ranking: []string{ms[i].L}, Method: ms[i].method}
}
