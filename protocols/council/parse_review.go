package council

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// Review is a peer review as read: the ranking of the labels shown, best
// first, and what was said of each.
type Review struct {
	// Ranking holds indexes into the labels shown, best first (partial
	// allowed); empty when no ranking could be read.
	Ranking []int
	// Strengths and Weaknesses are what the review said of each label
	// (indexed like the labels; "" when nothing).
	Strengths, Weaknesses []string
	Method                answer.Method // json, json_embedded, ranking_line, or none
	Reason                string        // why Ranking is empty (an answer.Reason constant)
	Err                   string
	Notes                 []string
}

// maxRankItems bounds how many ranking entries are read (hostile output).
const maxRankItems = 64

// ParseReview reads a peer review of the responses shown under labels. The
// ranking comes from the JSON object's "final_ranking" (or "ranking"), else
// from the "FINAL RANKING:" block (a list, one label per line, or one line
// of labels separated by commas or '>'); nothing else is read as a ranking,
// and it is never guessed from prose. An entry names one label, with or
// without "Response" ("Response Bravo", "bravo", "1. **Response Bravo** —
// clearest"). An entry naming no known label is skipped with a note; one
// naming two labels makes the ranking ambiguous (no ranking); a repeated
// label is noted and its later place ignored.
func ParseReview(text string, labels []string) Review {
	rv := Review{Method: answer.MethodNone, Strengths: make([]string, len(labels)), Weaknesses: make([]string, len(labels))}
	norm, body := answer.Prepare(text)
	if strings.TrimSpace(norm) == "" {
		rv.Reason, rv.Err = answer.ReasonEmpty, "empty response"
		return rv
	}
	entries, method, ok := rankingFromJSON(body, labels, &rv)
	if !ok {
		entries, ok = rankingBlock(body)
		method = answer.MethodRankingLine
		rv.reviewLines(body, labels)
	}
	if !ok {
		rv.Reason, rv.Err = answer.ReasonNoAnswer, "no final ranking found"
		return rv
	}
	rv.readRanking(entries, labels)
	if len(rv.Ranking) > 0 {
		rv.Method = method
	}
	return rv
}

// rankingFromJSON reads the ranking entries and reviews of a JSON object.
func rankingFromJSON(body string, labels []string, rv *Review) ([]string, answer.Method, bool) {
	o, m, ok := answer.DecodeObject(body, false)
	if !ok {
		return nil, "", false
	}
	if v, ok := o.Get("reviews", "evaluations"); ok {
		rv.jsonReviews(v, labels)
	}
	v, ok := o.Get("finalranking", "ranking", "rankings")
	if !ok {
		return nil, "", false
	}
	v = answer.TrimRaw(v)
	if len(v) > 0 && v[0] == '"' {
		s, _ := answer.RawString(v)
		return splitInline(s), m, true
	}
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil {
		rv.Notes = append(rv.Notes, "final_ranking is not a list")
		return nil, "", false
	}
	out := make([]string, 0, min(len(items), maxRankItems))
	for _, it := range items[:min(len(items), maxRankItems)] {
		out = append(out, answer.RawText(it))
	}
	return out, m, true
}

// jsonReviews reads {"response": …, "strengths": …, "weaknesses": …} entries.
func (rv *Review) jsonReviews(v json.RawMessage, labels []string) {
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil {
		return
	}
	for _, it := range items[:min(len(items), maxRankItems)] {
		o := answer.DecodeFlat(it)
		name, _ := o.FirstString("response", "label", "id")
		k, _ := labelOf(name, labels)
		if k < 0 {
			continue
		}
		rv.Strengths[k], _ = o.FirstString("strengths", "strength")
		rv.Weaknesses[k], _ = o.FirstString("weaknesses", "weakness")
	}
}

// rankingBlock finds the FINAL RANKING marker and returns its entries: the
// rest of the marker line when it lists labels, else the list lines that
// follow it (up to a blank line after the first entry, or the end).
func rankingBlock(body string) ([]string, bool) {
	lines := strings.Split(body, "\n")
	for i, line := range lines {
		rest, ok := cutMarker(line)
		if !ok {
			continue
		}
		if strings.TrimSpace(rest) != "" {
			return splitInline(rest), true
		}
		var out []string
		for _, l := range lines[i+1:] {
			l = strings.TrimSpace(l)
			if l == "" {
				if len(out) > 0 {
					break
				}
				continue
			}
			if out = append(out, l); len(out) >= maxRankItems {
				break
			}
		}
		return out, true
	}
	return nil, false
}

// cutMarker recognises "FINAL RANKING:" (any case, markdown around it) and
// returns what follows the colon.
func cutMarker(line string) (string, bool) {
	t := strings.TrimLeft(strings.TrimSpace(line), "#*_ ")
	if len(t) < len("final ranking") || !strings.EqualFold(t[:len("final ranking")], "final ranking") {
		return "", false
	}
	t = strings.TrimLeft(t[len("final ranking"):], "*_ ")
	if !strings.HasPrefix(t, ":") {
		return "", false
	}
	return strings.TrimLeft(t[1:], "*_ "), true
}

// splitInline splits "Response Bravo > Response Alpha" or "Bravo, Alpha".
func splitInline(s string) []string {
	sep := ","
	if strings.Contains(s, ">") {
		sep = ">"
	}
	parts := strings.Split(s, sep)
	return parts[:min(len(parts), maxRankItems)]
}

// readRanking turns the entries into label indexes.
func (rv *Review) readRanking(entries []string, labels []string) {
	seen := make([]bool, len(labels))
	for _, e := range entries {
		k, other := labelOf(e, labels)
		switch {
		case other >= 0:
			rv.Ranking = nil
			rv.Reason = answer.ReasonAmbiguous
			rv.Err = fmt.Sprintf("ranking entry %q names both Response %s and Response %s", kit.Truncate(e, 60), labels[k], labels[other])
			return
		case k < 0:
			if w := firstWord(e); w != "" {
				rv.Notes = append(rv.Notes, fmt.Sprintf("ranking entry %q names no response shown; skipped", kit.Truncate(e, 60)))
			}
		case seen[k]:
			rv.Notes = append(rv.Notes, fmt.Sprintf("Response %s ranked twice; its later place ignored", labels[k]))
		default:
			seen[k] = true
			rv.Ranking = append(rv.Ranking, k)
		}
	}
	if len(rv.Ranking) == 0 {
		rv.Reason, rv.Err = answer.ReasonNoAnswer, "the final ranking names no response shown"
	}
}

// labelOf reads the label an entry names: its first word after a list
// number, markup and an optional "Response". other is the index of a second
// known label in the entry's head (before any ":", "(", " - " or dash that
// starts a comment), -1 when none: such an entry ("Alpha or Bravo") is
// ambiguous. Labels named in a comment after the head are not read.
func labelOf(e string, labels []string) (k, other int) {
	head := e
	for _, sep := range []string{":", "(", " - ", "—", "–"} {
		if i := strings.Index(head, sep); i >= 0 {
			head = head[:i]
		}
	}
	words := wordsOf(head)
	start := 0
	if len(words) > 1 && strings.EqualFold(words[0], "response") {
		start = 1
	}
	if len(words) <= start {
		return -1, -1
	}
	if k = indexFold(labels, words[start]); k < 0 {
		return -1, -1
	}
	for _, w := range words[start+1:] {
		if j := indexFold(labels, w); j >= 0 && j != k {
			return k, j
		}
	}
	return k, -1
}

// reviewLines reads "REVIEW Response X: STRENGTHS: … WEAKNESSES: …" lines.
func (rv *Review) reviewLines(body string, labels []string) {
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if len(t) < 7 || !strings.EqualFold(t[:7], "review ") {
			continue
		}
		head, rest, ok := strings.Cut(t[7:], ":")
		k, _ := labelOf(head, labels)
		if !ok || k < 0 {
			continue
		}
		s, w, _ := strings.Cut(rest, "WEAKNESSES:")
		rv.Strengths[k] = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "STRENGTHS:"))
		rv.Weaknesses[k] = strings.TrimSpace(w)
	}
}

// wordsOf splits s into words of letters.
func wordsOf(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
}

func firstWord(s string) string {
	if w := wordsOf(s); len(w) > 0 {
		return w[0]
	}
	return ""
}

func indexFold(list []string, w string) int {
	for i, x := range list {
		if strings.EqualFold(x, w) {
			return i
		}
	}
	return -1
}
