package answer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Cut-off replies. A reply that stopped at its token limit (the backend's
// finish reason "length") or that ends in the middle of a sentence was cut
// off before its author finished: a letter named in its reasoning (an
// option discussed, a mark, an option's text as a subject) is not its
// answer. Such a reply is read only from its explicit answer statements
// ("The answer is (B)", "Final answer: B", \boxed{B}) and its structured
// ranking; without one it is an abstention with reason truncated, never a
// letter from the middle of the reasoning.
//
// The finish reason reaches the parser inside the text: the session that
// made the call appends cutMark to a reply cut at its token limit
// (MarkCut), Prepare removes it again, so that no parser reads it as the
// model's words and every parser of the package sees the same text.

// cutMark marks a reply cut off at its token limit (see MarkCut).
const cutMark = "\n[medteam: reply cut off at its token limit (finish reason length)]"

// FinishLength is the finish reason of a reply cut off at its token limit.
const FinishLength = "length"

// MarkCut returns the text of a reply with the given finish reason as the
// answer parsers take it: a reply cut off at its token limit (finish reason
// FinishLength) is marked so that Parse reads it as cut off; any other
// reply is returned as is.
func MarkCut(text, finishReason string) string {
	if finishReason != FinishLength || strings.HasSuffix(text, cutMark) {
		return text
	}
	return text + cutMark
}

// IsMarkedCut reports whether text was marked by MarkCut.
func IsMarkedCut(text string) bool { return strings.HasSuffix(text, cutMark) }

// unmarkCut removes MarkReply's marks (MarkCut's included).
func unmarkCut(text string) string {
	for _, m := range [...]string{cutMark, filterMark, refusalMark} {
		if strings.HasSuffix(text, m) {
			return strings.TrimSuffix(text, m)
		}
	}
	return text
}

// Withheld replies. A reply the backend's content filter stopped (finish
// reason content_filter) or that the model refused (a refusal message, as
// OpenAI's message.refusal) is not the model's answer: whatever text it
// carries (a part the filter let through) is dropped, and Parse abstains
// with reason content_filter or refusal. Like the cut mark, the mark travels
// in the text and Prepare removes it, so every other parser reads an empty
// reply (an abstention of its own).

// Marks of a withheld reply (see MarkReply).
const (
	filterMark  = "\n[medteam: reply withheld by the content filter (finish reason content_filter)]"
	refusalMark = "\n[medteam: the model refused to answer]"
)

// FinishContentFilter is the finish reason of a reply withheld by the
// backend's content filter.
const FinishContentFilter = "content_filter"

// MarkReply returns the text of a reply as the answer parsers take it, from
// its text, its finish reason and its refusal message: a refusal is marked
// refused and a reply stopped by the content filter marked filtered (their
// text dropped: never read as an answer); a reply cut off at its token
// limit is marked cut (MarkCut); any other reply is returned as is.
func MarkReply(text, finishReason, refusal string) string {
	switch {
	case refusal != "":
		return refusalMark
	case finishReason == FinishContentFilter:
		return filterMark
	}
	return MarkCut(text, finishReason)
}

// Withheld returns the abstention reason of a reply marked withheld by
// MarkReply (ReasonRefusal, ReasonContentFilter), "" for any other text.
func Withheld(text string) string {
	switch {
	case strings.HasSuffix(text, refusalMark):
		return ReasonRefusal
	case strings.HasSuffix(text, filterMark):
		return ReasonContentFilter
	}
	return ""
}

// minCutWords is the number of words a last line must have to be read as a
// sentence cut off in the middle: a short last line without a full stop
// ("Final answer: D", "Doxycycline") is an answer, not a cut sentence.
const minCutWords = 5

// endsMidSentence reports whether a text ends in the middle of a sentence:
// its last line has at least minCutWords words and ends in a word or a
// comma, not in the punctuation or markup that closes a sentence.
func endsMidSentence(text string) bool {
	t := strings.TrimRightFunc(text, unicode.IsSpace)
	last := t[strings.LastIndexByte(t, '\n')+1:]
	if len(strings.Fields(last)) < minCutWords {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(last)
	return isWordRune(r) || strings.ContainsRune(",;:(-–", r)
}

// cutAnswer reads a cut-off reply: its structured ranking, else its answer
// statements, else an abstention: with reason truncated when the reply was
// marked cut off at its token limit (MarkCut), else without a reason (the
// caller's no_answer: a text that ends mid-sentence may be only terse).
func cutAnswer(text string, os *Set) Verdict {
	v := readCut(text, os)
	if len(v.Ranking) == 0 && v.Reason == ReasonTruncated && !os.markedCut {
		v.Reason, v.Err = "", ""
	}
	return v
}

// readCut is cutAnswer, with reason truncated whenever nothing is read.
func readCut(text string, os *Set) Verdict {
	lines := strings.Split(text, "\n")
	if rk, m, reason, listed := rankingFromText(lines, os); len(rk) > 0 {
		if v, ok := statedOverList(text, rk, listed, os); ok {
			return v
		}
		return Verdict{Ranking: rk, Method: m}
	} else if reason != "" {
		return Verdict{Reason: reason, Err: "the RANKING line names no option of " + os.List()}
	}
	if v, ok := decide(text, statements(text, os)); ok && !os.overflow {
		return v
	}
	return Verdict{Reason: ReasonTruncated, Err: "the reply was cut off before any answer statement"}
}
