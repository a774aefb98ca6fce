// Package judge is seed 003's consensus judge as a protocol.Protocol
// ("judge", "judge:n=5"): N experts give their independent first answers at
// once (the shared first answer of package firstanswer), then a consensus
// judge sees every expert's ranking, confidence and reasoning and decides
// the panel's answer (one call, at the leader temperature). As the seed's
// judge prompt says, the judge also computes the experts' average confidence
// and flags a weak consensus below 0.70, whose answer falls back to the safe
// default (abstention on a multiple-choice item; the seed's "General
// Practice"). When the judge's flag cannot be read, the harness applies that
// rule itself to the experts' stated confidences (mean over the N experts,
// a missing confidence as 0, as in seed 000); an unreadable answer of the
// judge is an abstention. The row records the judge's flag and stated
// average beside the mean the harness computes, and whether they agree.
// Calls: N+1.
//
// On a triage item seed 003's deterministic red-flag rules come first (its
// TRIAGE state, "before any LLM is invoked"): the rules of
// configs/redflags.yaml (or medteam run --red-flags FILE; package
// triage/redflag) are matched against the case text, and when one fires the
// case is escalated to the most urgent level with zero calls — decision
// rule red_flag, the rule's name in the row's red_flag column. Otherwise the
// experts and the judge decide as above, and every fallback escalates to
// the most urgent level instead of abstaining. Multiple-choice items never
// meet the rules.
package judge

import (
	"context"
	"embed"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/configs"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/triage/redflag"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompts = kit.MustPrompts(promptFS, "prompts/*.tmpl")

var schema = kit.Schema(kit.KindJudge,
	kit.P("reasoning", kit.String), kit.P("answer", kit.String), kit.P("average_confidence", kit.Number), kit.P("low_confidence", kit.Boolean))

// Protocol is seed 003's consensus judge.
var Protocol = &protocol.Protocol{
	Name: "judge",
	Doc: "Seed 003's consensus judge: N independent first answers, then a judge weighs their reasoning and " +
		"confidence and decides; a weak consensus (average confidence < 0.70, flagged by the judge) falls back " +
		"to the safe default (abstention; on triage the most urgent level). On triage, deterministic red-flag rules " +
		"(configs/redflags.yaml) escalate a case with zero calls first.",
	Parse:      parseArm,
	Presets:    []string{"judge"},
	Accounting: writeAccounting,
	Stub:       kit.Stub,
	Prompts:    kit.HashOf(firstanswer.Prompts, prompts),
}

// Decision rules (decision_rule).
const (
	RuleJudge              = "judge"                // the judge's answer
	RuleJudgeLowConfidence = "judge_low_confidence" // the judge flagged a weak consensus
	RuleLowConfidence      = "low_confidence"       // flag unread; the harness's mean is under 0.70
	RuleJudgeUnparsed      = "judge_unparsed"       // the judge's answer could not be read
)

// RuleRedFlag is the decision rule of a triage case a red-flag rule
// escalated before any call.
const RuleRedFlag = "red_flag"

func parseArm(spec string, s protocol.Settings) (protocol.Arm, bool, error) {
	p, ok, err := kit.ParsePanel(spec, "judge", s)
	if !ok || err != nil {
		return nil, ok, err
	}
	flags := s.RedFlags
	if flags == nil {
		flags = configs.RedFlags()
	}
	return Arm{Panel: p, flags: flags}, true, nil
}

func writeAccounting(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "calls = N+1 (N first answers, 1 judge); on a triage item a red-flag rule that fires decides with 0 calls")
	fmt.Fprintln(tw, "arm\tN\tanswer\tjudge\ttotal\tred flag fired")
	for _, n := range []int{2, 3, 4, 5} {
		fmt.Fprintf(tw, "judge\t%d\t%d\t1\t%d\t0\n", n, n, n+1)
	}
	return tw.Flush()
}

// Arm is one judge configuration.
type Arm struct {
	kit.Panel
	flags *redflag.Rules // applied to triage items before any call
}

// Protocol is judge's Protocol.
func (a Arm) Protocol() *protocol.Protocol { return Protocol }

// Info describes the arm.
func (a Arm) Info() protocol.ArmInfo {
	info := a.Panel.Info(Protocol, a.Label("judge"))
	info.RedFlagsSHA256 = a.flags.SHA256
	return info
}

// Calls is N+1 (at most: a triage case a red-flag rule escalates makes
// none).
func (a Arm) Calls(int) (int, int) { return a.N + 1, 0 }

// Details is judge's record (protocol_json).
type Details struct {
	N                       int                `json:"n"`
	Rule                    string             `json:"rule"`
	ExpertVotes             map[string]float64 `json:"expert_votes"`
	JudgeAnswer             string             `json:"judge_answer"` // "" when unreadable
	JudgeParse              string             `json:"judge_parse"`  // how it was read
	StatedAverageConfidence float64            `json:"stated_average_confidence"`
	LowConfidenceFlag       *bool              `json:"low_confidence_flag"` // null when unread
	ComputedMeanConfidence  float64            `json:"computed_mean_confidence"`
	FlagConsistent          *bool              `json:"flag_consistent"` // the flag matches computed < 0.70; null when unread
	AgreesWithPlurality     bool               `json:"agrees_with_plurality"`
}

// RedFlagDetails is the record of a triage case a red-flag rule escalated
// before any call (protocol_json).
type RedFlagDetails struct {
	Rule        string `json:"rule"`         // red_flag
	RedFlag     string `json:"red_flag"`     // the rule's name
	Description string `json:"description"`  // what the rule is for
	Level       string `json:"level"`        // the level code it escalated to
	RulesSHA256 string `json:"rules_sha256"` // the red-flag file's hash
	Calls       int    `json:"calls"`        // 0
}

// Run asks the panel, then the judge.
func (a Arm) Run(ctx context.Context, c llm.Client, item qa.Item, u protocol.Unit) (*protocol.Outcome, error) {
	s := kit.NewSession(c, item, u, a.Structured, a.MaxTokens)
	if item.IsTriage() && a.redFlag(s) {
		return s.Out, nil
	}
	fa, err := firstanswer.Ask(ctx, s, a.N, a.AgentTemp)
	if err != nil {
		return nil, err
	}
	answers := firstanswer.Answers(fa)
	s.Out.N, s.Out.Roles, s.Out.Rounds = a.N, kit.Roles(a.N), [][]answer.Answer{answers}
	j, err := a.judge(ctx, s, answers)
	if err != nil {
		return nil, err
	}
	a.decide(s, j, answers)
	return s.Out, nil
}

// judge makes the judge's call and reads it.
func (a Arm) judge(ctx context.Context, s *kit.Session, answers []answer.Answer) (Judgement, error) {
	var experts strings.Builder
	for i, ans := range answers {
		who := fmt.Sprintf("agent %d", i+1)
		experts.WriteString(kit.PositionLine(who, ans))
		experts.WriteString(kit.ReasoningLine(who, ans, a.PeerChars))
	}
	d := map[string]any{"Question": s.Question, "Experts": experts.String(), "JSON": a.Structured}
	system, err := prompts.Render("system", d)
	if err != nil {
		return Judgement{}, err
	}
	user, err := prompts.Render("judge", d)
	if err != nil {
		return Judgement{}, err
	}
	text, err := s.Do(ctx, kit.Call{Phase: kit.PhaseDecision, Kind: kit.KindJudge, Agent: -1, Role: "judge",
		Temperature: a.LeaderTemp, System: system, User: user, Schema: schema})
	if err != nil {
		return Judgement{}, err
	}
	j := ParseJudgement(text, s.Options)
	s.Note(kit.KindJudge, 0, -1, j.Method, j.Err, j.Reason, j.Notes)
	return j, nil
}

// decide applies the judge's answer and flag (or, without a readable flag,
// the seed's 0.70 rule on the experts' stated confidences).
func (a Arm) decide(s *kit.Session, j Judgement, answers []answer.Answer) {
	letters := s.Item.Letters()
	vote, _ := aggregator.VoteRule(letters, kit.Firsts(answers), kit.Confidences(answers), false)
	d := vote.Decision
	det := Details{N: a.N, ExpertVotes: kit.VoteMap(letters, d.Scores), JudgeAnswer: j.Answer, JudgeParse: string(j.Method),
		StatedAverageConfidence: j.AverageConfidence, ComputedMeanConfidence: vote.MeanConfidence,
		AgreesWithPlurality: j.Answer != "" && j.Answer == aggregator.Plurality(letters, kit.Firsts(answers)).Winner}
	low := vote.MeanConfidence < aggregator.MinMeanConfidence-aggregator.TieEpsilon
	if j.LowConfidenceRead {
		flag, consistent := j.LowConfidence, j.LowConfidence == low
		det.LowConfidenceFlag, det.FlagConsistent = &flag, &consistent
	}
	d.Tie, d.Tied, d.Winner = false, nil, j.Answer
	var reason string
	switch {
	case j.Answer == "":
		det.Rule, reason = RuleJudgeUnparsed, fmt.Sprintf("judge_unparsed: %s (%s)", j.Err, j.Reason)
	case j.LowConfidenceRead && j.LowConfidence:
		det.Rule, reason = RuleJudgeLowConfidence, fmt.Sprintf("low_confidence: the judge flagged a weak consensus (experts' mean confidence %.2f)", vote.MeanConfidence)
	case !j.LowConfidenceRead && low:
		det.Rule, reason = RuleLowConfidence, fmt.Sprintf("low_confidence: the judge's flag is unreadable and the experts' mean confidence %.2f < %.2f", vote.MeanConfidence, aggregator.MinMeanConfidence)
	default:
		det.Rule = RuleJudge
	}
	s.Out.Details = det
	if reason != "" {
		s.SafeDefault(d, det.Rule, reason)
		return
	}
	s.Commit(d, det.Rule)
}

// redFlag applies the red-flag rules to a triage case before any call (seed
// 003's TRIAGE state): the case text (stem and context, never the options)
// is matched, and when a rule fires the case goes to the rule's level (the
// most urgent level unless the rule names another the scale has) with zero
// calls, decision rule red_flag, the rule's name in Outcome.RedFlag.
func (a Arm) redFlag(s *kit.Session) bool {
	text := strings.Join(append([]string{s.Item.Stem}, s.Item.Context...), "\n")
	r, ok := a.flags.Match(text)
	if !ok {
		return false
	}
	letter := s.Item.MostUrgent()
	for _, o := range s.Item.Options {
		if r.Level != "" && s.Item.Code(o.Letter) == r.Level {
			letter = o.Letter
		}
	}
	s.Out.RedFlag = r.Name
	s.Out.Details = RedFlagDetails{Rule: RuleRedFlag, RedFlag: r.Name, Description: r.Description, Level: s.Item.Code(letter),
		RulesSHA256: a.flags.SHA256}
	s.Commit(aggregator.Decision{Winner: letter, Scores: make([]float64, len(s.Item.Options))}, RuleRedFlag)
	return true
}
