package answer

// Rankings in shapes other than a list: a JSON object of positions or of
// ranks, a markdown table with a rank column, and a ranking in prose.

import (
	"slices"
	"strconv"
	"strings"
)

// ranked is one option and the rank it was given (1 = best); L is "?" for
// an entry naming a letter with another option's text.
type ranked struct {
	L    string
	rank float64
}

// entry makes the ranked entry of element e, ok=false when e names no option.
func entry(e string, rank float64, os *Set) (ranked, bool) {
	unknown := os.nunknown
	L := os.elem(e)
	if os.nunknown > unknown {
		return ranked{"?", rank}, true
	}
	return ranked{L, rank}, L != ""
}

// byRank orders options by rank. Two options sharing the best rank are no
// ranking (nil, with a note); a shared lower rank, or an entry whose option
// is unknown ("?"), cuts the ranking there.
func byRank(rs []ranked, what string, os *Set) []string {
	if len(rs) == 0 {
		return nil
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		switch {
		case a.rank < b.rank:
			return -1
		case a.rank > b.rank:
			return 1
		}
		return strings.Compare(a.L, b.L)
	})
	if len(rs) > 1 && rs[0].rank == rs[1].rank {
		os.nunknown++
		os.note("%s gives the same best rank to %s and %s; ignored", what, rs[0].L, rs[1].L)
		return nil
	}
	var out []string
	var seen [26]bool
	for i, r := range rs {
		if r.L == "?" {
			break
		}
		if i > 0 && r.rank == rs[i-1].rank {
			os.note("%s gives the same rank to %s and %s; the ranking stops before them", what, rs[i-1].L, r.L)
			out = out[:len(out)-1]
			break
		}
		out = addLetter(out, &seen, r.L)
	}
	return out
}

var ordinalWords = map[string]int{
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
	"sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
}

// positionKey reads a normalised key naming a rank position: "1", "rank1",
// "1st", "first".
func positionKey(k string) (float64, bool) {
	if n, ok := ordinalWords[k]; ok {
		return float64(n), true
	}
	for _, p := range [...]string{"rank", "position", "place", "choice", "top", "no"} {
		if strings.HasPrefix(k, p) {
			k = k[len(p):]
			break
		}
	}
	for _, s := range [...]string{"st", "nd", "rd", "th"} {
		if strings.HasSuffix(k, s) {
			k = k[:len(k)-len(s)]
			break
		}
	}
	if len(k) == 0 || len(k) > 2 || k[0] < '0' || k[0] > '9' || len(k) == 2 && (k[1] < '0' || k[1] > '9') {
		return 0, false
	}
	n, _ := strconv.Atoi(k)
	return float64(n), true
}

// letterKey reads a normalised key naming an option letter: "a", "optiona".
// ok is true for any letter; L is "" (and the letter noted) when it is not
// an option.
func letterKey(k string, os *Set) (L string, ok bool) {
	k = strings.TrimPrefix(k, "option")
	if len(k) != 1 || k[0] < 'a' || k[0] > 'z' {
		return "", false
	}
	if L = os.letter(k[0]); L == "" {
		os.noteBad(anyLetters.letter(k[0]))
	}
	return L, true
}

// objectRanking reads a JSON object that is a ranking: positions to options
// ({"1": "C", "2": "A"}) or options to ranks ({"A": 2, "C": 1}). With
// answerObject the object may also carry the answer's other fields
// (reasoning, confidence, facts), which are skipped.
func objectRanking(o Object, os *Set, answerObject bool) []string {
	var byPos, byLetter []ranked
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys) // notes in a stable order
	for _, k := range keys {
		v := o[k]
		if answerObject && (slices.Contains(reasoningKeys[:], k) || slices.Contains(confidenceKeys[:], k) || slices.Contains(factsKeys[:], k)) {
			continue
		}
		if p, ok := positionKey(k); ok {
			s, ok := RawString(v)
			if !ok {
				return nil
			}
			if r, ok := entry(s, p, os); ok {
				byPos = append(byPos, r)
			}
			continue
		}
		L, ok := letterKey(k, os)
		if !ok {
			return nil
		}
		x, kind, ok := RawNumber(v)
		if !ok || kind != NumPlain {
			return nil
		}
		if x != float64(int64(x)) || x < 0 {
			os.note("ranking object gives %s the rank %s, not a whole number; ignored", strings.ToUpper(k[len(k)-1:]), RawText(v))
			return nil
		}
		if L != "" {
			byLetter = append(byLetter, ranked{L, x})
		}
	}
	switch {
	case len(byPos) > 0 && len(byLetter) > 0:
		return nil
	case len(byPos) > 0:
		return byRank(byPos, "the ranking object", os)
	}
	return byRank(byLetter, "the ranking object", os)
}

// ---------------------------------------------------------------------------
// Markdown tables

var (
	rankColumns   = []string{"rank", "ranking", "#", "position", "order", "place", "no", "no."}
	optionColumns = []string{"option", "options", "answer", "choice", "letter", "option letter", "answer option", "answer choice"}
)

// tableRule: the line under a markdown table header, "|---|:--:|".
func tableRule(t string) bool {
	return strings.Contains(t, "--") && strings.Trim(t, "|-: \t") == ""
}

// cells splits a markdown table row.
func cells(line string) []string {
	t := strings.Trim(strings.TrimSpace(line), "|")
	out := strings.Split(t, "|")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

// rankTable reads a markdown table whose header has a rank column and an
// option column ("| Rank | Option | Why |"), its rows in any order. n is
// the number of lines the table covers (0 when lines[0] does not head one).
func rankTable(lines []string, os *Set) (rk []string, n int) {
	head := strings.TrimSpace(lines[0])
	if !strings.HasPrefix(head, "|") || strings.Count(head, "|") < 3 {
		return nil, 0
	}
	rankCol, optCol := -1, -1
	for i, c := range cells(head) {
		c = strings.ToLower(strings.Trim(c, "*_` "))
		switch {
		case rankCol < 0 && slices.Contains(rankColumns, c):
			rankCol = i
		case optCol < 0 && slices.Contains(optionColumns, c):
			optCol = i
		}
	}
	if rankCol < 0 || optCol < 0 {
		return nil, 0
	}
	var rows []ranked
	n = 1
	for _, line := range lines[1:] {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "|") || n > 40 {
			break
		}
		n++
		if tableRule(t) {
			continue
		}
		cs := cells(t)
		if rankCol >= len(cs) || optCol >= len(cs) {
			continue
		}
		r, ok := IntFromText(strings.Trim(cs[rankCol], "*_`#"))
		if !ok {
			r, ok = ordinalWords[LeadingWord(strings.Trim(cs[rankCol], "*_` "))]
		}
		if e, found := entry(cs[optCol], float64(r), os); ok && found {
			rows = append(rows, e)
		}
	}
	return byRank(rows, "the rank table", os), n
}

// ---------------------------------------------------------------------------
// Prose

var (
	// An order word between options.
	orderWords = map[string]bool{"then": true, "followed": true, "next": true, "finally": true, "lastly": true, "second": true, "secondly": true, "third": true, "thirdly": true}
	// What may sit between options in a prose ranking besides order words.
	linkWords = map[string]bool{
		"by": true, "and": true, "after": true, "that": true, "first": true, "firstly": true, "fourth": true,
		"last": true, "option": true, "options": true, "choice": true, "is": true, "the": true, "most": true,
		"likely": true, "least": true, "best": true, "top": true, "my": true, "with": true,
	}
	// Words of a sentence about ranking.
	rankCues = newWordCues("rank*", "order*", "likel*", "prefer*", "favor*", "favour*", "probab*", "best", "top")
)

// proseRankings reads rankings written in prose: "C, then A, then B", "C
// first, followed by A and B", "C > A > B", "C first, A second, B third".
// The options must be joined by order words and the sentence must be about
// the ranking (a ranking word, or little else around the options).
func proseRankings(text string, lines []string, os *Set) []commit {
	var out []commit
	pos := 0
	for _, line := range lines {
		at := pos
		pos += len(line) + 1
		if len(line) > 2000 || !(ContainsFold(line, "then") || ContainsFold(line, "follow") || ContainsFold(line, "next") ||
			strings.ContainsAny(line, ">→≻") || ContainsFold(line, "second")) {
			continue
		}
		out = append(out, proseLine(text, line, at, os)...)
	}
	return out
}

// token is a word, a standalone capital letter or a punctuation mark.
type token struct {
	s          string
	start, end int
	letter     bool
}

func tokenize(line string) []token {
	var ts []token
	for i := 0; i < len(line) && len(ts) < 512; {
		c := line[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(line) && (line[j] >= 'a' && line[j] <= 'z' || line[j] >= 'A' && line[j] <= 'Z' || line[j] >= '0' && line[j] <= '9' || line[j] == '\'' || line[j] == '-') {
				j++
			}
			ts = append(ts, token{s: line[i:j], start: i, end: j, letter: j == i+1 && c >= 'A' && c <= 'Z'})
			i = j
		case c == ',' || c == '>' || c == ';' || c == '.' || c == '!' || c == '?' || c == ':':
			ts = append(ts, token{s: line[i : i+1], start: i, end: i + 1})
			i++
		case strings.HasPrefix(line[i:], "→") || strings.HasPrefix(line[i:], "≻"):
			ts = append(ts, token{s: ">", start: i, end: i + 3})
			i += 3
		default:
			i++
		}
	}
	return ts
}

// proseLine reads the prose rankings of one line (starting at text position at).
func proseLine(text, line string, at int, os *Set) []commit {
	ts := tokenize(line)
	var out []commit
	sentence := 0 // index of the first token of the current sentence
	for i := 0; i < len(ts); i++ {
		if s := ts[i].s; s == "." || s == "!" || s == "?" || s == ";" {
			sentence = i + 1
			continue
		}
		if !isLetterToken(ts, i) {
			continue
		}
		// extend a run: letters joined by order and link words
		var letters []int
		ordered := false
		j := i
		last := i
		for j < len(ts) {
			t := ts[j]
			w := strings.ToLower(t.s)
			switch {
			case isLetterToken(ts, j):
				letters = append(letters, j)
				last = j
			case t.s == "," || t.s == ">":
				ordered = ordered || t.s == ">"
			case orderWords[w]:
				ordered = true
			case linkWords[w]:
			default:
				j = len(ts) + 1 // stop
				continue
			}
			j++
		}
		if len(letters) < 2 || !ordered {
			i = last
			continue
		}
		end := sentenceEnd(ts, last)
		// the sentence is about the ranking: a ranking word, or at most four words before and three after
		about := rankCues.in(line[ts[min(sentence, i)].start:ts[end-1].end])
		if !about {
			before, after := 0, 0
			for k := sentence; k < i; k++ {
				if !isPunct(ts[k]) {
					before++
				}
			}
			for k := last + 1; k < end; k++ {
				if !isPunct(ts[k]) {
					after++
				}
			}
			about = before <= 4 && after <= 3
		}
		if !about || negatedBefore(text, at+ts[i].start) {
			i = last
			continue
		}
		var rk []string
		var seen [26]bool
		for _, k := range letters {
			rk = addLetter(rk, &seen, os.elem(ts[k].s))
		}
		if len(rk) > 0 {
			out = append(out, commit{pos: at + ts[i].start, end: at + ts[last].end, L: rk[0], rank: rk, method: MethodProseRanking})
		}
		i = last
	}
	return out
}

// isLetterToken: a capital letter standing alone; "A" and "I" only when not
// followed by a word that makes them an article or a pronoun ("A patient",
// "I think").
func isLetterToken(ts []token, i int) bool {
	if !ts[i].letter {
		return false
	}
	if c := ts[i].s[0]; (c == 'A' || c == 'I') && i+1 < len(ts) && !ts[i+1].letter && !isPunct(ts[i+1]) {
		w := strings.ToLower(ts[i+1].s)
		return orderWords[w] || linkWords[w]
	}
	return true
}

func isPunct(t token) bool {
	return !t.letter && len(t.s) == 1 && !(t.s[0] >= 'a' && t.s[0] <= 'z' || t.s[0] >= 'A' && t.s[0] <= 'Z')
}

// sentenceEnd is the index just after the sentence holding token i.
func sentenceEnd(ts []token, i int) int {
	for k := i + 1; k < len(ts); k++ {
		if s := ts[k].s; s == "." || s == "!" || s == "?" || s == ";" {
			return k
		}
	}
	return len(ts)
}
