package teamwork

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/qa"
)

// Team runs the protocol for one arm.
type Team struct {
	Config  Config
	Model   string // model name sent in requests (without provider prefix)
	Arm     string // arm label, recorded in call metadata
	RunSeed int64
	Repeat  int
}

// defaultAgents is the team size used when the recruiter's count cannot be
// read (recorded as a parse failure of the assessment call).
const defaultAgents = 3

// session is the state of one question's deliberation.
type session struct {
	t      *Team
	c      Config
	client llm.Client
	item   qa.Item
	// options are item.Options as the answer parser takes them.
	options []answer.Option

	n      int
	roles  []string
	focus  []string
	smm    sharedModel
	report string
	trust  []float64
	// trustSeen is set by the first quality observation: before it every
	// score is the start value, which carries no information and is not shown.
	trustSeen bool
	latest    []answer.Answer // each agent's latest stated position
	leaning   string
	// history is the discussion so far, one statement per line. It only
	// grows, so a string taken from it (History) stays valid and unchanged
	// while later lines are added.
	history  strings.Builder
	question string // the rendered question block

	// System messages are fixed for the whole question, so they are
	// rendered once: the leader's at the start, each agent's after recruitment.
	leaderSystem string
	agentSystem  []string
	out          *protocol.Outcome
}

// Run deliberates on one question and returns the team's decision. Model-call
// errors end the question with an error; unreadable answers do not (they are
// abstentions, recorded in Outcome.Parses).
func (t *Team) Run(ctx context.Context, client llm.Client, item qa.Item) (*protocol.Outcome, error) {
	if err := t.Config.Validate(); err != nil {
		return nil, err
	}
	s := &session{t: t, c: t.Config, client: client, item: item, options: kit.AnswerOptions(item), out: &protocol.Outcome{}}
	s.question = kit.QuestionBlock(item) // the block every protocol shows
	var err error
	if s.leaderSystem, err = render("system_leader", &promptData{}); err != nil {
		return nil, err
	}
	if err := s.phases(ctx); err != nil {
		return nil, err
	}
	if err := s.aggregate(ctx); err != nil {
		return nil, err
	}
	s.out.Analysis = s.smm.Analysis
	s.out.Facts = s.smm.Facts
	s.out.Debated = s.smm.Debated
	s.out.Report = s.report
	if s.c.Trust {
		s.out.Trust = s.trust
	}
	return s.out, nil
}

// phases runs recruitment, prediction and the discussion turns (each turn
// followed by the leader's mediation with L and, but after the last, a
// monitoring round with MM).
func (s *session) phases(ctx context.Context) error {
	if err := s.recruit(ctx); err != nil {
		return err
	}
	if err := s.predict(ctx); err != nil {
		return err
	}
	if err := s.postPrediction(ctx); err != nil {
		return err
	}
	for turn := 1; turn <= s.c.Turns; turn++ {
		if err := s.discuss(ctx, turn); err != nil {
			return err
		}
		if s.c.Leadership {
			if err := s.mediate(ctx, turn); err != nil {
				return err
			}
		}
		if s.c.Monitoring && turn < s.c.Turns {
			if err := s.monitor(ctx, turn); err != nil {
				return err
			}
		}
	}
	return nil
}

// call makes one model call and returns its text.
func (s *session) call(ctx context.Context, phase string, kind string, turn, agent int, user string, d *promptData) (string, error) {
	d.Question = s.question
	d.JSON = s.c.Structured
	system := s.leaderSystem
	if agent >= 0 {
		system = s.agentSystem[agent]
	}
	d.SharedLayout, d.System = s.c.SharedLayout, system
	u, err := render(user, d)
	if err != nil {
		return "", err
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: u}}
	if s.c.SharedLayout { // the system text is in u, after the shared block
		msgs = msgs[1:]
	}
	meta := llm.Meta{QuestionID: s.item.ID, Arm: s.t.Arm, Repeat: s.t.Repeat, Phase: phase, Kind: kind, Order: callOrder(phase, kind, turn, agent), Turn: turn, Agent: agent}
	temp := s.c.LeaderTemperature
	if agent >= 0 {
		temp = s.c.AgentTemperature
		meta.Role = s.roleName(agent)
	} else {
		meta.Role = "leader"
	}
	req := llm.Request{
		Model:       s.t.Model,
		Messages:    msgs,
		Temperature: temp,
		MaxTokens:   s.c.MaxTokens,
		Seed:        llm.DeriveSeed(s.t.RunSeed, s.t.Repeat, s.item.ID, meta),
		Meta:        meta,
	}
	if s.c.Structured {
		req.Schema = schemas[kind]
	}
	resp, err := s.client.Chat(ctx, req)
	if err != nil {
		who := "leader"
		if agent >= 0 {
			who = "agent " + strconv.Itoa(agent+1)
		}
		return "", fmt.Errorf("%s call (%s, turn %d, %s): %w", kind, phase, turn, who, err)
	}
	return kit.Reply(resp), nil
}

func (s *session) note(kind string, turn, agent int, m answer.Method, errText string) {
	s.noteWith(kind, turn, agent, m, errText, "", nil)
}

// noteWith records how a call's answer was read, with the abstention reason
// code and the observations that did not stop it being read.
func (s *session) noteWith(kind string, turn, agent int, m answer.Method, errText, reason string, notes []string) {
	s.out.Parses = append(s.out.Parses, protocol.ParseNote{Kind: kind, Turn: turn, Agent: agent, Method: m, Err: errText, Reason: reason, Notes: notes})
}

// roleName is how the agent is named in records: its recruited role.
func (s *session) roleName(i int) string {
	if i < len(s.roles) {
		return s.roles[i]
	}
	return fmt.Sprintf("Expert %d", i+1)
}

// shownRole is the role an agent's prompt shows: only with team orientation
// and leadership (seed 002 §3: "IF C.TO AND C.L: Roles ←
// AssignMedicalSpecialties … ELSE Roles ← {Expert₁, …, Expertₙ}"), so
// under TO without L the agents are generic experts and see no role.
func (s *session) shownRole(i int) (string, string) {
	if !s.c.Orientation || !s.c.Leadership {
		return "", ""
	}
	return s.roles[i], s.focus[i]
}

// displayName names agent i to its colleagues.
func (s *session) displayName(i int) string {
	if r, _ := s.shownRole(i); r != "" {
		return fmt.Sprintf("Agent %d (%s)", i+1, r)
	}
	return fmt.Sprintf("Agent %d", i+1)
}

// recruit is phase 1: assessment (team size and question analysis) and
// recruitment (roles ranked by how central their specialty is). Both calls
// are the same request in every arm (DESIGN §4 "Paired arms"): the
// components decide only what is used — SMM keeps the analysis for the
// agents, TO∧L turns the ranking into hierarchical weights, TO shows roles.
func (s *session) recruit(ctx context.Context) error {
	d := &promptData{}
	text, err := s.call(ctx, PhaseRecruitment, KindAssess, 0, -1, "assess", d)
	if err != nil {
		return err
	}
	a := ParseAssessment(text)
	var notes []string
	// The analysis may describe the problem, never name the answer (DESIGN
	// §4): the prompt says so, and a parsed analysis that does is recorded.
	if l := answer.Stated(a.Analysis, s.options); l != "" {
		s.out.AnalysisNamesOption = l
		notes = append(notes, fmt.Sprintf("question analysis names option %s as the answer, which the prompt forbids (recorded in analysis_names_option)", l))
	}
	s.noteWith(KindAssess, 0, -1, a.Method, a.Err, "", notes)
	switch {
	case s.c.Agents != 0:
		s.n = s.c.Agents
	case a.Agents >= 2 && a.Agents <= 4:
		s.n = a.Agents
	default:
		s.n = defaultAgents
	}
	analysis := strings.TrimSpace(a.Analysis)
	if s.c.SMM {
		s.smm.Analysis = analysis
	}

	d = &promptData{N: s.n, Analysis: analysis}
	text, err = s.call(ctx, PhaseRecruitment, KindRecruit, 0, -1, "recruit", d)
	if err != nil {
		return err
	}
	r := ParseRoster(text)
	var complete bool
	s.roles, s.focus, complete = fillRoles(r.Roles, s.n)
	method, perr := r.Method, r.Err
	if !complete && perr == "" {
		perr = fmt.Sprintf("recruiter named %d roles for a team of %d; the rest are generic experts", len(r.Roles), s.n)
	}
	s.note(KindRecruit, 0, -1, method, perr)
	s.out.N = s.n
	s.out.Roles = recordedRoles(s.c, s.roles)
	s.out.Weights = teamWeights(s.c, s.n)
	s.agentSystem = make([]string, s.n)
	for i := range s.n {
		role, _ := s.shownRole(i)
		if s.agentSystem[i], err = render("system_agent", &promptData{N: s.n, AgentNum: i + 1, Role: role}); err != nil {
			return err
		}
	}
	s.trust = make([]float64, s.n)
	for i := range s.trust {
		s.trust[i] = TrustStart
	}
	return nil
}

// observeTrust applies one quality observation to agent i's trust.
func (s *session) observeTrust(i int, q float64) {
	if q < 0 || q > 1 || math.IsNaN(q) {
		return
	}
	s.trust[i] = updateTrust(s.trust[i], q)
	s.trustSeen = true
}

// trustLines is the TRUST block the tie-break sees (the exact scores, as
// seed 002 §3's Leader.ResolveTie(Tied, R₃, T_scores, M_smm) and the
// reference's resolve_tie, "(trust: 0.80)", give them): only with T, and
// only once an observation has been made (before it every score is the
// start value, which says nothing about anyone).
func (s *session) trustLines() []string {
	if !s.c.Trust || !s.trustSeen {
		return nil
	}
	lines := make([]string, s.n)
	for j, v := range s.trust {
		lines[j] = fmt.Sprintf("agent %d: %.2f", j+1, v)
	}
	return lines
}

// agentTrustLines is the TRUST block an agent's discussion and monitoring
// prompts show, by Config.TrustView: the exact scores (seed 002), a level
// per agent (the reference's prompt hints) or nothing (trust then only
// weights the vote).
func (s *session) agentTrustLines() []string {
	switch s.c.trustView() {
	case TrustHidden:
		return nil
	case TrustLevels:
		lines := s.trustLines()
		for j := range lines {
			lines[j] = fmt.Sprintf("agent %d: %s", j+1, TrustLevel(s.trust[j]))
		}
		return lines
	}
	return s.trustLines()
}

// agentData is the prompt data shared by an agent's calls.
func (s *session) agentData(i int) *promptData {
	role, focus := s.shownRole(i)
	d := &promptData{N: s.n, AgentNum: i + 1, Role: role, Focus: focus, Turns: s.c.Turns}
	if s.c.SMM {
		d.Analysis = s.smm.Analysis
		d.Facts = s.smm.Facts
		d.Debated = s.smm.Debated
	}
	d.Report = s.report
	d.Trust = s.agentTrustLines()
	return d
}

// predict is phase 2: N independent answers in parallel, each the shared
// first answer (first.go).
func (s *session) predict(ctx context.Context) error {
	answers := make([]answer.Answer, s.n)
	err := llm.Parallel(ctx, llm.BrancherOf(s.client), s.n, func(gctx context.Context, i int) error {
		text, err := s.first(gctx, i)
		if err != nil {
			return err
		}
		answers[i] = firstanswer.Parse(text, s.options).Answer
		return nil
	})
	if err != nil {
		return err
	}
	for i, a := range answers {
		s.noteWith(kit.KindFirst, 0, i, a.Method, a.Err, a.Reason, a.Notes)
		s.addHistory(s.statement(i, "initial answer", a))
	}
	s.out.Rounds = append(s.out.Rounds, answers)
	s.latest = append([]answer.Answer(nil), answers...)
	return nil
}

// statement renders one agent answer for the discussion history.
func (s *session) statement(i int, what string, a answer.Answer) string {
	var sb strings.Builder
	sb.WriteString(s.displayName(i))
	sb.WriteString(", ")
	sb.WriteString(what)
	sb.WriteString(": ")
	if len(a.Ranking) == 0 {
		sb.WriteString("(no readable answer)")
		return sb.String()
	}
	sb.WriteString(s.bound(a.Reasoning))
	sb.WriteString(" [ranking ")
	sb.WriteString(strings.Join(a.Ranking, " > "))
	sb.WriteString("]")
	return sb.String()
}

// bound is how a prompt shows another member's text: white space joined,
// cut to Config.PeerChars bytes when that is set (kit.Bound; --peer-chars,
// 0 = the full text).
func (s *session) bound(text string) string { return kit.Bound(text, s.c.PeerChars) }

func (s *session) addHistory(line string) {
	s.history.WriteString(line)
	s.history.WriteByte('\n')
}

// History is the discussion so far.
func (s *session) History() string { return s.history.String() }

// positions renders the team's latest positions as "POSITION …" lines for
// agent self (-1 = nobody is "you", as in leader prompts).
func (s *session) positions(self int, latest []answer.Answer) string {
	var sb strings.Builder
	for i, a := range latest {
		if len(a.Ranking) == 0 {
			continue
		}
		sb.WriteString("POSITION ")
		if i == self {
			sb.WriteString("you")
		} else {
			sb.WriteString("agent ")
			sb.WriteString(strconv.Itoa(i + 1))
		}
		sb.WriteString(": ")
		writePosition(&sb, a)
	}
	if s.leaning != "" {
		sb.WriteString("POSITION leader: ")
		sb.WriteString(s.leaning)
		sb.WriteString("\n")
	}
	return sb.String()
}

// writePosition writes a ranking and its stated confidence, ending the line:
// "B > A > C > D (confidence 0.70)\n" (FORMATS.md's POSITION grammar).
func writePosition(sb *strings.Builder, a answer.Answer) {
	sb.WriteString(strings.Join(a.Ranking, " > "))
	if a.Confidence >= 0 {
		sb.WriteString(" (confidence ")
		sb.WriteString(strconv.FormatFloat(a.Confidence, 'f', 2, 64))
		sb.WriteString(")")
	}
	sb.WriteString("\n")
}

// postPrediction fills the shared model and the first trust observation,
// with one leader call when leadership has something to do, else by
// computation.
func (s *session) postPrediction(ctx context.Context) error {
	initial := s.out.Rounds[0]
	if s.c.SMM {
		s.out.FactsStated = statedFacts(initial)
	}
	if s.c.synthesisCall() {
		return s.synthesize(ctx, initial)
	}
	if s.c.SMM {
		s.smm.Facts = factIntersection(initial)
		s.out.FactsMethod = "intersection"
	}
	if s.c.Trust {
		parts := heuristicQualityParts(initial, len(s.item.Options))
		s.out.HeuristicQuality = parts
		for i, p := range parts {
			s.observeTrust(i, p.Quality)
		}
	}
	return nil
}

// discuss is one discussion turn: each agent speaks once; the last turn asks
// for the final ranking.
func (s *session) discuss(ctx context.Context, turn int) error {
	kind := KindDiscuss
	if turn == s.c.Turns {
		kind = KindFinal
	}
	answers := make([]answer.Answer, s.n)
	ask := func(ctx context.Context, i int, latest []answer.Answer, history string) (answer.Answer, error) {
		d := s.agentData(i)
		d.Turn, d.Final = turn, kind == KindFinal
		d.Positions = s.positions(i, latest)
		d.History = history
		text, err := s.call(ctx, PhaseDiscussion, kind, turn, i, string(KindDiscuss), d)
		if err != nil {
			return answer.Answer{}, err
		}
		return answer.Parse(text, s.options), nil
	}
	what := fmt.Sprintf("turn %d", turn)
	if s.c.Discussion == Parallel {
		latest, history := s.latest, s.History()
		err := llm.Parallel(ctx, llm.BrancherOf(s.client), s.n, func(gctx context.Context, i int) (err error) {
			answers[i], err = ask(gctx, i, latest, history)
			return err
		})
		if err != nil {
			return err
		}
		next := append([]answer.Answer(nil), s.latest...)
		for i, a := range answers {
			s.noteWith(kind, turn, i, a.Method, a.Err, a.Reason, a.Notes)
			s.addHistory(s.statement(i, what, a))
			if len(a.Ranking) > 0 {
				next[i] = a
			}
		}
		s.latest = next
	} else {
		for i := range s.n {
			a, err := ask(ctx, i, s.latest, s.History())
			if err != nil {
				return err
			}
			answers[i] = a
			s.noteWith(kind, turn, i, a.Method, a.Err, a.Reason, a.Notes)
			s.addHistory(s.statement(i, what, a))
			if len(a.Ranking) > 0 {
				s.latest = append([]answer.Answer(nil), s.latest...)
				s.latest[i] = a
			}
		}
	}
	s.out.Rounds = append(s.out.Rounds, answers)
	return nil
}

// aggregate is phase 4: trust-weighted Borda if T, else hierarchical-weighted
// Borda if TO∧L (with TO alone the weights are equal, which is plain Borda),
// else plain Borda, over the final round's rankings; then the tie rule.
func (s *session) aggregate(ctx context.Context) error {
	final := s.out.Final()
	rankings := make([][]string, len(final))
	for i, a := range final {
		rankings[i] = a.Ranking
	}
	letters := s.item.Letters()
	var d aggregator.Decision
	var err error
	switch {
	case s.c.Trust:
		d, err = aggregator.WeightedBorda(letters, rankings, s.trust, aggregator.RuleTrustBorda)
	case s.c.hierarchical():
		d, err = aggregator.WeightedBorda(letters, rankings, s.out.Weights, aggregator.RuleHierarchicalBorda)
	default:
		d = aggregator.PlainBorda(letters, rankings)
	}
	if err != nil {
		return err
	}
	s.out.Decision = d
	switch {
	case d.Abstained() && s.item.IsTriage():
		// a triage item is never abstained on: the safe default is its
		// most urgent level (DESIGN §5), the rule stays the Borda rule
		s.out.Predicted = s.item.MostUrgent()
		s.out.Decision.Winner = s.out.Predicted
		s.out.Details = kit.Escalate(nil, "no_votes: no agent gave a readable final ranking")
	case d.Abstained():
		s.out.AbstainReason = "no agent gave a readable final ranking"
	case !d.Tie:
		s.out.Predicted = d.Winner
	case s.c.Leadership:
		return s.breakTie(ctx, d.Tied)
	default:
		s.out.Predicted, s.out.TieBrokenBy = s.seededDraw(d.Tied)
	}
	return nil
}

// seededDraw breaks a tie without a leader by the protocols' one tie rule
// (kit.BreakTie): on a triage item the most urgent tied level ("escalated"),
// else a draw seeded by the call seed the tie-break would have had, so it is
// reproducible and arm-independent ("seeded_draw").
func (s *session) seededDraw(tied []string) (winner, how string) {
	meta := llm.Meta{Phase: PhaseAggregation, Kind: KindTieBreak, Agent: -1}
	return kit.BreakTie(s.item, tied, uint64(llm.DeriveSeed(s.t.RunSeed, s.t.Repeat, s.item.ID, meta)))
}
