package answer

import (
	"regexp"
	"strings"
)

// Finding answer markers fast. reAnswerMarker is a large case-insensitive
// alternation; run over a whole text, Go's regexp tries it at every byte
// (most of a structured answer's parse time on a long reasoning). Every
// marker starts either with "<" (the <answer> tag) or, at a word boundary,
// with one of markerStarts, so findAnswerMarkers tries the same expression,
// anchored, only at those places: the same matches, leftmost first and
// non-overlapping, as reAnswerMarker.FindAllStringIndex
// (FuzzFindAnswerMarkers checks it). Under (?i), Unicode simple folding
// maps two non-ASCII letters onto ASCII ones (ſ to s, the Kelvin sign to k);
// a text holding either takes the plain path.

// markerStarts are the lower-case words an answer marker can begin with.
var markerStarts = []string{"answer", "best", "choice", "correct", "final", "most", "my", "next", "our", "overall",
	"preferred", "right", "single", "true", "verdict"}

// reAnswerMarkerAt is reAnswerMarker anchored at the start of the text
// (its source begins with the (?i) flag, which stays in front).
var reAnswerMarkerAt = regexp.MustCompile(`(?i)^(?:` + strings.TrimPrefix(reAnswerMarker.String(), "(?i)") + `)`)

// findAnswerMarkers is reAnswerMarker.FindAllStringIndex(text, n).
func findAnswerMarkers(text string, n int) [][]int {
	if strings.ContainsAny(text, "\u017f\u212a") {
		return reAnswerMarker.FindAllStringIndex(text, n)
	}
	var out [][]int
	for p := 0; p < len(text) && (n < 0 || len(out) < n); {
		q := nextMarkerStart(text, p)
		if q < 0 {
			break
		}
		loc := reAnswerMarkerAt.FindStringIndex(text[q:])
		if loc == nil {
			p = q + 1
			continue
		}
		out = append(out, []int{q, q + loc[1]})
		p = q + loc[1]
	}
	return out
}

// nextMarkerStart is the first position at or after p where a marker may
// start: a "<", or one of markerStarts (any case) at a word boundary.
func nextMarkerStart(text string, p int) int {
	for i := p; i < len(text); i++ {
		c := text[i]
		if c == '<' {
			return i
		}
		if !isASCIILetter(c) || (i > 0 && isRegexpWordByte(text[i-1])) {
			continue
		}
		for _, w := range markerStarts {
			if len(text)-i >= len(w) && strings.EqualFold(text[i:i+len(w)], w) {
				return i
			}
		}
	}
	return -1
}

// isRegexpWordByte is regexp's \w: [0-9A-Za-z_].
func isRegexpWordByte(c byte) bool { return isASCIILetter(c) || c >= '0' && c <= '9' || c == '_' }
