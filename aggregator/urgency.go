package aggregator

import (
	"math"
	"strings"
)

// Seed 000's urgency and specialty consensus on a triage item (the seed's
// steps 3.1, 3.2 and 4, docs in VoteUrgency and VoteSpecialty).

// Branches of the urgency rule (Urgency.Branch). BranchNoVotes (no agent
// named a level) applies the caller's safe default.
const (
	BranchWeightedUrgency = "weighted_urgency"        // round(Σ u·c / Σ c)
	BranchZeroConfidence  = "zero_confidence_default" // Σ c = 0: the middle of the scale
)

// GeneralPractice is seed 000's default specialty: on a tie for the top, when
// no specialty was named, and when the council's mean confidence is low.
const GeneralPractice = "General Practice"

// Urgency is seed 000's urgency consensus on an ordinal scale.
type Urgency struct {
	// Rank is the consensus level's rank (0 = least urgent); -1 when no
	// agent named a level (Branch no_votes: the caller's safe default).
	Rank   int
	Branch string
	// Mean is Σ u·c / Σ c before rounding; -1 when Σ c = 0 or no votes.
	Mean    float64
	SumConf float64 // Σ c over the agents that named a level
	Voters  int     // agents that named a level
}

// VoteUrgency is seed 000's confidence-weighted urgency: round(Σ u·c / Σ c)
// over the agents that named a level, u its rank on the scale (0 = least
// urgent) and c its stated confidence clamped to [0,1] (a missing one,
// negative, counts 0). ranks[i] < 0 is an agent that named no level.
//
// Rounding is half up, floor(x + ½) (within TieEpsilon): a mean exactly
// between two levels goes to the more urgent one, the safe direction. (The
// seed's Python round() rounds half to even, which on an ordinal scale
// depends on how the levels are numbered; half up does not.)
//
// When Σ c = 0 the seed's default applies: 3 on its 1–5 scale, the middle of
// the scale — here rank ⌊levels/2⌋: the middle level of an odd-sized scale
// (ne on sc < ne < em), the upper of the two middle levels of an even-sized
// one (the same half-up rule applied to the midpoint (levels−1)/2).
func VoteUrgency(ranks []int, confidences []float64, levels int) Urgency {
	u := Urgency{Rank: -1, Branch: BranchNoVotes, Mean: -1}
	sum := 0.0
	for i, r := range ranks {
		if r < 0 || r >= levels {
			continue
		}
		c := 0.0
		if i < len(confidences) && confidences[i] > 0 {
			c = min(confidences[i], 1)
		}
		u.Voters++
		u.SumConf += c
		sum += float64(r) * c
	}
	switch {
	case u.Voters == 0:
		return u
	case u.SumConf <= 0:
		u.Rank, u.Branch = levels/2, BranchZeroConfidence
		return u
	}
	u.Mean = sum / u.SumConf
	u.Rank = min(levels-1, max(0, int(math.Floor(u.Mean+0.5+TieEpsilon))))
	u.Branch = BranchWeightedUrgency
	return u
}

// Specialty is seed 000's specialty consensus.
type Specialty struct {
	Specialty string         // the consensus specialty; GeneralPractice on any default
	Branch    string         // plurality, no_votes, tie or low_confidence
	Votes     map[string]int // per specialty named (first spelling seen)
}

// VoteSpecialty is VoteSpecialties with one named specialty per agent
// ("" is none).
func VoteSpecialty(specialties []string, meanConf float64) Specialty {
	lists := make([][]string, len(specialties))
	for i, sp := range specialties {
		lists[i] = []string{sp}
	}
	return VoteSpecialties(lists, meanConf)
}

// VoteSpecialties is seed 000's specialty consensus (steps 3.1 and 4) over
// each agent's list of differential specialties: every specialty named in
// any list gets one vote per agent that lists it (case and white space
// ignored; "" is none; an agent that lists a specialty twice votes for it
// once), and the specialty with the most votes is the consensus. "General
// Practice" when none was named or the top count is shared (the seed: "if
// top two have same votes"), and "General Practice" as well when the
// council's mean confidence (meanConf, over all agents as in VoteRule) is
// below MinMeanConfidence — the seed discards the specialty then but keeps
// the urgency.
func VoteSpecialties(lists [][]string, meanConf float64) Specialty {
	out := Specialty{Specialty: GeneralPractice, Votes: map[string]int{}}
	spelling := map[string]string{}
	var order []string
	for _, list := range lists {
		mine := map[string]bool{}
		for _, sp := range list {
			k := strings.ToLower(strings.Join(strings.Fields(sp), " "))
			if k == "" || mine[k] {
				continue
			}
			mine[k] = true
			if _, ok := spelling[k]; !ok {
				spelling[k] = strings.Join(strings.Fields(sp), " ")
				order = append(order, k)
			}
			out.Votes[spelling[k]]++
		}
	}
	best, top := 0, ""
	tie := false
	for _, k := range order {
		switch n := out.Votes[spelling[k]]; {
		case n > best:
			best, top, tie = n, spelling[k], false
		case n == best:
			tie = true
		}
	}
	switch {
	case best == 0:
		out.Branch = BranchNoVotes
	case tie:
		out.Branch = BranchTie
	case meanConf < MinMeanConfidence-TieEpsilon:
		out.Branch = BranchLowConfidence
	default:
		out.Specialty, out.Branch = top, BranchPlurality
	}
	return out
}
