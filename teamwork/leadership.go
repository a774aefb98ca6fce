package teamwork

import (
	"context"
	"fmt"
	"strings"

	"github.com/medteam-bench/medteam/llm"
)

// Leadership (L), seed 002 §2.2: the recruiter becomes an active leader with
// four powers, each one model call where the accounting says so:
//  1. after the initial prediction, one synthesis call — consensus facts (with
//     SMM), a formal medical report (with TO) and a quality score per agent
//     (with trust) — made only when at least one of those is on;
//  2. a mediation after every discussion turn (summary, flawed reasoning, the
//     option it leans to), which the agents see in the next turn;
//  3. mutual monitoring, when on (monitoring.go);
//  4. breaking a tie of the final scores (one call, only on a tie); if its
//     answer cannot be read the tie falls back to the seeded draw.
// Without leadership none of these calls is made: facts come from
// intersection, quality from a heuristic, ties from the seeded draw.

// synthesize is the leader's post-prediction call.
func (s *session) synthesize(ctx context.Context, initial []AgentAnswer) error {
	d := &promptData{Leading: true, N: s.n, Analysis: s.smm.Analysis,
		AskFacts: s.c.SMM, AskReport: s.c.Orientation, AskQuality: s.c.Trust}
	d.Positions = s.positions(-1, initial)
	text, err := s.call(ctx, llm.PhasePrediction, llm.KindSynthesize, 0, -1, "synthesize", d)
	if err != nil {
		return err
	}
	syn := ParseSynthesis(text)
	perr := syn.Err
	if s.c.SMM {
		s.smm.Facts = syn.Facts
		s.out.FactsMethod = "leader"
	}
	if s.c.Orientation {
		s.report = strings.TrimSpace(syn.Report)
	}
	if s.c.Trust {
		if len(syn.Quality) != s.n && perr == "" {
			perr = fmt.Sprintf("leader gave %d quality scores for %d agents", len(syn.Quality), s.n)
		}
		for i := range s.n {
			if i < len(syn.Quality) {
				s.trust[i] = updateTrust(s.trust[i], syn.Quality[i])
			}
		}
	}
	// A readable answer that is not what was asked keeps its method and notes the problem.
	s.note(llm.KindSynthesize, 0, -1, syn.Method, perr)
	return nil
}

// mediate is the leader's call after a discussion turn.
func (s *session) mediate(ctx context.Context, turn int) error {
	d := &promptData{Leading: true, N: s.n, Turn: turn, Turns: s.c.Turns}
	if s.c.SMM {
		d.Analysis, d.Facts, d.Debated = s.smm.Analysis, s.smm.Facts, s.smm.Debated
	}
	d.Report = s.report
	d.Positions = s.positions(-1, s.latest)
	d.History = s.history
	text, err := s.call(ctx, llm.PhaseDiscussion, llm.KindMediate, turn, -1, "mediate", d)
	if err != nil {
		return err
	}
	m := ParseMediation(text, s.item.Options)
	s.note(llm.KindMediate, turn, -1, m.Method, m.Err)
	summary := strings.TrimSpace(m.Summary)
	s.out.Mediations = append(s.out.Mediations, summary)
	s.out.Leanings = append(s.out.Leanings, m.Leaning)
	if m.Leaning != "" {
		s.leaning = m.Leaning
	}
	entry := fmt.Sprintf("Leader, mediation after turn %d: %s", turn, truncate(summary, maxHistoryChars))
	if m.Leaning != "" {
		entry += " [leaning " + m.Leaning + "]"
	}
	s.addHistory(entry)
	return nil
}

// breakTie asks the leader to choose among the tied options.
func (s *session) breakTie(ctx context.Context, tied []string) error {
	d := &promptData{Leading: true, N: s.n, Tied: strings.Join(tied, ", ")}
	if s.c.SMM {
		d.Analysis, d.Facts, d.Debated = s.smm.Analysis, s.smm.Facts, s.smm.Debated
	}
	d.Report = s.report
	d.Positions = s.positions(-1, s.out.Final())
	text, err := s.call(ctx, llm.PhaseAggregation, llm.KindTieBreak, 0, -1, "tiebreak", d)
	if err != nil {
		return err
	}
	tb := ParseTieBreak(text, tied)
	s.note(llm.KindTieBreak, 0, -1, tb.Method, tb.Err)
	if tb.Err == "" && tb.Answer != "" {
		s.out.Predicted, s.out.TieBrokenBy = tb.Answer, "leader"
		return nil
	}
	s.out.Predicted, s.out.TieBrokenBy = s.seededDraw(tied), "seeded_draw_leader_unparsed"
	return nil
}
