// Package vote is seed 000's voting council as a protocol.Protocol ("vote",
// "vote:weighted", with ",n=5" for another team size): N agents give their
// independent first answers at once (the shared first answer of package
// firstanswer), and aggregator.VoteRule decides — the plurality of their
// first choices, where a tie for the top falls back to the safe default (the
// seed's "General Practice", here abstention) and so does a council whose
// mean confidence is below 0.70 (the seed's final confidence check; a
// missing confidence counts 0). "vote:weighted" weighs each vote by its
// stated confidence rescaled as ReConcile does (Chen et al., ACL 2024, §2.3;
// dinobby/ReConcile utils.py trans_confidence: aggregator.ReconcileWeight),
// so that one confident vote can outweigh two hesitant ones above the 0.70
// gate (1.0 against 0.7 and 0.7); the seed has no weighted plurality, and
// raw confidences as weights never let a minority win at N = 3 under its
// gate (issue 36). The same two checks apply. Calls: N. The team defaults to --agents, else 3 (the seed's council
// of three).
//
// On a triage item the seed's own urgency rule decides, in both arms: the
// confidence-weighted mean level round(Σ u·c / Σ c), u the level's rank on
// the ordinal scale (never its option position), rounded half up (towards
// the more urgent level), and the middle of the scale when Σ c = 0 (the
// seed's "3" of 1–5; see aggregator.VoteUrgency). The plurality's tie and
// low-confidence fallbacks apply to the specialty only, as in the seed:
// where the item asks for a specialty (it has specialty labels), each
// agent's first-answer request has one request appended — its list of
// differential specialties (seed 000's differential_specialties) — and the
// specialty named in the most lists wins, "General Practice" on a tie, when
// none is named or when the mean confidence is below 0.70
// (Outcome.Specialty). When no agent names a level the safe default
// applies: the most urgent level. The seed's rules and this package's
// deviations: docs/protocols.md#vote.
package vote

import (
	"context"
	"embed"
	"fmt"
	"io"
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

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompts = kit.MustPrompts(promptFS, "prompts/*.tmpl")

// specialtySchema is the first answer's JSON schema with the differential
// specialties appended: the shared first answer's own properties (reasoning
// first), then differential_specialties.
var specialtySchema = kit.Schema("first_specialties", append(slices.Clone(firstanswer.Props),
	kit.P("differential_specialties", kit.Strings))...)

// Protocol is seed 000's vote.
var Protocol = &protocol.Protocol{
	Name: "vote",
	Doc: "Seed 000's council vote: N independent first answers, decided by plurality (vote:weighted: " +
		"each vote weighted by ReConcile's rescaled confidence); a tie or a mean confidence under 0.70 falls back to the safe default (abstention). " +
		"On triage: the confidence-weighted mean urgency round(Σu·c/Σc), the specialty by plurality over the agents' " +
		"differential specialties (tie: General Practice).",
	Parse:      parseArm,
	Presets:    []string{"vote", "vote:weighted"},
	Aliases:    []string{"voting", "majority", "majority-vote"},
	Accounting: writeAccounting,
	Stub:       kit.Stub,
	Prompts:    kit.HashOf(firstanswer.Prompts, prompts),
}

func parseArm(spec string, s protocol.Settings) (protocol.Arm, bool, error) {
	sp, ok, err := kit.ParseSpec(spec, "vote")
	if !ok || err != nil {
		return nil, ok, err
	}
	if err := sp.Check("n"); err != nil {
		return nil, true, err
	}
	a := Arm{}
	for _, b := range sp.Bare {
		if b != "weighted" || a.Weighted {
			return nil, true, fmt.Errorf("vote: unknown option %q (options: weighted, n=N)", b)
		}
		a.Weighted = true
	}
	if a.Panel, err = kit.NewPanel(sp, s); err != nil {
		return nil, true, err
	}
	return a, true, nil
}

func writeAccounting(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "calls = N (N first answers)")
	fmt.Fprintln(tw, "arm\tN\tanswer\ttotal")
	for _, arm := range []string{"vote", "vote:weighted"} {
		for _, n := range []int{2, 3, 4, 5} {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\n", arm, n, n, n)
		}
	}
	return tw.Flush()
}

// Arm is one vote configuration.
type Arm struct {
	kit.Panel
	Weighted bool
}

// Protocol is vote's Protocol.
func (a Arm) Protocol() *protocol.Protocol { return Protocol }

// Info describes the arm.
func (a Arm) Info() protocol.ArmInfo {
	var opts []string
	if a.Weighted {
		opts = append(opts, "weighted")
	}
	info := a.Panel.Info(Protocol, a.Label("vote", opts...))
	info.LeaderTemp = 0 // no judge or chairman
	return info
}

// Calls is N.
func (a Arm) Calls(int) (int, int) { return a.N, 0 }

// Details is vote's record (protocol_json).
type Details struct {
	N        int                `json:"n"`
	Weighted bool               `json:"weighted"`
	Votes    map[string]float64 `json:"votes"` // count (weighted: summed weight) per option that got a vote
	// Weights are the agents' vote weights (vote:weighted only): ReConcile's
	// rescaled confidences (aggregator.ReconcileWeight), in agent order.
	Weights        []float64 `json:"weights,omitempty"`
	Tie            bool      `json:"tie"`
	Tied           []string  `json:"tied,omitempty"`
	MeanConfidence float64   `json:"mean_confidence"` // over all N agents, a missing confidence as 0
	Threshold      float64   `json:"threshold"`
	Rule           string    `json:"rule"`
	// On a triage item: the urgency rule's inputs and result, and the
	// specialty vote where the item asks for a specialty.
	Urgency   *UrgencyDetails   `json:"urgency,omitempty"`
	Specialty *SpecialtyDetails `json:"specialty,omitempty"`
}

// UrgencyDetails is seed 000's urgency rule as applied (protocol_json).
type UrgencyDetails struct {
	Ranks       []int     `json:"ranks"`       // per agent: the rank of the level it named, -1 = none
	Confidences []float64 `json:"confidences"` // per agent, as stated (-1 = none; weighs 0)
	Mean        float64   `json:"mean"`        // Σ u·c / Σ c before rounding; -1 when Σ c = 0
	SumConf     float64   `json:"sum_confidence"`
	Rank        int       `json:"rank"` // the consensus rank (half up); -1 = no level named
	Level       string    `json:"level"`
	Rounding    string    `json:"rounding"`
}

// SpecialtyDetails is seed 000's specialty vote as applied (protocol_json).
type SpecialtyDetails struct {
	// Lists are the differential specialties each agent listed, as counted
	// (an agent that listed none but stated a SPECIALTY line counts that
	// one); Votes is the number of lists naming each specialty.
	Lists     [][]string     `json:"lists"`
	Votes     map[string]int `json:"votes"`
	Rule      string         `json:"rule"` // plurality, tie, no_votes, low_confidence
	Specialty string         `json:"specialty"`
}

// Run asks the panel and applies seed 000's rule.
func (a Arm) Run(ctx context.Context, c llm.Client, item qa.Item, u protocol.Unit) (*protocol.Outcome, error) {
	s := kit.NewSession(c, item, u, a.Structured, a.MaxTokens)
	answers, lists, err := a.ask(ctx, s)
	if err != nil {
		return nil, err
	}
	s.Out.N, s.Out.Roles, s.Out.Rounds = a.N, kit.Roles(a.N), [][]answer.Answer{answers}
	letters := item.Letters()
	cons, err := aggregator.VoteRule(letters, kit.Firsts(answers), kit.Confidences(answers), a.Weighted)
	if err != nil {
		return nil, err
	}
	d := cons.Decision
	if item.IsTriage() {
		a.triage(s, answers, lists, cons)
		return s.Out, nil
	}
	det := Details{N: a.N, Weighted: a.Weighted, Votes: kit.VoteMap(letters, d.Scores), Tie: d.Tie, Tied: d.Tied,
		MeanConfidence: cons.MeanConfidence, Threshold: aggregator.MinMeanConfidence, Rule: cons.Branch}
	if a.Weighted {
		det.Weights = aggregator.ReconcileWeights(kit.Confidences(answers))
	}
	s.Out.Details = det
	if !cons.Fallback {
		s.Commit(d, cons.Branch)
		return s.Out, nil
	}
	s.SafeDefault(d, cons.Branch, fallbackReason(cons, letters))
	return s.Out, nil
}

// fallbackReason says why the rule fell back: "code: detail".
func fallbackReason(c aggregator.Consensus, letters []string) string {
	switch c.Branch {
	case aggregator.BranchNoVotes:
		return "no_votes: no agent gave a readable answer"
	case aggregator.BranchTie:
		return fmt.Sprintf("tie: %s share the top vote (%s)", kit.JoinAnd(c.Decision.Tied), kit.Describe(letters, c.Decision.Scores))
	}
	return fmt.Sprintf("low_confidence: mean confidence %.2f < %.2f", c.MeanConfidence, aggregator.MinMeanConfidence)
}

// triage applies seed 000's own rules to a triage item: the urgency is the
// confidence-weighted mean level (aggregator.VoteUrgency: u is the level's
// rank, never its option position), and the specialty, where the item asks
// for one, the specialty named in the most differential lists
// (aggregator.VoteSpecialties; lists[i] is agent i's) with "General
// Practice" on a tie, when none is named or when the mean confidence is
// below 0.70.
// The plurality of letters and its tie and low-confidence fallbacks do not
// decide the urgency: the seed uses them for the specialty only ("it will
// still use the calculated Consensus Urgency"). No level named at all →
// the safe default, the most urgent level.
func (a Arm) triage(s *kit.Session, answers []answer.Answer, lists [][]string, cons aggregator.Consensus) {
	letters := s.Item.Letters()
	ranks := make([]int, len(answers))
	for i, ans := range answers {
		ranks[i] = s.Item.Rank(ans.First())
	}
	conf := kit.Confidences(answers)
	u := aggregator.VoteUrgency(ranks, conf, len(s.Item.Triage.Scale))
	d := cons.Decision
	d.Tie, d.Tied, d.Winner = false, nil, s.Item.LetterOfRank(u.Rank)
	det := Details{N: a.N, Weighted: a.Weighted, Votes: kit.VoteMap(letters, d.Scores), MeanConfidence: cons.MeanConfidence,
		Threshold: aggregator.MinMeanConfidence, Rule: u.Branch,
		Urgency: &UrgencyDetails{Ranks: ranks, Confidences: conf, Mean: u.Mean, SumConf: u.SumConf, Rank: u.Rank,
			Level: s.Item.Code(d.Winner), Rounding: "half_up"}}
	if s.Item.Triage.AskSpecialty {
		counted := make([][]string, len(answers))
		for i, ans := range answers {
			switch {
			case i < len(lists) && len(lists[i]) > 0:
				counted[i] = lists[i]
			case ans.Specialty != "":
				counted[i] = []string{ans.Specialty}
			default:
				counted[i] = []string{}
			}
		}
		v := aggregator.VoteSpecialties(counted, cons.MeanConfidence)
		det.Specialty = &SpecialtyDetails{Lists: counted, Votes: v.Votes, Rule: v.Branch, Specialty: v.Specialty}
		s.Out.Specialty = v.Specialty
	}
	s.Out.Details = det
	if u.Branch == aggregator.BranchNoVotes {
		s.SafeDefault(d, u.Branch, "no_votes: no agent named an urgency level")
		return
	}
	s.Commit(d, u.Branch)
}

// askSpecialties reports whether the agents are asked for their
// differential specialties: on a triage item with specialty labels.
func askSpecialties(item qa.Item) bool {
	return item.IsTriage() && item.Triage.AskSpecialty && len(item.Triage.Specialties) > 0
}

// ask asks the panel for its first answers. Where the item has specialty
// labels (askSpecialties) each agent's request is the shared first-answer
// request (firstanswer.Call) with seed 000's differential specialties
// appended (and their property in the schema), and lists[i] is agent i's
// list (ParseSpecialties); elsewhere it is the shared first answer itself
// and lists is nil.
func (a Arm) ask(ctx context.Context, s *kit.Session) (answers []answer.Answer, lists [][]string, err error) {
	if !askSpecialties(s.Item) {
		fa, err := firstanswer.Ask(ctx, s, a.N, a.AgentTemp)
		if err != nil {
			return nil, nil, err
		}
		return firstanswer.Answers(fa), nil, nil
	}
	extra, err := prompts.Render("specialties", map[string]any{
		"Specialties": strings.Join(s.Item.Triage.Specialties, ", "), "JSON": s.Structured})
	if err != nil {
		return nil, nil, err
	}
	answers, lists = make([]answer.Answer, a.N), make([][]string, a.N)
	err = s.Parallel(ctx, a.N, func(ctx context.Context, i int) error {
		c, err := firstanswer.Call(s, i, a.AgentTemp)
		if err != nil {
			return err
		}
		c.User += "\n" + extra
		c.Schema = specialtySchema
		text, err := s.Do(ctx, c)
		if err != nil {
			return err
		}
		answers[i], lists[i] = answer.Parse(text, s.Options), ParseSpecialties(text)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for i, ans := range answers {
		s.NoteAnswer(kit.KindFirst, 0, i, ans)
	}
	return answers, lists, nil
}
