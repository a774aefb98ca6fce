package answer

import (
	"regexp"
	"strings"
)

// Invented continuations. A base model prompted with worked examples
// ("Question: … Options: … Answer: …", the few-shot layout of MMLU-Pro and
// of most benchmark harnesses) often answers and then keeps writing: a new
// "Question:" block of its own, with options and an answer of its own, and
// another, until its token limit. The reply's answer is the one before the
// first invented block; the blocks after it are not commitments of this
// reply (measured on the Meta-Llama-3 base models of ../shared/realoutputs:
// about 1,500 replies of this shape).
//
// A continuation starts at a line that begins with "Question:" (or
// "QUESTION:", as medteam's own prompts label the question) after some text.
// It is cut when its shape is the few-shot block's — a later line begins
// with "Options:" or "Answer:" — or when the text before it commits to an
// option on its own (a block cut off before its options). A reply that
// opens with "Question:" (a restated question) is not cut.

// A chat model may instead go on to "summarize all the answers" of the
// worked examples and of questions it invents ("Now, let's summarize all
// the answers: A. Ventral …", "Now, let's summarize the final answers to all
// questions: 1. The answer is J …"): the same kind of continuation, cut at
// the sentence that announces it.

var (
	reContinuation = regexp.MustCompile(`(?m)^[ \t]*(?:Question|QUESTION)[ \t]*:`)
	reSummaryAll   = regexp.MustCompile(`(?i)(?:^|[.!?]\s+)((?:now,?\s+)?let(?:'|’)?s\s+(?:summari[sz]e|recap|list)\s+(?:all\s+(?:the\s+)?|the\s+(?:final\s+)?)?answers(?:\s+to\s+all(?:\s+the)?\s+questions)?\s*:)`)
	reFewShotLine  = regexp.MustCompile(`(?im)^[ \t]*(?:options|answer)[ \t]*:`)
)

// continuation returns the text before the first invented "Question:"
// block of text and whether that block has the few-shot shape (strong);
// ok is false when text has no such block.
func continuation(text string) (before string, strong, ok bool) {
	if m := reSummaryAll.FindStringSubmatchIndex(text); m != nil && strings.TrimSpace(text[:m[2]]) != "" {
		return text[:m[2]], true, true
	}
	if !strings.Contains(text, "Question") && !strings.Contains(text, "QUESTION") {
		return "", false, false
	}
	for _, m := range reContinuation.FindAllStringIndex(text, 8) {
		before = text[:m[0]]
		if strings.TrimSpace(before) == "" {
			continue
		}
		return before, reFewShotLine.MatchString(text[m[1]:]), true
	}
	return "", false, false
}

// cutContinuation cuts an invented continuation off the body (and off norm
// when they are the same text), with a note.
func cutContinuation(norm, body string, os *Set) (string, string) {
	before, strong, ok := continuation(body)
	if !ok || !strong && !commitsAlone(before, os) || rankingLineIn(body[len(before):]) {
		return norm, body
	}
	os.note("the reply goes on with an invented continuation (\"Question: …\" blocks, a summary of all answers); only the text before it is read")
	if norm == body {
		norm = before
	}
	return norm, before
}

// commitsAlone reports whether text names an option as free text, without
// noting anything in os.
func commitsAlone(text string, os *Set) bool {
	tmp := *os
	tmp.notes, tmp.overflow = nil, false
	return len(textAnswer(text, &tmp).Ranking) > 0
}

// Repeats. A model stuck in a loop writes the same sentence, or the same
// few sentences, over and over ("The answer is (A). The answer is (A). …",
// a hundred times, until its token limit). A run of the same sentences is
// one: collapseRepeats keeps the first of each run, so that a looping answer
// line is read once (instead of overflowing maxCommits) and a looping
// passage does not hide the end of the text.

// minRepeatText is the length below which a text is not searched for
// repeats (a short reply that repeats itself commits as often as it says).
const minRepeatText = 1000

// maxRepeatUnit is the longest cycle of sentences collapsed.
const maxRepeatUnit = 4

// collapseRepeats drops each cycle of one to maxRepeatUnit sentences that
// repeats the sentences just before it (white space aside), noting it once.
func collapseRepeats(text string, os *Set) string {
	if len(text) < minRepeatText {
		return text
	}
	type unit struct{ span, key string }
	var units []unit
	for start := 0; start < len(text); {
		end := repeatUnitEnd(text, start)
		units = append(units, unit{text[start:end], strings.TrimSpace(text[start:end])})
		start = end
	}
	var kept []unit
	dropped := 0
next:
	for i := 0; i < len(units); {
		for k := 1; k <= maxRepeatUnit && k <= len(kept) && i+k <= len(units); k++ {
			same := true
			for j := range k {
				if units[i+j].key != kept[len(kept)-k+j].key {
					same = false
					break
				}
			}
			if same && units[i].key != "" {
				i += k
				dropped++
				continue next
			}
		}
		kept = append(kept, units[i])
		i++
	}
	if dropped == 0 {
		return text
	}
	var sb strings.Builder
	for _, u := range kept {
		sb.WriteString(u.span)
	}
	os.note("a passage repeated %d times in a row is read once", dropped+1)
	return sb.String()
}

// repeatUnitEnd is the end of the sentence that starts at start: after the
// white space that follows ". ", "! ", "? " or a new line, or the text's end.
func repeatUnitEnd(text string, start int) int {
	for i := start; i < len(text); i++ {
		c := text[i]
		if c == '\n' || (c == '.' || c == '!' || c == '?') && i+1 < len(text) && (text[i+1] == ' ' || text[i+1] == '\n') {
			j := i + 1
			for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n') {
				j++
			}
			return j
		}
	}
	return len(text)
}

// rankingLineIn reports whether text has a RANKING line: medteam's own
// structured answer, which no continuation hides.
func rankingLineIn(text string) bool {
	if !ContainsFold(text, "rank") {
		return false
	}
	for _, line := range strings.Split(text, "\n") {
		if _, ok := rankLabel(line); ok {
			return true
		}
	}
	return false
}
