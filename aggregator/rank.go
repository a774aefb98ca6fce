package aggregator

import (
	"slices"
)

// RankStanding is one candidate's standing in an aggregate of rankings.
type RankStanding struct {
	Candidate int     // the candidate's index
	MeanRank  float64 // mean 1-based position over the rankings that place it; 0 when none does
	Count     int     // how many rankings place it
}

// MeanRanks aggregates rankings of n candidates (each a list of candidate
// indexes, best first; partial rankings allowed; indexes out of range and
// repeats are ignored) into each candidate's mean position, the peer
// ranking of seed 001's council ("street cred"). The standings are in
// candidate order; Order sorts them.
func MeanRanks(n int, rankings [][]int) []RankStanding {
	out := make([]RankStanding, n)
	sum := make([]float64, n)
	for i := range out {
		out[i].Candidate = i
	}
	for _, r := range rankings {
		seen := make([]bool, n)
		pos := 0
		for _, c := range r {
			if c < 0 || c >= n || seen[c] {
				continue
			}
			seen[c] = true
			pos++
			sum[c] += float64(pos)
			out[c].Count++
		}
	}
	for i := range out {
		if out[i].Count > 0 {
			out[i].MeanRank = sum[i] / float64(out[i].Count)
		}
	}
	return out
}

// OrderStandings returns the standings best first: by mean rank, then by
// how many rankings place the candidate (more first), then by index;
// candidates no ranking places come last.
func OrderStandings(s []RankStanding) []RankStanding {
	out := slices.Clone(s)
	slices.SortStableFunc(out, func(a, b RankStanding) int {
		switch {
		case (a.Count == 0) != (b.Count == 0):
			if a.Count == 0 {
				return 1
			}
			return -1
		case a.MeanRank < b.MeanRank-TieEpsilon:
			return -1
		case a.MeanRank > b.MeanRank+TieEpsilon:
			return 1
		case a.Count != b.Count:
			return b.Count - a.Count
		}
		return a.Candidate - b.Candidate
	})
	return out
}
