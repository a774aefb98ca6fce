package mdagents

import (
	"context"
	"fmt"
	"strings"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

var (
	recruitSchema = kit.Schema(KindRecruit, kit.P("reasoning", kit.String),
		kit.P("experts", kit.ArrayOf(kit.Object{kit.P("role", kit.String), kit.P("description", kit.String), kit.P("hierarchy", kit.String)})))
	talkSchema    = kit.Schema(KindParticipate, kit.P("reasoning", kit.String), kit.P("talk", kit.Boolean))
	chooseSchema  = kit.Schema(KindChoose, kit.P("reasoning", kit.String), kit.P("experts", kit.ArrayOf(kit.Integer)))
	messageSchema = kit.Schema(KindMessage, kit.P("reasoning", kit.String), kit.P("answer", kit.String))
)

// delivered is a message an expert received in the current turn.
type delivered struct {
	from int // 0-based sender
	ans  answer.Answer
}

// intermediate is the intermediate path (utils.py
// process_intermediate_query): recruitment, the exemplars, each expert's
// first opinion, the discussion, the moderator.
func (r *run) intermediate(ctx context.Context) error {
	experts, err := r.recruit(ctx)
	if err != nil {
		return err
	}
	ex, err := r.exemplars(ctx)
	if err != nil {
		return err
	}
	n := len(experts)
	agents := make([]*agent, n)
	roles := make([]string, n)
	for i, e := range experts {
		roles[i] = e.Role
		agents[i] = &agent{system: render("expert_system", r.data("Role", e.Role, "Description", lowerFirst(e.Description)))}
	}
	r.s.Out.N, r.s.Out.Roles = n, roles
	current, err := r.opinions(ctx, agents, ex)
	if err != nil {
		return err
	}
	r.s.Out.Rounds = [][]answer.Answer{current}
	last, err := r.discuss(ctx, agents, roles, current)
	if err != nil {
		return err
	}
	return r.moderate(ctx, roles, last)
}

// recruit is the recruiter's call (leader temperature), read by
// ParseExperts.
func (r *run) recruit(ctx context.Context) ([]Expert, error) {
	st := step{Call: kit.Call{Phase: PhaseRecruit, Kind: KindRecruit, Agent: -1, Role: "recruiter", Temperature: r.leaderTemp,
		User: render("recruit", r.data("N", Experts)), Schema: recruitSchema}, order: order(PhaseRecruit, KindRecruit, 0, -1, 0)}
	text, err := once(ctx, r.s, render("recruit_system", r.data()), st)
	if err != nil {
		return nil, err
	}
	l := ParseExperts(text)
	r.det.Experts = l.Experts
	r.det.Notes = append(r.det.Notes, l.Notes...)
	if len(l.Experts) == 0 {
		r.s.Note(KindRecruit, 0, -1, answer.MethodNone, "no expert could be read", answer.ReasonNoAnswer, l.Notes)
		r.det.Notes = append(r.det.Notes, "no expert could be read: the moderator decides alone")
		return nil, nil
	}
	r.s.Note(KindRecruit, 0, -1, l.Method, "", "", l.Notes)
	return l.Experts, nil
}

// opinions asks every expert for its first opinion at once (with the
// exemplars block when there are exemplars).
func (r *run) opinions(ctx context.Context, agents []*agent, ex []exemplar) ([]answer.Answer, error) {
	out := make([]answer.Answer, len(agents))
	texts := make([]string, len(agents))
	user := render("opinion", r.data("Examples", r.examplesBlock(ex)))
	err := r.s.Parallel(ctx, len(agents), func(ctx context.Context, i int) error {
		st := step{Call: kit.Call{Phase: PhaseInitial, Kind: KindOpinion, Agent: i, Role: r.s.Out.Roles[i], Temperature: r.agentTemp,
			User: user, Schema: answerSchema}, order: order(PhaseInitial, KindOpinion, 0, i, 0), first: i == 0}
		text, err := agents[i].ask(ctx, r.s, st)
		texts[i] = text
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, text := range texts {
		out[i] = r.parseAnswer(text, KindOpinion, 0, i)
	}
	return out, nil
}

// discuss runs the discussion as the code does: up to Rounds rounds of up to
// Turns turns; in a turn each expert in order says whether it wants to talk
// (in round 1 it is shown every expert's first opinion; in later rounds the
// messages sent to it earlier in the same turn), and if so whom to and
// sends each a message; a turn in which nobody wants to talk ends the
// discussion, with no answers for that round; after a round's turns every
// expert gives its final answer. It returns the answers the moderator sees:
// the last round's, or the first opinions when no round ended.
func (r *run) discuss(ctx context.Context, agents []*agent, roles []string, current []answer.Answer) ([]answer.Answer, error) {
	n := len(agents)
	var list strings.Builder
	for i, role := range roles {
		fmt.Fprintf(&list, "Agent %d: %s - %s\n", i+1, role, lowerFirst(r.det.Experts[i].Description))
	}
	first := current
	for round := 1; round <= Rounds && n > 0; round++ {
		r.det.Rounds = round
		numYes := 0
		for turn := 1; turn <= Turns; turn++ {
			t := (round-1)*Turns + turn
			r.det.TurnsRun++
			inbox := make([][]delivered, n)
			numYes = 0
			for i := range agents {
				talk, err := r.participate(ctx, agents[i], round, t, i, roles, first, current[i], inbox[i])
				if err != nil {
					return nil, err
				}
				if !talk {
					continue
				}
				numYes++
				r.det.Talks++
				chosen, err := r.choose(ctx, agents[i], t, i, n, list.String())
				if err != nil {
					return nil, err
				}
				for _, ce := range chosen {
					m, err := r.message(ctx, agents[i], t, i, ce, roles[ce-1])
					if err != nil {
						return nil, err
					}
					inbox[ce-1] = append(inbox[ce-1], delivered{from: i, ans: m})
					r.det.Messages = append(r.det.Messages, Message{Round: round, Turn: turn, From: i + 1, To: ce, Answer: m.First()})
				}
			}
			if numYes == 0 {
				break
			}
		}
		if numYes == 0 {
			r.det.EarlyStop = true
			break
		}
		finals, err := r.finals(ctx, agents, round)
		if err != nil {
			return nil, err
		}
		current = finals
		r.s.Out.Rounds = append(r.s.Out.Rounds, finals)
		r.det.Finals = round
	}
	return current, nil
}

// participate asks expert i whether it wants to talk.
func (r *run) participate(ctx context.Context, g *agent, round, t, i int, roles []string, first []answer.Answer, own answer.Answer, inbox []delivered) (bool, error) {
	var opinions string
	if round == 1 {
		heads := make([]string, len(first))
		for j := range first {
			heads[j] = fmt.Sprintf("Agent %d (%s):", j+1, roles[j])
			if j == i {
				heads[j] = fmt.Sprintf("Agent %d (%s, you):", j+1, roles[j])
			}
		}
		opinions = r.positions(heads, first)
	} else {
		opinions = r.inboxText(inbox, roles, i)
	}
	st := step{Call: kit.Call{Phase: PhaseDiscussion, Kind: KindParticipate, Turn: t, Agent: i, Role: roles[i], Temperature: r.agentTemp,
		User: render("participate", r.data("Own", kit.PositionLine("you", own), "Opinions", opinions)), Schema: talkSchema},
		order: order(PhaseDiscussion, KindParticipate, 2*t, i, 0)}
	text, err := g.ask(ctx, r.s, st)
	if err != nil {
		return false, err
	}
	tk := ParseTalk(text)
	switch tk.Method {
	case ReadStrict:
		r.s.Note(KindParticipate, t, i, answer.Method(ReadStrict), "", "", nil)
	case ReadCodeRule:
		r.s.Note(KindParticipate, t, i, answer.Method(ReadCodeRule), "", "", []string{tk.Err + "; the reply says yes: talks (the code's rule)"})
	default:
		r.s.Note(KindParticipate, t, i, answer.MethodNone, tk.Err, answer.ReasonNoAnswer, []string{"no yes: does not talk"})
	}
	return tk.Talk, nil
}

// inboxText renders the messages an expert received earlier in the turn.
func (r *run) inboxText(inbox []delivered, roles []string, i int) string {
	if len(inbox) == 0 {
		return "(no expert has written to you in this turn)\n"
	}
	var sb strings.Builder
	for _, m := range inbox {
		who := fmt.Sprintf("agent %d", m.from+1)
		fmt.Fprintf(&sb, "Agent %d (%s) -> Agent %d (you):\n", m.from+1, roles[m.from], i+1)
		sb.WriteString(kit.PositionLine(who, m.ans))
		if rs := clip(m.ans.Reasoning, r.peerChars); rs != "" {
			sb.WriteString("REASONING " + who + ": " + rs + "\n")
		}
	}
	return sb.String()
}

// choose asks expert i whom it wants to talk to.
func (r *run) choose(ctx context.Context, g *agent, t, i, n int, list string) ([]int, error) {
	st := step{Call: kit.Call{Phase: PhaseDiscussion, Kind: KindChoose, Turn: t, Agent: i, Role: r.s.Out.Roles[i], Temperature: r.agentTemp,
		User: render("choose", r.data("Agents", list)), Schema: chooseSchema}, order: order(PhaseDiscussion, KindChoose, 2*t, i, 0)}
	text, err := g.ask(ctx, r.s, st)
	if err != nil {
		return nil, err
	}
	c := ParseChosen(text, n, i+1)
	m := answer.Method(c.Method)
	if c.Method == ReadDefault {
		m = answer.MethodNone
	}
	errText, reason := "", ""
	if len(c.Experts) == 0 {
		errText, reason = "no other expert chosen", answer.ReasonNoAnswer
	}
	r.s.Note(KindChoose, t, i, m, errText, reason, c.Notes)
	return c.Experts, nil
}

// message asks expert i for its message to expert ce (1-based). Its turn
// is 10·t + ce, so each message has its own identity.
func (r *run) message(ctx context.Context, g *agent, t, i, ce int, role string) (answer.Answer, error) {
	turn := 10*t + ce
	st := step{Call: kit.Call{Phase: PhaseDiscussion, Kind: KindMessage, Turn: turn, Agent: i, Role: r.s.Out.Roles[i], Temperature: r.agentTemp,
		User: render("message", r.data("Target", ce, "TargetRole", role)), Schema: messageSchema},
		order: order(PhaseDiscussion, KindMessage, 2*t, i, ce)}
	text, err := g.ask(ctx, r.s, st)
	if err != nil {
		return answer.Answer{}, err
	}
	return r.parseAnswer(text, KindMessage, turn, i), nil
}

// finals asks every expert for its answer at the end of a round, at once
// (each from its own conversation).
func (r *run) finals(ctx context.Context, agents []*agent, round int) ([]answer.Answer, error) {
	texts := make([]string, len(agents))
	user := render("final", r.data())
	err := r.s.Parallel(ctx, len(agents), func(ctx context.Context, i int) error {
		st := step{Call: kit.Call{Phase: PhaseDiscussion, Kind: KindFinal, Turn: round, Agent: i, Role: r.s.Out.Roles[i], Temperature: r.agentTemp,
			User: user, Schema: answerSchema}, order: order(PhaseDiscussion, KindFinal, 2*round*Turns+1, i, 0)}
		text, err := agents[i].ask(ctx, r.s, st)
		texts[i] = text
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]answer.Answer, len(agents))
	for i, text := range texts {
		out[i] = r.parseAnswer(text, KindFinal, round, i)
	}
	return out, nil
}

// moderate is the moderator's decision by majority vote over the experts'
// answers, at temperature 0 (the code's temp_responses).
func (r *run) moderate(ctx context.Context, roles []string, answers []answer.Answer) error {
	heads := make([]string, len(answers))
	for j := range answers {
		heads[j] = fmt.Sprintf("Agent %d (%s):", j+1, roles[j])
	}
	shown := r.positions(heads, answers)
	if len(answers) == 0 {
		shown = "(no expert answers)\n"
	}
	return r.finalDecision(ctx, KindModerator, "moderator", "moderator", "Answers", shown, answers, RuleModerator, RuleModeratorUnparsed)
}

// finalDecision is a path's last call (the moderator's, the decision
// maker's), greedy as the code's temp_responses: template tmpl (and
// tmpl_system) shows what the team produced under key, and the answer read
// decides (rule; unparsed when it cannot be read, falling back to answers).
func (r *run) finalDecision(ctx context.Context, kind, role, tmpl, key, shown string, answers []answer.Answer, rule, unparsed string) error {
	st := step{Call: kit.Call{Phase: PhaseDecision, Kind: kind, Agent: -1, Role: role, Temperature: 0,
		User: render(tmpl, r.data(key, shown)), Schema: answerSchema}, order: order(PhaseDecision, kind, 0, -1, 0)}
	text, err := once(ctx, r.s, render(tmpl+"_system", r.data()), st)
	if err != nil {
		return err
	}
	ans := r.parseAnswer(text, kind, 0, -1)
	r.decide(ans, answers, rule, unparsed)
	return nil
}
