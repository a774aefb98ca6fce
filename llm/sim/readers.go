package sim

import "strconv"

// The mechanisms of a team's members and of the reader who judges them, as
// a behaviour calls them with typed inputs (what it read in its own prompt
// lines) and writes their typed results in its protocol's format. Each
// draws exactly what the core drew when it answered these calls itself.

// Values are the rests of the prompt's lines of the ReadsValue marker
// prefix (a registered behaviour's), in prompt order; nil when none.
func (c *Call) Values(prefix string) []string {
	i := c.m.mk.index(prefix)
	if i < 0 || c.pr.values == nil {
		return nil
	}
	return c.pr.values[i]
}

// ReplyTier is the quality tier of the reply the prompt shows (the
// ReadsReply line), -1 when none or unreadable.
func (c *Call) ReplyTier() int8 { return c.pr.resp - 1 }

// TeamSize is how many agents the question needs (2–4, weighted toward 3):
// a per-question draw.
func (c *Call) TeamSize() int { return c.it.agents }

// Specialists are n specialties (indexes, SpecialtyName) for the question
// (n ≤ 0: its TeamSize): the n most relevant when ranked, else n of a
// per-question shuffle of the RecruitPool most relevant.
func (c *Call) Specialists(n int, ranked bool) []uint8 { return c.specialists(n, ranked) }

// Ranked is an agent's independent answer: ranking, confidence, 1–3 facts
// and reasoning with its quality cue.
func (c *Call) Ranked(a *Answer) { c.ranked(a) }

// ReconsiderConcern is Reconsider under a concern raised about the agent's
// reasoning (ConcernEffect), answered with a sentence of sents: Accepts
// tells whether its first choice moved.
func (c *Call) ReconsiderConcern(a *Answer, sents *ConcernSentences) { c.reconsidered(a, sents) }

// ConcernSentences are the sentences of an answer to a concern, around its
// two letters (as a ranking's): accepting it (its first choice moved) and
// rejecting it.
type ConcernSentences struct{ Accept, Reject [2][3]string }

// Report is a reader's synthesis of the answers shown: a quality score per
// agent (Score), 2–4 facts and a sentence of sents naming the two most
// common first choices.
func (c *Call) Report(a *Answer, sents *[2][3]string) { c.report(a, sents) }

// Lean is the option a reader leans to (Letter) — the gold when it knows,
// else the choice of the agent it perceives as best — and a sentence of
// sents.
func (c *Call) Lean(a *Answer, sents *[2][3]string) { c.lean(a, sents) }

// SelectWeakest is the agent (Agent) whose reasoning a reader perceives as
// weakest, and a sentence of sents around its number (AppendAgentSentence).
func (c *Call) SelectWeakest(a *Answer, sents *[2][2]string) { c.selectTarget(a, sents) }

// RateReply rates agent target's reply (ReplyTier) by its perceived
// quality (Quality), with a sentence of sents naming the options at stake.
func (c *Call) RateReply(a *Answer, target int, sents *[2][3]string) { c.rateReply(a, target, sents) }

// Decide is the option (Letter) a reader picks among tied (all options when
// tied is empty), with a sentence of sents.
func (c *Call) Decide(a *Answer, tied Ranking, sents *[2][3]string) { c.decide(a, tied, sents) }

// Accepts reports whether a reconsidered answer's first choice moved.
func (a *Answer) Accepts() bool { return a.accepts }

// Agent is the agent an answer names (SelectWeakest).
func (a *Answer) Agent() int { return a.agent }

// Quality is the rated quality of a reply (RateReply).
func (a *Answer) Quality() float64 { return a.q }

// Scores is the number of agent scores of a report; Score is the k-th:
// the agent's number and its score.
func (a *Answer) Scores() int { return a.nquality }

// Score is the k-th agent score of a report.
func (a *Answer) Score(k int) (agent int, score float64) { return a.qagent[k], a.quality[k] }

// Facts are the texts of the answer's facts.
func (a *Answer) Facts() []string {
	out := make([]string, a.nfacts)
	for i := range out {
		out[i] = factBank[a.facts[i]]
	}
	return out
}

// AppendAgentSentence appends the answer's sentence around its agent's
// number (SelectWeakest).
func (a *Answer) AppendAgentSentence(b []byte) []byte {
	b = append(b, a.concern[0]...)
	b = strconv.AppendInt(b, int64(a.agent), 10)
	return append(b, a.concern[1]...)
}

// AppendRanking appends a ranking: a JSON array of letters, or letters
// separated by ", ".
func (c *Call) AppendRanking(b []byte, r *Ranking, asJSON bool) []byte {
	if asJSON {
		return c.appendRankingJSON(b, r)
	}
	return c.appendRankingPlain(b, r)
}

// AppendFacts appends the answer's facts: a JSON array of strings, or the
// texts separated by "; ".
func (c *Call) AppendFacts(b []byte, a *Answer, asJSON bool) []byte {
	if asJSON {
		return c.appendFactsJSON(b, a)
	}
	return c.appendFactsPlain(b, a)
}
