package answer

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Rankings written as text: a RANKING line or a list under a RANKING
// header, a line that is only a chain of options, a list of bare options, a
// rank table (ranking_shapes.go).

var (
	reRankSep    = regexp.MustCompile(`(?i)\s*(?:=>|->|>+|≻|→|,|;|\||\bthen\b)\s*`)
	reInlineRank = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)#?\d{1,2}[.)]\s+`) })
)

// parseRankList reads "B, A, C", "B > A > C", "[B, A]", "B A C", "BAC",
// "1. B 2. A 3. C". It stops at an element whose letter and text disagree.
func parseRankList(s string, os *Set) []string {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(strings.TrimLeft(s, "[{"), "]}.")
	if s == "" {
		return nil
	}
	parts := reRankSep.Split(s, 64)
	if len(parts) == 1 {
		if f := strings.Fields(s); len(f) > 1 && allSingle(f, os) {
			parts = f
		} else if compactLetters(s, os) {
			parts = strings.Split(s, "")
		} else if ms := reInlineRank().FindAllStringIndex(s, 64); len(ms) > 1 && ms[0][0] == 0 {
			parts = reInlineRank().Split(s, 64)[1:]
		}
	}
	var out []string
	var seen [26]bool
	for _, p := range parts {
		unknown := os.nunknown
		L := os.elem(p)
		if os.nunknown > unknown {
			break
		}
		out = addLetter(out, &seen, L)
	}
	return out
}

func allSingle(f []string, os *Set) bool {
	for _, w := range f {
		w = strings.Trim(w, "\"'*_`()[].")
		if len(w) != 1 || os.letter(w[0]) == "" {
			return false
		}
	}
	return true
}

// compactLetters: "BACD" — at least two distinct upper-case option letters and nothing else.
func compactLetters(s string, os *Set) bool {
	if len(s) < 2 || len(s) > 26 {
		return false
	}
	var seen [26]bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !os.isOption(c) || seen[c-'A'] {
			return false
		}
		seen[c-'A'] = true
	}
	return true
}

var (
	reRankStart = regexp.MustCompile(`(?i)^[\s>*_#•-]*(?:(?:final|updated|revised|new|current|overall|my|your)\s+)?(?:option\s+)?(?:rankings?|rank\s+order|position\s+you)(?:\s+of\s+(?:the\s+)?options)?[*_ \t]*(?:\([^)\n]*\))?[*_ \t]*(?::|：|\s+is\b\s*:?|\s+would\s+be\b\s*:?)[*_ \t]*(.*)$`)
	reRankMid   = regexp.MustCompile(`(?i)\b(?:my|final|updated|revised|overall)\s+(?:final\s+)?ranking\s*(?:\([^)\n]*\))?\s*(?::|is\b\s*:?|would\s+be\b\s*:?)[*_ \t]*(.*)$`)
	reListItem  = regexp.MustCompile(`^\s*(?:\d{1,2}\s*[.)]|[-*•·+])\s+(.*\S)\s*$`)
	reChainSep  = regexp.MustCompile(`\s*(?:>+|→|≻|,)\s*`)
)

func rankLabel(line string) (string, bool) {
	if !ContainsFold(line, "rank") && !ContainsFold(line, "position") {
		return "", false
	}
	if m := reRankStart.FindStringSubmatch(line); m != nil {
		return m[1], true
	}
	if m := reRankMid.FindStringSubmatch(line); m != nil {
		return m[1], true
	}
	return "", false
}

// rankingFromText finds the last ranking: a RANKING line ("RANKING: B, A"),
// a list under a RANKING header, a line that is only a chain of options
// ("B > A > C"), a numbered/bulleted list whose every item is only an option
// ("1. Option B\n2. Option A"), or a markdown rank table. When the last
// RANKING line names no option, reason says why: ReasonNotAnOption (only
// letters that are not options) or ReasonAmbiguous (its first element names
// a letter with another option's text).
//
// listed reports that best is a numbered list without a RANKING label
// (listRun): a ranking only by its numbers, which an explicit answer
// statement outranks (statedOverList).
func rankingFromText(lines []string, os *Set) (best []string, m Method, reason string, listed bool) {
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if len(line) > 2000 {
			continue
		}
		if rest, ok := rankLabel(line); ok {
			bad, unknown := os.nbad, os.nunknown
			rk := parseRankList(rest, os)
			if len(rk) == 0 && os.nunknown == unknown {
				var n int
				rk, n = listBelow(lines[i+1:], os)
				i += n
			}
			switch {
			case len(rk) > 0:
				best, m, reason, listed = rk, MethodRankingLine, "", false
			case os.nunknown > unknown:
				best, m, reason, listed = nil, MethodNone, ReasonAmbiguous, false
			case os.nbad > bad:
				best, m, reason, listed = nil, MethodNone, ReasonNotAnOption, false
			}
			continue
		}
		if rk, n := rankTable(lines[i:], os); n > 0 {
			if len(rk) > 0 {
				best, m, reason, listed = rk, MethodRankTable, "", false
			}
			i += n - 1
			continue
		}
		if rk := chainLine(line, os); len(rk) >= 2 {
			best, m, reason, listed = rk, MethodRankingLine, "", false
			continue
		}
		if reListItem.MatchString(line) {
			rk, n := listRun(lines[i:], os)
			if len(rk) >= 2 {
				best, m, reason, listed = rk, MethodRankingLine, "", true
			}
			i += n - 1
		}
	}
	return best, m, reason, listed
}

// listBelow reads the items under a RANKING header: list items or lines that
// are one option each, with at most one blank line in a row.
func listBelow(lines []string, os *Set) ([]string, int) {
	var out []string
	var seen [26]bool
	blanks, used := 0, 0
	for j, line := range lines {
		if j >= 40 {
			break
		}
		t := strings.TrimSpace(line)
		if t == "" {
			if blanks++; blanks > 1 {
				break
			}
			continue
		}
		blanks = 0
		unknown := os.nunknown
		if m := reListItem.FindStringSubmatch(line); m != nil {
			if L := os.elem(m[1]); os.nunknown == unknown {
				out = addLetter(out, &seen, L)
				used = j + 1
				continue
			}
			break
		}
		L := os.elem(t)
		if L == "" {
			break
		}
		out = addLetter(out, &seen, L)
		used = j + 1
	}
	return out, used
}

// listRun reads a run of list items (blank lines allowed between them); the
// run is a ranking only when every item is numbered and bare (just an
// option). A bulleted list ("- Huntington's disease\n- Fragile X
// syndrome") is an enumeration (risk factors, the options that fit, the
// options restated before "The answer is (G)"), not a ranking: its bullets
// have no order.
func listRun(lines []string, os *Set) ([]string, int) {
	var out []string
	var seen [26]bool
	bare, n, blanks := true, 0, 0
	for j, line := range lines {
		if strings.TrimSpace(line) == "" {
			if blanks++; blanks > 1 {
				break
			}
			continue
		}
		m := reListItem.FindStringSubmatch(line)
		if m == nil {
			break
		}
		blanks, n = 0, j+1
		if !numbered(line) {
			bare = false // a bulleted list enumerates; only numbers rank
			continue
		}
		L := bareOption(m[1], os)
		if L == "" {
			bare = false
			continue
		}
		out = addLetter(out, &seen, L)
	}
	if n == 0 {
		n = 1
	}
	if !bare || os.restated(out) {
		return nil, n
	}
	return out, n
}

// restated reports whether a list without a RANKING label is the options in
// their own order ("- A) …\n- B) …"): a model restating the question, not
// ranking.
func (s *Set) restated(rk []string) bool {
	return len(rk) >= 3 && slices.Equal(rk, s.letters)
}

// chainLine: a line that is nothing but options joined by '>' or ',' (but
// not the options in their own order joined by commas: a restatement).
func chainLine(line string, os *Set) []string {
	t := strings.Trim(strings.TrimSpace(line), "*_`[]")
	if !strings.ContainsAny(t, ">,→≻") {
		return nil
	}
	parts := reChainSep.Split(t, 32)
	if len(parts) < 2 {
		return nil
	}
	var out []string
	var seen [26]bool
	for _, p := range parts {
		L := bareOption(p, os)
		if L == "" {
			return nil
		}
		out = addLetter(out, &seen, L)
	}
	if !strings.ContainsAny(t, ">→≻") && os.restated(out) {
		return nil
	}
	return out
}

// numbered reports whether a list item is numbered ("1. B", "2) B").
func numbered(line string) bool {
	t := strings.TrimLeft(line, " \t")
	return t != "" && t[0] >= '0' && t[0] <= '9'
}
