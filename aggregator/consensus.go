package aggregator

// Consensus rules of seeds 000 (vote) and 004 (veto). Each is a pure
// function of the options in their order and the agents' ballots; it either
// commits to an option or says that the caller's safe default applies, and
// why (Branch). What the safe default is belongs to the caller and the item
// kind: abstention on a multiple-choice item; the most urgent level on an
// ordinal triage item, whose options are ordered by urgency.

// Branches of the consensus rules (Consensus.Branch). The first group
// commits to the winner, the second applies the safe default.
const (
	BranchPlurality         = RulePlurality
	BranchWeightedPlurality = RuleWeightedPlurality
	BranchUnanimous         = "unanimous"
	BranchStrongMajority    = "strong_majority"

	BranchNoVotes       = "no_votes"       // no ballot names an option
	BranchTie           = "tie"            // the top count is shared (seed 000)
	BranchLowConfidence = "low_confidence" // the mean confidence is under the threshold (seed 000)
	BranchVeto          = "veto"           // the Safety agent vetoed (seed 004)
	BranchRefuse        = "refuse"         // the agreed ballot is REFUSE (seed 004)
	BranchSplit         = "split"          // agreement under two thirds (seed 004)
)

// MinMeanConfidence is seed 000's threshold: a council whose mean confidence
// is below it does not commit to its plurality choice.
const MinMeanConfidence = 0.70

// Consensus is what a consensus rule decided.
type Consensus struct {
	// Decision is the vote: the counts (or weights) in option order, the
	// tie. Its Winner is set only when the rule commits (Fallback false).
	Decision Decision
	// Branch names the branch of the rule that decided (Branch constants).
	Branch string
	// Fallback is true when the caller's safe default applies.
	Fallback bool
	// Agreement is the top count over the number of ballots (seed 004's
	// agreement percentage / 100; abstaining or unreadable ballots count in
	// the denominator).
	Agreement float64
	// MeanConfidence is the rule's mean confidence; -1 when the rule has none.
	MeanConfidence float64
}

// VoteRule is seed 000's consensus: the plurality of the agents' choices,
// where a tie for the top and a mean confidence under MinMeanConfidence both
// fall back to the safe default. Weighted, each vote counts with
// ReConcile's rescaled confidence (ReconcileWeight; seed 000 has no
// weighted plurality — it weighs only the urgency by confidence). Raw
// confidences as weights could not weigh at N = 3: one vote outweighs two
// only when c_A > c_B1 + c_B2, which puts the mean under 0.70, so the gate
// always fell back (TestWeightedVoteGrid); the rescaled weights let a
// confident minority win above the gate (1.0 against 0.7 and 0.7: 1 > 0.3 +
// 0.3, mean 0.80). confidences[i] is agent i's stated confidence in [0,1],
// or negative when it stated none; a missing confidence counts 0 in the
// mean (the rule's safe direction) and weighs 0.1 in the weighted vote (as
// ReConcile's 0.0). The mean is over all agents,
// as the seed divides by the number of outputs; a mean within TieEpsilon of
// the threshold reaches it (0.7+0.7+0.7 over 3 is not "below 0.70"). Branch precedence follows
// the seed's steps: no votes, tie (step 3.1), low confidence (step 4).
func VoteRule(options, votes []string, confidences []float64, weighted bool) (Consensus, error) {
	conf := make([]float64, len(votes))
	sum := 0.0
	for i := range votes {
		if i < len(confidences) && confidences[i] > 0 {
			conf[i] = min(confidences[i], 1)
		}
		sum += conf[i]
	}
	c := Consensus{MeanConfidence: -1}
	if len(votes) > 0 {
		c.MeanConfidence = sum / float64(len(votes))
	}
	var err error
	if weighted {
		c.Decision, err = WeightedPlurality(options, votes, ReconcileWeights(conf))
		c.Branch = BranchWeightedPlurality
	} else {
		c.Decision = Plurality(options, votes)
		c.Branch = BranchPlurality
	}
	if err != nil {
		return c, err
	}
	c.Agreement = agreement(options, votes)
	switch {
	case c.Decision.Voters == 0:
		c.Branch = BranchNoVotes
	case c.Decision.Tie:
		c.Branch = BranchTie
	case c.MeanConfidence < MinMeanConfidence-TieEpsilon:
		c.Branch = BranchLowConfidence
	}
	c.fallback()
	return c, nil
}

// fallback clears the winner when the branch applies the safe default.
func (c *Consensus) fallback() {
	switch c.Branch {
	case BranchPlurality, BranchWeightedPlurality, BranchUnanimous, BranchStrongMajority:
		return
	}
	c.Fallback = true
	c.Decision.Winner = ""
}

// agreement is the most common choice's count over the number of votes.
func agreement(options, votes []string) float64 {
	if len(votes) == 0 {
		return 0
	}
	d := Plurality(options, votes)
	best := 0.0
	for _, s := range d.Scores {
		best = max(best, s)
	}
	return best / float64(len(votes))
}
