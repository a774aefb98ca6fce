package teamwork

import (
	"math"

	"github.com/medteam-bench/medteam/answer"
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
func heuristicQuality(answers []answer.Answer, k int) []float64 {
	q := make([]float64, len(answers))
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
		q[i] = 0.5*agree + 0.25*complete + 0.25*(1-math.Abs(conf-agree))
	}
	return q
}
