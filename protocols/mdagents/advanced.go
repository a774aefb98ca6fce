package mdagents

import (
	"context"
	"fmt"
	"strings"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

var (
	teamsSchema = kit.Schema(KindTeams, kit.P("reasoning", kit.String),
		kit.P("teams", kit.ArrayOf(kit.Object{kit.P("name", kit.String),
			kit.P("members", kit.ArrayOf(kit.Object{kit.P("role", kit.String), kit.P("lead", kit.Boolean), kit.P("expertise", kit.String)}))})))
	deliverySchema      = kit.Schema(KindDelivery, kit.P("reasoning", kit.String), kit.P("investigations", kit.String))
	investigationSchema = kit.Schema(KindInvestigate, kit.P("reasoning", kit.String), kit.P("investigation", kit.String))
)

// advanced is the advanced path (utils.py process_advanced_query): the
// teams are organised, each team investigates and reports (the initial
// assessment teams first, the final review and decision teams last), and a
// decision maker decides from every team's report. No exemplars (the code
// passes none to this path).
func (r *run) advanced(ctx context.Context) error {
	teams, err := r.organise(ctx)
	if err != nil {
		return err
	}
	r.det.Teams = teams
	reports := make([]answer.Answer, len(teams))
	base := 0
	for k, t := range teams {
		for _, m := range t.Members {
			r.s.Out.Roles = append(r.s.Out.Roles, m.Role)
		}
		if reports[k], err = r.team(ctx, k, t, base); err != nil {
			return err
		}
		base += len(t.Members)
	}
	r.s.Out.N = base
	r.s.Out.Rounds = [][]answer.Answer{reports}
	heads := make([]string, len(teams))
	for k, t := range teams {
		heads[k] = fmt.Sprintf("Group %d - %s (report of its lead, %s):", k+1, t.Name, t.Members[0].Role)
	}
	shown := r.positions(heads, reports)
	if len(teams) == 0 {
		shown = "(no team reports)\n"
	}
	return r.finalDecision(ctx, KindDecision, "decision maker", "decision", "Reports", shown, reports, RuleDecision, RuleDecisionUnparsed)
}

// organise is the recruiter's call (leader temperature), read by ParseTeams
// and chosen by Select.
func (r *run) organise(ctx context.Context) ([]Team, error) {
	st := step{Call: kit.Call{Phase: PhaseRecruit, Kind: KindTeams, Agent: -1, Role: "recruiter", Temperature: r.leaderTemp,
		User: render("teams", r.data("Teams", Teams, "Members", Members)), Schema: teamsSchema}, order: order(PhaseRecruit, KindTeams, 0, -1, 0)}
	text, err := once(ctx, r.s, render("teams_system", r.data()), st)
	if err != nil {
		return nil, err
	}
	l := ParseTeams(text)
	teams, notes := Select(l.Teams)
	notes = append(l.Notes, notes...)
	r.det.Notes = append(r.det.Notes, notes...)
	if len(teams) == 0 {
		r.s.Note(KindTeams, 0, -1, answer.MethodNone, "no team could be read", answer.ReasonNoAnswer, notes)
		r.det.Notes = append(r.det.Notes, "no team could be read: the decision maker decides alone")
		return nil, nil
	}
	r.s.Note(KindTeams, 0, -1, l.Method, "", "", notes)
	return teams, nil
}

// team runs team k (0-based; its calls' turn is k+1, its members' agent
// numbers start at base): the lead asks for investigations, the assistants
// investigate at once, the lead answers from their investigations.
func (r *run) team(ctx context.Context, k int, t Team, base int) (answer.Answer, error) {
	turn := k + 1
	members := make([]*agent, len(t.Members))
	for m, mb := range t.Members {
		members[m] = &agent{system: render("member_system", r.data("Role", mb.Role, "Expertise", lowerFirst(mb.Expertise)))}
	}
	var assistants strings.Builder
	for _, mb := range t.Members[1:] {
		assistants.WriteString(mb.Role + "\n")
	}
	if len(t.Members) == 1 {
		assistants.WriteString("(none)\n")
	}
	lead := members[0]
	st := step{Call: kit.Call{Phase: PhaseTeams, Kind: KindDelivery, Turn: turn, Agent: base, Role: t.Members[0].Role, Temperature: r.agentTemp,
		User: render("delivery", r.data("Goal", t.Name, "Assistants", assistants.String())), Schema: deliverySchema},
		order: order(PhaseTeams, KindDelivery, turn, base, 0)}
	text, err := lead.ask(ctx, r.s, st)
	if err != nil {
		return answer.Answer{}, err
	}
	delivery, dm := ParseDelivery(text)
	r.noteText(KindDelivery, turn, base, delivery, dm)

	na := len(t.Members) - 1
	texts := make([]string, na)
	err = r.s.Parallel(ctx, na, func(ctx context.Context, i int) error {
		m := i + 1
		st := step{Call: kit.Call{Phase: PhaseTeams, Kind: KindInvestigate, Turn: turn, Agent: base + m, Role: t.Members[m].Role, Temperature: r.agentTemp,
			User: render("investigation", r.data("Goal", t.Name, "Delivery", clip(delivery, r.peerChars))), Schema: investigationSchema},
			order: order(PhaseTeams, KindInvestigate, turn, base+m, 0)}
		text, err := members[m].ask(ctx, r.s, st)
		texts[i] = text
		return err
	})
	if err != nil {
		return answer.Answer{}, err
	}
	var gathered strings.Builder
	for i, text := range texts {
		inv, im := ParseInvestigation(text)
		r.noteText(KindInvestigate, turn, base+i+1, inv, im)
		fmt.Fprintf(&gathered, "[%s]\n%s\n", t.Members[i+1].Role, clip(inv, r.peerChars))
	}
	if na == 0 {
		gathered.WriteString("(no assistant clinicians)\n")
	}
	st = step{Call: kit.Call{Phase: PhaseTeams, Kind: KindReport, Turn: turn, Agent: base, Role: t.Members[0].Role, Temperature: r.agentTemp,
		User: render("report", r.data("Gathered", gathered.String())), Schema: answerSchema},
		order: order(PhaseTeams, KindReport, turn, base, 0)}
	text, err = lead.ask(ctx, r.s, st)
	if err != nil {
		return answer.Answer{}, err
	}
	return r.parseAnswer(text, KindReport, turn, base), nil
}

// noteText records how a free-text reply was read (empty: a parse failure,
// the text passed on empty).
func (r *run) noteText(kind string, turn, agent int, text string, m answer.Method) {
	if text == "" {
		r.s.Note(kind, turn, agent, answer.MethodNone, "empty reply", answer.ReasonEmpty, nil)
		return
	}
	r.s.Note(kind, turn, agent, m, "", "", nil)
}
