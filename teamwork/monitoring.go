package teamwork

import (
	"context"
	"fmt"
	"strings"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocol"
)

// Mutual monitoring (MM), seed 002 §2.5: between discussion turns (never
// after the last), three calls — the leader selects the weakest reasoning of
// the turn and raises a specific concern; the targeted agent accepts it
// (revising its ranking) or justifies itself; the leader rates the answer.
// The rating updates the target's trust (with T) and the point under debate
// joins the shared model (with SMM). The target's revised ranking becomes its
// position for the next turn. MM requires leadership: Config.Validate rejects
// it otherwise instead of silently dropping it.
func (s *session) monitor(ctx context.Context, turn int) error {
	mr := protocol.MonitorRound{AfterTurn: turn, Quality: -1}
	if err := s.selectConcern(ctx, turn, &mr); err != nil {
		return err
	}
	response, err := s.answerConcern(ctx, turn, &mr)
	if err != nil {
		return err
	}
	if err := s.rateReply(ctx, turn, response, &mr); err != nil {
		return err
	}
	s.out.Monitoring = append(s.out.Monitoring, mr)
	return nil
}

// selectConcern is the first call: the leader picks the target and words
// the concern (both in mr).
func (s *session) selectConcern(ctx context.Context, turn int, mr *protocol.MonitorRound) error {
	d := &promptData{N: s.n, Turn: turn, Turns: s.c.Turns}
	if s.c.SMM {
		d.Analysis, d.Facts, d.Debated = s.smm.Analysis, s.smm.Facts, s.smm.Debated
	}
	d.Report = s.report
	d.Positions = s.positions(-1, s.latest)
	d.History = s.History()
	text, err := s.call(ctx, PhaseDiscussion, KindMonitorSelect, turn, -1, "monitor_select", d)
	if err != nil {
		return err
	}
	sel := ParseConcern(text, s.n)
	s.note(KindMonitorSelect, turn, -1, sel.Method, sel.Err)
	target := sel.Agent
	if target < 0 || target >= s.n {
		// The accounting fixes three calls per round; an unreadable choice
		// falls back to the agent with the lowest stated confidence (ties:
		// lowest index), which is what "weakest" means without a judge.
		target = weakestByConfidence(s.latest)
		mr.TargetFallback = true
	}
	mr.Target = target
	mr.Concern = strings.TrimSpace(sel.Text)
	if mr.Concern == "" {
		mr.Concern = "Please re-examine the key findings that support your first choice."
	}
	mr.Before = s.latest[target].First()
	return nil
}

// answerConcern is the second call: the target accepts the concern
// (revising its position) or justifies itself. It returns the reply's text.
func (s *session) answerConcern(ctx context.Context, turn int, mr *protocol.MonitorRound) (string, error) {
	target, concern := mr.Target, mr.Concern
	rd := s.agentData(target)
	rd.Turn = turn
	rd.Positions = s.positions(target, s.latest)
	rd.History = s.History()
	rd.Target, rd.Concern = target+1, concern
	text, err := s.call(ctx, PhaseDiscussion, KindMonitorRespond, turn, target, "monitor_respond", rd)
	if err != nil {
		return "", err
	}
	rep := ParseConcernReply(text, s.options)
	s.noteWith(KindMonitorRespond, turn, target, rep.Method, rep.Err, rep.Answer.Reason, append(rep.Notes, rep.Answer.Notes...))
	mr.Accepted = rep.Accepts
	if len(rep.Answer.Ranking) > 0 {
		mr.After = rep.Answer.First()
		a := rep.Answer
		if a.Reasoning == "" {
			a.Reasoning = rep.Response
		}
		s.latest = append([]answer.Answer(nil), s.latest...)
		s.latest[target] = a
	}
	s.addHistory(fmt.Sprintf("Leader, concern to %s: %s", s.displayName(target), s.bound(concern)))
	s.addHistory(fmt.Sprintf("%s, reply: %s", s.displayName(target), s.bound(rep.Response)))
	return rep.Response, nil
}

// rateReply is the third call: the leader rates the reply; the rating
// updates the target's trust (T) and the debated point joins the shared
// model (SMM).
func (s *session) rateReply(ctx context.Context, turn int, response string, mr *protocol.MonitorRound) error {
	ratd := &promptData{N: s.n, Target: mr.Target + 1, Concern: mr.Concern, Response: s.bound(response)}
	ratd.Positions = s.positions(-1, s.latest)
	text, err := s.call(ctx, PhaseDiscussion, KindMonitorRate, turn, -1, "monitor_rate", ratd)
	if err != nil {
		return err
	}
	rt := ParseRating(text)
	s.noteWith(KindMonitorRate, turn, -1, rt.Method, rt.Err, "", rt.Notes)
	mr.Quality = rt.Quality
	mr.Debated = strings.TrimSpace(rt.DebatedPoint)
	if s.c.Trust {
		s.observeTrust(mr.Target, rt.Quality)
	}
	if s.c.SMM {
		point := mr.Debated
		if point == "" {
			point = mr.Concern
		}
		s.smm.Debated = append(s.smm.Debated, s.bound(point))
	}
	return nil
}

// weakestByConfidence returns the agent with the lowest stated confidence
// (an abstaining agent counts as weakest; ties go to the lowest index).
func weakestByConfidence(latest []answer.Answer) int {
	best, bestC := 0, 2.0
	for i, a := range latest {
		c := a.Confidence
		if len(a.Ranking) == 0 {
			c = -1
		}
		if c < bestC {
			best, bestC = i, c
		}
	}
	return best
}
