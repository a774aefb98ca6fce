package sim

import "strconv"

// The kinds of protocols/veto (seed 004): a debate round's ballot and the
// final ballot, both answered in the ballot format of protocols/FORMATS.md —
// the ranked answer (reasoning, ranking, confidence), then a stated risk and
// a decision: the first choice, REFUSE or (the Safety agent only) VETO.
const (
	kindVetoDebate = "veto_debate"
	kindVetoBallot = "veto_ballot"

	// roleSafety is the role (llm.Meta.Role) whose prompt offers VETO.
	roleSafety = "Safety"
	// ballotRisk is the risk at which a ballot refuses or vetoes: the
	// Safety agent's prompt asks for a veto "when that risk is 0.5 or more".
	ballotRisk = 0.5
)

// vetoKindCode codes veto's kinds (see protocolKindCode).
func vetoKindCode(k string) (uint64, bool) {
	switch k {
	case kindVetoDebate:
		return 20, true
	case kindVetoBallot:
		return 21, true
	}
	return 0, false
}

// vetoBallot is an agent's ballot. With its own previous position in the
// prompt ("POSITION you": a later round) it behaves as discuss — the peers'
// majority pulls with probability Persuadability × share × susceptibility,
// its own insight moves it toward the gold — else as an independent first
// answer. Its risk and decision are ballotOf's.
func (c *call) vetoBallot(a *answer) {
	if c.pr.hasYou {
		c.discuss(a)
	} else {
		c.independent(a)
	}
	a.letter = -1
	if _, d := c.ballotOf(a); d == "" {
		a.letter = a.rank.first()
	}
}

// ballotOf is the ballot's stated risk — clamp(1 − confidence +
// RiskNoise·N(0,1), 0.01, 0.99), two decimals, as a first answer's — and its
// decision: "" (its first choice) below ballotRisk, else "VETO" for the
// Safety agent and "REFUSE" for the others, what their prompts ask.
func (c *call) ballotOf(a *answer) (risk float64, decision string) {
	r := c.rng(tagRisk)
	risk = round2(clamp(1-a.conf+c.p.RiskNoise*r.normal(), 0.01, 0.99))
	switch {
	case risk < ballotRisk:
		return risk, ""
	case c.req.Meta.Role == roleSafety:
		return risk, "VETO"
	}
	return risk, "REFUSE"
}

// vetoJSON writes a ballot as JSON: the ranked answer, then risk and decision.
func (c *call) vetoJSON(b []byte, a *answer) []byte {
	risk, d := c.ballotOf(a)
	b = c.rankedJSON(b, a)
	b = b[:len(b)-1] // reopen the object
	b = append(b, `,"risk":`...)
	b = strconv.AppendFloat(b, risk, 'f', 2, 64)
	b = append(b, `,"decision":`...)
	if d == "" {
		d = c.it.letters[a.rank.first()]
	}
	b = appendQuoted(b, d)
	return append(b, '}')
}

// vetoPlain writes a ballot as labelled lines.
func (c *call) vetoPlain(b []byte, a *answer) []byte {
	risk, d := c.ballotOf(a)
	b = c.rankedPlain(b, a)
	b = append(b, "\nRISK: "...)
	b = strconv.AppendFloat(b, risk, 'f', 2, 64)
	b = append(b, "\nDECISION: "...)
	if d == "" {
		d = c.it.letters[a.rank.first()]
	}
	return append(b, d...)
}
