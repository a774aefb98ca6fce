package council

import (
	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// Details is council's record (protocol_json). Experts are numbered from 1.
type Details struct {
	N        int    `json:"n"`
	Strategy string `json:"strategy"`
	Rule     string `json:"rule"`
	// Labels holds, per reviewer, the label each other expert was shown
	// under (label → expert).
	Labels []map[string]int `json:"labels"`
	// PeerRankings holds, per reviewer, the experts it ranked, best first
	// (null when its ranking could not be read).
	PeerRankings [][]int            `json:"peer_rankings"`
	Standings    []Standing         `json:"standings"` // the aggregate peer ranking, best first
	ExpertVotes  map[string]float64 `json:"expert_votes"`
	// The chairman's answer ("" when unreadable), how it was read, and its
	// attribution (null with attribution_error when it could not be read).
	ChairmanAnswer   string         `json:"chairman_answer"`
	ChairmanParse    string         `json:"chairman_parse"`
	Contributors     []Contribution `json:"contributors"`
	AttributionError string         `json:"attribution_error,omitempty"`
	FollowsTopRanked bool           `json:"follows_top_ranked"` // the answer is the best-ranked expert's first choice
	FollowsPlurality bool           `json:"follows_plurality"`  // the answer is the experts' plurality choice
}

// Standing is one expert's aggregate peer ranking.
type Standing struct {
	Agent    int     `json:"agent"`
	MeanRank float64 `json:"mean_rank"` // 0 when no review ranked it
	Count    int     `json:"count"`
}

func (a Arm) details(s *kit.Session, answers []answer.Answer, assign []Assignment, reviews []Review, standings []aggregator.RankStanding, ch Chairman, d aggregator.Decision) Details {
	letters := s.Item.Letters()
	plural := aggregator.Plurality(letters, kit.Firsts(answers))
	det := Details{N: a.N, Strategy: a.Strategy, Rule: RuleChairman, ExpertVotes: kit.VoteMap(letters, d.Scores),
		ChairmanAnswer: ch.Answer, ChairmanParse: string(ch.Method), Contributors: ch.Contributors, AttributionError: ch.AttributionErr,
		FollowsPlurality: ch.Answer != "" && ch.Answer == plural.Winner}
	if ch.Answer == "" {
		det.Rule = RuleChairmanUnparsed
	}
	for i, as := range assign {
		m := map[string]int{}
		for k, j := range as.Agents {
			m[Labels[k]] = j + 1
		}
		det.Labels = append(det.Labels, m)
		var r []int
		for _, k := range reviews[i].Ranking {
			r = append(r, as.Agents[k]+1)
		}
		det.PeerRankings = append(det.PeerRankings, r)
	}
	ordered := aggregator.OrderStandings(standings)
	for _, st := range ordered {
		det.Standings = append(det.Standings, Standing{Agent: st.Candidate + 1, MeanRank: st.MeanRank, Count: st.Count})
	}
	if len(ordered) > 0 && ordered[0].Count > 0 {
		det.FollowsTopRanked = ch.Answer != "" && ch.Answer == answers[ordered[0].Candidate].First()
	}
	return det
}
