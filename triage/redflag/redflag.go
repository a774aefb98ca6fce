// Package redflag is seed 003's deterministic red-flag triage: named rules,
// kept as data (configs/redflags.yaml), that escalate a case before any
// model is called. A rule is a conjunction of case-insensitive regular
// expressions (RE2): it fires on a text when every one of its patterns
// matches somewhere outside a negated clause. Rules are tried in file order
// and the first that fires wins, so a match is deterministic.
//
// Negation (on unless a rule says negation: false) is NegEx-like and
// deliberately simple: a match is negated when, in its sentence (text
// between . ; ! ? followed by white space), a negation cue — no, not, n't,
// denies/denied/deny/denying, without, never, nor, negative for, absence
// of, free of — comes before it with no scope terminator (but, however,
// although, though, except, yet) in between. "No tongue swelling, no
// stridor" and "he denies any fever, chills or back pain" are negated;
// "no fever but a stiff neck" is not. A rule whose own pattern contains its
// negation ("did not get relief from the inhaler") turns it off.
//
// Every rule carries positive example phrases (each must fire that rule)
// and negative ones (each must fire no rule of the set); Parse checks them,
// so a file that loads behaves as its examples say.
package redflag

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// Rule is one named red-flag rule.
type Rule struct {
	Name        string
	Description string
	// Level is the code of the urgency level the rule escalates to; "" (the
	// default) is the scale's most urgent level. A code the item's scale
	// does not have also means the most urgent level.
	Level    string
	Patterns []string // every one must match (case-insensitive)
	Negation bool     // matches inside a negated clause do not count
	Positive []string // phrases that must fire this rule
	Negative []string // phrases that must fire no rule
	Line     int      // the rule's line in its file

	res []*regexp.Regexp
}

// Rules is a parsed red-flag file.
type Rules struct {
	Source string // the file name errors are reported against
	// Name names the set in rows and the manifest: the file's name: key,
	// else Source.
	Name string
	// DevelopedOn is what the file's developed_on: key says the rules were
	// written while looking at ("" when it says nothing): a set developed
	// on an evaluation set gives in-sample figures on it, and the report
	// says so.
	DevelopedOn string
	SHA256      string // hex SHA-256 of the file's bytes
	Rules       []Rule
}

// Fires reports whether every pattern of r matches text outside a negated
// clause (when r.Negation).
func (r *Rule) Fires(text string) bool {
	for _, re := range r.res {
		if !matchesOutsideNegation(re, text, r.Negation) {
			return false
		}
	}
	return len(r.res) > 0
}

// Match returns the first rule of the set that fires on text (its white
// space joined first, so patterns match across the line breaks of wrapped
// case texts).
func (rs *Rules) Match(text string) (*Rule, bool) {
	if rs == nil {
		return nil, false
	}
	text = normalize(text)
	for i := range rs.Rules {
		if rs.Rules[i].Fires(text) {
			return &rs.Rules[i], true
		}
	}
	return nil, false
}

// Names lists the rules' names in file order.
func (rs *Rules) Names() []string {
	out := make([]string, len(rs.Rules))
	for i, r := range rs.Rules {
		out[i] = r.Name
	}
	return out
}

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

var (
	negationCue = regexp.MustCompile(`(?i)\b(no|not|denies|denied|deny|denying|without|never|nor|negative\s+for|absence\s+of|free\s+of)\b|n't\b`)
	scopeEnd    = regexp.MustCompile(`(?i)\b(but|however|although|though|except|yet)\b`)
	sentenceEnd = regexp.MustCompile(`[.;!?](\s|$)`)
)

// matchesOutsideNegation reports whether re matches text at a place that is
// not negated (any place when negation is off).
func matchesOutsideNegation(re *regexp.Regexp, text string, negation bool) bool {
	for _, m := range re.FindAllStringIndex(text, -1) {
		if !negation || !negated(text, m[0]) {
			return true
		}
	}
	return false
}

// negated reports whether a negation cue governs position at: one earlier in
// its sentence with no scope terminator after it.
func negated(text string, at int) bool {
	start := 0
	for _, e := range sentenceEnd.FindAllStringIndex(text[:at], -1) {
		start = e[1]
	}
	clause := text[start:at]
	if ends := scopeEnd.FindAllStringIndex(clause, -1); len(ends) > 0 {
		clause = clause[ends[len(ends)-1][1]:]
	}
	return negationCue.MatchString(clause)
}

// normalize joins white space.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }
