package sim

import (
	"math"
	"strings"
)

// Reasoning quality. Every agent answer (Ranked, Reconsider,
// Concern, the first answer) has a latent reasoning quality q ∈ (0,1):
//
//	q = σ(QualitySkill·(skill − d) ± QualitySignal [+ DistractorFluency] + QualityNoise·(√½·z_a + √½·z_c))
//
// (+ when the answer's first choice is correct, − when wrong; DistractorFluency
// added when it is the question's attractive distractor), z_a a standard
// normal fixed per (question, agent) — an agent writes alike about a question
// in every turn — and z_c the call's own. The written reasoning carries q: it
// ends with a cue sentence of q's tier (five tiers of width 0.2). A leader
// perceives an agent's quality only by reading that cue back from the prompt
// (the ReadsReasoning lines, the agent's latest statement in a
// ReadsStatements block, the ReadsReply line) and adds PerceptionNoise;
// without a cue it knows nothing and rates around uninformedQuality.

const (
	nTiers = 5
	// uninformedQuality is what a leader perceives of reasoning it cannot see.
	uninformedQuality = 0.5
)

// qualityCues are the cue sentences of each tier, worst first: short, so
// that answers stay about as long as a cue-less answer. No cue contains
// another or appears in any other sentence the simulator writes; none has a
// single-letter word, a semicolon or a quote.
var qualityCues = [nTiers][2]string{
	{"Mostly guesswork.", "Little of it fits."},
	{"Several findings do not fit.", "Parts remain unexplained."},
	{"Most findings fit.", "Broadly consistent."},
	{"The key findings all fit.", "The main alternative is excluded."},
	{"Every finding fits and each alternative is excluded.", "Each alternative is ruled out by specific findings."},
}

// tierOf returns the tier of a quality: ⌊5q⌋ clamped to 0…4.
func tierOf(q float64) int8 {
	t := int(q * nTiers)
	return int8(min(max(t, 0), nTiers-1))
}

// tierMid is the quality a reader infers from a tier's cue: its midpoint.
func tierMid(t int8) float64 { return (float64(t) + 0.5) / nTiers }

// decodeTier returns the tier of the cue found in s, or -1 when s carries none.
func decodeTier(s string) int8 {
	// Every cue ends with a period; text without one carries none.
	if strings.IndexByte(s, '.') < 0 {
		return -1
	}
	for t := nTiers - 1; t >= 0; t-- {
		for _, cue := range qualityCues[t] {
			if strings.Contains(s, cue) {
				return int8(t)
			}
		}
	}
	return -1
}

// reasoningNoise is QualityNoise·(√½·z_a + √½·z_c) for the addressed agent.
func (c *call) reasoningNoise() float64 {
	if c.p.QualityNoise == 0 {
		return 0
	}
	ra := newStream(c.it.qhash^mix64(uint64(c.req.Meta.Agent)+1), tagQualityAgent)
	rc := c.rng(tagReasoning)
	return c.p.QualityNoise * math.Sqrt(0.5) * (ra.normal() + rc.normal())
}

// latentQuality is q for an answer with first choice first.
func (c *call) latentQuality(skill float64, first int8, noise float64) float64 {
	z := c.p.QualitySkill*(skill-c.it.difficulty) + noise
	if first == c.it.gold {
		z += c.p.QualitySignal
	} else {
		z -= c.p.QualitySignal
	}
	if first == c.it.distractor {
		z += c.p.DistractorFluency
	}
	return sigmoid(z)
}

// susceptibility multiplies an agent's switch probability: 1 +
// QualityResistance·(1 − 2q), at least 0. Weak reasoning (q < ½) makes an
// agent easier to move, strong reasoning harder, whether it is right or wrong.
func (c *call) susceptibility(q float64) float64 {
	return max(0, 1+c.p.QualityResistance*(1-2*q))
}

// setCue makes the answer's reasoning carry quality q.
func (a *answer) setCue(q float64, r *stream) {
	a.cue = qualityCues[tierOf(q)][r.intn(2)]
}

// perceive is the leader's reading of reasoning of tier t (-1: unseen):
// the tier's midpoint (uninformedQuality when unseen) plus
// PerceptionNoise·N(0,1), not clamped.
func (c *call) perceive(t int8, r *stream) float64 {
	m := uninformedQuality
	if t >= 0 {
		m = tierMid(t)
	}
	return m + c.p.PerceptionNoise*r.normal()
}

// rate is a perceived quality as a score: clamped to [0,1], two decimals.
func rate(x float64) float64 { return round2(clamp(x, 0, 1)) }
