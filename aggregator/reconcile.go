package aggregator

// ReConcile's confidence-weighted vote (Chen, Saha and Bansal, "ReConcile:
// Round-Table Conference Improves Reasoning via Consensus among Diverse
// LLMs", ACL 2024, §2.3 "Final Answer Generation"; public code
// dinobby/ReConcile utils.py: trans_confidence and parse_output's
// certainty_vote / weighted_max). Each agent's vote counts with a weight
// that rescales its stated confidence, so that a confident agent can
// outvote hesitant ones, which raw confidences in [0,1] rarely allow once
// seed 000's 0.70 mean-confidence gate applies (see VoteRule).

// ReconcileWeight is trans_confidence of ReConcile's utils.py: a stated
// confidence c in [0,1] becomes the vote weight
//
//	c ≤ 0.6 → 0.1;  0.6 < c < 0.8 → 0.3;  0.8 ≤ c < 0.9 → 0.5;  0.9 ≤ c < 1 → 0.8;  c = 1 → 1.
//
// A missing confidence (negative) weighs as 0 does — 0.1 —, as the code's
// clean_output sets a missing confidence_level to 0.0 before rescaling; a
// confidence above 1 weighs as 1 (the code has no weight for it).
func ReconcileWeight(c float64) float64 {
	switch {
	case c <= 0.6:
		return 0.1
	case c < 0.8:
		return 0.3
	case c < 0.9:
		return 0.5
	case c < 1:
		return 0.8
	}
	return 1
}

// ReconcileWeights is ReconcileWeight of each confidence.
func ReconcileWeights(confidences []float64) []float64 {
	out := make([]float64, len(confidences))
	for i, c := range confidences {
		out[i] = ReconcileWeight(c)
	}
	return out
}
