package council

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// review is stage 2: every expert reviews the others at once, each under
// its own seeded label assignment.
func (a Arm) review(ctx context.Context, s *kit.Session, answers []answer.Answer) ([]Assignment, []Review, error) {
	assign := make([]Assignment, a.N)
	reviews := make([]Review, a.N)
	system, err := prompts.Render("review_system", nil)
	if err != nil {
		return nil, nil, err
	}
	err = s.Parallel(ctx, a.N, func(ctx context.Context, i int) error {
		assign[i] = Assign(a.N, i, s.DrawSeed(kit.KindLabels, i))
		user, err := prompts.Render("review", map[string]any{"Question": s.Question, "Responses": responses(assign[i], answers, a.PeerChars), "JSON": a.Structured})
		if err != nil {
			return err
		}
		text, err := s.Do(ctx, kit.Call{Phase: kit.PhaseReview, Kind: kit.KindPeerReview, Agent: i, Role: fmt.Sprintf("Expert %d", i+1),
			Temperature: a.AgentTemp, System: system, User: user, Schema: reviewSchema})
		if err != nil {
			return err
		}
		reviews[i] = ParseReview(text, assign[i].Names())
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for i, rv := range reviews {
		s.Note(kit.KindPeerReview, 0, i, rv.Method, rv.Err, rv.Reason, rv.Notes)
	}
	return assign, reviews, nil
}

// responses renders what a reviewer sees: the others' answers under their
// labels, in the order drawn — no agent number, no role, never its own;
// each reasoning bounded by peerChars (kit.Bound; 0 = in full).
func responses(as Assignment, answers []answer.Answer, peerChars int) string {
	var sb strings.Builder
	for k, j := range as.Agents {
		who := "response " + Labels[k]
		sb.WriteString(kit.PositionLine(who, answers[j]))
		sb.WriteString(kit.ReasoningLine(who, answers[j], peerChars))
	}
	return sb.String()
}

// chair is stage 3: the chairman's call.
func (a Arm) chair(ctx context.Context, s *kit.Session, answers []answer.Answer, assign []Assignment, reviews []Review, standings []aggregator.RankStanding) (Chairman, error) {
	var experts strings.Builder
	for j, ans := range answers {
		who := fmt.Sprintf("agent %d", j+1)
		experts.WriteString(kit.PositionLine(who, ans))
		experts.WriteString(kit.ReasoningLine(who, ans, a.PeerChars))
	}
	d := map[string]any{"Question": s.Question, "N": a.N, "Experts": experts.String(), "PeerRanks": peerRankLines(standings, a.N),
		"Reviews": reviewLines(assign, reviews, a.PeerChars), "Strategy": a.Strategy, "Directive": a.directive, "JSON": a.Structured}
	system, err := prompts.Render("chairman_system", d)
	if err != nil {
		return Chairman{}, err
	}
	user, err := prompts.Render("chairman", d)
	if err != nil {
		return Chairman{}, err
	}
	text, err := s.Do(ctx, kit.Call{Phase: kit.PhaseDecision, Kind: kit.KindChairman, Agent: -1, Role: "chairman",
		Temperature: a.LeaderTemp, System: system, User: user, Schema: chairSchema})
	if err != nil {
		return Chairman{}, err
	}
	ch := ParseChairman(text, s.Options, a.N)
	notes := ch.Notes
	if ch.AttributionErr != "" {
		notes = append(notes, "attribution: "+ch.AttributionErr)
	}
	s.Note(kit.KindChairman, 0, -1, ch.Method, ch.Err, ch.Reason, notes)
	return ch, nil
}

// peerRankLines renders "PEER RANK agent N: 1.50 (ranked by 2 of 2 reviewers)".
func peerRankLines(standings []aggregator.RankStanding, n int) string {
	var sb strings.Builder
	for _, st := range standings {
		fmt.Fprintf(&sb, "PEER RANK agent %d: ", st.Candidate+1)
		if st.Count == 0 {
			sb.WriteString("unranked\n")
			continue
		}
		fmt.Fprintf(&sb, "%s (ranked by %d of %d reviewers)\n", strconv.FormatFloat(st.MeanRank, 'f', 2, 64), st.Count, n-1)
	}
	return sb.String()
}

// reviewLines renders what the reviews said of each expert, for the
// chairman (who may know whom a review concerns; the reviewer stays
// unnamed), each strength and weakness bounded by peerChars (kit.Bound).
func reviewLines(assign []Assignment, reviews []Review, peerChars int) string {
	var sb strings.Builder
	for i, rv := range reviews {
		for k, j := range assign[i].Agents {
			st, wk := kit.Bound(rv.Strengths[k], peerChars), kit.Bound(rv.Weaknesses[k], peerChars)
			if st == "" && wk == "" {
				continue
			}
			fmt.Fprintf(&sb, "On agent %d: STRENGTHS: %s WEAKNESSES: %s\n", j+1, st, wk)
		}
	}
	if sb.Len() == 0 {
		return "(none readable)\n"
	}
	return sb.String()
}
