package answer

// Rankings in shapes other than a list: a JSON object of positions or of
// ranks, a markdown table with a rank column, and a ranking in prose.

import (
	"encoding/json"
	"maps"
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
	for _, k := range slices.Sorted(maps.Keys(o)) { // notes in a stable order
		if answerObject && answerField(k) {
			continue
		}
		v := o[k]
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
		r, ok := letterRank(k, v, os)
		if !ok {
			return nil
		}
		if r.L != "" {
			byLetter = append(byLetter, r)
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

// answerField reports whether the normalised key k is one of an answer's
// fields other than its ranking.
func answerField(k string) bool {
	return slices.Contains(reasoningKeys[:], k) || slices.Contains(confidenceKeys[:], k) || slices.Contains(factsKeys[:], k)
}

// letterRank reads a key naming an option letter and the rank it is given
// ({"A": 2}). ok is false when the key names no letter or the rank is not a
// whole number (noted): the object is then no ranking. r.L is "" for a
// letter that is not an option (noted).
func letterRank(k string, v json.RawMessage, os *Set) (r ranked, ok bool) {
	L, ok := letterKey(k, os)
	if !ok {
		return ranked{}, false
	}
	x, kind, ok := RawNumber(v)
	if !ok || kind != NumPlain {
		return ranked{}, false
	}
	if x != float64(int64(x)) || x < 0 {
		os.note("ranking object gives %s the rank %s, not a whole number; ignored", strings.ToUpper(k[len(k)-1:]), RawText(v))
		return ranked{}, false
	}
	return ranked{L, x}, true
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
	rankCol, optCol := tableColumns(head)
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
		if cs := cells(t); rankCol < len(cs) && optCol < len(cs) {
			if r, ok := tableRow(cs[rankCol], cs[optCol], os); ok {
				rows = append(rows, r)
			}
		}
	}
	return byRank(rows, "the rank table", os), n
}

// tableColumns finds the rank column and the option column of a table's
// header (-1 when it has none).
func tableColumns(head string) (rankCol, optCol int) {
	rankCol, optCol = -1, -1
	for i, c := range cells(head) {
		c = strings.ToLower(strings.Trim(c, "*_` "))
		switch {
		case rankCol < 0 && slices.Contains(rankColumns, c):
			rankCol = i
		case optCol < 0 && slices.Contains(optionColumns, c):
			optCol = i
		}
	}
	return rankCol, optCol
}

// tableRow reads a row's rank ("1", "#2", "first") and option cells; ok is
// false when either names none. The option is read (and noted) even when
// the rank is not.
func tableRow(rankCell, optCell string, os *Set) (ranked, bool) {
	r, ok := IntFromText(strings.Trim(rankCell, "*_`#"))
	if !ok {
		r, ok = ordinalWords[LeadingWord(strings.Trim(rankCell, "*_` "))]
	}
	e, found := entry(optCell, float64(r), os)
	return e, ok && found
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
		t, next, ok := nextToken(line, i)
		if ok {
			ts = append(ts, t)
		}
		i = next
	}
	return ts
}

// nextToken reads the token at line[i] and returns where the next one may
// start; ok is false for a byte that starts none (skipped).
func nextToken(line string, i int) (t token, next int, ok bool) {
	c := line[i]
	switch {
	case isASCIILetter(c):
		j := i + 1
		for j < len(line) && (isASCIILetter(line[j]) || line[j] >= '0' && line[j] <= '9' || line[j] == '\'' || line[j] == '-') {
			j++
		}
		return token{s: line[i:j], start: i, end: j, letter: j == i+1 && c <= 'Z'}, j, true
	case strings.IndexByte(",>;.!?:", c) >= 0:
		return token{s: line[i : i+1], start: i, end: i + 1}, i + 1, true
	case strings.HasPrefix(line[i:], "→") || strings.HasPrefix(line[i:], "≻"):
		return token{s: ">", start: i, end: i + 3}, i + 3, true
	}
	return token{}, i + 1, false
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// proseLine reads the prose rankings of one line (starting at text position at).
func proseLine(text, line string, at int, os *Set) []commit {
	ts := tokenize(line)
	var out []commit
	sentence := 0 // index of the first token of the current sentence
	for i := 0; i < len(ts); i++ {
		if endsSentence(ts[i]) {
			sentence = i + 1
			continue
		}
		if !isLetterToken(ts, i) {
			continue
		}
		letters, ordered, last := letterRun(ts, i)
		if len(letters) >= 2 && ordered && aboutRanking(line, ts, sentence, i, last) && !negatedBefore(text, at+ts[i].start) {
			if rk := runRanking(ts, letters, os); len(rk) > 0 {
				out = append(out, commit{pos: at + ts[i].start, end: at + ts[last].end, L: rk[0], rank: rk, method: MethodProseRanking})
			}
		}
		i = last
	}
	return out
}

// letterRun extends a run of letters joined by commas, '>', order words and
// link words from the letter token i: the indices of its letters, whether
// anything orders them ('>' or an order word), and its last letter.
func letterRun(ts []token, i int) (letters []int, ordered bool, last int) {
	last = i
	for j := i; j < len(ts); j++ {
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
			return letters, ordered, last
		}
	}
	return letters, ordered, last
}

// aboutRanking reports whether the sentence holding the run of letters from
// token first to last (the sentence starts at token sentence) is about the
// ranking: it has a ranking word, or at most four words before the run and
// three after it.
func aboutRanking(line string, ts []token, sentence, first, last int) bool {
	end := sentenceEnd(ts, last)
	if rankCues.in(line[ts[min(sentence, first)].start:ts[end-1].end]) {
		return true
	}
	before, after := 0, 0
	for k := sentence; k < first; k++ {
		if !isPunct(ts[k]) {
			before++
		}
	}
	for k := last + 1; k < end; k++ {
		if !isPunct(ts[k]) {
			after++
		}
	}
	return before <= 4 && after <= 3
}

// runRanking is the ranking a run of letters names (letters outside the
// options dropped, with a note).
func runRanking(ts []token, letters []int, os *Set) []string {
	var rk []string
	var seen [26]bool
	for _, k := range letters {
		rk = addLetter(rk, &seen, os.elem(ts[k].s))
	}
	return rk
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
		if endsSentence(ts[k]) {
			return k
		}
	}
	return len(ts)
}

// endsSentence: the token is a full stop, '!', '?' or ';'.
func endsSentence(t token) bool {
	return t.s == "." || t.s == "!" || t.s == "?" || t.s == ";"
}
