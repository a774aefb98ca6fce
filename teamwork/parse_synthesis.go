package teamwork

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/answer"
)

// Synthesis is the leader's answer to synthesize.
type Synthesis struct {
	Facts   []string
	Report  string
	Quality []AgentScore // as written, in the order written; resolve with KeyQuality
	Method  answer.Method
	Err     string // set when none of facts, report and quality could be read
}

// AgentScore is one quality score as the leader wrote it. Scores are keyed by
// expert number (FORMATS.md "What the leader sees"): Agent is the 1-based
// number the leader named, or 0 for an entry of a bare list (then only its
// place in the list identifies the expert). Score is the number as written (a
// percentage divided by 100), never clamped; NaN when the entry is not a
// number. Raw is the entry's text, for notes.
type AgentScore struct {
	Agent int
	Score float64
	Raw   string
}

var synthLabels = map[string]string{
	"FACTS": "facts", "VERIFIED FACTS": "facts", "KEY FACTS": "facts",
	"REPORT": "report", "FORMAL REPORT": "report",
	"QUALITY": "quality", "QUALITY SCORES": "quality", "QUALITY SCORE": "quality",
}

// ParseSynthesis reads the leader's facts, report and quality scores. Err is
// set only when none of the three could be read; KeyQuality decides which
// agent each score belongs to.
func ParseSynthesis(text string) Synthesis {
	sy := Synthesis{Method: answer.MethodNone}
	norm, body := answer.Prepare(text)
	if strings.TrimSpace(norm) == "" {
		sy.Err = "empty response"
		return sy
	}
	if o, m, ok := answer.DecodeObject(body, false); ok {
		found := false
		if v, ok := o.Get("facts", "verifiedfacts", "keyfacts"); ok {
			sy.Facts, found = answer.RawStrings(v), true
		}
		if s, ok := o.FirstString("report", "formalreport", "summary"); ok {
			sy.Report, found = strings.TrimSpace(s), true
		}
		if v, ok := o.Get("quality", "qualityscores", "scores", "quality_scores", "ratings"); ok {
			sy.Quality, found = qualityFromRaw(v), true
		}
		if found {
			sy.Method = m
			return sy
		}
	}
	sec := answer.Sections(body, synthLabels)
	found := false
	if v, ok := sec["facts"]; ok {
		sy.Facts, found = answer.SplitItems(v), true
	}
	if v, ok := sec["report"]; ok {
		sy.Report, found = v, true
	}
	if v, ok := sec["quality"]; ok {
		sy.Quality, found = qualityList(v), true
	}
	if found {
		sy.Method = answer.MethodLabelled
		return sy
	}
	sy.Err = "no facts, report or quality scores found"
	return sy
}

// maxScores bounds how many quality entries are read (a team has at most 4
// agents; hostile output may list thousands).
const maxScores = 32

// qualityFromRaw reads the JSON forms of the quality field: an array of
// {"agent": N, "score": x} objects (keys agent/expert/id and
// score/quality/rating), an object {"agent 1": x, "2": y}, an array of bare
// numbers, a string in the text form, or a single number.
func qualityFromRaw(v json.RawMessage) []AgentScore {
	v = answer.TrimRaw(v)
	if len(v) == 0 {
		return nil
	}
	switch v[0] {
	case '"':
		s, _ := answer.RawString(v)
		return qualityList(s)
	case '[':
		return qualityArray(v)
	case '{':
		return qualityObject(v)
	}
	return []AgentScore{{Score: scoreOf(answer.RawNumber(v)), Raw: string(v)}}
}

// qualityArray reads an array of keyed entries or bare numbers.
func qualityArray(v json.RawMessage) []AgentScore {
	var arr []json.RawMessage
	if json.Unmarshal(v, &arr) != nil {
		return nil
	}
	out := make([]AgentScore, 0, min(len(arr), maxScores))
	for _, e := range arr[:min(len(arr), maxScores)] {
		e = answer.TrimRaw(e)
		if len(e) > 0 && e[0] == '{' {
			out = append(out, keyedScore(e))
			continue
		}
		out = append(out, AgentScore{Score: scoreOf(answer.RawNumber(e)), Raw: string(e)})
	}
	return out
}

// keyedScore reads one {"agent": N, "score": x} entry. An agent named by
// anything but a positive number is -1 (named, but not usable).
func keyedScore(e json.RawMessage) AgentScore {
	o := answer.DecodeFlat(e)
	sc := AgentScore{Score: math.NaN(), Raw: string(e)}
	if a, ok := o.Get("agent", "expert", "id", "agentid", "expertnumber", "number"); ok {
		sc.Agent, _ = answer.RawInt(a)
		if sc.Agent <= 0 {
			sc.Agent = -1 // named, but not a usable number
		}
	}
	if x, ok := o.Get("score", "quality", "rating", "value"); ok {
		sc.Score = scoreOf(answer.RawNumber(x))
	}
	return sc
}

// qualityObject reads an object of scores keyed by expert, in expert order
// (a key that names no expert is -1).
func qualityObject(v json.RawMessage) []AgentScore {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return nil
	}
	out := make([]AgentScore, 0, min(len(m), maxScores))
	for k, x := range m {
		if len(out) == maxScores {
			break
		}
		a := -1
		if n, ok := agentKey(k); ok {
			a = n
		}
		out = append(out, AgentScore{Agent: a, Score: scoreOf(answer.RawNumber(x)), Raw: k + ": " + string(answer.TrimRaw(x))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Agent < out[j].Agent })
	return out
}

var (
	reAgentPrefix = regexp.MustCompile(`(?i)^[\s*_•-]*(?:agent|expert)\s*#?(\d+)\s*(?:\([^)]*\))?\s*[:=–-]\s*`)
	reNumPrefix   = regexp.MustCompile(`^\s*#?(\d+)\s*[:=]\s*`)
	reAgentKey    = regexp.MustCompile(`(?i)^\s*(?:agent|expert)?\s*#?\s*(\d+)\s*$`)
	reQualitySep  = regexp.MustCompile(`[,;\n]`)
)

// agentKey reads an expert number from an object key: "agent 1", "Expert2", "3".
func agentKey(k string) (int, bool) {
	m := reAgentKey.FindStringSubmatch(k)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil && n > 0
}

// qualityList reads the text form: "agent 1: 0.8; agent 3: 0.6" (keyed), or
// "0.8, 0.6, 0.7" / "0.8 0.6 0.7" / one per line (a bare list).
func qualityList(s string) []AgentScore {
	var out []AgentScore
	for _, p := range reQualitySep.Split(s, maxScores+1) {
		p = strings.TrimSpace(answer.TrimBullet(p))
		if p == "" || len(out) == maxScores {
			continue
		}
		agent := 0
		if m := reAgentPrefix.FindStringSubmatch(p); m != nil {
			agent, _ = strconv.Atoi(m[1])
			p = strings.TrimSpace(p[len(m[0]):])
		} else if m := reNumPrefix.FindStringSubmatch(p); m != nil {
			agent, _ = strconv.Atoi(m[1])
			p = strings.TrimSpace(p[len(m[0]):])
		}
		if agent == 0 {
			if f := strings.Fields(p); len(f) > 1 && allNumbers(f) {
				for _, x := range f {
					out = append(out, AgentScore{Score: scoreOf(answer.LeadNumber(x)), Raw: x})
				}
				continue
			}
		}
		out = append(out, AgentScore{Agent: agent, Score: scoreOf(answer.LeadNumber(p)), Raw: p})
	}
	return out
}

// scoreOf is a written score as a number: a percentage divided by 100,
// anything else as written (range checks are KeyQuality's); NaN if none.
func scoreOf(x float64, kind answer.NumKind, ok bool) float64 {
	if !ok || math.IsInf(x, 0) {
		return math.NaN()
	}
	if kind == answer.NumPercent {
		return x / 100
	}
	return x
}

func allNumbers(f []string) bool {
	for _, x := range f {
		if _, err := strconv.ParseFloat(x, 64); err != nil {
			return false
		}
	}
	return true
}

// KeyQuality resolves the leader's scores to agents. answered[i] says whether
// agent i (0-based) gave a readable answer the leader was shown. It returns a
// score per agent (-1 = no usable score) and a note for every entry it could
// not use: a keyed score for an unknown expert or for one who abstained, a
// second score for the same expert, a score that is not a number or lies
// outside [0,1] (never clamped), and a bare list whose length is not the team
// size (a bare list is read in agent order only when it has one number per
// agent, so that nothing lands on the wrong agent).
func KeyQuality(scores []AgentScore, answered []bool) ([]float64, []string) {
	n := len(answered)
	q := make([]float64, n)
	for i := range q {
		q[i] = -1
	}
	var notes []string
	bare := 0
	for _, s := range scores {
		if s.Agent == 0 {
			bare++
		}
	}
	keyed := len(scores) - bare
	if bare > 0 && (keyed > 0 || bare != n) {
		notes = append(notes, fmt.Sprintf("%d unnumbered quality scores for a team of %d; not used (scores must name the expert)", bare, n))
	}
	useBare := bare == n && keyed == 0
	pos := 0
	for _, s := range scores {
		agent := s.Agent
		if agent == 0 {
			if !useBare {
				continue
			}
			pos++
			agent = pos
		}
		if note := unusableScore(s, agent, q, answered); note != "" {
			notes = append(notes, note)
			continue
		}
		q[agent-1] = s.Score
	}
	return q, notes
}

// unusableScore says why the score s, for the 1-based agent, cannot be used
// given the scores q kept so far; "" when it can.
func unusableScore(s AgentScore, agent int, q []float64, answered []bool) string {
	n := len(answered)
	switch {
	case agent < 1 || agent > n:
		return fmt.Sprintf("quality score %q names no expert of the team (1 to %d); not used", s.Raw, n)
	case math.IsNaN(s.Score):
		return fmt.Sprintf("quality score %q for expert %d is not a number; not used", s.Raw, agent)
	case s.Score < 0 || s.Score > 1:
		return fmt.Sprintf("quality score %s for expert %d is outside [0,1]; not used", strconv.FormatFloat(s.Score, 'g', -1, 64), agent)
	case !answered[agent-1]:
		return fmt.Sprintf("quality score for expert %d, who gave no readable answer; not used", agent)
	case q[agent-1] >= 0:
		return fmt.Sprintf("second quality score for expert %d; the first is kept", agent)
	}
	return ""
}
