package teamwork

import (
	"strconv"

	"github.com/medteam-bench/medteam/llm/sim"
)

// simWriter writes a simulated answer of teamwork's kinds in the shape
// FORMATS.md gives: one JSON object (json) or the labelled lines.
type simWriter struct {
	c    *sim.Call
	a    *sim.Answer
	json bool
}

// assess writes the team size and its analysis sentence.
func (w simWriter) assess(b []byte, agents int, analysis string) []byte {
	if w.json {
		b = append(b, `{"analysis":`...)
		b = sim.AppendQuoted(b, analysis)
		b = append(b, `,"agents":`...)
		b = strconv.AppendInt(b, int64(agents), 10)
		return append(b, '}')
	}
	b = append(b, "ANALYSIS: "...)
	b = append(b, analysis...)
	b = append(b, "\nAGENTS: "...)
	return strconv.AppendInt(b, int64(agents), 10)
}

// recruit writes the roles, each with its name and focus.
func (w simWriter) recruit(b []byte, roles []uint8) []byte {
	if w.json {
		b = append(b, `{"roles":[`...)
		for i, s := range roles {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = sim.AppendQuoted(b, sim.SpecialtyName(s))
			b = append(b, `,"focus":`...)
			b = sim.AppendQuoted(b, sim.SpecialtyFocus(s))
			b = append(b, '}')
		}
		return append(b, "]}"...)
	}
	for i, s := range roles {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, "ROLE "...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, ": "...)
		b = append(b, sim.SpecialtyName(s)...)
		b = append(b, " - "...)
		b = append(b, sim.SpecialtyFocus(s)...)
	}
	return b
}

// synthesis writes the leader's synthesis: facts, report and a quality
// score per agent.
func (w simWriter) synthesis(b []byte) []byte {
	c, a := w.c, w.a
	if w.json {
		b = append(b, `{"facts":`...)
		b = c.AppendFacts(b, a, true)
		b = append(b, `,"report":`...)
		b = c.AppendSentence(b, a, true)
		b = append(b, `,"quality":[`...)
		for k := 0; k < a.Scores(); k++ {
			if k > 0 {
				b = append(b, ',')
			}
			agent, score := a.Score(k)
			b = append(b, `{"agent":`...)
			b = strconv.AppendInt(b, int64(agent), 10)
			b = append(b, `,"score":`...)
			b = strconv.AppendFloat(b, score, 'f', 2, 64)
			b = append(b, '}')
		}
		return append(b, "]}"...)
	}
	b = append(b, "FACTS: "...)
	b = c.AppendFacts(b, a, false)
	b = append(b, "\nREPORT: "...)
	b = c.AppendSentence(b, a, false)
	b = append(b, "\nQUALITY: "...)
	for k := 0; k < a.Scores(); k++ {
		if k > 0 {
			b = append(b, "; "...)
		}
		agent, score := a.Score(k)
		b = append(b, "agent "...)
		b = strconv.AppendInt(b, int64(agent), 10)
		b = append(b, ": "...)
		b = strconv.AppendFloat(b, score, 'f', 2, 64)
	}
	return b
}

// lean writes the mediator's summary and the option it leans to.
func (w simWriter) lean(b []byte) []byte {
	c, a := w.c, w.a
	if w.json {
		b = append(b, `{"summary":`...)
		b = c.AppendSentence(b, a, true)
		b = append(b, `,"leaning":`...)
		b = sim.AppendQuoted(b, c.Letter(a.Letter()))
		return append(b, '}')
	}
	b = append(b, "SUMMARY: "...)
	b = c.AppendSentence(b, a, false)
	b = append(b, "\nLEANING: "...)
	return append(b, c.Letter(a.Letter())...)
}

// selectAgent writes the monitor's concern and the agent it targets.
func (w simWriter) selectAgent(b []byte) []byte {
	a := w.a
	if w.json {
		b = append(b, `{"concern":"`...)
		b = a.AppendAgentSentence(b)
		b = append(b, `","agent":`...)
		b = strconv.AppendInt(b, int64(a.Agent()), 10)
		return append(b, '}')
	}
	b = append(b, "CONCERN: "...)
	b = a.AppendAgentSentence(b)
	b = append(b, "\nAGENT: "...)
	return strconv.AppendInt(b, int64(a.Agent()), 10)
}

// respond writes an agent's reply to a concern: response, whether it
// accepts, ranking and confidence.
func (w simWriter) respond(b []byte) []byte {
	c, a := w.c, w.a
	if w.json {
		b = append(b, `{"response":`...)
		b = c.AppendSentence(b, a, true)
		b = append(b, `,"accepts":`...)
		b = strconv.AppendBool(b, a.Accepts())
		b = append(b, `,"ranking":`...)
		b = c.AppendRanking(b, a.Ranking(), true)
		b = append(b, `,"confidence":`...)
		b = strconv.AppendFloat(b, a.Confidence(), 'f', 2, 64)
		return append(b, '}')
	}
	b = append(b, "RESPONSE: "...)
	b = c.AppendSentence(b, a, false)
	b = append(b, "\nACCEPTS: "...)
	b = append(b, sim.YesNo(a.Accepts())...)
	b = append(b, "\nRANKING: "...)
	b = c.AppendRanking(b, a.Ranking(), false)
	b = append(b, "\nCONFIDENCE: "...)
	return strconv.AppendFloat(b, a.Confidence(), 'f', 2, 64)
}

// rate writes the monitor's debated point of the reply and its quality.
func (w simWriter) rate(b []byte) []byte {
	c, a := w.c, w.a
	if w.json {
		b = append(b, `{"debated_point":`...)
		b = c.AppendSentence(b, a, true)
		b = append(b, `,"quality":`...)
		b = strconv.AppendFloat(b, a.Quality(), 'f', 2, 64)
		return append(b, '}')
	}
	b = append(b, "DEBATED: "...)
	b = c.AppendSentence(b, a, false)
	b = append(b, "\nQUALITY: "...)
	return strconv.AppendFloat(b, a.Quality(), 'f', 2, 64)
}

// decide writes the tie-breaker's reasoning and the option it picks.
func (w simWriter) decide(b []byte) []byte {
	c, a := w.c, w.a
	if w.json {
		b = append(b, `{"reasoning":`...)
		b = c.AppendSentence(b, a, true)
		b = append(b, `,"answer":`...)
		b = sim.AppendQuoted(b, c.Letter(a.Letter()))
		return append(b, '}')
	}
	b = append(b, "REASONING: "...)
	b = c.AppendSentence(b, a, false)
	b = append(b, "\nANSWER: "...)
	return append(b, c.Letter(a.Letter())...)
}

// The sentences of teamwork's leader kinds: two letters each (the answer's
// choice and its alternative), stored as three pieces around them; a
// concern names the target agent (two pieces around its number).
var analysisSentences = [...]string{
	"The question asks for the most likely diagnosis; the key discriminators are the presentation, its timing and the laboratory pattern.",
	"This is a next-step management question; the stability of the patient and the first-line test decide it.",
	"The stem tests a mechanism; the decisive clues are the exposure history and the characteristic finding.",
	"The case hinges on separating two similar conditions by the distinguishing feature in the examination.",
}

var summarySentences = [2][3]string{
	{"The team is split between ", " and ", "; the discriminating finding should settle it."},
	{"Most arguments favour ", ", while ", " has support that rests on a single finding."},
}

var reportSentences = [2][3]string{
	{"The team leans to ", "; the main alternative is ", ", and the shared findings are listed."},
	{"Positions converge on ", " with ", " as the remaining alternative."},
}

var debatedSentences = [2][3]string{
	{"Whether the key finding separates ", " from ", "."},
	{"How specific the laboratory pattern is for ", " rather than ", "."},
}

var tieSentences = [2][3]string{
	{"Between the tied options, ", " explains more of the findings than ", "."},
	{"", " is better supported by the timing than ", "."},
}

// answerSentences answer a concern (monitor_respond): accepting it or not.
var answerSentences = sim.ConcernSentences{
	Accept: [2][3]string{
		{"The concern is fair; I move ", " ahead of ", "."},
		{"I accept the point and now rank ", " above ", "."},
	},
	Reject: [2][3]string{
		{"The concern does not change my view: ", " still fits better than ", "."},
		{"I have considered it, but ", " remains ahead of ", "."},
	},
}

var concernSentences = [2][2]string{
	{"Agent ", " has not explained why the leading finding rules out the alternatives."},
	{"The reasoning of agent ", " relies on a finding that does not fit the case."},
}
