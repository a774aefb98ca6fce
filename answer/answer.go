package answer

import (
	"cmp"
	"encoding/json"
	"regexp"
	"strings"
)

// Option is one option of a multiple-choice question: its letter ("A" to
// "J") and its text, and, optionally, other names of the option (a triage
// item's level code and name, "em" and "Emergency care"; see aliases.go),
// which are read where the option's text is read. A question's own option
// type with the first two fields converts to it.
type Option struct {
	Letter  string
	Text    string
	Aliases []string
}

// Method records how an answer was read.
type Method string

// How an answer was read, from the most to the least structured.
const (
	MethodJSON         Method = "json"           // whole text is the JSON object
	MethodJSONEmbedded Method = "json_embedded"  // JSON object inside fences or surrounding prose
	MethodJSONPartial  Method = "json_partial"   // a JSON object that does not decode (cut off, or malformed) read tolerantly
	MethodRankingLine  Method = "ranking_line"   // RANKING: B, A, C / B > A > C / numbered list under a RANKING header
	MethodAnswerLine   Method = "answer_line"    // ANSWER: B / "The answer is B" / "I'd go with B" / "B is correct" / a lone "B"
	MethodLatex        Method = "latex"          // $B$, \boxed{B}, $\boxed{B}$
	MethodBold         Method = "bold"           // **B** or **B)** or **B. text**
	MethodParen        Method = "paren"          // a lone "(B)" marker
	MethodOptionText   Method = "option_text"    // a reply that is (or opens with) one option's text, or "<text> is correct"
	MethodLabelled     Method = "labelled_lines" // the plain-text labelled lines of teamwork/FORMATS.md (non-ranking kinds)
	MethodRankTable    Method = "rank_table"     // a markdown table with a rank column and an option column
	MethodProseRanking Method = "prose_ranking"  // "C, then A, then B" / "C first, followed by A and B"
	MethodNone         Method = "none"
)

// Answer is a model's answer to a multiple-choice question, as Parse reads
// it (in the teamwork protocol: an agent's answer of kind predict, discuss or
// final, and the answer part of monitor_respond).
type Answer struct {
	Ranking    []string // distinct option letters, best first; partial allowed; empty = abstention
	Confidence float64  // in [0,1]; -1 when absent or unparseable
	Reasoning  string
	Facts      []string
	Method     Method
	Err        string   // why nothing could be read (set iff Ranking is empty)
	Reason     string   // abstention reason, one of the Reason constants (set iff Ranking is empty)
	Notes      []string // what was read but not taken as written (see the package comment)
	// Diagnosis and Specialty are what the reply states on a DIAGNOSIS or
	// SPECIALTY line, or under those JSON keys (StatedDiagnosis); "" when
	// it states none. Read on every reply, used on triage items.
	Diagnosis string
	Specialty string
}

// Abstention reasons: why an answer names no option (Answer.Reason, and the
// reasons of the parsers built on this package).
const (
	ReasonEmpty       = "empty"         // the response is empty
	ReasonNoAnswer    = "no_answer"     // nothing in the text names one option as the answer
	ReasonAmbiguous   = "ambiguous"     // the text commits to different options without a clear conclusion
	ReasonNotAnOption = "not_an_option" // the answer names only letters that are not options (for a tie-break: not tied)
	ReasonRefusal     = "refusal"       // the model declines to answer
	ReasonTruncated   = "truncated"     // the reply was cut off (token limit, mid-sentence, a JSON answer) before its answer
	// ReasonContentFilter: the backend's content filter withheld the reply
	// (finish reason content_filter; see MarkReply).
	ReasonContentFilter = "content_filter"
	ReasonNoOptions     = "no_options" // the question has no option letters
)

// First is the first choice, "" when abstained.
func (a Answer) First() string {
	if len(a.Ranking) == 0 {
		return ""
	}
	return a.Ranking[0]
}

// Limits that keep every parser linear-ish on hostile input.
const (
	maxObjectTries = 32  // '{' positions ExtractJSON tries
	maxRepairDepth = 64  // nesting a truncated object may have
	maxUnwrap      = 3   // {"answer": {...}} wrappers looked through
	maxLead        = 400 // bytes read after an answer marker
	maxTextSpans   = 512 // option-text occurrences considered
)

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

// Parse reads a model's answer to a question with the given options. The
// order of methods is JSON (whole, embedded, cut-off) → a structured ranking
// in the text (RANKING line or list, a chain of options, a rank table) → the
// careful reading of free text (textAnswer). Only the question's own letters
// count; what was read but not taken as written is in Notes. On a triage
// item (options that name levels: some option has Aliases) the stated
// diagnosis and specialty are read too (StatedDiagnosis); a multiple-choice
// answer never carries them, and does not pay for looking.
func Parse(text string, options []Option) Answer {
	os := NewSet(options)
	a := parseAnswer(text, os)
	a.Notes = os.notes
	if namesLevels(options) {
		a.Diagnosis, a.Specialty = StatedDiagnosis(text)
	}
	return a
}

// namesLevels reports whether the options are a triage item's levels (one
// has aliases: its level's code and name).
func namesLevels(options []Option) bool {
	for _, o := range options {
		if len(o.Aliases) > 0 {
			return true
		}
	}
	return false
}

// parseAnswer is Parse, noting in os.
func parseAnswer(text string, os *Set) Answer {
	a := Answer{Confidence: -1, Method: MethodNone}
	if len(os.letters) == 0 {
		return abstain(a, ReasonNoOptions, "the question has no option letters")
	}
	switch Withheld(text) {
	case ReasonRefusal:
		return abstain(a, ReasonRefusal, "the model refused to answer (its refusal is in calls.parquet)")
	case ReasonContentFilter:
		return abstain(a, ReasonContentFilter, "the backend's content filter withheld the reply")
	}
	marked := IsMarkedCut(text)
	norm, body := Prepare(text)
	if strings.TrimSpace(norm) == "" {
		return abstain(a, ReasonEmpty, "empty response")
	}
	os.markedCut = marked
	// A well-formed JSON answer is read as written, before the free-text
	// repairs below: its reasoning, which other agents are shown, keeps
	// every sentence the model wrote, repeats included.
	if a, ok := fastJSONAnswer(body, os); ok {
		return a
	}
	norm, body = cutContinuation(norm, body, os)
	if c := collapseRepeats(body, os); c != body {
		if norm == body {
			norm = c
		}
		body = c
	}
	cut := marked || endsMidSentence(body)
	if a, ok := fastJSONAnswer(body, os); ok {
		return a
	}
	var u unread
	if o, m, src, ok := answerObject(body, norm); ok {
		var done bool
		if a, u, done = objectAnswer(a, o, m, src, os); done {
			return a
		}
	} else if rk := scanRankingKey(body, os); len(rk) > 0 {
		a.Ranking, a.Method = rk, MethodJSONPartial
		fillFromText(&a, body, os)
		return a
	}
	return freeText(a, body, norm, u, cut, os)
}

// answerObject decodes the answer's JSON object from the body or, when the
// body holds none, from the whole text (thinking included); src is the text
// it was found in.
func answerObject(body, norm string) (o Object, m Method, src string, ok bool) {
	src = body
	o, m, ok = DecodeObject(src, true)
	if !ok && body != norm {
		src = norm
		o, m, ok = DecodeObject(src, true)
	}
	return o, m, src, ok
}

// unread is what an answer object that names no option leaves to the
// reading of the text: a prefix for the error, and the abstention reason
// found so far.
type unread struct{ note, reason string }

// objectAnswer reads the answer object o (decoded from src by m): its
// fields, and its ranking or, when it has none, its reasoning read as free
// text. done is false when neither names an option and the object does not
// settle why; the text is read next.
func objectAnswer(a Answer, o Object, m Method, src string, os *Set) (_ Answer, u unread, done bool) {
	objectFields(&a, o, m, src, os)
	bad, unknown := os.nbad, os.nunknown
	if rk := rankingOf(o, os); len(rk) > 0 {
		a.Ranking, a.Method = rk, m
		os.noteStated(a.Reasoning, rk[0])
		return a, u, true
	}
	// The object's own answer names no option: it is authoritative, the
	// reasoning is not read instead.
	if os.nunknown > unknown {
		return abstain(a, ReasonAmbiguous, "the JSON answer does not name one option (see the notes)"), u, true
	}
	if os.nbad > bad {
		return abstain(a, ReasonNotAnOption, "the JSON answer names no letter among "+os.List()), u, true
	}
	u.note = "JSON object without a ranking of " + os.List() + "; "
	if m == MethodJSONPartial {
		u.reason = ReasonTruncated
	}
	if a.Reasoning != "" {
		v := textAnswer(strings.ReplaceAll(a.Reasoning, "\r", ""), os)
		if len(v.Ranking) > 0 {
			a.Ranking, a.Method = v.Ranking, v.Method
			return a, u, true
		}
		u.reason = firstReason(v.Reason, u.reason)
	}
	return a, u, false
}

// objectFields reads the reasoning, the confidence and the facts of the
// answer object o (decoded from src by m).
func objectFields(a *Answer, o Object, m Method, src string, os *Set) {
	a.Reasoning, _ = o.FirstString(reasoningKeys[:]...)
	if v, ok := o.Get(confidenceKeys[:]...); ok {
		x, kind, ok := RawNumber(v)
		a.Confidence = os.confidence(x, kind, ok, RawText(v))
	}
	fo := o
	if m == MethodJSONPartial { // a fact cut mid-way is not a fact
		fo, _, _ = DecodeObject(src, false)
	}
	if v, ok := fo.Get(factsKeys[:]...); ok {
		a.Facts = RawStrings(v)
	}
}

// freeText reads the answer from the text when no JSON object gave it: the
// body, else the whole text with its thinking; a cut-off reply only from
// its answer statements (cutAnswer). The fields no object gave come from
// labelled lines. u is what an object without a ranking left.
func freeText(a Answer, body, norm string, u unread, cut bool, os *Set) Answer {
	read := textAnswer
	if cut {
		read = cutAnswer
	}
	v := read(body, os)
	if len(v.Ranking) == 0 && body != norm {
		v2 := read(norm, os)
		v2.Reason = firstReason(v.Reason, v2.Reason)
		v = v2
	}
	fillFromText(&a, body, os)
	if len(v.Ranking) > 0 {
		a.Ranking, a.Method = v.Ranking, v.Method
		return a
	}
	reason := firstReason(v.Reason, u.reason)
	if reason == "" && Refusal(body) {
		reason = ReasonRefusal
	}
	msg := v.Err
	if msg == "" {
		msg = "no answer naming one of " + os.List() + " found"
	}
	return abstain(a, cmp.Or(reason, ReasonNoAnswer), u.note+msg)
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
func fastJSONAnswer(body string, os *Set) (Answer, bool) {
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
		a.Confidence = os.confidence(*sa.Confidence, NumPlain, true, "")
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
func fillFromText(a *Answer, text string, os *Set) {
	hasConf := a.Confidence == -1 && ContainsFold(text, "confidence")
	if hasConf {
		if ms := reConf.FindAllStringSubmatch(text, -1); len(ms) > 0 {
			x, kind, ok := LeadNumber(ms[len(ms)-1][1])
			a.Confidence = os.confidence(x, kind, ok, ms[len(ms)-1][1])
			hasConf = false
		}
	}
	if a.Reasoning != "" && a.Facts != nil && !hasConf {
		return
	}
	sec := Sections(text, answerLabels)
	if c, ok := sec["confidence"]; ok && hasConf {
		os.confidence(0, 0, false, FirstLine(c))
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
			a.Facts = SplitItems(f)
		}
	}
}
