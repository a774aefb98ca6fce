// Output parsers: one per call kind of FORMATS.md. Each accepts the JSON
// object (whole text, fenced, embedded in prose, or truncated) and the
// labelled plain-text lines, whichever the model wrote, and records how the
// answer was read. Nothing here ever invents an answer: an unreadable answer
// is an abstention with a reason code (Answer.Reason) and a sentence (Err).
//
// Letters are only ever the question's own option letters, read by letterOf
// and readLetter, which refuse a letter that is the start of a word and treat
// the capitals "A" and "I" (an article and a pronoun in English prose) as
// letters only when what follows them cannot be prose. A letter given with
// another option's text ("B) Ceftriaxone" when ceftriaxone is C, as after
// --shuffle-options) names no known option: a ranking stops before it and a
// commitment to it is ambiguous. Full-width forms ("Ａ", "：") are read as
// their ASCII letters and marks.
//
// Structured answers are authoritative: a JSON ranking (an array, a "B > A"
// string, or an object mapping positions to letters or letters to ranks), a
// RANKING line, a list under a RANKING header, a line that is only a chain of
// options, or a markdown table with a rank and an option column (but a list
// of the options in their own order without a RANKING label is a
// restatement of the question, not a ranking). Free text is
// read carefully (parse_commit.go): only explicit commitments count, negated
// or excluded options ("B is not indicated", "rather than B", "A and D can be
// excluded") are not commitments, and two commitments to different options
// without a clear conclusion ("final answer", "in conclusion", a revision
// such as "on reflection") are an abstention with reason "ambiguous", never a
// guess.
//
// What the parsers do not take as written is recorded in Notes, one short
// sentence each, never silently dropped or rescaled:
//   - a letter that is not one of the options is ignored, with a note; an
//     authoritative answer (the JSON answer, the RANKING line) that names
//     only such letters is an abstention (not_an_option), not a fallback to
//     the reasoning;
//   - an element whose letter and text disagree, and a ranking object giving
//     two options the same rank, are noted;
//   - a structured ranking whose text states another first choice ("the
//     final answer is A" beside a ranking led by C) is used, with a note;
//   - a confidence must be a number in [0,1]. A bare number outside it (85,
//     1.7, -0.2) is not rescaled, because 85 may be a percentage, a score out
//     of 100 or a slip: it is recorded as unknown (-1) with a note, as is a
//     word ("high"). An explicit percentage ("85%", "85 percent") or fraction
//     ("7/10") has its unit and is converted, with a note saying so.

package teamwork

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/medteam-bench/medteam/qa"
)

// ParseMethod records how an answer was read.
type ParseMethod string

// How an answer was read, from the most to the least structured.
const (
	MethodJSON         ParseMethod = "json"           // whole text is the JSON object
	MethodJSONEmbedded ParseMethod = "json_embedded"  // JSON object inside fences or surrounding prose
	MethodJSONPartial  ParseMethod = "json_partial"   // a JSON object that does not decode (cut off, or malformed) read tolerantly
	MethodRankingLine  ParseMethod = "ranking_line"   // RANKING: B, A, C / B > A > C / numbered list under a RANKING header
	MethodAnswerLine   ParseMethod = "answer_line"    // ANSWER: B / "The answer is B" / "I'd go with B" / "B is correct" / a lone "B"
	MethodLatex        ParseMethod = "latex"          // $B$, \boxed{B}, $\boxed{B}$
	MethodBold         ParseMethod = "bold"           // **B** or **B)** or **B. text**
	MethodParen        ParseMethod = "paren"          // a lone "(B)" marker
	MethodOptionText   ParseMethod = "option_text"    // a reply that is (or opens with) one option's text, or "<text> is correct"
	MethodLabelled     ParseMethod = "labelled_lines" // the plain-text labelled lines of FORMATS.md (non-ranking kinds)
	MethodRankTable    ParseMethod = "rank_table"     // a markdown table with a rank column and an option column
	MethodProseRanking ParseMethod = "prose_ranking"  // "C, then A, then B" / "C first, followed by A and B"
	MethodNone         ParseMethod = "none"
)

// Answer is an agent's answer (kinds predict, discuss, final, and the answer
// part of monitor_respond).
type Answer struct {
	Ranking    []string // distinct option letters, best first; partial allowed; empty = abstention
	Confidence float64  // in [0,1]; -1 when absent or unparseable
	Reasoning  string
	Facts      []string
	Method     ParseMethod
	Err        string   // why nothing could be read (set iff Ranking is empty)
	Reason     string   // abstention reason, one of the Reason constants (set iff Ranking is empty)
	Notes      []string // what was read but not taken as written (see the package comment)
}

// Abstention reasons: why an answer names no option (Answer.Reason,
// TieBreak.Reason, Mediation.Reason).
const (
	ReasonEmpty       = "empty"         // the response is empty
	ReasonNoAnswer    = "no_answer"     // nothing in the text names one option as the answer
	ReasonAmbiguous   = "ambiguous"     // the text commits to different options without a clear conclusion
	ReasonNotAnOption = "not_an_option" // the answer names only letters that are not options (for a tie-break: not tied)
	ReasonRefusal     = "refusal"       // the model declines to answer
	ReasonTruncated   = "truncated"     // a JSON answer was cut off before its ranking
	ReasonNoOptions   = "no_options"    // the question has no option letters
)

// First is the first choice, "" when abstained.
func (a Answer) First() string {
	if len(a.Ranking) == 0 {
		return ""
	}
	return a.Ranking[0]
}

// Assessment is the recruiter's answer to assess.
type Assessment struct {
	Agents   int // 0 when unparsed; a value outside 2..4 is kept and reported in Err
	Analysis string
	Method   ParseMethod
	Err      string
}

// RoleSpec is one recruited role.
type RoleSpec struct{ Name, Focus string }

// Roster is the recruiter's answer to recruit, most senior first. The caller
// checks the count.
type Roster struct {
	Roles  []RoleSpec
	Method ParseMethod
	Err    string
}

// Mediation is the leader's answer to mediate.
type Mediation struct {
	Summary string
	Leaning string // "" when none or not one of the options
	Method  ParseMethod
	Err     string   // set when neither a summary nor a leaning could be read
	Reason  string   // why Leaning is "" (a Reason constant; set iff Leaning is "")
	Notes   []string // as Answer.Notes
}

// Concern is the leader's answer to monitor_select.
type Concern struct {
	Agent  int // 0-based; -1 when unparsed or outside 1..n (the model's value is 1-based)
	Text   string
	Method ParseMethod
	Err    string
}

// ConcernReply is the target agent's answer to monitor_respond.
type ConcernReply struct {
	Response string
	Accepts  bool
	Answer   Answer // parsed like ParseAnswer (may abstain; its notes are Answer.Notes)
	Method   ParseMethod
	Err      string   // set when neither the response nor the acceptance could be read
	Notes    []string // an acceptance that is not a plain yes or no ("partially" read as no)
}

// Rating is the leader's answer to monitor_rate.
type Rating struct {
	Quality      float64 // in [0,1]; -1 when unparsed (then Err is set) or out of range (then a note says so; never clamped)
	DebatedPoint string
	Method       ParseMethod
	Err          string
	Notes        []string
}

// TieBreak is the leader's answer to tiebreak.
type TieBreak struct {
	Answer string // one of the tied letters, or "" with Err set
	Method ParseMethod
	Err    string
	Reason string   // why Answer is "" (a Reason constant; set iff Answer is "")
	Notes  []string // as Answer.Notes
}

// Limits that keep every parser linear-ish on hostile input.
const (
	maxObjectTries = 32  // '{' positions ExtractJSON tries
	maxRepairDepth = 64  // nesting a truncated object may have
	maxUnwrap      = 3   // {"answer": {...}} wrappers looked through
	maxLead        = 400 // bytes read after an answer marker
	maxTextSpans   = 512 // option-text occurrences considered
)

var letterStr = func() (t [26]string) {
	for i := range t {
		t[i] = string(rune('A' + i))
	}
	return t
}()

// ---------------------------------------------------------------------------
// Option sets and letters

// optSet is the question's option letters (upper case) and texts, and the
// notes of the parse call it belongs to (one optSet per call; the shared
// anyLetters is normalised up front and never written afterwards).
type optSet struct {
	letters []string
	idx     [26]uint8 // 1 + the index in letters of each option letter; 0 when not an option
	texts   []string  // in letters order: the option texts, normalised in place on first use
	normed  bool      // texts are lower case, single-spaced, outer punctuation trimmed

	tied     bool     // the letters are the tied options of a tie-break (for notes)
	notes    []string // see the package comment
	nbad     int      // letters read that are not options (counted even when the note repeats)
	nunknown int      // ranking elements whose option is unknown: a letter with another option's text, a shared best rank
	overflow bool     // a free text had more than maxCommits commitments of one kind
}

func newOptSet(options []qa.Option) *optSet {
	n := min(len(options), 26)
	back := make([]string, 0, 2*n) // one allocation for letters and texts
	s := &optSet{letters: back[:0:n], texts: back[n:n]}
	for _, o := range options {
		l := strings.TrimSpace(o.Letter)
		if len(l) != 1 {
			continue
		}
		c := upperASCII(l[0])
		if c < 'A' || c > 'Z' || s.idx[c-'A'] != 0 || len(s.letters) == n {
			continue
		}
		s.letters = append(s.letters, letterStr[c-'A'])
		s.texts = append(s.texts, o.Text)
		s.idx[c-'A'] = uint8(len(s.letters))
	}
	return s
}

// isOption reports whether the upper-case ASCII letter c is an option.
func (s *optSet) isOption(c byte) bool { return c >= 'A' && c <= 'Z' && s.idx[c-'A'] != 0 }

// text is the normalised text of the option with letter L (computed on first
// use: a clean JSON ranking of letters never needs it).
func (s *optSet) text(L string) string {
	if !s.normed {
		for i, t := range s.texts {
			s.texts[i] = normText(t)
		}
		s.normed = true
	}
	return s.texts[s.idx[L[0]-'A']-1]
}

func lettersOnly(letters []string) *optSet {
	opts := make([]qa.Option, len(letters))
	for i, l := range letters {
		opts[i] = qa.Option{Letter: l}
	}
	s := newOptSet(opts)
	s.normed = true
	return s
}

// anyLetters is A–Z without texts (read-only after init): what a model may
// name as an option letter, used only to notice a letter that is not one of
// the options.
var anyLetters = lettersOnly(strings.Split("A,B,C,D,E,F,G,H,I,J,K,L,M,N,O,P,Q,R,S,T,U,V,W,X,Y,Z", ","))

// note records a note once.
func (s *optSet) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	if !slices.Contains(s.notes, n) {
		s.notes = append(s.notes, n)
	}
}

// noteBad records that the letter L was named but is not an option.
func (s *optSet) noteBad(L string) {
	s.nbad++
	if s.tied {
		s.note("letter %q is not a tied option (tied options %s); ignored", L, s.span())
		return
	}
	s.note("letter %q is not an option (options %s); ignored", L, s.span())
}

// span shows the options compactly: "A–D" when they run from A, else the list.
func (s *optSet) span() string {
	n := len(s.letters)
	if n > 2 && s.letters[0] == "A" && s.letters[n-1] == letterStr[n-1] {
		return "A–" + s.letters[n-1]
	}
	return s.list()
}

// badLetter reads a letter that is not an option at the start of s (markup
// already stripped), strictly (as readLetter without loose): "" when s does
// not start with a letter or starts with an option's letter.
func (s *optSet) badLetter(c string) string {
	L := readLetter(c, anyLetters, false)
	if L == "" || s.isOption(L[0]) {
		return ""
	}
	return L
}

// elem reads one element naming an option (letterOf). An element that is a
// letter outside the options is noted; so is one whose letter and text name
// different options ("B) Ceftriaxone" when ceftriaxone is C), which also
// counts in nunknown: a ranking stops there, as the option meant is unknown.
func (s *optSet) elem(e string) string {
	if L := letterOf(e, s); L != "" {
		return L
	}
	c := cleanLead(e)
	if L := readLetter(c, s, false); L != "" {
		if L2 := s.clash(c, L); L2 != "" {
			s.nunknown++
			if len(e) > 60 {
				e = e[:60] + "…"
			}
			s.note("%q names %s but the text of %s; not read", strings.TrimSpace(e), L, L2)
		}
		return ""
	}
	if L := s.badLetter(c); L != "" {
		s.noteBad(L)
	}
	return ""
}

// clash returns the other option whose text follows the letter L that c
// starts with ("B) Ceftriaxone" when ceftriaxone is C's text), or "".
func (s *optSet) clash(c, L string) string {
	rest := strings.TrimLeft(c[1:], ")]}.:*_ \t-–—")
	if rest == "" {
		return ""
	}
	if t := s.text(L); t != "" {
		if _, ok := textPrefixLen(rest, t); ok {
			return ""
		}
	}
	if L2, _ := textPrefix(rest, s); L2 != L {
		return L2
	}
	return ""
}

func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// letter returns the upper-case letter for the ASCII letter c when it is one
// of the options.
func (s *optSet) letter(c byte) string {
	c = upperASCII(c)
	if !s.isOption(c) {
		return ""
	}
	return letterStr[c-'A']
}

func (s *optSet) list() string { return strings.Join(s.letters, ", ") }

// normText lower-cases s, collapses white space and trims outer punctuation.
func normText(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.Trim(s, " .,;:!?*_`\"'()[]")
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// isCJK: Chinese, Japanese and Korean script is written without spaces, so a
// letter followed by it ("C选项", "Cです") still stands alone.
func isCJK(r rune) bool {
	return r >= 0x2E80 && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul))
}

var (
	reNumbering = regexp.MustCompile(`^(?:#?\d{1,2}\s*(?:[):]|\.\s)|\d{1,2}(?:st|nd|rd|th)\b\s*[.):-]?)\s*`)
	reOptWord   = regexp.MustCompile(`(?i)^(?:option|choice|answer|letter)s?\b\s*(?:[:#=]\s*)?`)
	reTailParen = regexp.MustCompile(`^(.*?)\s*\(\s*([A-Za-z])\s*\)[\s.*_]*$`)
)

var latexPrefixes = [...]string{`\boxed{`, `\boxed {`, `\text{`, `\textbf{`, `\mathrm{`, `\mathbf{`, `\mathbf {`, `\bf{`}

// cleanLead strips what may precede a letter: white space, markup, quotes,
// opening brackets, LaTeX wrappers, list numbering and the words "Option",
// "Choice", "Answer", "Letter".
func cleanLead(s string) string {
	for range 12 {
		prev := s
		s = strings.TrimLeft(s, " \t\r\n\u00a0*_`\"'“”‘’$([{#>•·~-")
		for _, p := range latexPrefixes {
			s = strings.TrimPrefix(s, p)
		}
		if loc := reNumbering.FindStringIndex(s); loc != nil && loc[1] > 0 && loc[1] < len(s) {
			s = s[loc[1]:]
		}
		if loc := reOptWord.FindStringIndex(s); loc != nil && loc[1] > 0 && loc[1] < len(s) {
			s = s[loc[1]:]
		}
		if s == prev {
			break
		}
	}
	return s
}

// connectors may follow a letter that is also an English word ("A", "I",
// lower-case "a") without making it prose: "A because ...".
var connectors = map[string]bool{
	"because": true, "since": true, "as": true, "given": true, "due": true, "based": true,
	"per": true, "which": true, "considering": true, "owing": true, "whereas": true, "while": true,
}

// readLetter reads an option letter at the very start of s (markup already
// stripped). The letter must not begin a word ("Amoxicillin", "X-linked",
// "A's"; CJK script after it is not a word of the same kind). What may follow it: the end, a delimiter ") . : , ] * $", or white
// space and then a bracket, a dash, a connector word ("because") or the
// option's own text. With loose (after an explicit answer marker) an
// upper-case letter other than A and I may be followed by anything.
func readLetter(s string, os *optSet, loose bool) string {
	if s == "" {
		return ""
	}
	c := s[0]
	L := os.letter(c)
	if L == "" {
		return ""
	}
	rest := s[1:]
	if rest == "" {
		return L
	}
	r, n := utf8.DecodeRuneInString(rest)
	if isWordRune(r) && !isCJK(r) {
		return ""
	}
	switch r {
	case '-', '.', '\'', '’', '&', '/':
		r2, _ := utf8.DecodeRuneInString(rest[n:])
		if isWordRune(r2) && !isCJK(r2) {
			return ""
		}
		return L
	}
	if r == '\n' || !unicode.IsSpace(r) {
		return L
	}
	after := strings.TrimLeftFunc(rest, func(r rune) bool { return r != '\n' && unicode.IsSpace(r) })
	if after == "" || after[0] == '\n' {
		return L
	}
	if loose && c >= 'B' && c <= 'Z' && c != 'I' {
		return L
	}
	r3, _ := utf8.DecodeRuneInString(after)
	if strings.ContainsRune("([{-–—:=>,;|/*$", r3) {
		return L
	}
	if connectors[leadingWord(after)] {
		return L
	}
	if t := os.text(L); t != "" {
		if _, ok := textPrefixLen(after, t); ok {
			return L
		}
	}
	return ""
}

func leadingWord(s string) string {
	end := 0
	for end < len(s) && end < 16 && (s[end] >= 'a' && s[end] <= 'z' || s[end] >= 'A' && s[end] <= 'Z') {
		end++
	}
	return strings.ToLower(s[:end])
}

// textPrefixLen reports whether s begins (after white space) with the
// normalised option text t, ignoring case and the amount of white space, and
// followed by a word boundary; n is the number of bytes of s matched.
func textPrefixLen(s, t string) (n int, ok bool) {
	i := len(s) - len(strings.TrimLeftFunc(s, unicode.IsSpace))
	for j := 0; j < len(t); {
		tr, tn := utf8.DecodeRuneInString(t[j:])
		j += tn
		if tr == ' ' {
			k := i + len(s[i:]) - len(strings.TrimLeftFunc(s[i:], unicode.IsSpace))
			if k == i {
				return 0, false
			}
			i = k
			continue
		}
		if i >= len(s) {
			return 0, false
		}
		sr, sn := utf8.DecodeRuneInString(s[i:])
		if sr != tr && unicode.ToLower(sr) != tr {
			return 0, false
		}
		i += sn
	}
	if r, _ := utf8.DecodeRuneInString(s[i:]); i < len(s) && isWordRune(r) {
		return 0, false
	}
	return i, true
}

// textPrefix returns the letter whose option text s begins with (the longest
// such text; "" when two options share it) and the bytes of s it covers.
func textPrefix(s string, os *optSet) (string, int) {
	best, bestLen, bestN, tie := "", 0, 0, false
	for _, L := range os.letters {
		t := os.text(L)
		if t == "" || len(t) < bestLen {
			continue
		}
		n, ok := textPrefixLen(s, t)
		if !ok {
			continue
		}
		if len(t) == bestLen {
			tie = true
			continue
		}
		best, bestLen, bestN, tie = L, len(t), n, false
	}
	if tie {
		return "", 0
	}
	return best, bestN
}

// letterOf reads one element that should name one option: "B", "b)",
// "Option B", "1. Option B", "B) Tetracycline", "**B**", "(B)", the whole
// text of one option, or "Tetracycline (B)". It returns "" when the element
// is not clearly one of the question's letters, or names a letter with
// another option's text.
func letterOf(s string, os *optSet) string {
	if len(s) == 1 {
		return os.letter(s[0])
	}
	c := cleanLead(s)
	if l := readLetter(c, os, false); l != "" {
		if os.clash(c, l) != "" {
			return ""
		}
		return l
	}
	return letterByText(s, c, os)
}

// letterByText matches a whole option text (raw or cleaned), or "text (X)"
// where the text is X's own.
func letterByText(raw, cleaned string, os *optSet) string {
	for _, cand := range [2]string{cleaned, raw} {
		n := normText(cand)
		if n == "" {
			continue
		}
		match := ""
		for _, L := range os.letters {
			if os.text(L) == n {
				if match != "" {
					return "" // two options share the text
				}
				match = L
			}
		}
		if match != "" {
			return match
		}
	}
	if m := reTailParen.FindStringSubmatch(strings.TrimSpace(raw)); m != nil {
		if L := os.letter(m[2][0]); L != "" {
			if p := normText(m[1]); p == "" || p == os.text(L) {
				return L
			}
		}
	}
	return ""
}

// bareOption is stricter than letterOf: the element is only the option — its
// letter (with markup), its letter and own text, or its whole text.
func bareOption(item string, os *optSet) string {
	c := cleanLead(item)
	if c == "" {
		return ""
	}
	if L := readLetter(c, os, false); L != "" {
		rest := strings.Trim(c[1:], " \t)]}*_$.:;,!?-–—\"'`\\")
		if rest == "" {
			return L
		}
		if t := os.text(L); t != "" && normText(rest) == t {
			return L
		}
		return ""
	}
	return letterByText(item, c, os)
}

// addLetter appends L unless it is already there.
func addLetter(out []string, seen *[26]bool, L string) []string {
	if L == "" || seen[L[0]-'A'] {
		return out
	}
	seen[L[0]-'A'] = true
	return append(out, L)
}

var (
	reRankSep    = regexp.MustCompile(`(?i)\s*(?:=>|->|>+|≻|→|,|;|\||\bthen\b)\s*`)
	reInlineRank = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)#?\d{1,2}[.)]\s+`) })
)

// parseRankList reads "B, A, C", "B > A > C", "[B, A]", "B A C", "BAC",
// "1. B 2. A 3. C". It stops at an element whose letter and text disagree.
func parseRankList(s string, os *optSet) []string {
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

func allSingle(f []string, os *optSet) bool {
	for _, w := range f {
		w = strings.Trim(w, "\"'*_`()[].")
		if len(w) != 1 || os.letter(w[0]) == "" {
			return false
		}
	}
	return true
}

// compactLetters: "BACD" — at least two distinct upper-case option letters and nothing else.
func compactLetters(s string, os *optSet) bool {
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

// ---------------------------------------------------------------------------
// JSON

// ExtractJSON finds the JSON object in a model's text: the whole text, a
// ```json fenced block, or the first balanced {...} (string-aware brace
// matching) that decodes. embedded is false only when the whole text (white
// space trimmed) is the object. ok=false if no object decodes.
func ExtractJSON(text string) (obj []byte, embedded bool, ok bool) {
	t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "\ufeff"))
	if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
		if b := []byte(t); json.Valid(b) {
			return b, false, true
		}
	}
	if strings.Contains(t, "```") {
		for _, m := range reFence.FindAllStringSubmatch(t, 8) {
			inner := strings.TrimSpace(m[1])
			if strings.HasPrefix(inner, "{") {
				if b := []byte(inner); json.Valid(b) {
					return b, true, true
				}
			}
		}
	}
	tries := 0
	for i := 0; i < len(t) && tries < maxObjectTries; {
		j := strings.IndexByte(t[i:], '{')
		if j < 0 {
			break
		}
		start := i + j
		i = start + 1
		if !objectStart(t, start) {
			continue
		}
		tries++
		end := matchBrace(t, start)
		if end < 0 {
			// Never closed: every later '{' is inside this object (a cut-off
			// answer), so none of them is the answer's object.
			break
		}
		if b := []byte(t[start:end]); json.Valid(b) {
			return b, true, true
		}
	}
	return nil, false, false
}

var reFence = regexp.MustCompile("(?s)```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)```")

// objectStart: '{' followed by optional white space and '"' or '}'.
func objectStart(t string, i int) bool {
	for k := i + 1; k < len(t); k++ {
		switch t[k] {
		case ' ', '\t', '\n', '\r':
			continue
		case '"', '}':
			return true
		default:
			return false
		}
	}
	return false
}

// matchBrace returns the end (exclusive) of the object opening at start, or -1.
func matchBrace(t string, start int) int {
	depth, inStr, esc := 0, false, false
	for k := start; k < len(t); k++ {
		c := t[k]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return k + 1
			}
		}
	}
	return -1
}

// repairJSON completes an object that was cut off: an incomplete key or
// value is dropped and open arrays and objects are closed. A value string cut
// mid-way is closed and kept when keepOpen (a cut reasoning is still
// reasoning, a cut "B) Tetrac" still names B) and dropped otherwise (a cut
// role name or fact is not one). It returns ok=false for an object that is
// complete (balanced) but invalid, and for anything the repair cannot make
// valid.
func repairJSON(text string, keepOpen bool) ([]byte, bool) {
	start := -1
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			return nil, false
		}
		if objectStart(text, i+j) {
			start = i + j
			break
		}
		i += j + 1
	}
	if start < 0 {
		return nil, false
	}
	s := text[start:]
	if k := strings.Index(s, "```"); k >= 0 {
		s = s[:k]
	}
	type frame struct{ obj, expectKey bool }
	var stack, safeStack []frame
	inStr, esc, strIsKey := false, false, false
	safe := -1
	markSafe := func(pos int) {
		safe = pos
		safeStack = append(safeStack[:0], stack...)
	}
	for k := 0; k < len(s); k++ {
		c := s[k]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
				if !strIsKey {
					markSafe(k + 1)
				}
			}
			continue
		}
		switch c {
		case '{', '[':
			if len(stack) >= maxRepairDepth {
				return nil, false
			}
			stack = append(stack, frame{obj: c == '{', expectKey: c == '{'})
			markSafe(k + 1)
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1].obj != (c == '}') {
				return nil, false
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return nil, false // balanced: not a truncation
			}
			markSafe(k + 1)
		case '"':
			inStr = true
			top := stack[len(stack)-1]
			strIsKey = top.obj && top.expectKey
		case ':':
			if top := &stack[len(stack)-1]; top.obj {
				top.expectKey = false
			}
		case ',':
			markSafe(k)
			if top := &stack[len(stack)-1]; top.obj {
				top.expectKey = true
			}
		}
	}
	closers := func(st []frame) string {
		var b strings.Builder
		for i := len(st) - 1; i >= 0; i-- {
			if st[i].obj {
				b.WriteByte('}')
			} else {
				b.WriteByte(']')
			}
		}
		return b.String()
	}
	var cands []string
	if inStr && !strIsKey && keepOpen {
		cl := closers(stack)
		for cut := 0; cut <= 6 && cut < len(s); cut++ {
			cands = append(cands, s[:len(s)-cut]+`"`+cl)
		}
	} else if !inStr {
		cands = append(cands, strings.TrimRight(s, " \t\r\n")+closers(stack))
	}
	if safe > 0 {
		cands = append(cands, strings.TrimRight(s[:safe], " \t\r\n,")+closers(safeStack))
	}
	for _, c := range cands {
		if b := []byte(c); json.Valid(b) {
			return b, true
		}
	}
	return nil, false
}

// jobj is a decoded object with normalised keys (lower case, letters and
// digits only: "debated_point" and "debatedPoint" are both "debatedpoint").
type jobj map[string]json.RawMessage

func normKey(k string) string {
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteByte(c)
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c - 'A' + 'a')
		}
	}
	return b.String()
}

func decodeJobj(b []byte) jobj {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m == nil {
		return nil
	}
	for range maxUnwrap { // {"answer": {...}} → {...}
		if len(m) != 1 {
			break
		}
		var inner map[string]json.RawMessage
		for _, v := range m {
			if v := trimRaw(v); len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &inner) != nil {
				inner = nil
			}
		}
		if inner == nil {
			break
		}
		m = inner
	}
	o := make(jobj, len(m))
	for k, v := range m {
		nk := normKey(k)
		if _, dup := o[nk]; !dup || k == nk {
			o[nk] = v
		}
	}
	return o
}

func trimRaw(v json.RawMessage) json.RawMessage {
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t' || v[0] == '\n' || v[0] == '\r') {
		v = v[1:]
	}
	return v
}

// get returns the first present, non-null value among keys (normalised).
func (o jobj) get(keys ...string) (json.RawMessage, bool) {
	for _, k := range keys {
		if v, ok := o[k]; ok {
			if v = trimRaw(v); len(v) > 0 && string(v) != "null" {
				return v, true
			}
		}
	}
	return nil, false
}

// decodeObject finds the JSON object in text: a decodable one (json or
// json_embedded) or, failing that, a cut-off one repaired (json_partial;
// keepOpen as in repairJSON).
func decodeObject(text string, keepOpen bool) (jobj, ParseMethod, bool) {
	if b, emb, ok := ExtractJSON(text); ok {
		if o := decodeJobj(b); o != nil {
			if emb {
				return o, MethodJSONEmbedded, true
			}
			return o, MethodJSON, true
		}
	}
	if b, ok := repairJSON(text, keepOpen); ok {
		if o := decodeJobj(b); len(o) > 0 {
			return o, MethodJSONPartial, true
		}
	}
	return nil, MethodNone, false
}

// rawString reads a string value; an array of strings is joined with
// newlines, a number or boolean is its literal.
func rawString(v json.RawMessage) (string, bool) {
	v = trimRaw(v)
	if len(v) == 0 {
		return "", false
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return s, true
	case '[':
		items := rawStrings(v)
		return strings.Join(items, "\n"), len(items) > 0
	case '{', 'n':
		return "", false
	}
	return strings.TrimSpace(string(v)), true
}

// rawStrings reads an array of strings (non-strings skipped) or one string
// split into items at ';' and new lines.
func rawStrings(v json.RawMessage) []string {
	v = trimRaw(v)
	if len(v) == 0 {
		return nil
	}
	if v[0] == '"' {
		s, _ := rawString(v)
		return splitItems(s)
	}
	if v[0] != '[' {
		return nil
	}
	var arr []json.RawMessage
	if json.Unmarshal(v, &arr) != nil {
		return nil
	}
	var out []string
	for _, e := range arr {
		if e = trimRaw(e); len(e) == 0 || e[0] != '"' {
			continue
		}
		var s string
		if json.Unmarshal(e, &s) == nil {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// rawNumber reads a number or a numeric string ("0.8", "80%", "7/10").
func rawNumber(v json.RawMessage) (x float64, kind numKind, ok bool) {
	v = trimRaw(v)
	if len(v) == 0 {
		return 0, 0, false
	}
	if v[0] == '"' {
		s, _ := rawString(v)
		return leadNumber(s)
	}
	if json.Unmarshal(v, &x) != nil {
		return 0, 0, false
	}
	return x, numPlain, true
}

// rawInt reads a whole number, from a number or a string ("agent 2", "three").
func rawInt(v json.RawMessage) (int, bool) {
	v = trimRaw(v)
	if len(v) == 0 {
		return 0, false
	}
	if v[0] == '"' {
		s, _ := rawString(v)
		return intFromText(s)
	}
	var x float64
	if json.Unmarshal(v, &x) != nil {
		return 0, false
	}
	return wholeInt(x)
}

func rawBool(v json.RawMessage) (bool, bool) {
	v = trimRaw(v)
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	if len(v) > 0 && v[0] == '"' {
		s, _ := rawString(v)
		return boolFromText(s)
	}
	return false, false
}

// rankingOf reads the ranking of an answer object: "ranking" (array of
// letters or labelled options, a "B > A" string, or an object of positions or
// ranks), a single-answer key such as "answer" (a letter, an option, or a
// sentence read like free text), or the object itself when it is only such a
// map ({"1": "C", "2": "A"}).
func rankingOf(o jobj, os *optSet) []string {
	for _, k := range [...]string{"ranking", "rankings", "rankedoptions", "optionranking", "finalranking", "rank", "order"} {
		if v, ok := o.get(k); ok {
			if rk := rankingFromRaw(v, os); len(rk) > 0 {
				return rk
			}
		}
	}
	for _, k := range [...]string{"answer", "finalanswer", "choice", "selectedoption", "bestanswer", "correctanswer", "prediction", "option"} {
		if v, ok := o.get(k); ok {
			if rk := rankingFromRaw(v, os); len(rk) > 0 {
				return rk[:1]
			}
			if s, ok := rawString(v); ok && strings.ContainsAny(s, " \t\n") {
				if v := textAnswer(s, os); len(v.rank) > 0 {
					return v.rank[:1]
				}
			}
		}
	}
	return objectRanking(o, os, true)
}

var elemKeys = [...]string{"option", "letter", "answer", "choice", "id", "label"}

func rankingFromRaw(v json.RawMessage, os *optSet) []string {
	v = trimRaw(v)
	if len(v) == 0 {
		return nil
	}
	switch v[0] {
	case '"':
		s, _ := rawString(v)
		return parseRankList(s, os)
	case '{':
		if o := decodeFlat(v); o != nil {
			if s, ok := firstString(o, elemKeys[:]...); ok {
				if L := os.elem(s); L != "" {
					return []string{L}
				}
				return nil
			}
			return objectRanking(o, os, false)
		}
		return nil
	case '[':
	default:
		return nil
	}
	var arr []json.RawMessage
	if json.Unmarshal(v, &arr) != nil {
		return nil
	}
	var out []string
	var seen [26]bool
	unknown := os.nunknown
	for _, e := range arr {
		e = trimRaw(e)
		if len(e) == 0 {
			continue
		}
		switch e[0] {
		case '"':
			s, _ := rawString(e)
			if L := letterOf(s, os); L != "" {
				out = addLetter(out, &seen, L)
				continue
			}
			for _, L := range parseRankList(s, os) {
				out = addLetter(out, &seen, L)
			}
		case '{': // [{"option": "B"}, ...] — one level only
			if o := decodeFlat(e); o != nil {
				if s, ok := firstString(o, elemKeys[:]...); ok {
					out = addLetter(out, &seen, os.elem(s))
				}
			}
		}
		if os.nunknown > unknown { // the ranking stops where the option meant is unknown
			break
		}
	}
	return out
}

// decodeFlat decodes one object level without unwrapping.
func decodeFlat(v json.RawMessage) jobj {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return nil
	}
	o := make(jobj, len(m))
	for k, x := range m {
		o[normKey(k)] = x
	}
	return o
}

func firstString(o jobj, keys ...string) (string, bool) {
	for _, k := range keys {
		if v, ok := o.get(k); ok {
			if s, ok := rawString(v); ok {
				return s, true
			}
		}
	}
	return "", false
}

// reRankKey is the tolerant scan of a "ranking" field in an object that does
// not decode at all (Python-style quotes, a missing comma).
// A closed array may span lines; an unclosed one (cut off) ends with its line.
var reRankKey = regexp.MustCompile(`(?i)["']rankings?["']\s*[:=]\s*(\[[^\]]*\]|\[[^\]\n]*|"[^"\n]*"?|'[^'\n]*'?)`)

func scanRankingKey(text string, os *optSet) []string {
	if !containsFold(text, "ranking") {
		return nil
	}
	ms := reRankKey.FindAllStringSubmatchIndex(text, -1)
	for i := len(ms) - 1; i >= 0; i-- {
		if strings.IndexByte(text[:ms[i][0]], '{') < 0 {
			continue // not inside an object
		}
		parts := strings.Split(strings.Trim(strings.TrimSpace(text[ms[i][2]:ms[i][3]]), "[]\"'"), ",")
		for k, p := range parts {
			parts[k] = strings.Trim(strings.TrimSpace(p), "\"'")
		}
		if out := parseRankList(strings.Join(parts, ", "), os); len(out) > 0 {
			return out
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Numbers

type numKind int

const (
	numPlain numKind = iota
	numPercent
	numFraction // a/b already divided
)

var reLeadNum = regexp.MustCompile(`^[\s*_"'\x60(\[~≈]*([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:\s*(%|(?i:percent|per\s+cent)\b)|\s*/\s*(\d+(?:\.\d+)?)\b)?`)

// leadNumber reads the number at the start of s: "0.8", "85%", "85 percent", "7/10".
func leadNumber(s string) (float64, numKind, bool) {
	if len(s) > 200 {
		s = s[:200]
	}
	m := reLeadNum.FindStringSubmatch(s)
	if m == nil {
		return 0, 0, false
	}
	x, err := strconv.ParseFloat(m[1], 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, 0, false
	}
	switch {
	case m[2] != "":
		return x, numPercent, true
	case m[3] != "":
		d, err := strconv.ParseFloat(m[3], 64)
		if err != nil || d <= 0 {
			return 0, 0, false
		}
		return x / d, numFraction, true
	}
	return x, numPlain, true
}

// confidence converts a stated confidence (x, kind, ok from leadNumber or
// rawNumber; raw is what the model wrote, for the note, or "" for x itself)
// by the rule of the package comment: a plain number must lie in [0,1]; a
// percentage or a fraction is converted; anything else is unknown (-1).
// Every value not taken as written is noted.
func (s *optSet) confidence(x float64, kind numKind, ok bool, raw string) float64 {
	if ok && kind == numPlain && x >= 0 && x <= 1 {
		return x
	}
	if raw == "" {
		raw = strconv.FormatFloat(x, 'g', -1, 64)
	}
	raw = strings.TrimSpace(raw)
	if len(raw) > 40 {
		raw = raw[:40] + "…"
	}
	if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
		s.note("confidence %q is not a number; recorded as unknown", raw)
		return -1
	}
	switch kind {
	case numPercent:
		if x < 0 || x > 100 {
			s.note("confidence %s is outside 0–100%%; recorded as unknown", raw)
			return -1
		}
		s.note("confidence %s is a percentage; read as %s", raw, strconv.FormatFloat(x/100, 'f', -1, 64))
		return x / 100
	case numFraction:
		if x < 0 || x > 1 {
			s.note("confidence %s is outside [0,1]; recorded as unknown", raw)
			return -1
		}
		s.note("confidence %s is a fraction; read as %s", raw, strconv.FormatFloat(x, 'f', -1, 64))
		return x
	}
	s.note("confidence %s is outside [0,1]; recorded as unknown", raw)
	return -1
}

var numberWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}

var reFirstNum = regexp.MustCompile(`[+-]?\d+(?:\.\d+)?`)

// intFromText reads the first whole number of the first line ("3", "agent 2",
// "3 (one per ...)") or a number word at its start ("three").
func intFromText(s string) (int, bool) {
	s = firstLine(s)
	if len(s) > 200 {
		s = s[:200]
	}
	if m := reFirstNum.FindString(s); m != "" {
		x, err := strconv.ParseFloat(m, 64)
		if err != nil {
			return 0, false
		}
		return wholeInt(x)
	}
	if n, ok := numberWords[leadingWord(strings.TrimLeft(s, " \t*_\"'`"))]; ok {
		return n, true
	}
	return 0, false
}

func wholeInt(x float64) (int, bool) {
	if math.IsNaN(x) || math.IsInf(x, 0) || x != math.Trunc(x) || math.Abs(x) > 1e6 {
		return 0, false
	}
	return int(x), true
}

func boolFromText(s string) (bool, bool) {
	switch leadingWord(strings.TrimLeft(s, " \t*_\"'`")) {
	case "yes", "y", "true", "accept", "accepts", "accepted", "agree", "agreed", "agrees":
		return true, true
	case "no", "n", "false", "reject", "rejects", "rejected", "disagree", "disagrees", "partially", "partly":
		return false, true
	}
	return false, false
}

// ---------------------------------------------------------------------------
// Text

// prepare normalises line ends and full-width forms and, for reasoning
// models, keeps what follows the last </think> when anything does.
func prepare(text string) (norm, body string) {
	norm = strings.ReplaceAll(text, "\r\n", "\n")
	norm = strings.ReplaceAll(norm, "\r", "\n")
	norm = foldWidth(norm)
	body = norm
	if i := strings.LastIndex(norm, "</think>"); i >= 0 {
		if after := norm[i+len("</think>"):]; strings.TrimSpace(after) != "" {
			body = after
		}
	}
	return norm, body
}

// foldWidth maps the full-width ASCII forms (U+FF01–U+FF5E: "Ａ", "：", "（")
// and the ideographic space to ASCII, as CJK text writes option letters.
func foldWidth(s string) string {
	if strings.IndexByte(s, 0xEF) < 0 && strings.IndexByte(s, 0xE3) < 0 {
		return s
	}
	if !strings.Contains(s, "\xef\xbc") && !strings.Contains(s, "\xef\xbd") && !strings.Contains(s, "\u3000") {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			return r - 0xFF01 + '!'
		case r == 0x3000:
			return ' '
		}
		return r
	}, s)
}

// containsFold reports whether s contains the lower-case ASCII word w,
// ignoring ASCII case.
func containsFold(s, w string) bool {
	n := len(w)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for j < n {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != w[j] {
				break
			}
			j++
		}
		if j == n {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// trimValue trims white space and wrapping markup from a labelled value.
func trimValue(s string) string {
	return strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "*_`"))
}

var reLabel = regexp.MustCompile(`^[\s>*_#•-]*([A-Za-z][A-Za-z _]{0,30}?)[\s*_]*(?:\([^)\n]*\))?[ \t*_]*[:：][ \t*_]*(.*)$`)

// sections reads "LABEL: value" lines; a value runs on over the following
// lines until the next known label. canon maps a normalised label (upper
// case, single spaces) to its field name. The last occurrence wins.
func sections(text string, canon map[string]string) map[string]string {
	out := map[string]string{}
	cur := ""
	var buf []string
	flush := func() {
		if cur != "" {
			out[cur] = strings.TrimSpace(strings.Join(buf, "\n"))
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, ":") && !strings.Contains(line, "：") {
			if cur != "" {
				buf = append(buf, line)
			}
			continue
		}
		if m := reLabel.FindStringSubmatch(line); m != nil {
			key := strings.ToUpper(strings.Join(strings.Fields(strings.ReplaceAll(m[1], "_", " ")), " "))
			if name, ok := canon[key]; ok {
				flush()
				cur, buf = name, append(buf[:0], m[2])
				continue
			}
		}
		if cur != "" {
			buf = append(buf, line)
		}
	}
	flush()
	return out
}

var reBullet = regexp.MustCompile(`^\s*(?:[-*•·+]|\d{1,2}[.)])\s+`)

// splitItems splits a list value at ';' and new lines, dropping bullets.
func splitItems(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = reBullet.ReplaceAllString(line, "")
		for _, it := range strings.Split(line, ";") {
			if it = trimValue(it); it != "" {
				out = append(out, it)
			}
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// Answers

var answerLabels = map[string]string{
	"REASONING": "reasoning", "RATIONALE": "reasoning", "EXPLANATION": "reasoning",
	"RANKING": "ranking", "FINAL RANKING": "ranking",
	"CONFIDENCE": "confidence", "FACTS": "facts", "KEY FACTS": "facts",
	"ANSWER": "answer", "FINAL ANSWER": "answer",
	"RESPONSE": "response", "ACCEPTS": "accepts",
}

var (
	reasoningKeys  = [...]string{"reasoning", "rationale", "explanation", "analysis", "response"}
	confidenceKeys = [...]string{"confidence", "confidencescore", "confidencelevel", "certainty"}
	factsKeys      = [...]string{"facts", "keyfacts", "verifiedfacts"}
)

// ParseAnswer reads an agent's answer (kinds predict, discuss, final). The
// order of methods is JSON (whole, embedded, cut-off) → a structured ranking
// in the text (RANKING line or list, a chain of options, a rank table) → the
// careful reading of free text (textAnswer). Only the question's own letters
// count; what was read but not taken as written is in Notes.
func ParseAnswer(text string, options []qa.Option) Answer {
	os := newOptSet(options)
	a := parseAnswer(text, os)
	a.Notes = os.notes
	return a
}

func parseAnswer(text string, os *optSet) Answer {
	a := Answer{Confidence: -1, Method: MethodNone}
	if len(os.letters) == 0 {
		return abstain(a, ReasonNoOptions, "the question has no option letters")
	}
	norm, body := prepare(text)
	if strings.TrimSpace(norm) == "" {
		return abstain(a, ReasonEmpty, "empty response")
	}
	if a, ok := fastJSONAnswer(body, os); ok {
		return a
	}
	note, reason := "", ""
	src := body
	o, jm, ok := decodeObject(src, true)
	if !ok && body != norm {
		src = norm
		o, jm, ok = decodeObject(src, true)
	}
	if ok {
		a.Reasoning, _ = firstString(o, reasoningKeys[:]...)
		if v, ok := o.get(confidenceKeys[:]...); ok {
			x, kind, ok := rawNumber(v)
			a.Confidence = os.confidence(x, kind, ok, rawText(v))
		}
		fo := o
		if jm == MethodJSONPartial { // a fact cut mid-way is not a fact
			fo, _, _ = decodeObject(src, false)
		}
		if v, ok := fo.get(factsKeys[:]...); ok {
			a.Facts = rawStrings(v)
		}
		bad, unknown := os.nbad, os.nunknown
		if rk := rankingOf(o, os); len(rk) > 0 {
			a.Ranking, a.Method = rk, jm
			os.noteStated(a.Reasoning, rk[0])
			return a
		}
		// The object's own answer names no option: it is authoritative, the
		// reasoning is not read instead.
		if os.nunknown > unknown {
			return abstain(a, ReasonAmbiguous, "the JSON answer does not name one option (see the notes)")
		}
		if os.nbad > bad {
			return abstain(a, ReasonNotAnOption, "the JSON answer names no letter among "+os.list())
		}
		note = "JSON object without a ranking of " + os.list() + "; "
		if jm == MethodJSONPartial {
			reason = ReasonTruncated
		}
		if a.Reasoning != "" {
			v := textAnswer(strings.ReplaceAll(a.Reasoning, "\r", ""), os)
			if len(v.rank) > 0 {
				a.Ranking, a.Method = v.rank, v.method
				return a
			}
			reason = firstReason(v.reason, reason)
		}
	} else if rk := scanRankingKey(body, os); len(rk) > 0 {
		a.Ranking, a.Method = rk, MethodJSONPartial
		fillFromText(&a, body, os)
		return a
	}
	v := textAnswer(body, os)
	if len(v.rank) == 0 && body != norm {
		v2 := textAnswer(norm, os)
		v2.reason = firstReason(v.reason, v2.reason)
		v = v2
	}
	fillFromText(&a, body, os)
	if len(v.rank) == 0 {
		reason = firstReason(v.reason, reason)
		if reason == "" && refusal(body) {
			reason = ReasonRefusal
		}
		if reason == "" {
			reason = ReasonNoAnswer
		}
		msg := v.err
		if msg == "" {
			msg = "no answer naming one of " + os.list() + " found"
		}
		return abstain(a, reason, note+msg)
	}
	a.Ranking, a.Method = v.rank, v.method
	return a
}

// abstain returns a with no ranking, the reason code and the sentence.
func abstain(a Answer, reason, err string) Answer {
	a.Ranking, a.Method, a.Reason, a.Err = nil, MethodNone, reason, err
	return a
}

// firstReason is the first reason set: a conflict found by one reading is
// not undone by another reading finding nothing.
func firstReason(rs ...string) string {
	for _, r := range rs {
		if r != "" {
			return r
		}
	}
	return ""
}

// rawText is a JSON value as the model wrote it, a string without its quotes.
func rawText(v json.RawMessage) string {
	if s, ok := rawString(v); ok {
		return s
	}
	return string(trimRaw(v))
}

// schemaAnswer is the object the answer schema asks for.
type schemaAnswer struct {
	Reasoning  string   `json:"reasoning"`
	Ranking    []string `json:"ranking"`
	Confidence *float64 `json:"confidence"`
	Facts      []string `json:"facts"`
}

// fastJSONAnswer handles the common case in one decoding pass: the whole
// text is the object the schema asks for, with a ranking of letters. Any
// other shape is left to the general path.
func fastJSONAnswer(body string, os *optSet) (Answer, bool) {
	t := strings.TrimSpace(body)
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		return Answer{}, false
	}
	var sa schemaAnswer
	if json.Unmarshal([]byte(t), &sa) != nil || len(sa.Ranking) == 0 {
		return Answer{}, false
	}
	out := make([]string, 0, len(sa.Ranking))
	var seen [26]bool
	for _, e := range sa.Ranking {
		L := letterOf(e, os)
		if L == "" {
			return Answer{}, false
		}
		out = addLetter(out, &seen, L)
	}
	a := Answer{Ranking: out, Confidence: -1, Reasoning: sa.Reasoning, Method: MethodJSON}
	if sa.Confidence != nil {
		a.Confidence = os.confidence(*sa.Confidence, numPlain, true, "")
	}
	if len(sa.Facts) > 0 {
		a.Facts = sa.Facts[:0]
		for _, f := range sa.Facts {
			if f = strings.TrimSpace(f); f != "" {
				a.Facts = append(a.Facts, f)
			}
		}
	}
	os.noteStated(sa.Reasoning, out[0])
	return a, true
}

var reConf = regexp.MustCompile(`(?i)\bconfidence["']?(?:[ \t]+(?:level|score))?[ \t]*(?:\([^)\n]*\))?[ \t]*[*_]{0,2}[ \t]*(?:[:=]|\bis\b|\bof\b)?[ \t]*[*_]{0,2}[ \t]*((?:\d+(?:\.\d+)?|\.\d+)[ \t]*(?:%|(?:percent|per\s+cent)\b|/[ \t]*\d+(?:\.\d+)?)?)`)

// fillFromText fills the fields the JSON did not give from labelled lines:
// the last CONFIDENCE (a CONFIDENCE line without a number is noted), the
// REASONING section (or the whole text), FACTS.
func fillFromText(a *Answer, text string, os *optSet) {
	hasConf := a.Confidence == -1 && containsFold(text, "confidence")
	if hasConf {
		if ms := reConf.FindAllStringSubmatch(text, -1); len(ms) > 0 {
			x, kind, ok := leadNumber(ms[len(ms)-1][1])
			a.Confidence = os.confidence(x, kind, ok, ms[len(ms)-1][1])
			hasConf = false
		}
	}
	if a.Reasoning != "" && a.Facts != nil && !hasConf {
		return
	}
	sec := sections(text, answerLabels)
	if c, ok := sec["confidence"]; ok && hasConf {
		os.confidence(0, 0, false, firstLine(c))
	}
	if a.Reasoning == "" {
		if r := sec["reasoning"]; r != "" {
			a.Reasoning = r
		} else {
			a.Reasoning = strings.TrimSpace(text)
		}
	}
	if a.Facts == nil {
		if f := sec["facts"]; f != "" {
			a.Facts = splitItems(f)
		}
	}
}

var (
	reRankStart = regexp.MustCompile(`(?i)^[\s>*_#•-]*(?:(?:final|updated|revised|new|current|overall|my|your)\s+)?(?:option\s+)?(?:rankings?|rank\s+order|position\s+you)(?:\s+of\s+(?:the\s+)?options)?[*_ \t]*(?:\([^)\n]*\))?[*_ \t]*(?::|：|\s+is\b\s*:?|\s+would\s+be\b\s*:?)[*_ \t]*(.*)$`)
	reRankMid   = regexp.MustCompile(`(?i)\b(?:my|final|updated|revised|overall)\s+(?:final\s+)?ranking\s*(?:\([^)\n]*\))?\s*(?::|is\b\s*:?|would\s+be\b\s*:?)[*_ \t]*(.*)$`)
	reListItem  = regexp.MustCompile(`^\s*(?:\d{1,2}\s*[.)]|[-*•·+])\s+(.*\S)\s*$`)
	reChainSep  = regexp.MustCompile(`\s*(?:>+|→|≻|,)\s*`)
)

func rankLabel(line string) (string, bool) {
	if !containsFold(line, "rank") && !containsFold(line, "position") {
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
func rankingFromText(lines []string, os *optSet) (best []string, m ParseMethod, reason string) {
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
				best, m, reason = rk, MethodRankingLine, ""
			case os.nunknown > unknown:
				best, m, reason = nil, MethodNone, ReasonAmbiguous
			case os.nbad > bad:
				best, m, reason = nil, MethodNone, ReasonNotAnOption
			}
			continue
		}
		if rk, n := rankTable(lines[i:], os); n > 0 {
			if len(rk) > 0 {
				best, m, reason = rk, MethodRankTable, ""
			}
			i += n - 1
			continue
		}
		if rk := chainLine(line, os); len(rk) >= 2 {
			best, m, reason = rk, MethodRankingLine, ""
			continue
		}
		if reListItem.MatchString(line) {
			rk, n := listRun(lines[i:], os)
			if len(rk) >= 2 {
				best, m, reason = rk, MethodRankingLine, ""
			}
			i += n - 1
		}
	}
	return best, m, reason
}

// listBelow reads the items under a RANKING header: list items or lines that
// are one option each, with at most one blank line in a row.
func listBelow(lines []string, os *optSet) ([]string, int) {
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
// run is a ranking only when every item is bare (just an option).
func listRun(lines []string, os *optSet) ([]string, int) {
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
func (s *optSet) restated(rk []string) bool {
	return len(rk) >= 3 && slices.Equal(rk, s.letters)
}

// chainLine: a line that is nothing but options joined by '>' or ',' (but
// not the options in their own order joined by commas: a restatement).
func chainLine(line string, os *optSet) []string {
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

// ---------------------------------------------------------------------------
// Other kinds

var assessLabels = map[string]string{
	"AGENTS": "agents", "NUMBER OF AGENTS": "agents", "AGENT COUNT": "agents", "TEAM SIZE": "agents",
	"NUMBER OF EXPERTS": "agents", "EXPERTS": "agents",
	"ANALYSIS": "analysis", "QUESTION ANALYSIS": "analysis",
}

// ParseAssessment reads the recruiter's team size and question analysis.
// Agents is 0 when unparsed; a value outside 2..4 is returned with Err set
// (the caller decides what to do with it).
func ParseAssessment(text string) Assessment {
	as := Assessment{Method: MethodNone}
	norm, body := prepare(text)
	if strings.TrimSpace(norm) == "" {
		as.Err = "empty response"
		return as
	}
	n, found := 0, false
	if o, m, ok := decodeObject(body, false); ok {
		as.Analysis, _ = firstString(o, "analysis", "questionanalysis", "reasoning")
		if v, ok := o.get("agents", "numagents", "numberofagents", "agentcount", "nagents", "teamsize", "numexperts", "numberofexperts", "experts"); ok {
			if n, found = rawInt(v); found {
				as.Method = m
			}
		}
	}
	if !found {
		sec := sections(body, assessLabels)
		if v, ok := sec["agents"]; ok {
			if n, found = intFromText(v); found {
				as.Method = MethodLabelled
			}
		}
		if as.Analysis == "" {
			as.Analysis = sec["analysis"]
		}
	}
	if !found {
		as.Err = "no agent count found"
		return as
	}
	as.Agents = n
	if n < 2 || n > 4 {
		as.Err = fmt.Sprintf("agent count %d outside 2..4", n)
	}
	return as
}

var reRole = regexp.MustCompile(`(?i)^[\s>*_#•-]*role\s*#?\s*(?:\d{1,2})?[ \t*_]*[:.)\-–—][ \t*_]*(.+)$`)

var (
	roleNameKeys  = [...]string{"name", "role", "specialty", "speciality", "title", "expert", "specialist", "discipline"}
	roleFocusKeys = [...]string{"focus", "description", "expertise", "responsibility", "responsibilities", "rationale", "reason"}
)

// ParseRoster reads the recruited roles, most senior first. The caller
// checks the count.
func ParseRoster(text string) Roster {
	r := Roster{Method: MethodNone}
	norm, body := prepare(text)
	if strings.TrimSpace(norm) == "" {
		r.Err = "empty response"
		return r
	}
	if o, m, ok := decodeObject(body, false); ok {
		if v, ok := o.get("roles", "team", "experts", "agents", "members", "specialists"); ok {
			r.Roles = rolesFromRaw(v)
		}
		if len(r.Roles) > 0 {
			r.Method = m
			return r
		}
	}
	for _, line := range strings.Split(body, "\n") {
		if m := reRole.FindStringSubmatch(line); m != nil {
			if rs := splitRole(m[1]); rs.Name != "" {
				r.Roles = append(r.Roles, rs)
			}
		}
	}
	if len(r.Roles) > 0 {
		r.Method = MethodLabelled
		return r
	}
	r.Err = "no roles found"
	return r
}

func rolesFromRaw(v json.RawMessage) []RoleSpec {
	var arr []json.RawMessage
	if json.Unmarshal(trimRaw(v), &arr) != nil {
		return nil
	}
	var out []RoleSpec
	for _, e := range arr {
		e = trimRaw(e)
		if len(e) == 0 {
			continue
		}
		var rs RoleSpec
		switch e[0] {
		case '"':
			s, _ := rawString(e)
			rs = splitRole(s)
		case '{':
			o := decodeFlat(e)
			if o == nil {
				continue
			}
			name, _ := firstString(o, roleNameKeys[:]...)
			focus, _ := firstString(o, roleFocusKeys[:]...)
			rs = RoleSpec{Name: trimValue(name), Focus: strings.TrimSpace(focus)}
		}
		if rs.Name != "" {
			out = append(out, rs)
		}
	}
	return out
}

// splitRole splits "Cardiologist - focus", "Cardiologist: focus" or
// "Cardiologist (focus)".
func splitRole(s string) RoleSpec {
	s = strings.TrimSpace(s)
	cut := -1
	seps := [...]string{" - ", " – ", " — ", ": "}
	width := 0
	for _, sep := range seps {
		if k := strings.Index(s, sep); k >= 0 && (cut < 0 || k < cut) {
			cut, width = k, len(sep)
		}
	}
	if cut >= 0 {
		return RoleSpec{Name: trimValue(s[:cut]), Focus: strings.TrimSpace(s[cut+width:])}
	}
	if k := strings.IndexByte(s, '('); k > 0 && strings.HasSuffix(s, ")") {
		return RoleSpec{Name: trimValue(s[:k]), Focus: strings.TrimSpace(s[k+1 : len(s)-1])}
	}
	return RoleSpec{Name: trimValue(s)}
}

var mediateLabels = map[string]string{"SUMMARY": "summary", "LEANING": "leaning", "LEAN": "leaning"}

// ParseMediation reads the leader's turn summary and leaning. Leaning is ""
// when none was stated or it is not one option, with Reason saying which.
func ParseMediation(text string, options []qa.Option) Mediation {
	md := Mediation{Method: MethodNone}
	os := newOptSet(options)
	norm, body := prepare(text)
	if strings.TrimSpace(norm) == "" {
		md.Err, md.Reason = "empty response", ReasonEmpty
		return md
	}
	summary, lean, found := "", "", false
	if o, m, ok := decodeObject(body, false); ok {
		s, okS := firstString(o, "summary", "mediation", "synthesis")
		l, okL := firstString(o, "leaning", "lean", "leaningoption", "preference", "preferred")
		if okS || okL {
			summary, lean, found, md.Method = strings.TrimSpace(s), l, true, m
		}
	}
	if !found {
		sec := sections(body, mediateLabels)
		s, okS := sec["summary"]
		l, okL := sec["leaning"]
		if okS || okL {
			summary, lean, found, md.Method = s, firstLine(l), true, MethodLabelled
		}
	}
	if !found {
		md.Err, md.Reason = "no summary or leaning found", ReasonNoAnswer
		return md
	}
	md.Summary = summary
	md.Leaning, md.Reason = leaning(lean, os)
	md.Notes = os.notes
	return md
}

// leaning reads a leaning value: an option ("B", "Ceftriaxone", "B,
// tentatively"), or a sentence read like free text; otherwise "" and why.
func leaning(s string, os *optSet) (string, string) {
	if strings.TrimSpace(s) == "" {
		return "", ReasonNoAnswer
	}
	bad := os.nbad
	if L := os.elem(s); L != "" {
		return L, ""
	}
	var c commit
	if c.readLead(s, 0, os, true) {
		switch {
		case c.alt:
			return "", ReasonAmbiguous
		case c.bad != "":
			return "", ReasonNotAnOption
		}
		return c.L, ""
	}
	if os.nbad > bad {
		return "", ReasonNotAnOption
	}
	if v := textAnswer(s, os); len(v.rank) > 0 {
		return v.rank[0], ""
	} else if v.reason != "" {
		return "", v.reason
	}
	return "", ReasonNoAnswer
}

var concernLabels = map[string]string{
	"AGENT": "agent", "TARGET": "agent", "TARGET AGENT": "agent", "WEAKEST AGENT": "agent",
	"CONCERN": "concern", "QUESTION": "concern",
}

// ParseConcern reads the leader's choice of agent (1-based in the answer,
// 0-based in Agent) and the concern. Agent is -1 with Err set when unparsed
// or outside 1..n.
func ParseConcern(text string, n int) Concern {
	c := Concern{Agent: -1, Method: MethodNone}
	norm, body := prepare(text)
	if strings.TrimSpace(norm) == "" {
		c.Err = "empty response"
		return c
	}
	v, found, method := 0, false, MethodNone
	if o, m, ok := decodeObject(body, false); ok {
		c.Text, _ = firstString(o, "concern", "question", "issue", "critique")
		c.Text = strings.TrimSpace(c.Text)
		if raw, ok := o.get("agent", "target", "targetagent", "agentnumber", "weakestagent", "agentid"); ok {
			if v, found = rawInt(raw); found {
				method = m
			}
		}
	}
	if !found {
		sec := sections(body, concernLabels)
		if s, ok := sec["agent"]; ok {
			if v, found = intFromText(s); found {
				method = MethodLabelled
			}
		}
		if c.Text == "" {
			c.Text = sec["concern"]
		}
	}
	switch {
	case !found:
		c.Err = "no agent number found"
	case v < 1 || v > n:
		c.Method = method
		c.Err = fmt.Sprintf("agent %d outside 1..%d", v, n)
	default:
		c.Agent, c.Method = v-1, method
	}
	return c
}

var replyLabels = map[string]string{
	"RESPONSE": "response", "REPLY": "response",
	"ACCEPTS": "accepts", "ACCEPT": "accepts", "ACCEPTED": "accepts", "ACCEPTS CONCERN": "accepts",
	"RANKING": "ranking", "CONFIDENCE": "confidence", "REASONING": "reasoning",
}

// The acceptance is not part of the answer: "ACCEPTS: yes" must not read as
// the option "yes" of a yes/no/maybe item.
var (
	reAcceptsLine  = regexp.MustCompile(`(?im)^[\s>*_#•-]*accept(?:s|ed)?(?:[ \t]+concern)?[ \t*_]*:.*$`)
	reAcceptsField = regexp.MustCompile(`(?i)"accept(?:s|ed)?"\s*:\s*(?:"[^"\n]*"|true|false)`)
)

// ParseConcernReply reads the target agent's response, whether it accepts
// the concern, and its (possibly revised) answer, parsed like ParseAnswer.
// Method is how the response or acceptance was read; when neither was but
// the answer was, Method is the answer's and Err says what is missing.
func ParseConcernReply(text string, options []qa.Option) ConcernReply {
	cr := ConcernReply{Method: MethodNone}
	answerText := text
	if containsFold(text, "accept") {
		answerText = reAcceptsField.ReplaceAllString(reAcceptsLine.ReplaceAllString(text, ""), `"accepts": null`)
	}
	cr.Answer = ParseAnswer(answerText, options)
	norm, body := prepare(text)
	if strings.TrimSpace(norm) == "" {
		cr.Err = "empty response"
		return cr
	}
	if o, m, ok := decodeObject(body, false); ok {
		s, okR := firstString(o, "response", "reply", "rebuttal", "explanation")
		okA := false
		if v, ok := o.get("accepts", "accept", "accepted", "acceptsconcern", "agree", "agrees", "concedes"); ok {
			cr.Accepts, okA = rawBool(v)
			cr.noteAcceptance(rawText(v), okA)
		}
		if okR || okA {
			cr.Response, cr.Method = strings.TrimSpace(s), m
			return cr
		}
	}
	sec := sections(body, replyLabels)
	s, okR := sec["response"]
	okA := false
	if v, ok := sec["accepts"]; ok {
		cr.Accepts, okA = boolFromText(v)
		cr.noteAcceptance(firstLine(v), okA)
	}
	if okR || okA {
		cr.Response, cr.Method = s, MethodLabelled
		return cr
	}
	cr.Err = "no response or acceptance found"
	if len(cr.Answer.Ranking) > 0 {
		cr.Method = cr.Answer.Method
		cr.Err += " (the answer was read)"
	}
	return cr
}

// noteAcceptance notes an acceptance that is not a plain yes or no.
func (cr *ConcernReply) noteAcceptance(v string, ok bool) {
	switch w := leadingWord(strings.TrimLeft(v, " \t*_\"'`")); {
	case !ok:
		cr.Notes = append(cr.Notes, fmt.Sprintf("acceptance %q is not yes or no; ignored", v))
	case w == "partially" || w == "partly":
		cr.Notes = append(cr.Notes, fmt.Sprintf("acceptance %q read as no", v))
	}
}

var rateLabels = map[string]string{
	"QUALITY": "quality", "RATING": "quality", "SCORE": "quality", "QUALITY SCORE": "quality",
	"DEBATED": "debated", "DEBATED POINT": "debated", "DEBATED POINTS": "debated",
}

// ParseRating reads the leader's rating of a concern reply (clamped to [0,1];
// -1 with Err set when unparsed) and the point still debated.
func ParseRating(text string) Rating {
	rt := Rating{Quality: -1, Method: MethodNone}
	norm, body := prepare(text)
	if strings.TrimSpace(norm) == "" {
		rt.Err = "empty response"
		return rt
	}
	if o, m, ok := decodeObject(body, false); ok {
		if v, ok := o.get("debatedpoint", "debated", "debatedpoints", "point", "contention"); ok {
			if s, ok := rawString(v); ok {
				rt.DebatedPoint = strings.TrimSpace(strings.ReplaceAll(s, "\n", "; "))
			}
		}
		if v, ok := o.get("quality", "rating", "score", "qualityscore"); ok {
			if rt.rate(scoreOf(rawNumber(v))) {
				rt.Method = m
				return rt
			}
		}
	}
	sec := sections(body, rateLabels)
	if rt.DebatedPoint == "" {
		rt.DebatedPoint = sec["debated"]
	}
	if v, ok := sec["quality"]; ok {
		if rt.rate(scoreOf(leadNumber(firstLine(v)))) {
			rt.Method = MethodLabelled
			return rt
		}
	}
	rt.Err = "no quality rating found"
	return rt
}

// rate takes a written rating: in [0,1] it is the rating; a number outside
// is noted and not used (never clamped, as for synthesis scores). It
// reports whether a number was written at all.
func (rt *Rating) rate(q float64) bool {
	switch {
	case math.IsNaN(q):
		return false
	case q < 0 || q > 1:
		rt.Notes = append(rt.Notes, fmt.Sprintf("quality %s is outside [0,1]; not used", strconv.FormatFloat(q, 'g', -1, 64)))
	default:
		rt.Quality = q
	}
	return true
}

var tieLabels = map[string]string{"ANSWER": "answer", "FINAL ANSWER": "answer", "CHOICE": "answer", "REASONING": "reasoning"}

// ParseTieBreak reads the leader's choice among the tied letters. An answer
// that is not one of them is an abstention (Answer "", Reason
// ReasonNotAnOption), never replaced by another letter.
func ParseTieBreak(text string, tied []string) TieBreak {
	set := lettersOnly(tied)
	set.tied = true
	tb := parseTieBreak(text, set)
	tb.Notes = set.notes
	return tb
}

func parseTieBreak(text string, set *optSet) TieBreak {
	fail := func(m ParseMethod, reason, err string) TieBreak {
		return TieBreak{Method: m, Reason: reason, Err: err}
	}
	if len(set.letters) == 0 {
		return fail(MethodNone, ReasonNoOptions, "no tied options")
	}
	norm, body := prepare(text)
	if strings.TrimSpace(norm) == "" {
		return fail(MethodNone, ReasonEmpty, "empty response")
	}
	notTied := func(L string, m ParseMethod) TieBreak {
		return fail(m, ReasonNotAnOption, fmt.Sprintf("answer %s is not among the tied options %s", L, set.list()))
	}
	if o, m, ok := decodeObject(body, false); ok {
		if s, ok := firstString(o, "answer", "finalanswer", "choice", "winner", "selected", "decision", "leaning"); ok {
			if L := letterOf(s, set); L != "" {
				return TieBreak{Answer: L, Method: m}
			}
			if L := set.badLetter(cleanLead(s)); L != "" {
				set.noteBad(L)
				return notTied(L, m)
			}
		}
	}
	if v, ok := sections(body, tieLabels)["answer"]; ok {
		var c commit
		if c.readLead(v, 0, set, true) && !c.alt {
			if c.bad != "" {
				return notTied(c.bad, MethodLabelled)
			}
			return TieBreak{Answer: c.L, Method: MethodLabelled}
		}
	}
	v := textAnswer(body, set)
	if len(v.rank) > 0 {
		return TieBreak{Answer: v.rank[0], Method: v.method}
	}
	reason := v.reason
	if reason == "" && refusal(body) {
		reason = ReasonRefusal
	}
	if reason == "" {
		reason = ReasonNoAnswer
	}
	err := "no answer among the tied options " + set.list() + " found"
	if v.err != "" {
		err = v.err
	}
	return fail(MethodNone, reason, err)
}
