package answer

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Negation and exclusion: a mention of an option that the words before or
// after it reject ("B is not indicated", "not B", "rather than B", "A, B
// and D can be excluded") is no commitment.

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
func negatedAfter(tail, L string, os *Set) bool {
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
		if len(s) < len(w) || !ContainsFold(s[:len(w)], w) {
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
	if k < 0 || !ContainsFold(s[k:], w) {
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
func alternativeIsOption(tail string, os *Set) bool {
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
		if ContainsFold(s[i:i+len(w)], w) {
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
