package teamwork

import (
	"slices"
	"strings"
	"unicode"
)

// Fact matching: when two agents state "the same fact". Seed 002 §3 fills
// SMM's verified facts without a leader by AutomatedFactIntersection(R₂);
// the reference (SLM-TeamMedAgents shared_mental_model.py,
// extract_facts_intersection) counts exact strings ("simple string
// matching"), which free text from real models rarely repeats, so a
// leaderless SMM would verify almost nothing. We match facts as a reader
// would, on their content:
//
//  1. Normalise: lower-case; split into words (runs of letters or digits, a
//     decimal point kept between digits; "n't" reads as "not"); map the
//     direction words to one word (high, higher, elevated, elevation,
//     raised, increase(d/s) → high; low, lower, decrease(d/s), reduced,
//     reduces, reduction, diminished → low); drop the function words and
//     clinical filler of factStopwords; stem what is left (factStem).
//  2. Two facts can match only when they state the same numbers (every word
//     with a digit, as a set: "K 6.5" never matches "K 3.1"), the same
//     polarity (whether a negation cue — no, not, without, absent, negative,
//     … — occurs: "fever" never matches "no fever") and no opposite
//     directions (one fact only high, the other only low: "the murmur
//     increases" never matches "the murmur decreases"). A fact with both
//     directions ("high TSH and low free T4") matches only a fact with the
//     same content words, numbers and directions in the same order, since
//     swapping which finding is high states the opposite ("low TSH and high
//     free T4").
//  3. They match when their content words overlap by FactMatchThreshold or
//     more, by the Dice coefficient 2|A∩B| / (|A|+|B|); two facts whose
//     normalised text is equal always match.
//
// The threshold is not fitted to any evaluation data: it is the rule's
// reading of "the same fact" (over two thirds of the two facts' content
// words shared: 3 of 4 words each match, 2 of 3 do not — "chest pain
// radiates to the left arm" is not "… to the back"), checked on paraphrase
// and non-paraphrase pairs written for the test (TestFactMatchPairs). Known limits: a synonym outside the direction
// words ("renal" / "kidney") counts as a different word, and two long facts
// differing in one named entity can match.
const FactMatchThreshold = 0.7

// factKey is a fact as the matching rule reads it.
type factKey struct {
	norm    string   // lower-cased, white space joined, no final period
	words   []string // content stems, sorted, distinct
	numbers string   // the words with a digit, sorted, joined by spaces
	negated bool
	dir     string // "high" or "low" when the fact has only that direction word, else ""
	// mixed: the fact has both directions ("high TSH and low free T4");
	// seq is its content in order (stems, numbers, direction labels), the
	// only thing such a fact is compared by: which finding is high and
	// which low is in the order, and swapped findings are opposite facts.
	mixed bool
	seq   string
}

var factDirection = map[string]string{
	"high": "high", "higher": "high", "elevated": "high", "elevation": "high", "raised": "high",
	"increase": "high", "increased": "high", "increases": "high",
	"low": "low", "lower": "low", "decrease": "low", "decreased": "low", "decreases": "low",
	"reduced": "low", "reduces": "low", "reduction": "low", "diminished": "low",
}

var factNegations = map[string]bool{
	"no": true, "not": true, "without": true, "absent": true, "absence": true, "negative": true,
	"never": true, "none": true, "non": true, "neither": true, "nor": true,
	"denies": true, "denied": true, "lack": true, "lacks": true, "lacking": true,
}

// factStopwords are English function words and the filler clinical facts
// are phrased with ("the patient has …", "… is consistent with …").
var factStopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the of in on at to for with by from as into onto over under about
		after before during within between per via
		than then and or but if so that this these those it its is are was were be been being
		has have had having do does did can could may might must should would will shall
		which who whom whose what when where while there their they them he she his her him
		patient patients case also both either each such very more most less least
		suggest suggests suggesting suggestive indicate indicates indicating indicative
		consistent compatible likely present presents presence seen noted show shows showing shown
		finding findings`) {
		factStopwords[w] = true
	}
}

// factKeyOf reads one fact.
func factKeyOf(s string) factKey {
	k := factKey{norm: normFact(s)}
	text := strings.ReplaceAll(k.norm, "n't", " not")
	var nums, seq []string
	seen := map[string]bool{}
	for _, w := range factWords(text) {
		switch {
		case strings.ContainsFunc(w, unicode.IsDigit):
			nums = append(nums, w)
			seq = append(seq, w)
		case factNegations[w]:
			k.negated = true
			seq = append(seq, "not")
		case factDirection[w] != "":
			d := factDirection[w]
			seen[d] = true
			seq = append(seq, d)
			if k.dir == "" || k.dir == d {
				k.dir = d
			} else {
				k.dir = "both"
			}
		case !factStopwords[w]:
			seen[factStem(w)] = true
			seq = append(seq, factStem(w))
		}
	}
	k.seq = strings.Join(seq, " ")
	for w := range seen {
		k.words = append(k.words, w)
	}
	if k.dir == "both" {
		k.dir, k.mixed = "", true
	}
	slices.Sort(k.words)
	slices.Sort(nums)
	k.numbers = strings.Join(slices.Compact(nums), " ")
	return k
}

// factWords splits lower-cased text into runs of letters or digits, keeping
// a decimal point between two digits ("6.5").
func factWords(s string) []string {
	r := []rune(s)
	var out []string
	start := -1
	for i, c := range r {
		in := unicode.IsLetter(c) || unicode.IsDigit(c) ||
			(c == '.' && i > 0 && i+1 < len(r) && unicode.IsDigit(r[i-1]) && unicode.IsDigit(r[i+1]))
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			out = append(out, string(r[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, string(r[start:]))
	}
	return out
}

// factStem strips one inflectional suffix so the forms of a word meet
// ("caused", "causes", "cause" → "caus"; "waves" → "wav"; "studies" →
// "study"): the first of ations, ation, ies→y, ied→y, ing, ed, es, s (not
// after s, u or i) that ends the word, when at least three letters remain
// (four for ing and ed: "bleed" stays), then a final e.
func factStem(w string) string {
	if len([]rune(w)) <= 3 {
		return w
	}
	for _, s := range []struct{ suffix, repl string }{
		{"ations", ""}, {"ation", ""}, {"ies", "y"}, {"ied", "y"}, {"ing", ""}, {"ed", ""}, {"es", ""}, {"s", ""},
	} {
		if !strings.HasSuffix(w, s.suffix) {
			continue
		}
		stem := strings.TrimSuffix(w, s.suffix)
		if s.suffix == "s" && strings.ContainsAny(stem[len(stem)-1:], "sui") {
			break
		}
		if n := len([]rune(stem)); n >= 4 || n == 3 && s.suffix != "ing" && s.suffix != "ed" {
			w = stem + s.repl
		}
		break
	}
	if strings.HasSuffix(w, "e") && len([]rune(w)) > 3 {
		w = strings.TrimSuffix(w, "e")
	}
	return w
}

// factSimilarity is the Dice coefficient of two facts' content words; 0
// when their numbers, polarity or direction differ, 1 when their normalised
// text is equal.
func factSimilarity(a, b factKey) float64 {
	if a.norm == b.norm || (a.mixed || b.mixed) && a.seq == b.seq {
		return 1
	}
	if !factsComparable(a, b) {
		return 0
	}
	common := 0
	for _, w := range a.words {
		if _, ok := slices.BinarySearch(b.words, w); ok {
			common++
		}
	}
	return 2 * float64(common) / float64(len(a.words)+len(b.words))
}

// factsComparable: two facts may be the same only with the same numbers and
// polarity, no opposite directions, no fact with both directions (those
// match only in the same order, above) and content words in each.
func factsComparable(a, b factKey) bool {
	return !a.mixed && !b.mixed && a.numbers == b.numbers && a.negated == b.negated &&
		(a.dir == "" || b.dir == "" || a.dir == b.dir) && len(a.words) > 0 && len(b.words) > 0
}

// factsMatch reports whether two facts state the same thing by the rule
// above.
func factsMatch(a, b factKey) bool { return factSimilarity(a, b) >= FactMatchThreshold }
