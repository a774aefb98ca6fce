package aggregator

import "slices"

// Seed 004's decision rules ("Decision Rules (Pure Python)" and "Risk &
// Confidence Aggregation"), mapped from its ACT/WARN/REFUSE/VETO decisions
// to a question's options: a ballot names the option the team should commit
// to (the seed's ACT on that answer) or REFUSE; only the Safety agent may
// VETO, and the caller passes only its veto.

// Refuse is the ballot that commits the team to no option (seed 004's
// REFUSE). An unreadable ballot is its agent's REFUSE.
const Refuse = "REFUSE"

// Veto is the Safety agent's veto in the vote breakdown (seed 004's VETO).
const Veto = "VETO"

// Seed 004's consensus types (VetoConsensus.Type, its "consensus_type").
const (
	ConsensusUnanimous      = "unanimous"
	ConsensusStrongMajority = "strong_majority"
	ConsensusSplit          = "split"
	ConsensusVeto           = "veto"
)

// Seed 004's thresholds on its 0–100 scales, here as fractions.
const (
	// HighRisk: a stated risk above it is highlighted in the record even
	// when outvoted ("If any agent reports >75% risk").
	HighRisk = 0.75
	// LowMeanConfidence: a mean confidence below it is recorded as a
	// warning ("Low average confidence (<60%) can trigger additional
	// warnings"); it does not change the decision.
	LowMeanConfidence = 0.60
)

// VetoBallot is one agent's final ballot in seed 004's rule.
type VetoBallot struct {
	// Choice is the option letter the agent votes for, or Refuse; anything
	// else (an unreadable ballot, a letter that is not an option) counts as
	// Refuse.
	Choice string
	// Veto is the Safety agent's VETO: it overrides every other ballot
	// (Choice is then ignored).
	Veto       bool
	Risk       float64 // stated risk in [0,1]; negative when none
	Confidence float64 // stated confidence in [0,1]; negative when none
}

// VetoConsensus is seed 004's decision with the seed's metadata.
type VetoConsensus struct {
	// Consensus: the vote over the options (Decision.Scores in option order;
	// Winner set only when the panel commits), the branch that decided
	// (BranchUnanimous, BranchStrongMajority: commit; BranchVeto,
	// BranchRefuse, BranchSplit, BranchNoVotes: the safe default), the
	// agreement (the top count over the ballots) and the mean confidence
	// over the ballots that state one (-1 when none does).
	Consensus
	// Type is the seed's consensus type: unanimous, strong_majority, split
	// or veto.
	Type string
	// Agreed is the ballot the unanimity or the strong majority agreed on:
	// an option letter or Refuse; "" on a split or a veto.
	Agreed string
	// Counts is the seed's vote breakdown: ballots per option letter, per
	// Refuse and per Veto, over those cast.
	Counts map[string]int
	// Vetoes are the indexes of the vetoing ballots.
	Vetoes []int
	// MaxRisk is the highest stated risk (-1 when none); HighRisk is
	// MaxRisk > HighRisk, highlighted even when outvoted.
	MaxRisk  float64
	HighRisk bool
	// LowConfidence is MeanConfidence < LowMeanConfidence: a warning only.
	LowConfidence bool
}

// VetoRule is seed 004's decision over the final ballots, in its order of
// precedence: a veto → the safe default (Rule 1, "Veto overrides all");
// then the top count of the ballots (options and REFUSE alike, Rules 2 and
// 3): all agree (unanimous) or at least two thirds agree (strong_majority,
// 3·top ≥ 2·N exactly; the seed's "agreement_pct >= 66" written for 2 of 3)
// → their ballot: an option commits the team, REFUSE is the safe default
// (branch refuse); otherwise (split, the seed's "WARN as the safest
// default") → the safe default. A top count shared by two ballots is a
// split (the seed's tie rule defaults to REFUSE: the safe default either
// way; with three ballots and a strong majority it cannot happen). No
// ballots → no_votes.
func VetoRule(options []string, ballots []VetoBallot) VetoConsensus {
	v := VetoConsensus{Counts: map[string]int{}, MaxRisk: -1}
	votes := v.tally(options, ballots)
	v.Decision = Plurality(options, votes)
	v.Decision.Tie, v.Decision.Tied = false, nil // a split is the safe default, never a tie to break
	top, agreed, shared := topCount(v.Counts, options)
	n := len(ballots)
	if n > 0 {
		v.Agreement = float64(top) / float64(n)
	}
	v.classify(n, top, agreed, shared)
	v.fallback()
	return v
}

// tally counts the ballots (Counts, Vetoes), takes the highest stated risk
// and the mean stated confidence with their flags, and returns the option
// each ballot chose ("" for a veto or a refusal) for the plurality.
func (v *VetoConsensus) tally(options []string, ballots []VetoBallot) []string {
	votes := make([]string, len(ballots))
	sum, stated := 0.0, 0
	for i, b := range ballots {
		switch {
		case b.Veto:
			v.Counts[Veto]++
			v.Vetoes = append(v.Vetoes, i)
		case slices.Contains(options, b.Choice):
			v.Counts[b.Choice]++
			votes[i] = b.Choice
		default:
			v.Counts[Refuse]++
		}
		if b.Risk >= 0 {
			v.MaxRisk = max(v.MaxRisk, b.Risk)
		}
		if b.Confidence >= 0 {
			sum += b.Confidence
			stated++
		}
	}
	v.HighRisk = v.MaxRisk > HighRisk+TieEpsilon
	v.MeanConfidence = -1
	if stated > 0 {
		v.MeanConfidence = sum / float64(stated)
		v.LowConfidence = v.MeanConfidence < LowMeanConfidence-TieEpsilon
	}
	return votes
}

// topCount is the top count over the options and Refuse (in that order),
// the ballot that first reached it, and whether another ballot shares it.
func topCount(counts map[string]int, options []string) (top int, agreed string, shared bool) {
	for _, k := range append(slices.Clone(options), Refuse) {
		switch n := counts[k]; {
		case n > top:
			top, agreed, shared = n, k, false
		case n == top && n > 0:
			shared = true
		}
	}
	return top, agreed, shared
}

// classify sets Type, Branch and Agreed from the vetoes and the top count
// of n ballots, in seed 004's order of precedence (see VetoRule), and
// commits the team to an agreed option.
func (v *VetoConsensus) classify(n, top int, agreed string, shared bool) {
	switch {
	case len(v.Vetoes) > 0:
		v.Type, v.Branch = ConsensusVeto, BranchVeto
	case n == 0:
		v.Type, v.Branch = ConsensusSplit, BranchNoVotes
	case shared || 3*top < 2*n:
		v.Type, v.Branch = ConsensusSplit, BranchSplit
	case top == n:
		v.Type, v.Agreed = ConsensusUnanimous, agreed
	default:
		v.Type, v.Agreed = ConsensusStrongMajority, agreed
	}
	switch {
	case v.Agreed == Refuse:
		v.Branch = BranchRefuse
	case v.Agreed != "":
		v.Branch = v.Type // BranchUnanimous or BranchStrongMajority
		v.Decision.Winner = v.Agreed
	}
}
