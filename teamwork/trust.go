package teamwork

import (
	"math"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocol"
)

// Trust network (T), seed 002 §2.4: every agent starts at TrustStart; after
// each quality observation Q ∈ [0,1] its score moves by exponential smoothing
// T ← α·T + (1−α)·Q with α = 0.7, clamped to [0.4, 1.0]. Observations come
// from the leader's ratings when leadership is on (the synthesis call after the
// initial prediction; each monitoring rating for its target), otherwise from
// heuristicQuality. Never from the gold answer. Final rankings are then
// aggregated by trust-weighted Borda.
const (
	TrustStart = 0.8
	TrustMin   = 0.4
	TrustMax   = 1.0
	TrustAlpha = 0.7
)

// updateTrust applies one quality observation. A quality outside [0,1]
// (unparsed, -1) leaves the score unchanged.
func updateTrust(t, q float64) float64 {
	if q < 0 || q > 1 || math.IsNaN(q) {
		return t
	}
	return math.Max(TrustMin, math.Min(TrustMax, TrustAlpha*t+(1-TrustAlpha)*q))
}

// heuristicQuality scores each agent's initial answer without a model call:
// Q = 0.5·agree + 0.25·complete + 0.25·(1 − |conf − agree|), where agree is
// the share of the other agents whose first choice equals this agent's,
// complete is the share of the k options the ranking covers, and conf the
// stated confidence (0.5 when absent). An abstention scores 0. The score thus
// rewards answers the team corroborates, full rankings, and confidence that
// matches the corroboration (fact accuracy, completeness and confidence
// alignment, the seed's three criteria, without a judge).
//
// Half of Q and, through the alignment term, up to a quarter more rest on
// agreement, so without a leader trust measures conformity with the
// team's first answers (issue 36 item 2, docs/protocols.md): with three
// agents and full rankings, an agent of a unanimous team at confidence 0.9
// scores 0.975 (trust 0.8525 after the one observation); in a 2–1 split the
// two at 0.9 score 0.65 (trust 0.755) and the lone dissenter at 0.7 scores
// 0.325 (trust 0.6575): the weights of their final rankings. The reference (SLM-TeamMedAgents trust_network.py,
// _evaluate_response_quality) scores length, fact count and, when given,
// the gold answer instead; the gold answer is never used here.
func heuristicQuality(answers []answer.Answer, k int) []float64 {
	parts := heuristicQualityParts(answers, k)
	q := make([]float64, len(parts))
	for i, p := range parts {
		q[i] = p.Quality
	}
	return q
}

// heuristicQualityParts is heuristicQuality with its parts per agent, as
// the row records them (heuristic_* columns). An abstention has every part 0.
func heuristicQualityParts(answers []answer.Answer, k int) []protocol.QualityParts {
	out := make([]protocol.QualityParts, len(answers))
	for i, a := range answers {
		if len(a.Ranking) == 0 {
			continue
		}
		agree := 0.0
		if len(answers) > 1 {
			n := 0
			for j, b := range answers {
				if j != i && b.First() == a.First() {
					n++
				}
			}
			agree = float64(n) / float64(len(answers)-1)
		}
		complete := math.Min(1, float64(len(a.Ranking))/float64(k))
		conf := a.Confidence
		if conf < 0 {
			conf = 0.5
		}
		align := 1 - math.Abs(conf-agree)
		out[i] = protocol.QualityParts{Agree: agree, Complete: complete, Alignment: align,
			Quality: 0.5*agree + 0.25*complete + 0.25*align}
	}
	return out
}

// TrustLevel is the level a trust score shows under TrustLevels, in the
// reference's words and bands (SLM-TeamMedAgents trust_network.py,
// get_trust_hints_for_prompt): at least 0.85 "highly trusted", at least
// 0.7 "trusted", at least 0.55 "moderate trust", else "developing trust".
func TrustLevel(t float64) string {
	switch {
	case t >= 0.85:
		return "highly trusted"
	case t >= 0.7:
		return "trusted"
	case t >= 0.55:
		return "moderate trust"
	}
	return "developing trust"
}
