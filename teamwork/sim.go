package teamwork

import (
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/llm/sim"
)

// Sim is teamwork's simulated behaviour (llm/sim's Behaviour): its kinds,
// each answered by one of the core's mechanisms with what this file reads
// from teamwork's prompt lines (simMarkers), written in the shapes of
// FORMATS.md (sim_write.go). The codes (1–11) seed every draw of a call:
// they never change. The initial prediction's calls are the shared first
// answer, the core's own kind (whose prompt the role and the analysis below
// also reach), with the facts SMM asks of it (simFirstFacts).
var Sim = sim.Behaviour{
	Protocol: "teamwork",
	Kinds: map[string]uint64{
		KindAssess:         1,
		KindRecruit:        2,
		KindPredict:        3,
		KindSynthesize:     4,
		KindDiscuss:        5,
		KindFinal:          6,
		KindMediate:        7,
		KindMonitorSelect:  8,
		KindMonitorRespond: 9,
		KindMonitorRate:    10,
		KindTieBreak:       11,
	},
	Answer:  simAnswer,
	Markers: simMarkers,
	First:   []sim.FirstField{{Name: factsField.Name, Label: factsField.Label, Value: simFirstFacts}},
}

// The labelled lines of teamwork's prompts (prompts/*.tmpl) the simulator
// reads.
const (
	markTeamSize  = "TEAM SIZE:"
	markRankSpecs = "RANK SPECIALTIES:"
	markTied      = "TIED:"
	markTarget    = "TARGET:"
	markConcern   = "CONCERN:"
)

// simMarkers are teamwork's prompt lines and what the core reads from
// them: the role, the question analysis and the verified facts move a
// member's skill; the reasoning lines, the discussion and the reply are
// what the leader judges reasoning by; the rest is read here (Values).
var simMarkers = []sim.Marker{
	{Prefix: "YOUR ROLE:", Reads: sim.ReadsRole},
	{Prefix: "QUESTION ANALYSIS:", Reads: sim.ReadsAnalysis},
	{Prefix: "VERIFIED FACTS:", Reads: sim.ReadsFacts},
	{Prefix: markTeamSize, Reads: sim.ReadsValue},
	{Prefix: markTied, Reads: sim.ReadsValue},
	{Prefix: markTarget, Reads: sim.ReadsValue},
	{Prefix: markRankSpecs, Reads: sim.ReadsValue},
	{Prefix: markConcern, Reads: sim.ReadsValue},
	{Prefix: "DISCUSSION SO FAR:", Reads: sim.ReadsStatements, Judge: true, Item: "Agent ", Also: "Leader"},
	{Prefix: "REASONING agent ", Reads: sim.ReadsReasoning, Judge: true},
	{Prefix: "RESPONSE:", Reads: sim.ReadsReply, Judge: true},
}

// simAnswer answers a teamwork call: it reads the prompt as the kind's
// reader (the addressed agent, or the leader who judges), computes the
// answer with the kind's mechanism and writes it.
func simAnswer(c *sim.Call) string {
	kind := c.Request().Meta.Kind
	self, judge := 0, false
	switch kind {
	case KindPredict, KindDiscuss, KindFinal, KindMonitorRespond:
		if ag := c.Request().Meta.Agent; ag >= 0 {
			self = ag + 1
		}
	case KindSynthesize, KindMediate, KindMonitorSelect, KindMonitorRate, KindTieBreak:
		judge = true
	}
	c.ReadPrompt(self, judge)
	a := c.NewAnswer()
	w := simWriter{c: c, a: &a, json: c.Request().Schema != nil}
	var arr [1024]byte
	b := arr[:0]
	switch kind {
	case KindAssess:
		r := c.Rng(sim.TagText)
		b = w.assess(b, c.TeamSize(), analysisSentences[r.Intn(len(analysisSentences))])
	case KindRecruit:
		b = w.recruit(b, c.Specialists(simTeamSize(c), simRankSpecs(c)))
	case KindPredict, KindDiscuss, KindFinal:
		if kind == KindPredict {
			c.Ranked(&a)
		} else {
			c.Reconsider(&a)
		}
		b = c.AppendRanked(b, &a, w.json)
		if facts := a.Facts(); len(facts) > 0 {
			b = sim.AppendField(b, factsField.Name, factsField.Label, appendFactList(nil, facts, w.json), w.json)
		}
		b = c.AppendDiagnosis(b, &a, w.json)
		return c.Finish(b, a.Ranking().First(), w.json)
	case KindMonitorRespond:
		c.ReconsiderConcern(&a, &answerSentences)
		b = c.AppendDiagnosis(w.respond(b), &a, w.json)
		return c.Finish(b, a.Ranking().First(), w.json)
	case KindSynthesize:
		c.Report(&a, &reportSentences)
		b = w.synthesis(b)
	case KindMediate:
		c.Lean(&a, &summarySentences)
		b = w.lean(b)
	case KindMonitorSelect:
		c.SelectWeakest(&a, &concernSentences)
		b = w.selectAgent(b)
	case KindMonitorRate:
		c.RateReply(&a, simTarget(c), &debatedSentences)
		b = w.rate(b)
	case KindTieBreak:
		c.Decide(&a, c.ParseLetters(last(c.Values(markTied)), ','), &tieSentences)
		b = w.decide(b)
	}
	return c.Finish(b, a.Letter(), w.json)
}

// simFirstFacts draws the facts SMM asks of a first answer (factsField):
// 1–3 facts, each supportive when the answer is correct, else with
// probability 0.4, as Ranked draws them.
func simFirstFacts(c *sim.Call, _ *sim.Answer, correct, asJSON bool) []byte {
	fr := c.Rng(sim.TagFacts)
	pTrue := 0.4
	if correct {
		pTrue = 1
	}
	return appendFactList(nil, c.DrawFacts(1+fr.Intn(3), pTrue, &fr), asJSON)
}

// appendFactList writes facts as FORMATS.md's facts: a JSON array of
// strings, or the texts separated by "; ".
func appendFactList(b []byte, facts []string, asJSON bool) []byte {
	if !asJSON {
		for k, f := range facts {
			if k > 0 {
				b = append(b, "; "...)
			}
			b = append(b, f...)
		}
		return b
	}
	b = append(b, '[')
	for k, f := range facts {
		if k > 0 {
			b = append(b, ',')
		}
		b = sim.AppendQuoted(b, f)
	}
	return append(b, ']')
}

// last is the latest of a marker's lines ("" for none).
func last(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// simTeamSize is the TEAM SIZE the recruiter is asked for (the latest
// readable one), 0 when none.
func simTeamSize(c *sim.Call) int {
	n := 0
	for _, v := range c.Values(markTeamSize) {
		if k, err := strconv.Atoi(sim.TrimSpace(v)); err == nil {
			n = k
		}
	}
	return n
}

// simRankSpecs reports whether the recruiter is asked to rank the
// specialties by relevance ("RANK SPECIALTIES: yes", the latest line).
func simRankSpecs(c *sim.Call) bool {
	vs := c.Values(markRankSpecs)
	return len(vs) > 0 && sim.EqualFoldASCII(sim.TrimSpace(vs[len(vs)-1]), "yes")
}

// simTarget is the agent of "TARGET: agent N" (the latest readable one), 0
// when none.
func simTarget(c *sim.Call) int {
	n := 0
	for _, v := range c.Values(markTarget) {
		if r, ok := strings.CutPrefix(sim.TrimSpace(v), "agent "); ok {
			if k, err := strconv.Atoi(sim.TrimSpace(r)); err == nil {
				n = k
			}
		}
	}
	return n
}
