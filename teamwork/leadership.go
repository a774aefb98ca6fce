package teamwork

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/answer"
)

// Leadership (L), seed 002 §2.2: the recruiter becomes an active leader with
// four powers, each one model call where the accounting says so:
//  1. after the initial prediction, one synthesis call — consensus facts (with
//     SMM), a formal medical report (with TO) and a quality score per agent
//     (with trust) — made only when at least one of those is on;
//  2. a neutral mediation after every discussion turn (where the team agrees
//     and disagrees, flawed reasoning, what to examine next), which the
//     agents see in the next turn; the option it leans to is asked and
//     recorded, and shown to the agents only with ShowLeaning ("leaning");
//  3. mutual monitoring, when on (monitoring.go);
//  4. breaking a tie of the final scores (one call, only on a tie) with the
//     seed's correction authority: it chooses among the tied options, or
//     overrides the team with another option when the reasoning behind
//     every tied one is flawed (tie_broken_by "leader_override"); if its
//     answer cannot be read the tie falls back to the tie rule (kit.BreakTie).
// Without leadership none of these calls is made: facts come from
// intersection, quality from a heuristic, ties from kit.BreakTie (a seeded
// draw; on a triage item the most urgent tied level).

// synthesize is the leader's post-prediction call. The leader sees every
// expert's ranking, confidence, (bounded) reasoning and stated facts, and an
// abstaining expert as abstaining (DESIGN §4 "The leader judges what it can
// see"); its quality scores are keyed by expert number (KeyQuality).
func (s *session) synthesize(ctx context.Context, initial []answer.Answer) error {
	d := &promptData{N: s.n, Analysis: s.smm.Analysis,
		AskFacts: s.c.SMM, AskReport: s.c.Orientation, AskQuality: s.c.Trust}
	d.Experts = s.experts(initial)
	text, err := s.call(ctx, PhasePrediction, KindSynthesize, 0, -1, "synthesize", d)
	if err != nil {
		return err
	}
	syn := ParseSynthesis(text)
	var notes []string
	if s.c.SMM {
		s.smm.Facts = syn.Facts
		s.out.FactsMethod = "leader"
	}
	if s.c.Orientation {
		s.report = strings.TrimSpace(syn.Report)
	}
	if s.c.Trust {
		answered := make([]bool, s.n)
		for i, a := range initial {
			answered[i] = len(a.Ranking) > 0
		}
		q, qnotes := KeyQuality(syn.Quality, answered)
		notes = qnotes
		s.out.Quality = q
		scored := 0
		for i, v := range q {
			if v >= 0 {
				s.observeTrust(i, v)
				scored++
			}
		}
		if want := countTrue(answered); scored < want {
			notes = append(notes, fmt.Sprintf("leader scored %d of the %d experts who answered; the others' trust is unchanged", scored, want))
		}
	}
	// A readable answer that is not what was asked keeps its method and notes the problem.
	s.noteWith(KindSynthesize, 0, -1, syn.Method, syn.Err, "", notes)
	return nil
}

func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

// experts renders answers as the leader sees them (FORMATS.md "What the
// leader sees"): per agent, in agent order, its position, its reasoning
// bounded by Config.PeerChars (0: in full) and its facts; an abstaining
// agent as such.
func (s *session) experts(answers []answer.Answer) string {
	var sb strings.Builder
	for i, a := range answers {
		num := strconv.Itoa(i + 1)
		sb.WriteString("POSITION agent ")
		sb.WriteString(num)
		sb.WriteString(": ")
		if len(a.Ranking) == 0 {
			sb.WriteString("(no readable answer)\n")
			continue
		}
		writePosition(&sb, a)
		if r := s.bound(a.Reasoning); r != "" {
			sb.WriteString("REASONING agent ")
			sb.WriteString(num)
			sb.WriteString(": ")
			sb.WriteString(r)
			sb.WriteString("\n")
		}
		if len(a.Facts) > 0 {
			facts := make([]string, 0, len(a.Facts))
			for _, f := range a.Facts {
				if f = s.bound(f); f != "" {
					facts = append(facts, f)
				}
			}
			if len(facts) > 0 {
				sb.WriteString("FACTS agent ")
				sb.WriteString(num)
				sb.WriteString(": ")
				sb.WriteString(strings.Join(facts, "; "))
				sb.WriteString("\n")
			}
		}
	}
	return sb.String()
}

// mediate is the leader's call after a discussion turn.
func (s *session) mediate(ctx context.Context, turn int) error {
	d := &promptData{N: s.n, Turn: turn, Turns: s.c.Turns, ShowLeaning: s.c.ShowLeaning}
	if s.c.SMM {
		d.Analysis, d.Facts, d.Debated = s.smm.Analysis, s.smm.Facts, s.smm.Debated
	}
	d.Report = s.report
	d.Positions = s.positions(-1, s.latest)
	d.History = s.History()
	text, err := s.call(ctx, PhaseDiscussion, KindMediate, turn, -1, "mediate", d)
	if err != nil {
		return err
	}
	m := ParseMediation(text, s.options)
	s.noteWith(KindMediate, turn, -1, m.Method, m.Err, m.Reason, m.Notes)
	summary := strings.TrimSpace(m.Summary)
	s.out.Mediations = append(s.out.Mediations, summary)
	s.out.Leanings = append(s.out.Leanings, m.Leaning)
	entry := fmt.Sprintf("Leader, mediation after turn %d: %s", turn, s.bound(summary))
	// The mediator is neutral (the reference's "neutral, facilitative
	// tone"): its leaning is recorded, and shown to the agents — as a
	// "POSITION leader:" line and in the history — only with ShowLeaning.
	if s.c.ShowLeaning && m.Leaning != "" {
		s.leaning = m.Leaning
		entry += " [leaning " + m.Leaning + "]"
	}
	s.addHistory(entry)
	return nil
}

// breakTie asks the leader to choose among the tied options. It sees what
// the synthesis sees, for the final answers, and the trust scores with T.
func (s *session) breakTie(ctx context.Context, tied []string) error {
	d := &promptData{N: s.n, Tied: strings.Join(tied, ", ")}
	if s.c.SMM {
		d.Analysis, d.Facts, d.Debated = s.smm.Analysis, s.smm.Facts, s.smm.Debated
	}
	d.Report = s.report
	d.Trust = s.trustLines()
	d.Experts = s.experts(s.out.Final())
	text, err := s.call(ctx, PhaseAggregation, KindTieBreak, 0, -1, "tiebreak", d)
	if err != nil {
		return err
	}
	tb := ParseTieBreakOverride(text, s.options, tied)
	s.noteWith(KindTieBreak, 0, -1, tb.Method, tb.Err, tb.Reason, tb.Notes)
	if tb.Err == "" && tb.Answer != "" {
		s.out.Predicted, s.out.TieBrokenBy = tb.Answer, "leader"
		if tb.Override {
			s.out.TieBrokenBy = "leader_override"
		}
		return nil
	}
	w, how := s.seededDraw(tied)
	s.out.Predicted, s.out.TieBrokenBy = w, how+"_leader_unparsed"
	return nil
}
