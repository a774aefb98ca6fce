package veto

import (
	"strconv"

	"github.com/medteam-bench/medteam/llm/sim"
)

// Sim is veto's simulated behaviour (llm/sim's Behaviour): a debate
// round's ballot and the final ballot, both answered in the ballot format of
// protocols/FORMATS.md — the ranked answer (reasoning, ranking, confidence),
// then a stated risk and a decision: the first choice, REFUSE or (the Safety
// agent only) VETO. The codes seed every draw of a call: they never change.
var Sim = sim.Behaviour{
	Protocol: "veto",
	Kinds:    map[string]uint64{KindDebate: 20, KindBallot: 21},
	Answer:   simAnswer,
}

// tagRisk is the purpose tag of a ballot's risk draw (Call.Rng): 27, the
// value it had in the simulator's core, which keeps it free.
const tagRisk uint64 = 27

// ballotRisk is the risk at which a ballot refuses or vetoes: the Safety
// agent's prompt asks for a veto "when that risk is 0.5 or more".
const ballotRisk = 0.5

// simAnswer answers a ballot as the core answers an agent's kind: the
// prompt read as the agent's own, the ballot, its format, the diagnosis it
// states on a triage item, then the malformed and fence draws.
func simAnswer(c *sim.Call) string {
	self := 0
	if c.Request().Meta.Agent >= 0 {
		self = c.Request().Meta.Agent + 1
	}
	c.ReadPrompt(self, false)
	a := c.NewAnswer()
	vetoBallot(c, &a)
	asJSON := c.Request().Schema != nil
	var arr [1024]byte
	b := ballotText(c, arr[:0], &a, asJSON)
	b = c.AppendDiagnosis(b, &a, asJSON)
	return c.Finish(b, a.Letter(), asJSON)
}

// vetoBallot is an agent's ballot. With its own previous position in the
// prompt ("POSITION you": a later round) it behaves as discuss — the peers'
// majority pulls with probability Persuadability × share × susceptibility,
// its own insight moves it toward the gold — else as an independent first
// answer. Its risk and decision are ballotOf's.
func vetoBallot(c *sim.Call, a *sim.Answer) {
	if c.HasOwnPosition() {
		c.Reconsider(a)
	} else {
		c.Independent(a)
	}
	a.SetLetter(-1)
	if _, d := ballotOf(c, a); d == "" {
		a.SetLetter(a.Ranking().First())
	}
}

// ballotOf is the ballot's stated risk — clamp(1 − confidence +
// RiskNoise·N(0,1), 0.01, 0.99), two decimals, as a first answer's — and its
// decision: "" (its first choice) below ballotRisk, else "VETO" for the
// Safety agent and "REFUSE" for the others, what their prompts ask.
func ballotOf(c *sim.Call, a *sim.Answer) (risk float64, decision string) {
	r := c.Rng(tagRisk)
	risk = sim.Round2(sim.Clamp(1-a.Confidence()+c.Profile().RiskNoise*r.Normal(), 0.01, 0.99))
	switch {
	case risk < ballotRisk:
		return risk, ""
	case c.Request().Meta.Role == RoleSafety:
		return risk, "VETO"
	}
	return risk, "REFUSE"
}

// ballotText writes a ballot as JSON or labelled lines.
func ballotText(c *sim.Call, b []byte, a *sim.Answer, asJSON bool) []byte {
	if asJSON {
		return vetoJSON(c, b, a)
	}
	return vetoPlain(c, b, a)
}

// vetoJSON writes a ballot as JSON: the ranked answer, then risk and decision.
func vetoJSON(c *sim.Call, b []byte, a *sim.Answer) []byte {
	risk, d := ballotOf(c, a)
	b = c.AppendRanked(b, a, true)
	b = b[:len(b)-1] // reopen the object
	b = append(b, `,"risk":`...)
	b = strconv.AppendFloat(b, risk, 'f', 2, 64)
	b = append(b, `,"decision":`...)
	if d == "" {
		d = c.Letter(a.Ranking().First())
	}
	b = sim.AppendQuoted(b, d)
	return append(b, '}')
}

// vetoPlain writes a ballot as labelled lines.
func vetoPlain(c *sim.Call, b []byte, a *sim.Answer) []byte {
	risk, d := ballotOf(c, a)
	b = c.AppendRanked(b, a, false)
	b = append(b, "\nRISK: "...)
	b = strconv.AppendFloat(b, risk, 'f', 2, 64)
	b = append(b, "\nDECISION: "...)
	if d == "" {
		d = c.Letter(a.Ranking().First())
	}
	return append(b, d...)
}
