package teamwork

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/answer"
)

// Output parsers of the call kinds other than an agent's answer, which
// answer.Parse reads (FORMATS.md): the recruiter's assessment and roster, and
// the leader's mediation, concern, rating and tie-break (its synthesis in
// parse_synthesis.go). Each accepts the JSON object (whole text, fenced,
// embedded in prose, or cut off) and the labelled plain-text lines,
// whichever the model wrote, and records how the answer was read. They are
// built on package answer's reading of objects, labelled lines, numbers and
// options, and like it never guess: what cannot be read is reported in Err
// (with a Reason when a letter was asked for), never replaced by a default.

// Assessment is the recruiter's answer to assess.
type Assessment struct {
	Agents   int // 0 when unparsed; a value outside 2..4 is kept and reported in Err
	Analysis string
	Method   answer.Method
	Err      string
}

// RoleSpec is one recruited role.
type RoleSpec struct{ Name, Focus string }

// Roster is the recruiter's answer to recruit, most senior first. The caller
// checks the count.
type Roster struct {
	Roles  []RoleSpec
	Method answer.Method
	Err    string
}

// Mediation is the leader's answer to mediate.
type Mediation struct {
	Summary string
	Leaning string // "" when none or not one of the options
	Method  answer.Method
	Err     string   // set when neither a summary nor a leaning could be read
	Reason  string   // why Leaning is "" (an answer.Reason constant; set iff Leaning is "")
	Notes   []string // as answer.Answer.Notes
}

// Concern is the leader's answer to monitor_select.
type Concern struct {
	Agent  int // 0-based; -1 when unparsed or outside 1..n (the model's value is 1-based)
	Text   string
	Method answer.Method
	Err    string
}

// ConcernReply is the target agent's answer to monitor_respond.
type ConcernReply struct {
	Response string
	Accepts  bool
	Answer   answer.Answer // read by answer.Parse (may abstain; its notes are its own)
	Method   answer.Method
	Err      string   // set when neither the response nor the acceptance could be read
	Notes    []string // an acceptance that is not a plain yes or no ("partially" read as no)
}

// Rating is the leader's answer to monitor_rate.
type Rating struct {
	Quality      float64 // in [0,1]; -1 when unparsed (then Err is set) or out of range (then a note says so; never clamped)
	DebatedPoint string
	Method       answer.Method
	Err          string
	Notes        []string
}

// TieBreak is the leader's answer to tiebreak.
type TieBreak struct {
	Answer string // one of the tied letters (or, with ParseTieBreakOverride, any option), or "" with Err set
	// Override says Answer is an option outside the tied ones: the leader's
	// correction authority (seed 002 §2.2), read by ParseTieBreakOverride.
	Override bool
	Method   answer.Method
	Err      string
	Reason   string   // why Answer is "" (an answer.Reason constant; set iff Answer is "")
	Notes    []string // as answer.Answer.Notes
}

var assessLabels = map[string]string{
	"AGENTS": "agents", "NUMBER OF AGENTS": "agents", "AGENT COUNT": "agents", "TEAM SIZE": "agents",
	"NUMBER OF EXPERTS": "agents", "EXPERTS": "agents",
	"ANALYSIS": "analysis", "QUESTION ANALYSIS": "analysis",
}

// ParseAssessment reads the recruiter's team size and question analysis.
// Agents is 0 when unparsed; a value outside 2..4 is returned with Err set
// (the caller decides what to do with it).
func ParseAssessment(text string) Assessment {
	as := Assessment{Method: answer.MethodNone}
	norm, body := answer.Prepare(text)
	if strings.TrimSpace(norm) == "" {
		as.Err = "empty response"
		return as
	}
	n, found := 0, false
	if o, m, ok := answer.DecodeObject(body, false); ok {
		as.Analysis, _ = o.FirstString("analysis", "questionanalysis", "reasoning")
		if v, ok := o.Get("agents", "numagents", "numberofagents", "agentcount", "nagents", "teamsize", "numexperts", "numberofexperts", "experts"); ok {
			if n, found = answer.RawInt(v); found {
				as.Method = m
			}
		}
	}
	if !found {
		sec := answer.Sections(body, assessLabels)
		if v, ok := sec["agents"]; ok {
			if n, found = answer.IntFromText(v); found {
				as.Method = answer.MethodLabelled
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
	r := Roster{Method: answer.MethodNone}
	norm, body := answer.Prepare(text)
	if strings.TrimSpace(norm) == "" {
		r.Err = "empty response"
		return r
	}
	if o, m, ok := answer.DecodeObject(body, false); ok {
		if v, ok := o.Get("roles", "team", "experts", "agents", "members", "specialists"); ok {
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
		r.Method = answer.MethodLabelled
		return r
	}
	r.Err = "no roles found"
	return r
}

func rolesFromRaw(v json.RawMessage) []RoleSpec {
	var arr []json.RawMessage
	if json.Unmarshal(answer.TrimRaw(v), &arr) != nil {
		return nil
	}
	var out []RoleSpec
	for _, e := range arr {
		e = answer.TrimRaw(e)
		if len(e) == 0 {
			continue
		}
		var rs RoleSpec
		switch e[0] {
		case '"':
			s, _ := answer.RawString(e)
			rs = splitRole(s)
		case '{':
			o := answer.DecodeFlat(e)
			if o == nil {
				continue
			}
			name, _ := o.FirstString(roleNameKeys[:]...)
			focus, _ := o.FirstString(roleFocusKeys[:]...)
			rs = RoleSpec{Name: answer.TrimValue(name), Focus: strings.TrimSpace(focus)}
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
		return RoleSpec{Name: answer.TrimValue(s[:cut]), Focus: strings.TrimSpace(s[cut+width:])}
	}
	if k := strings.IndexByte(s, '('); k > 0 && strings.HasSuffix(s, ")") {
		return RoleSpec{Name: answer.TrimValue(s[:k]), Focus: strings.TrimSpace(s[k+1 : len(s)-1])}
	}
	return RoleSpec{Name: answer.TrimValue(s)}
}

var mediateLabels = map[string]string{"SUMMARY": "summary", "LEANING": "leaning", "LEAN": "leaning"}

// ParseMediation reads the leader's turn summary and leaning. Leaning is ""
// when none was stated or it is not one option, with Reason saying which.
func ParseMediation(text string, options []answer.Option) Mediation {
	md := Mediation{Method: answer.MethodNone}
	set := answer.NewSet(options)
	norm, body := answer.Prepare(text)
	if strings.TrimSpace(norm) == "" {
		md.Err, md.Reason = "empty response", answer.ReasonEmpty
		return md
	}
	summary, lean, found := "", "", false
	if o, m, ok := answer.DecodeObject(body, false); ok {
		s, okS := o.FirstString("summary", "mediation", "synthesis")
		l, okL := o.FirstString("leaning", "lean", "leaningoption", "preference", "preferred")
		if okS || okL {
			summary, lean, found, md.Method = strings.TrimSpace(s), l, true, m
		}
	}
	if !found {
		sec := answer.Sections(body, mediateLabels)
		s, okS := sec["summary"]
		l, okL := sec["leaning"]
		if okS || okL {
			summary, lean, found, md.Method = s, answer.FirstLine(l), true, answer.MethodLabelled
		}
	}
	if !found {
		md.Err, md.Reason = "no summary or leaning found", answer.ReasonNoAnswer
		return md
	}
	md.Summary = summary
	md.Leaning, md.Reason = set.One(lean)
	md.Notes = set.Notes()
	return md
}

var concernLabels = map[string]string{
	"AGENT": "agent", "TARGET": "agent", "TARGET AGENT": "agent", "WEAKEST AGENT": "agent",
	"CONCERN": "concern", "QUESTION": "concern",
}

// ParseConcern reads the leader's choice of agent (1-based in the answer,
// 0-based in Agent) and the concern. Agent is -1 with Err set when unparsed
// or outside 1..n.
func ParseConcern(text string, n int) Concern {
	c := Concern{Agent: -1, Method: answer.MethodNone}
	norm, body := answer.Prepare(text)
	if strings.TrimSpace(norm) == "" {
		c.Err = "empty response"
		return c
	}
	v, found, method := 0, false, answer.MethodNone
	if o, m, ok := answer.DecodeObject(body, false); ok {
		c.Text, _ = o.FirstString("concern", "question", "issue", "critique")
		c.Text = strings.TrimSpace(c.Text)
		if raw, ok := o.Get("agent", "target", "targetagent", "agentnumber", "weakestagent", "agentid"); ok {
			if v, found = answer.RawInt(raw); found {
				method = m
			}
		}
	}
	if !found {
		sec := answer.Sections(body, concernLabels)
		if s, ok := sec["agent"]; ok {
			if v, found = answer.IntFromText(s); found {
				method = answer.MethodLabelled
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
// the concern, and its (possibly revised) answer, parsed by answer.Parse.
// Method is how the response or acceptance was read; when neither was but
// the answer was, Method is the answer's and Err says what is missing.
func ParseConcernReply(text string, options []answer.Option) ConcernReply {
	cr := ConcernReply{Method: answer.MethodNone}
	answerText := text
	if answer.ContainsFold(text, "accept") {
		answerText = reAcceptsField.ReplaceAllString(reAcceptsLine.ReplaceAllString(text, ""), `"accepts": null`)
	}
	cr.Answer = answer.Parse(answerText, options)
	norm, body := answer.Prepare(text)
	if strings.TrimSpace(norm) == "" {
		cr.Err = "empty response"
		return cr
	}
	if o, m, ok := answer.DecodeObject(body, false); ok {
		s, okR := o.FirstString("response", "reply", "rebuttal", "explanation")
		okA := false
		if v, ok := o.Get("accepts", "accept", "accepted", "acceptsconcern", "agree", "agrees", "concedes"); ok {
			cr.Accepts, okA = answer.RawBool(v)
			cr.noteAcceptance(answer.RawText(v), okA)
		}
		if okR || okA {
			cr.Response, cr.Method = strings.TrimSpace(s), m
			return cr
		}
	}
	sec := answer.Sections(body, replyLabels)
	s, okR := sec["response"]
	okA := false
	if v, ok := sec["accepts"]; ok {
		cr.Accepts, okA = answer.BoolFromText(v)
		cr.noteAcceptance(answer.FirstLine(v), okA)
	}
	if okR || okA {
		cr.Response, cr.Method = s, answer.MethodLabelled
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
	switch w := answer.LeadingWord(strings.TrimLeft(v, " \t*_\"'`")); {
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
	rt := Rating{Quality: -1, Method: answer.MethodNone}
	norm, body := answer.Prepare(text)
	if strings.TrimSpace(norm) == "" {
		rt.Err = "empty response"
		return rt
	}
	if o, m, ok := answer.DecodeObject(body, false); ok {
		if v, ok := o.Get("debatedpoint", "debated", "debatedpoints", "point", "contention"); ok {
			if s, ok := answer.RawString(v); ok {
				rt.DebatedPoint = strings.TrimSpace(strings.ReplaceAll(s, "\n", "; "))
			}
		}
		if v, ok := o.Get("quality", "rating", "score", "qualityscore"); ok {
			if rt.rate(scoreOf(answer.RawNumber(v))) {
				rt.Method = m
				return rt
			}
		}
	}
	sec := answer.Sections(body, rateLabels)
	if rt.DebatedPoint == "" {
		rt.DebatedPoint = sec["debated"]
	}
	if v, ok := sec["quality"]; ok {
		if rt.rate(scoreOf(answer.LeadNumber(answer.FirstLine(v)))) {
			rt.Method = answer.MethodLabelled
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
// answer.ReasonNotAnOption), never replaced by another letter.
func ParseTieBreak(text string, tied []string) TieBreak {
	set := answer.TiedSet(tied)
	tb := parseTieBreak(text, set)
	tb.Notes = set.Notes()
	return tb
}

// ParseTieBreakOverride reads the leader's tie-break under its correction
// authority: any option of the question is an answer; one outside the tied
// letters is an override (Override). An answer that is no option is an
// abstention (answer.ReasonNotAnOption).
func ParseTieBreakOverride(text string, options []answer.Option, tied []string) TieBreak {
	set := answer.NewSet(options)
	tb := parseTieBreak(text, set)
	tb.Notes = set.Notes()
	tb.Override = tb.Answer != "" && !slices.Contains(tied, tb.Answer)
	return tb
}

func parseTieBreak(text string, set *answer.Set) TieBreak {
	if set.Len() == 0 {
		return tieAbstains(answer.MethodNone, answer.ReasonNoOptions, "no tied options")
	}
	norm, body := answer.Prepare(text)
	if strings.TrimSpace(norm) == "" {
		return tieAbstains(answer.MethodNone, answer.ReasonEmpty, "empty response")
	}
	if tb, ok := tieFromJSON(body, set); ok {
		return tb
	}
	if tb, ok := tieFromLabel(body, set); ok {
		return tb
	}
	return tieFromText(body, set)
}

// tieAbstains is a tie-break that names no tied option.
func tieAbstains(m answer.Method, reason, err string) TieBreak {
	return TieBreak{Method: m, Reason: reason, Err: err}
}

// notTied is a tie-break whose answer L is not among the tied options.
func notTied(L string, m answer.Method, set *answer.Set) TieBreak {
	return tieAbstains(m, answer.ReasonNotAnOption, fmt.Sprintf("answer %s is not among the tied options %s", L, set.List()))
}

// tieFromJSON reads the answer field of a JSON object (ok=false when there
// is no object, no answer field, or it names no letter at all).
func tieFromJSON(body string, set *answer.Set) (TieBreak, bool) {
	o, m, ok := answer.DecodeObject(body, false)
	if !ok {
		return TieBreak{}, false
	}
	s, ok := o.FirstString("answer", "finalanswer", "choice", "winner", "selected", "decision", "leaning")
	if !ok {
		return TieBreak{}, false
	}
	if L := set.Letter(s); L != "" {
		return TieBreak{Answer: L, Method: m}, true
	}
	if L := set.NotOption(s); L != "" {
		return notTied(L, m, set), true
	}
	return TieBreak{}, false
}

// tieFromLabel reads an ANSWER line naming one letter.
func tieFromLabel(body string, set *answer.Set) (TieBreak, bool) {
	v, ok := answer.Sections(body, tieLabels)["answer"]
	if !ok {
		return TieBreak{}, false
	}
	l, ok := set.ReadLead(v)
	switch {
	case !ok || l.Alternatives:
		return TieBreak{}, false
	case l.NotOption != "":
		return notTied(l.NotOption, answer.MethodLabelled, set), true
	}
	return TieBreak{Answer: l.Letter, Method: answer.MethodLabelled}, true
}

// tieFromText reads the reply as free text, or says why it names no option.
func tieFromText(body string, set *answer.Set) TieBreak {
	v := set.Read(body)
	if len(v.Ranking) > 0 {
		return TieBreak{Answer: v.Ranking[0], Method: v.Method}
	}
	reason := v.Reason
	if reason == "" && answer.Refusal(body) {
		reason = answer.ReasonRefusal
	}
	if reason == "" {
		reason = answer.ReasonNoAnswer
	}
	err := "no answer among the tied options " + set.List() + " found"
	if v.Err != "" {
		err = v.Err
	}
	return tieAbstains(answer.MethodNone, reason, err)
}
