// Package suggest finds, for a name the user mistyped, the closest of the
// names that exist: "did you mean …?" for flags, commands and arms.
package suggest

import "strings"

// Distance is the edit distance between a and b, in runes: the fewest
// insertions, deletions, substitutions and swaps of two adjacent runes
// that turn a into b (Levenshtein with transpositions, the optimal string
// alignment distance: "modle" is 1 from "model").
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1) // d[i][j]: distance of ra[:i] and rb[:j]
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// Closest returns the candidate nearest to word (case-insensitive) when it
// is near enough to be a typo: at most a third of the longer name's runes
// away, and at least 1 — or one that begins with word or that word begins
// with ("conf" → "config"); never one that shares no rune in place with
// word (a distance of word's whole length: "z" is not a typo of "x"). Ties go to the earlier candidate; ok is false
// when none is near.
func Closest(word string, candidates []string) (best string, ok bool) {
	w := strings.ToLower(strings.TrimSpace(word))
	if w == "" {
		return "", false
	}
	bestD := -1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := Distance(w, lc)
		if d >= len([]rune(w)) || d > near(w, lc) && !prefixed(w, lc) {
			continue
		}
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	return best, bestD >= 0
}

// near is how far two names may be for one to be a typo of the other.
func near(a, b string) int {
	return max(1, max(len([]rune(a)), len([]rune(b)))/3)
}

// prefixed reports whether one name begins the other (at least 3 runes).
func prefixed(a, b string) bool {
	if len(a) < 3 || len(b) < 3 {
		return false
	}
	return strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
}
