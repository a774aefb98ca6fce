// Package judge is seed 003's consensus judge as a protocol.Protocol
// ("judge", "judge:n=5", "judge:mode=code"; docs/protocols.md#judge): N
// experts give their independent first answers at once (the shared first
// answer of package firstanswer, firstanswer.Call), then the Consensus
// Judge — one call, at the leader temperature, with the seed's §F.3
// instructions — runs the seed's consensus algorithm on the experts'
// structured outputs and returns the seed's JSON object: the plurality of
// the answers (on a tie the safe default), on a triage item the
// confidence-weighted urgency (and, where the item asks for one, the
// specialty by plurality, "General Practice" on a tie), the council's
// average confidence, and below 0.70 the low-confidence flag with the
// safe default answer (on triage: the specialty "General Practice", the
// urgency kept). Calls: N+1.
//
// The judge's output decides. The row's protocol_json records it beside
// the same algorithm computed in code (Consensus, a pure function) and
// whether they agree field by field (Compare): how often a model executes
// the algorithm faithfully is itself a result. An unreadable answer (or
// urgency) of the judge is the safe default — abstention on a
// multiple-choice item, the most urgent level on a triage item — with the
// reason. "judge:mode=code" makes no judge call and decides by the code's
// result (N calls): the seed's algorithm without a model executing it
// (on a multiple-choice item the same rule as vote's).
//
// On a triage item seed 003's deterministic red-flag rules come first (its
// TRIAGE state, "before any LLM is invoked"): the rules of
// configs/redflags.yaml — by default the seed's literal keyword list of
// §H.1, matched case-insensitively as partial matches — or of
// medteam run --red-flags NAME|FILE (package triage/redflag) are matched
// against the case text, and when one fires the case is escalated to the
// most urgent level with zero calls — decision rule red_flag, the rule's
// name in the row's red_flag column. Multiple-choice items never meet the
// rules.
package judge

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
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

// Protocol is seed 003's consensus judge.
var Protocol = &protocol.Protocol{
	Name: "judge",
	Doc: "Seed 003's consensus judge: N independent first answers, then a judge runs the seed's consensus algorithm " +
		"on their outputs (plurality, tie → safe default; on triage the confidence-weighted urgency; average confidence " +
		"< 0.70 → safe default answer, urgency kept) and returns the seed's JSON; the row records the same algorithm " +
		"computed in code and whether they agree (judge:mode=code decides by the code, no judge call). On triage, the " +
		"seed's red-flag keywords (configs/redflags.yaml) escalate a case with zero calls first.",
	Parse:      parseArm,
	Presets:    []string{"judge", "judge:mode=code"},
	Accounting: writeAccounting,
	Stub:       kit.Stub,
	Prompts:    kit.HashOf(firstanswer.Prompts, prompts),
	Sim:        &Sim,
}

// Modes (option mode=…).
const (
	ModeLLM  = "llm"  // the judge call decides (N+1 calls)
	ModeCode = "code" // the algorithm computed in code decides (N calls)
)

// Decision rules (decision_rule) of mode llm. Mode code records the
// algorithm's branch (plurality, tie, no_votes, low_confidence;
// weighted_urgency, zero_confidence_default on triage).
const (
	RuleJudge              = "judge"                // the judge's answer (on triage: its urgency)
	RuleJudgeNone          = "judge_none"           // the judge's answer is NONE: the safe default
	RuleJudgeLowConfidence = "judge_low_confidence" // the judge flagged a weak consensus: the safe default (multiple choice)
	RuleJudgeUnparsed      = "judge_unparsed"       // the judge's answer (or urgency) could not be read
)

// RuleRedFlag is the decision rule of a triage case a red-flag rule
// escalated before any call.
const RuleRedFlag = "red_flag"

func parseArm(spec string, s protocol.Settings) (protocol.Arm, bool, error) {
	sp, ok, err := kit.ParseSpec(spec, "judge")
	if !ok || err != nil {
		return nil, ok, err
	}
	if err := sp.Check("n", "mode"); err != nil {
		return nil, true, err
	}
	if len(sp.Bare) > 0 {
		return nil, true, fmt.Errorf("judge: unknown option %q (options: mode=llm|code, n=N)", sp.Bare[0])
	}
	a := Arm{Mode: ModeLLM, peerChars: s.PeerChars, flags: s.RedFlags}
	switch m := sp.Keyed["mode"]; m {
	case "", ModeLLM:
	case ModeCode:
		a.Mode = ModeCode
	default:
		return nil, true, fmt.Errorf("judge: mode=%s; use mode=llm (the judge call decides, the default) or mode=code (the algorithm in code, no judge call)", m)
	}
	if a.Panel, err = kit.NewPanel(sp, s); err != nil {
		return nil, true, err
	}
	if a.flags == nil {
		a.flags = configs.RedFlags()
	}
	return a, true, nil
}

func writeAccounting(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "calls = N+1 (N first answers, 1 consensus judge); judge:mode=code: N (the algorithm in code, no judge call);")
	fmt.Fprintln(w, "on a triage item a red-flag rule that fires decides with 0 calls")
	fmt.Fprintln(tw, "arm\tN\tanswer\tjudge\ttotal\tred flag fired")
	for _, mode := range []string{"judge", "judge:mode=code"} {
		j := 1
		if mode != "judge" {
			j = 0
		}
		for _, n := range []int{2, 3, 4, 5} {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t0\n", mode, n, n, j, n+j)
		}
	}
	return tw.Flush()
}

// Arm is one judge configuration.
type Arm struct {
	kit.Panel
	Mode      string
	peerChars int            // bound on each expert's reasoning shown to the judge (bytes; 0 = full)
	flags     *redflag.Rules // applied to triage items before any call
}

// Protocol is judge's Protocol.
func (a Arm) Protocol() *protocol.Protocol { return Protocol }

// Info describes the arm.
func (a Arm) Info() protocol.ArmInfo {
	var opts []string
	if a.Mode == ModeCode {
		opts = append(opts, "mode=code")
	}
	info := a.Panel.Info(Protocol, a.Label("judge", opts...))
	if a.Mode == ModeCode {
		info.LeaderTemp = 0 // no judge call
	}
	info.RedFlagsSHA256 = a.flags.SHA256
	info.RedFlags, info.RedFlagsDevelopedOn = a.flags.Name, a.flags.DevelopedOn
	return info
}

// Calls is N+1, N in mode code (at most: a triage case a red-flag rule
// escalates makes none).
func (a Arm) Calls(int) (int, int) {
	if a.Mode == ModeCode {
		return a.N, 0
	}
	return a.N + 1, 0
}

// Output is the seed's output object (§F.3) as protocol_json records it —
// the judge's as read, or the code's: on a multiple-choice item the
// consensus answer (an option letter, or NONE: the safe default), on a
// triage item the consensus urgency (1…L, as on the scale the judge is
// shown) with its level code and, where asked, the specialty; the average
// confidence and the low-confidence flag (null when the judge's could not
// be read).
type Output struct {
	ConsensusAnswer    string   `json:"consensus_answer,omitempty"`
	ConsensusUrgency   int      `json:"consensus_urgency,omitempty"`
	ConsensusLevel     string   `json:"consensus_level,omitempty"`
	ConsensusSpecialty string   `json:"consensus_specialty,omitempty"`
	AverageConfidence  *float64 `json:"average_confidence"`
	IsLowConfidence    *bool    `json:"is_low_confidence"`
}

// Details is judge's record (protocol_json).
type Details struct {
	Mode string `json:"mode"`
	N    int    `json:"n"`
	Rule string `json:"rule"`
	// Judge is the judge's output as read (null in mode code), JudgeParse
	// how its deciding field was read.
	Judge      *Output `json:"judge"`
	JudgeParse string  `json:"judge_parse,omitempty"`
	// Code is the same algorithm computed in code (Consensus), with the
	// branch that reached its answer (or urgency) and its specialty, the
	// votes by option letter (triage: by level code) and, on triage, the
	// weighted mean urgency rank before rounding (-1 when undefined).
	Code            Output             `json:"code"`
	CodeBranch      string             `json:"code_branch"`
	SpecialtyBranch string             `json:"specialty_branch,omitempty"`
	Votes           map[string]float64 `json:"votes"`
	UrgencyMean     *float64           `json:"urgency_mean,omitempty"`
	// Agrees is whether the judge's output equals the code's in every
	// field (null in mode code); Disagreements names the fields that
	// differ (an unreadable field differs).
	Agrees        *bool    `json:"agrees"`
	Disagreements []string `json:"disagreements,omitempty"`
}

// RedFlagDetails is the record of a triage case a red-flag rule escalated
// before any call (protocol_json).
type RedFlagDetails struct {
	Rule        string `json:"rule"`                   // red_flag
	RedFlag     string `json:"red_flag"`               // the rule's name
	Description string `json:"description"`            // what the rule is for
	Level       string `json:"level"`                  // the level code it escalated to
	Rules       string `json:"rules"`                  // the rule set's name
	DevelopedOn string `json:"developed_on,omitempty"` // the data the rule set was developed on, when it says
	RulesSHA256 string `json:"rules_sha256"`           // the red-flag file's hash
	Calls       int    `json:"calls"`                  // 0
}

// Run asks the panel, then (mode llm) the judge.
func (a Arm) Run(ctx context.Context, c llm.Client, item qa.Item, u protocol.Unit) (*protocol.Outcome, error) {
	s := kit.NewSession(c, item, u, a.Structured, a.MaxTokens)
	if item.IsTriage() && a.redFlag(s) {
		return s.Out, nil
	}
	answers, err := a.ask(ctx, s)
	if err != nil {
		return nil, err
	}
	s.Out.N, s.Out.Roles, s.Out.Rounds = a.N, kit.Roles(a.N), [][]answer.Answer{answers}
	t := taskOf(item)
	outs := agentOutputs(answers, item, t)
	code := Consensus(outs, t)
	det := a.details(item, t, code)
	if a.Mode == ModeCode {
		a.decideCode(s, t, code, det)
		return s.Out, nil
	}
	v, err := a.judge(ctx, s, t, outs)
	if err != nil {
		return nil, err
	}
	a.decideJudge(s, t, v, code, det)
	return s.Out, nil
}

// ask asks agents 0…N−1 for the shared first answer at once (on a triage
// item that asks for a specialty, with the specialty appended:
// withSpecialty) and records how each was read.
func (a Arm) ask(ctx context.Context, s *kit.Session) ([]answer.Answer, error) {
	out := make([]answer.Answer, a.N)
	err := s.Parallel(ctx, a.N, func(ctx context.Context, i int) error {
		c, err := firstanswer.Call(s, i, a.AgentTemp)
		if err != nil {
			return err
		}
		withSpecialty(s, &c)
		text, err := s.Do(ctx, c)
		if err != nil {
			return err
		}
		out[i] = answer.Parse(text, s.Options)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, ans := range out {
		s.NoteAnswer(kit.KindFirst, 0, i, ans)
	}
	return out, nil
}

// taskOf is what the algorithm needs of item.
func taskOf(item qa.Item) Task {
	t := Task{Letters: item.Letters()}
	if item.IsTriage() {
		t.Levels, t.Ranks, t.AskSpecialty = len(item.Triage.Scale), item.Triage.Ranks, item.Triage.AskSpecialty
	}
	return t
}

// agentOutputs reads the algorithm's inputs from the experts' answers.
func agentOutputs(answers []answer.Answer, item qa.Item, t Task) []AgentOutput {
	outs := make([]AgentOutput, len(answers))
	for i, ans := range answers {
		outs[i] = AgentOutput{Answer: ans.First(), Urgency: -1, Confidence: ans.Confidence}
		if t.Triage() {
			outs[i].Urgency = item.Rank(ans.First())
			if t.AskSpecialty {
				outs[i].Specialty = ans.Specialty
			}
		}
	}
	return outs
}

// details starts the record with the code's result.
func (a Arm) details(item qa.Item, t Task, r Result) Details {
	det := Details{Mode: a.Mode, N: a.N, Code: codeOutput(item, t, r), CodeBranch: r.Branch, SpecialtyBranch: r.SpecialtyBranch,
		Votes: map[string]float64{}}
	for i, v := range r.Votes {
		if v == 0 {
			continue
		}
		k := ""
		switch {
		case t.Triage() && i < len(item.Triage.Scale):
			k = item.Triage.Scale[i].Code
		case !t.Triage() && i < len(t.Letters):
			k = t.Letters[i]
		}
		det.Votes[k] = v
	}
	if t.Triage() && r.UrgencyMean >= 0 {
		m := r.UrgencyMean
		det.UrgencyMean = &m
	}
	return det
}

// codeOutput is the code's result as the seed's output object.
func codeOutput(item qa.Item, t Task, r Result) Output {
	avg, low := r.AverageConfidence, r.LowConfidence
	o := Output{AverageConfidence: &avg, IsLowConfidence: &low, ConsensusSpecialty: r.Specialty}
	switch {
	case t.Triage() && r.Urgency >= 0:
		o.ConsensusUrgency, o.ConsensusLevel = r.Urgency+1, item.Triage.Scale[r.Urgency].Code
	case !t.Triage() && r.Answer == "":
		o.ConsensusAnswer = NoAnswer
	case !t.Triage():
		o.ConsensusAnswer = r.Answer
	}
	return o
}

// verdictOutput is the judge's verdict as the seed's output object.
func verdictOutput(item qa.Item, t Task, v Verdict) *Output {
	o := &Output{ConsensusSpecialty: v.Specialty}
	if v.AverageConfidence >= 0 {
		x := v.AverageConfidence
		o.AverageConfidence = &x
	}
	if v.LowConfidenceRead {
		b := v.LowConfidence
		o.IsLowConfidence = &b
	}
	switch {
	case t.Triage() && v.Urgency >= 0:
		o.ConsensusUrgency, o.ConsensusLevel = v.Urgency+1, item.Triage.Scale[v.Urgency].Code
	case v.None:
		o.ConsensusAnswer = NoAnswer
	default:
		o.ConsensusAnswer = v.Answer
	}
	return o
}

// judge makes the judge's call (the seed's instructions, the experts'
// outputs as the seed's input object) and reads it.
func (a Arm) judge(ctx context.Context, s *kit.Session, t Task, outs []AgentOutput) (Verdict, error) {
	system, user, err := a.render(s, t, outs)
	if err != nil {
		return Verdict{}, err
	}
	text, err := s.Do(ctx, kit.Call{Phase: kit.PhaseDecision, Kind: kit.KindJudge, Agent: -1, Role: "judge",
		Temperature: a.LeaderTemp, System: system, User: user, Schema: verdictSchema(t)})
	if err != nil {
		return Verdict{}, err
	}
	v := ParseVerdict(text, s.Options, t)
	s.Note(kit.KindJudge, 0, -1, v.Method, v.Err, v.Reason, v.Notes)
	return v, nil
}

// scaleLevel is one level of the urgency scale as the judge is shown it.
type scaleLevel struct {
	Num                int
	Code, Name, Letter string
}

// render renders the judge's system and user prompts.
func (a Arm) render(s *kit.Session, t Task, outs []AgentOutput) (system, user string, err error) {
	d := map[string]any{"N": len(outs), "JSON": a.Structured, "Triage": t.Triage(), "AskSpecialty": t.AskSpecialty,
		"None": NoAnswer, "Outputs": inputObject(s.Out.Rounds[0], outs, t, a.peerChars)}
	if t.Triage() {
		var scale []scaleLevel
		for i, l := range s.Item.Triage.Scale {
			scale = append(scale, scaleLevel{Num: i + 1, Code: l.Code, Name: l.Name, Letter: s.Item.LetterOfRank(i)})
		}
		d["Scale"], d["Middle"], d["Top"] = scale, t.Levels/2+1, t.Levels
	}
	if system, err = prompts.Render("system", d); err != nil {
		return "", "", err
	}
	user, err = prompts.Render("judge", d)
	return system, user, err
}

// inputObject is the seed's input object, {"agent_outputs": [...]}, one
// agent's output per line in the seed's key order: on a multiple-choice
// item answer, confidence, reasoning; on a triage item (specialty,)
// confidence, urgency (1…L), reasoning. What an agent did not state is
// null, and an agent whose answer could not be read shows nulls only. Each
// reasoning is bounded by peerChars bytes (0 = the full text).
func inputObject(answers []answer.Answer, outs []AgentOutput, t Task, peerChars int) string {
	var b strings.Builder
	b.WriteString("{\"agent_outputs\": [\n")
	for i, o := range outs {
		b.WriteString("  {")
		if t.Triage() {
			if t.AskSpecialty {
				b.WriteString(`"specialty": ` + jsonString(o.Specialty) + ", ")
			}
			b.WriteString(`"confidence": ` + jsonConfidence(o.Confidence) + `, "urgency": `)
			if o.Urgency >= 0 {
				b.WriteString(strconv.Itoa(o.Urgency + 1))
			} else {
				b.WriteString("null")
			}
		} else {
			b.WriteString(`"answer": ` + jsonString(o.Answer) + `, "confidence": ` + jsonConfidence(o.Confidence))
		}
		r := strings.Join(strings.Fields(answers[i].Reasoning), " ")
		if len(answers[i].Ranking) == 0 {
			r = "" // no structured output was read: nothing of it is shown
		}
		if peerChars > 0 {
			r = kit.Truncate(r, peerChars)
		}
		b.WriteString(`, "reasoning": ` + jsonString(r) + "}")
		if i < len(outs)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]}")
	return b.String()
}

// jsonString is s as a JSON string, null when empty.
func jsonString(s string) string {
	if s == "" {
		return "null"
	}
	q, _ := json.Marshal(s)
	return string(q)
}

// jsonConfidence is a stated confidence, null when none.
func jsonConfidence(c float64) string {
	if c < 0 {
		return "null"
	}
	return strconv.FormatFloat(c, 'f', -1, 64)
}

// verdictSchema is the judge's JSON schema: the seed's output object with
// reasoning first (on a multiple-choice item the answer is one of the
// option letters or NONE).
func verdictSchema(t Task) *llm.Schema {
	if !t.Triage() {
		return kit.Schema(kit.KindJudge, kit.P("reasoning", kit.String),
			kit.P("consensus_answer", map[string]any{"type": "string", "enum": append(append([]string{}, t.Letters...), NoAnswer)}),
			kit.P("average_confidence", kit.Number), kit.P("is_low_confidence", kit.Boolean))
	}
	props := []kit.Prop{kit.P("reasoning", kit.String)}
	if t.AskSpecialty {
		props = append(props, kit.P("consensus_specialty", kit.String))
	}
	props = append(props, kit.P("consensus_urgency", kit.Integer), kit.P("average_confidence", kit.Number), kit.P("is_low_confidence", kit.Boolean))
	return kit.Schema(kit.KindJudge, props...)
}

// decideJudge applies the judge's verdict (mode llm).
func (a Arm) decideJudge(s *kit.Session, t Task, v Verdict, code Result, det Details) {
	det.Judge, det.JudgeParse = verdictOutput(s.Item, t, v), string(v.Method)
	det.Disagreements = Compare(v, code, t)
	agrees := len(det.Disagreements) == 0
	det.Agrees = &agrees
	d := aggregator.Plurality(t.Letters, kit.Firsts(s.Out.Rounds[0]))
	d.Tie, d.Tied = false, nil
	var reason string
	switch {
	case !v.Read(t):
		det.Rule, reason = RuleJudgeUnparsed, fmt.Sprintf("judge_unparsed: %s (%s)", v.Err, v.Reason)
	case t.Triage():
		det.Rule, d.Winner = RuleJudge, s.Item.LetterOfRank(v.Urgency)
		if t.AskSpecialty {
			s.Out.Specialty = v.Specialty
			if v.LowConfidenceRead && v.LowConfidence {
				s.Out.Specialty = aggregator.GeneralPractice // the seed's rule, whatever the judge wrote
			}
		}
	case v.LowConfidenceRead && v.LowConfidence:
		det.Rule, reason = RuleJudgeLowConfidence, fmt.Sprintf("low_confidence: the judge flagged a weak consensus (stated average %s; computed %.2f)",
			statedAverage(v), code.AverageConfidence)
	case v.None:
		det.Rule, reason = RuleJudgeNone, fmt.Sprintf("judge_none: the judge's consensus answer is %s (a tie or no answer; the code's branch: %s)", NoAnswer, code.Branch)
	default:
		det.Rule, d.Winner = RuleJudge, v.Answer
	}
	s.Out.Details = det
	if reason != "" {
		s.SafeDefault(d, det.Rule, reason)
		return
	}
	s.Commit(d, det.Rule)
}

// statedAverage is the judge's stated average confidence, "unread" when none.
func statedAverage(v Verdict) string {
	if v.AverageConfidence < 0 {
		return "unread"
	}
	return strconv.FormatFloat(v.AverageConfidence, 'f', 2, 64)
}

// decideCode applies the code's result (mode code).
func (a Arm) decideCode(s *kit.Session, t Task, code Result, det Details) {
	d := aggregator.Plurality(t.Letters, kit.Firsts(s.Out.Rounds[0]))
	d.Tie, d.Tied = false, nil
	det.Rule = code.Branch
	s.Out.Details = det
	if t.Triage() {
		if t.AskSpecialty {
			s.Out.Specialty = code.Specialty
		}
		if code.Urgency < 0 {
			s.SafeDefault(d, code.Branch, "no_votes: no agent named an urgency level")
			return
		}
		d.Winner = s.Item.LetterOfRank(code.Urgency)
		s.Commit(d, code.Branch)
		return
	}
	if code.Answer != "" {
		d.Winner = code.Answer
		s.Commit(d, code.Branch)
		return
	}
	var reason string
	switch code.Branch {
	case aggregator.BranchNoVotes:
		reason = "no_votes: no agent gave a readable answer"
	case aggregator.BranchTie:
		pl := aggregator.Plurality(t.Letters, kit.Firsts(s.Out.Rounds[0]))
		reason = fmt.Sprintf("tie: %s share the top vote (%s)", kit.JoinAnd(pl.Tied), kit.Describe(t.Letters, pl.Scores))
	default:
		reason = fmt.Sprintf("low_confidence: mean confidence %.2f < %.2f", code.AverageConfidence, aggregator.MinMeanConfidence)
	}
	s.SafeDefault(d, code.Branch, reason)
}

// taskMarker opens the harness's task sentence that follows the case in a
// triage item's stem (datasets.TriageTask).
const taskMarker = "\n\nTask: "

// caseText is what the red-flag rules read of a triage item: the stem
// without the harness's task sentence (whose list of specialties could
// name a keyword, "Stroke medicine"), and the context passages; never the
// options.
func caseText(item qa.Item) string {
	stem := item.Stem
	if i := strings.LastIndex(stem, taskMarker); i >= 0 {
		stem = stem[:i]
	}
	return strings.Join(append([]string{stem}, item.Context...), "\n")
}

// redFlag applies the red-flag rules to a triage case before any call (seed
// 003's TRIAGE state, "on the user's raw input"): the case text (caseText)
// is matched, and when a rule fires the case goes to the rule's level (the
// most urgent level unless the rule names another the scale has) with zero
// calls, decision rule red_flag, the rule's name in Outcome.RedFlag.
func (a Arm) redFlag(s *kit.Session) bool {
	r, ok := a.flags.Match(caseText(s.Item))
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
		Rules: a.flags.Name, DevelopedOn: a.flags.DevelopedOn, RulesSHA256: a.flags.SHA256}
	s.Commit(aggregator.Decision{Winner: letter, Scores: make([]float64, len(s.Item.Options))}, RuleRedFlag)
	return true
}
