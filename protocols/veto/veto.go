// Package veto is seed 004's multi-agent debate with veto power as a
// protocol.Protocol ("veto", "veto:rounds=R"); its section of
// docs/protocols.md (docs/protocols.md#veto) gives the source, the rules,
// the calls and the deviations.
//
// Three agents with the seed's roles — Utility, Accuracy and Safety — debate
// for R rounds (default SeedRounds, the seed's "4-round debate") and then
// each casts a final ballot. Every call is the shared first-answer request
// (firstanswer.Call: the question, reasoning first, a ranking and a
// confidence) with the agent's role appended to the system prompt and
// veto's ballot appended to the user prompt: a decision (an option letter or
// REFUSE; the Safety agent alone may also cast VETO) and a stated risk. From
// round 2 on, and in the final ballots, each agent sees the panel's ballots
// of the previous round (its own, and the others' as they wrote them,
// bounded only by --peer-chars). Calls: 3·(R+1).
//
// aggregator.VetoRule decides on the final ballots in the seed's order: the
// Safety agent's VETO → the safe default; all three agree (unanimous) or two
// of three (strong_majority) → their ballot, where an option commits the
// team and REFUSE is the safe default; a split → the safe default. An
// unreadable ballot is that agent's REFUSE (the seed's parse-failure ballot:
// confidence 50, risk 75), never the panel's abstention, and a VETO from
// Utility or Accuracy is that agent's REFUSE (Ballot.Counted). The row
// records the seed's metadata (Details): consensus type, agreement
// percentage, vote breakdown, the veto, the highest risk (highlighted above
// 75%), the mean confidence on the seed's 0–100 scale with a warning below
// 60, every agent's counted ballot, and the rule applied.
//
// On a multiple-choice item the safe default is abstention. On a triage item
// it is the most urgent level, and the Safety agent's role asks explicitly
// for an emergency flag: VETO is defined to it as "sending the patient to
// any less urgent level risks harm", so a veto that escalates the case is
// one the prompt asked for; REFUSE and a split escalate as the safe default.
package veto

import (
	"context"
	"embed"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/qa"
)

// The seed's three roles, in the seed's order (agents 0, 1, 2).
const (
	RoleUtility  = "Utility"
	RoleAccuracy = "Accuracy"
	RoleSafety   = "Safety"
)

// Roles are the panel's roles by agent index.
var Roles = [3]string{RoleUtility, RoleAccuracy, RoleSafety}

// SeedRounds is the seed's number of debate rounds before the final
// ballots ("After the 4-round debate, each agent produces a final vote").
const SeedRounds = 4

// MaxRounds bounds veto:rounds=R.
const MaxRounds = 10

// Call kinds of veto (llm.Meta.Kind; the simulator answers both in the
// ballot format, protocols/FORMATS.md). Debate rounds are in phase
// kit.PhaseDebate, turns 1…R; the final ballots in kit.PhaseDecision, turn
// R+1.
const (
	KindDebate = "veto_debate" // a debate round's ballot
	KindBallot = "veto_ballot" // the final ballot
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompts = kit.MustPrompts(promptFS, "prompts/*.tmpl")

// schema is the ballot's JSON schema: the shared first answer's properties
// (reasoning first), then seed 004's risk and decision.
var schema = kit.Schema(KindBallot, append(slices.Clone(firstanswer.Props),
	kit.P("risk", kit.Number), kit.P("decision", kit.String))...)

// Protocol is seed 004's debate with veto power.
var Protocol = &protocol.Protocol{
	Name: "veto",
	Doc: "Seed 004: three agents (Utility, Accuracy, Safety) debate R rounds (default 4), then cast final ballots — an " +
		"option or REFUSE; only Safety may VETO. A veto, a split or a majority REFUSE falls back to the safe default " +
		"(abstention; on triage: the most urgent level); unanimity or a 2/3 majority on an option answers.",
	Parse:      parseArm,
	Presets:    []string{"veto"},
	Accounting: writeAccounting,
	Stub:       stub,
	Prompts:    kit.HashOf(firstanswer.Prompts, prompts),
	// Every call, round 1's included, carries the agent's role in the
	// system prompt and veto's ballot: no first answer equals the panels'.
	OwnFirstAnswer: true,
	Sim:            &Sim,
}

func parseArm(spec string, s protocol.Settings) (protocol.Arm, bool, error) {
	sp, ok, err := kit.ParseSpec(spec, "veto")
	if !ok || err != nil {
		return nil, ok, err
	}
	if _, has := sp.Keyed["n"]; has {
		return nil, true, fmt.Errorf("veto: the panel is seed 004's three agents (Utility, Accuracy, Safety); n is not an option (options: rounds=R)")
	}
	if err := sp.Check("rounds"); err != nil {
		return nil, true, err
	}
	if len(sp.Bare) > 0 {
		return nil, true, fmt.Errorf("veto: unknown option %q (options: rounds=R, e.g. veto:rounds=2)", sp.Bare[0])
	}
	r, err := sp.Int("rounds", -1, SeedRounds, 0, MaxRounds)
	if err != nil {
		return nil, true, err
	}
	return Arm{Rounds: r, Temp: s.AgentTemp, Structured: s.Structured, MaxTokens: s.MaxTokens, PeerChars: s.PeerChars,
		SharedLayout: s.SharedLayout()}, true, nil
}

func writeAccounting(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "calls = 3·(R+1) (3 agents — Utility, Accuracy, Safety — in R debate rounds, then 3 final ballots; R = 4 by default, the seed's)")
	fmt.Fprintln(tw, "arm\tR\tdebate\tballots\ttotal")
	for _, r := range []int{0, 1, 2, SeedRounds} {
		a := Arm{Rounds: r}
		calls, _ := a.Calls(0)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", a.label(), r, 3*r, 3, calls)
	}
	return tw.Flush()
}

// Arm is one veto configuration.
type Arm struct {
	Rounds     int     // debate rounds before the final ballots
	Temp       float64 // every call: the agent temperature
	Structured bool
	MaxTokens  int
	PeerChars  int // bound on each other agent's reasoning shown (0 = full text)
	// SharedLayout lays the calls out shared-prefix-first (--prompt-layout
	// shared; layout.go); false is the order of seed 004 as built here.
	SharedLayout bool
}

// Protocol is veto's Protocol.
func (a Arm) Protocol() *protocol.Protocol { return Protocol }

func (a Arm) label() string {
	if a.Rounds == SeedRounds {
		return "veto"
	}
	return fmt.Sprintf("veto:rounds=%d", a.Rounds)
}

// Info describes the arm: its debate rounds are the turns column; the
// agents of a round answer at once.
func (a Arm) Info() protocol.ArmInfo {
	return protocol.ArmInfo{Label: a.label(), Protocol: Protocol.Name, Turns: a.Rounds, Discussion: "parallel",
		AgentPolicy: "fixed:3", Structured: a.Structured, AgentTemp: a.Temp}
}

// Calls is 3·(R+1), whatever the plan's team size.
func (a Arm) Calls(int) (int, int) { return 3 * (a.Rounds + 1), 0 }

// Details is veto's record (protocol_json), under the names of the seed's
// metadata. Confidences and risks are on the seed's 0–100 scale.
type Details struct {
	Rounds        int    `json:"rounds"`         // debate rounds before the final ballots
	ConsensusType string `json:"consensus_type"` // unanimous, strong_majority, split, veto
	Rule          string `json:"rule"`           // the decision rule: unanimous, strong_majority, refuse, split, veto
	// Decision is what the panel decided: an option letter, or REFUSE for
	// every safe default (a veto, a split, a majority REFUSE).
	Decision string `json:"decision"`
	// AgreementPct is the top count of the ballots (options and REFUSE)
	// over 3, × 100; null when the veto applied (the seed's "N/A").
	AgreementPct  *float64       `json:"agreement_percentage"`
	VoteBreakdown map[string]int `json:"vote_breakdown"` // final ballots per option letter, REFUSE, VETO
	VetoApplied   bool           `json:"veto_applied"`
	VetoAgent     string         `json:"veto_agent,omitempty"`
	VetoRisk      *float64       `json:"veto_risk,omitempty"`
	MaxRisk       float64        `json:"max_risk"`       // -1 when none was stated
	HighRisk      bool           `json:"high_risk"`      // max_risk > 75, highlighted even when outvoted
	AvgConfidence float64        `json:"avg_confidence"` // mean of the counted ballots' confidences; -1 when none
	// Warnings are recorded, never acted on: low_confidence when
	// avg_confidence < 60, high_risk when max_risk > 75.
	Warnings        []string `json:"warnings"`
	IndividualVotes []Vote   `json:"individual_votes"` // the final ballots as counted, by agent
	// Ballots are every round's ballots as counted (an option letter,
	// REFUSE, VETO), by agent; the last is the final ballots.
	Ballots [][]string `json:"ballots"`
	// Levels is the final vote breakdown by urgency level code on a triage
	// item (REFUSE and VETO as themselves); omitted on multiple choice.
	Levels map[string]int `json:"levels,omitempty"`
}

// Vote is one agent's final ballot as the rule counted it.
type Vote struct {
	Agent      string  `json:"agent"`
	Decision   string  `json:"decision"`   // an option letter, REFUSE or VETO
	Confidence float64 `json:"confidence"` // 0–100; -1 = none stated
	Risk       float64 `json:"risk"`       // 0–100; -1 = none stated
	Readable   bool    `json:"readable"`   // false: the seed's parse-failure ballot was counted
	Note       string  `json:"note,omitempty"`
}

// Run debates and applies seed 004's rule to the final ballots.
func (a Arm) Run(ctx context.Context, c llm.Client, item qa.Item, u protocol.Unit) (*protocol.Outcome, error) {
	s := kit.NewSession(c, item, u, a.Structured, a.MaxTokens)
	s.Out.N, s.Out.Roles = len(Roles), Roles[:]
	var prev []Ballot
	var rounds [][]string
	for turn := 1; turn <= a.Rounds+1; turn++ {
		cur, err := a.round(ctx, s, turn, prev)
		if err != nil {
			return nil, err
		}
		row := make([]string, len(cur))
		answers := make([]answer.Answer, len(cur))
		for i, b := range cur {
			row[i] = countedDecision(b, Roles[i])
			answers[i] = ballotAnswer(b, row[i])
		}
		rounds = append(rounds, row)
		s.Out.Rounds = append(s.Out.Rounds, answers)
		prev = cur
	}
	a.decide(s, prev, rounds)
	return s.Out, nil
}

// decide applies aggregator.VetoRule to the final ballots and records it.
func (a Arm) decide(s *kit.Session, final []Ballot, rounds [][]string) {
	item := s.Item
	letters := item.Letters()
	ballots := make([]aggregator.VetoBallot, len(final))
	det := Details{Rounds: a.Rounds, Ballots: rounds, Warnings: []string{}}
	for i, b := range final {
		v, note := b.Counted(Roles[i])
		ballots[i] = v
		dec := v.Choice
		if v.Veto {
			dec = aggregator.Veto
		}
		det.IndividualVotes = append(det.IndividualVotes, Vote{Agent: Roles[i], Decision: dec, Confidence: pct(v.Confidence),
			Risk: pct(v.Risk), Readable: b.Readable(), Note: note})
	}
	v := aggregator.VetoRule(letters, ballots)
	det.ConsensusType, det.Rule, det.VoteBreakdown = v.Type, v.Branch, v.Counts
	det.MaxRisk, det.HighRisk, det.AvgConfidence = pct(v.MaxRisk), v.HighRisk, pct(v.MeanConfidence)
	det.Decision = aggregator.Refuse
	if !v.Fallback {
		det.Decision = v.Decision.Winner
	}
	if len(v.Vetoes) > 0 {
		k := v.Vetoes[0]
		det.VetoApplied, det.VetoAgent = true, Roles[k]
		if r := ballots[k].Risk; r >= 0 {
			det.VetoRisk = ptr(pct(r))
		}
	} else {
		det.AgreementPct = ptr(round2(100 * v.Agreement))
	}
	if v.LowConfidence {
		det.Warnings = append(det.Warnings, fmt.Sprintf("low_confidence: mean confidence %.0f%% < 60%%", 100*v.MeanConfidence))
	}
	if v.HighRisk {
		det.Warnings = append(det.Warnings, fmt.Sprintf("high_risk: an agent stated a risk of %.0f%% > 75%%", 100*v.MaxRisk))
	}
	if item.IsTriage() {
		det.Levels = map[string]int{}
		for k, n := range v.Counts {
			if code := item.Code(k); code != "" {
				k = code
			}
			det.Levels[k] += n
		}
	}
	s.Out.Details = det
	if !v.Fallback {
		s.Commit(v.Decision, v.Branch)
		return
	}
	s.SafeDefault(v.Decision, v.Branch, fallbackReason(v, det, letters))
}

// fallbackReason says why the rule fell back: "code: detail".
func fallbackReason(v aggregator.VetoConsensus, det Details, letters []string) string {
	switch v.Branch {
	case aggregator.BranchVeto:
		r := ""
		if det.VetoRisk != nil {
			r = fmt.Sprintf(" (risk %.0f%%)", *det.VetoRisk)
		}
		return "veto: the " + det.VetoAgent + " agent vetoed" + r
	case aggregator.BranchRefuse:
		var who []string
		for _, iv := range det.IndividualVotes {
			if iv.Decision == aggregator.Refuse {
				who = append(who, iv.Agent)
			}
		}
		return fmt.Sprintf("refuse: %d of %d ballots REFUSE (%s)", len(who), len(det.IndividualVotes), kit.JoinAnd(who))
	}
	return fmt.Sprintf("%s: agreement %.0f%% < 2/3 (%s)", v.Branch, 100*v.Agreement, breakdown(letters, v.Counts))
}

// breakdown lists a vote breakdown, options in order, then REFUSE and VETO.
func breakdown(letters []string, counts map[string]int) string {
	var parts []string
	for _, k := range append(append([]string{}, letters...), aggregator.Refuse, aggregator.Veto) {
		if n := counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, n))
		}
	}
	return strings.Join(parts, ", ")
}

// countedDecision is the ballot as the rule counts it for role: an option
// letter, REFUSE or VETO.
func countedDecision(b Ballot, role string) string {
	v, _ := b.Counted(role)
	if v.Veto {
		return aggregator.Veto
	}
	return v.Choice
}

// ballotAnswer is the ballot as the row's rounds show it: the agent's
// ranking with its decision first when it voted for an option; no ranking
// (an abstention, reason refusal) when it refused, vetoed or could not be
// read.
func ballotAnswer(b Ballot, counted string) answer.Answer {
	a := b.Answer
	a.Ranking = nil
	if counted == aggregator.Refuse || counted == aggregator.Veto {
		a.Reason, a.Err = answer.ReasonRefusal, "ballot "+counted
		if !b.Readable() {
			a.Err = "unreadable ballot: " + b.Why
		}
		return a
	}
	a.Ranking = append(a.Ranking, counted)
	for _, l := range b.Ranking {
		if l != counted {
			a.Ranking = append(a.Ranking, l)
		}
	}
	return a
}

// round asks the three agents at once for their ballots of turn (1…R: the
// debate rounds; R+1: the final ballots) after prev, the previous round's
// ballots (nil in the first).
func (a Arm) round(ctx context.Context, s *kit.Session, turn int, prev []Ballot) ([]Ballot, error) {
	out := make([]Ballot, len(Roles))
	kind := kindOf(turn, a.Rounds)
	err := s.Parallel(ctx, len(Roles), func(ctx context.Context, i int) error {
		c, err := a.call(s, turn, i, prev)
		if err != nil {
			return err
		}
		text, err := s.Do(ctx, c)
		if err != nil {
			return err
		}
		out[i] = ParseBallot(text, s.Options)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, b := range out {
		s.Note(kind, turn, i, b.Read, b.Why, b.Reason, b.Notes)
	}
	return out, nil
}

func kindOf(turn, rounds int) string {
	if turn > rounds {
		return KindBallot
	}
	return KindDebate
}

// promptData is what veto appends to the shared first answer.
type promptData struct {
	Role   string // Utility, Accuracy, Safety
	Safety bool
	Triage bool
	Urgent string // on a triage item: the most urgent level as its option names it
	Round  int    // the debate round (1-based); 0 for the final ballot
	Own    string // the agent's ballot in the previous round ("" in the first)
	Others string // the other agents' ballots in the previous round
	// Panel: the previous round's ballots were shown above, to every agent
	// alike (the shared layout); Own is then the agent's position only.
	Panel bool
	JSON  bool
}

// call is agent i's call of turn: the shared first-answer request of agent i
// with its role appended to the system prompt and the ballot (after the
// previous round's ballots) to the user prompt.
func (a Arm) call(s *kit.Session, turn, i int, prev []Ballot) (kit.Call, error) {
	c, err := firstanswer.Call(s, i, a.Temp)
	if err != nil {
		return kit.Call{}, err
	}
	d := &promptData{Role: Roles[i], Safety: Roles[i] == RoleSafety, Triage: s.Item.IsTriage(), JSON: s.Structured}
	if d.Triage {
		d.Urgent = urgentName(s.Item)
	}
	if turn <= a.Rounds {
		d.Round = turn
	}
	if prev != nil {
		d.Own, d.Others = a.transcript(prev, i)
	}
	if a.SharedLayout {
		c, err = a.sharedLayout(c, d, prev, i)
	} else {
		c, err = sourceLayout(c, d)
	}
	if err != nil {
		return kit.Call{}, err
	}
	c.Phase, c.Kind, c.Turn, c.Role, c.Schema = kit.PhaseDebate, kindOf(turn, a.Rounds), turn, Roles[i], schema
	if c.Kind == KindBallot {
		c.Phase = kit.PhaseDecision
	}
	return c, nil
}

// sourceLayout appends the role to the shared first answer's system
// prompt and the ballot request (after the previous round's ballots, the
// agent's own first as "you") to its user prompt.
func sourceLayout(c kit.Call, d *promptData) (kit.Call, error) {
	role, err := prompts.Render("role", d)
	if err != nil {
		return kit.Call{}, err
	}
	ballot, err := prompts.Render("ballot", d)
	if err != nil {
		return kit.Call{}, err
	}
	c.System += "\n\n" + role
	c.User += "\n\n" + ballot
	return c, nil
}

// urgentName names the most urgent level as the options do: "C (em —
// Emergency care)".
func urgentName(item qa.Item) string {
	l := item.MostUrgent()
	r := item.Rank(l)
	lv := item.Triage.Scale[r]
	name := lv.Code
	if lv.Name != "" {
		name += " — " + lv.Name
	}
	return l + " (" + name + ")"
}

// transcript renders the previous round for agent i: its own ballot as
// "you", the others' as "agent N" with their role, each with its position
// (kit.PositionLine), its ballot as counted, and its reasoning — the
// others' bounded by PeerChars (0 = as written).
func (a Arm) transcript(prev []Ballot, i int) (own, others string) {
	var o, t strings.Builder
	for j, b := range prev {
		w, who, limit := &t, fmt.Sprintf("agent %d", j+1), a.PeerChars
		if j == i {
			w, who, limit = &o, "you", 0
		}
		w.WriteString(kit.PositionLine(who, b.Answer))
		v, note := b.Counted(Roles[j])
		dec := v.Choice
		if v.Veto {
			dec = aggregator.Veto
		}
		fmt.Fprintf(w, "BALLOT %s (%s): %s", who, Roles[j], dec)
		switch {
		case !b.Readable():
			w.WriteString(" (the reply could not be read)")
		case note != "":
			w.WriteString(" (cast as VETO; only the Safety agent may veto)")
		default:
			fmt.Fprintf(w, " (risk %.2f)", b.Risk)
		}
		w.WriteString("\n")
		if r := strings.Join(strings.Fields(b.Reasoning), " "); r != "" {
			if limit > 0 {
				r = kit.Truncate(r, limit)
			}
			fmt.Fprintf(w, "REASONING %s: %s\n", who, r)
		}
	}
	return o.String(), t.String()
}

// pct is a fraction on the seed's 0–100 scale, two decimals; -1 stays -1.
func pct(x float64) float64 {
	if x < 0 {
		return -1
	}
	return round2(100 * x)
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func ptr(x float64) *float64 { return &x }
