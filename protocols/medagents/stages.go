package medagents

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// noAnalysis stands for an analysis whose reply was empty (the reference
// code's text for a failed analysis call).
const noAnalysis = "There is no analysis for this %s."

// run is one question's run of an arm.
type run struct {
	a     Arm
	s     *kit.Session
	det   *Details
	calls atomic.Int64

	scenario, options  string   // the question without its options; the option lines
	qDomains, oDomains []string // the gathered domains
	qAnalyses          []string // per question domain
	oAnalyses          []string // per option domain
	report             Report   // the current report (key knowledge and total analysis)
}

// named is a domain expert's text as a prompt shows it.
type named struct {
	Num          int
	Domain, Text string
}

func newRun(a Arm, s *kit.Session) *run {
	r := &run{a: a, s: s, det: &Details{Method: a.Method}}
	r.scenario = scenario(s.Item.Stem, s.Item.Context)
	var sb strings.Builder
	for _, o := range s.Item.Options {
		fmt.Fprintf(&sb, "%s) %s\n", o.Letter, o.Text)
	}
	r.options = sb.String()
	return r
}

// scenario is the question as the reference code's `question`: without
// its options; a context (PubMedQA's abstract) goes first.
func scenario(stem string, context []string) string {
	if len(context) == 0 {
		return stem
	}
	return strings.Join(context, "\n") + "\n" + stem
}

// peer bounds another agent's text shown in a prompt (--peer-chars; 0 =
// the full text).
func (r *run) peer(s string) string {
	if r.a.PeerChars > 0 {
		return kit.Truncate(s, r.a.PeerChars)
	}
	return s
}

// do makes a call: greedy (temperature 0, as every call of the reference
// code), ordered by stage.
func (r *run) do(ctx context.Context, c kit.Call) (string, error) {
	c.Temperature = 0
	c.Order = order(c.Kind, c.Turn, c.Agent)
	if r.a.SharedLayout {
		c = sharedLayout(c)
	}
	r.calls.Add(1)
	return r.s.Do(ctx, c)
}

// render renders the system and user templates of a call.
func render(system, user string, data map[string]any) (string, string, error) {
	var sys string
	if system != "" {
		var err error
		if sys, err = prompts.Render(system, data); err != nil {
			return "", "", err
		}
	}
	u, err := prompts.Render(user, data)
	return sys, u, err
}

// gather is stage 1: the question domains and the option domains (two
// independent calls, at once).
func (r *run) gather(ctx context.Context) error {
	type ask struct {
		kind, system string
		n            int
		out          *[]string
		read         *int
	}
	asks := []ask{
		{KindQuestionDomains, "question_domains_system", r.a.QD, &r.qDomains, &r.det.QuestionDomainsRead},
		{KindOptionDomains, "option_domains_system", r.a.OD, &r.oDomains, &r.det.OptionDomainsRead},
	}
	parsed := make([]Domains, len(asks))
	err := r.s.Parallel(ctx, len(asks), func(ctx context.Context, i int) error {
		k := asks[i]
		format := make([]string, k.n)
		for j := range format {
			format[j] = fmt.Sprintf("Field%d", j+1)
		}
		data := map[string]any{"Scenario": r.scenario, "Options": r.options, "Count": numberWord(k.n), "N": k.n,
			"Format": strings.Join(format, " | "), "JSON": r.a.Structured}
		system, user, err := render(k.system, k.kind, data)
		if err != nil {
			return err
		}
		text, err := r.do(ctx, kit.Call{Phase: PhaseGather, Kind: k.kind, Agent: -1, Role: "classifier",
			System: system, User: user, Schema: domainsSchema})
		if err != nil {
			return err
		}
		parsed[i] = ParseDomains(text, k.n)
		return nil
	})
	if err != nil {
		return err
	}
	for i, k := range asks {
		d := parsed[i]
		r.s.Note(k.kind, 0, -1, d.Method, d.Err, d.Reason, d.Notes)
		*k.out, *k.read = d.Names, d.Read
	}
	r.det.QuestionDomains, r.det.OptionDomains = r.qDomains, r.oDomains
	return nil
}

// analyse is stages 2 and 3: one question analysis per question domain
// (the question without its options), then one option analysis per option
// domain, each seeing every question analysis and the options.
func (r *run) analyse(ctx context.Context) error {
	r.qAnalyses = make([]string, r.a.QD)
	err := r.s.Parallel(ctx, r.a.QD, func(ctx context.Context, i int) error {
		data := map[string]any{"Domain": r.qDomains[i], "Scenario": r.scenario, "JSON": r.a.Structured}
		system, user, err := render("question_analysis_system", KindQuestionAnalysis, data)
		if err != nil {
			return err
		}
		text, err := r.do(ctx, kit.Call{Phase: PhaseAnalysis, Kind: KindQuestionAnalysis, Agent: i, Role: r.qDomains[i],
			System: system, User: user, Schema: analysisSchema})
		if err != nil {
			return err
		}
		r.qAnalyses[i] = text
		return nil
	})
	if err != nil {
		return err
	}
	for i, text := range r.qAnalyses {
		r.qAnalyses[i] = r.readAnalysis(KindQuestionAnalysis, i, text, "question")
	}
	qa := r.named(r.qDomains, r.qAnalyses, 1)
	r.oAnalyses = make([]string, r.a.OD)
	err = r.s.Parallel(ctx, r.a.OD, func(ctx context.Context, j int) error {
		data := map[string]any{"Domain": r.oDomains[j], "Scenario": r.scenario, "Options": r.options,
			"QCount": numberWord(r.a.QD), "QAnalyses": qa, "JSON": r.a.Structured}
		system, user, err := render("option_analysis_system", KindOptionAnalysis, data)
		if err != nil {
			return err
		}
		text, err := r.do(ctx, kit.Call{Phase: PhaseAnalysis, Kind: KindOptionAnalysis, Agent: r.a.QD + j, Role: r.oDomains[j],
			System: system, User: user, Schema: analysisSchema})
		if err != nil {
			return err
		}
		r.oAnalyses[j] = text
		return nil
	})
	if err != nil {
		return err
	}
	for j, text := range r.oAnalyses {
		r.oAnalyses[j] = r.readAnalysis(KindOptionAnalysis, r.a.QD+j, text, "option")
	}
	return nil
}

// readAnalysis reads an analysis reply; an empty one is the reference
// code's "There is no analysis for this question/option." (noted). Not
// safe for concurrent use (it notes in the session).
func (r *run) readAnalysis(kind string, agent int, text, what string) string {
	t := ParseText(text, []string{"analysis", "evaluation", "assessment"}, "ANALYSIS")
	if t.Text == "" {
		r.s.Note(kind, 0, agent, answer.MethodNone, "empty analysis", t.Reason, nil)
		return fmt.Sprintf(noAnalysis, what)
	}
	r.s.Note(kind, 0, agent, t.Method, "", "", nil)
	return t.Text
}

// named pairs domains with texts (bounded by --peer-chars), numbered from
// first.
func (r *run) named(domains, texts []string, first int) []named {
	out := make([]named, len(domains))
	for i := range domains {
		out[i] = named{Num: first + i, Domain: domains[i], Text: r.peer(texts[i])}
	}
	return out
}

// synthesise is stage 4: the synthesiser's report from every analysis.
func (r *run) synthesise(ctx context.Context) error {
	data := map[string]any{"Scenario": r.scenario, "Options": r.options, "JSON": r.a.Structured,
		"QReports": r.named(r.qDomains, r.qAnalyses, 1), "OReports": r.named(r.oDomains, r.oAnalyses, r.a.QD+1)}
	system, user, err := render("synthesis_report_system", KindReport, data)
	if err != nil {
		return err
	}
	text, err := r.do(ctx, kit.Call{Phase: PhaseSynthesis, Kind: KindReport, Agent: -1, Role: "synthesizer",
		System: system, User: user, Schema: reportSchema})
	if err != nil {
		return err
	}
	rep := ParseReport(text)
	r.noteReport(KindReport, 0, rep)
	r.report = rep
	return nil
}

func (r *run) noteReport(kind string, turn int, rep Report) {
	if rep.Reason != "" {
		r.s.Note(kind, turn, -1, answer.MethodNone, "empty report", rep.Reason, nil)
		return
	}
	r.s.Note(kind, turn, -1, rep.Method, "", "", rep.Notes)
}

// reportText renders the current report as the reference code's
// cleansing_syn_report does: the question, the options, the key knowledge
// and the total analysis.
func (r *run) reportText() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Question: %s\nOptions:\n%s", r.scenario, r.options)
	if kk := r.report.KeyKnowledge; kk != "" {
		fmt.Fprintf(&sb, "Key Knowledge: %s\n", r.peer(kk))
	}
	fmt.Fprintf(&sb, "Total Analysis: %s\n", r.peer(r.report.TotalAnalysis))
	return sb.String()
}

// experts are every domain expert, question domains first.
func (r *run) experts() []string {
	return append(append([]string{}, r.qDomains...), r.oDomains...)
}

// consult is stage 5 (syn_verif): up to Rounds rounds; in each, every
// domain expert votes on the report and each "no" writes advice (one
// expert's vote and advice depend on no other's, so the experts of a
// round are asked at once); any "no" → the report's analysis is revised.
// A round with no "no" ends the consultation; a report revised in the last
// round is not voted on again (as in the reference's loop).
func (r *run) consult(ctx context.Context) error {
	experts := r.experts()
	e := len(experts)
	for round := 1; round <= r.a.Rounds; round++ {
		report := r.reportText()
		votes := make([]Vote, e)
		advice := make([]Text, e)
		err := r.s.Parallel(ctx, e, func(ctx context.Context, k int) error {
			var err error
			votes[k], advice[k], err = r.askExpert(ctx, round, k, experts[k], report)
			return err
		})
		if err != nil {
			return err
		}
		rd, given := r.tallyRound(round, experts, votes, advice)
		r.det.Advice += rd.No
		r.det.UnreadVotes += rd.Unread
		if rd.No == 0 {
			r.det.Rounds = append(r.det.Rounds, rd)
			r.det.Consensus = true
			return nil
		}
		if err := r.revise(ctx, round, report, given); err != nil {
			return err
		}
		rd.Revised = true
		r.det.Rounds = append(r.det.Rounds, rd)
	}
	return nil
}

// askExpert asks expert k (of domain) for its vote on the report and, on a
// "no", for its advice.
func (r *run) askExpert(ctx context.Context, round, k int, domain, report string) (Vote, Text, error) {
	data := map[string]any{"Domain": domain, "Report": report, "JSON": r.a.Structured}
	system, user, err := render("consensus_vote_system", KindVote, data)
	if err != nil {
		return Vote{}, Text{}, err
	}
	text, err := r.do(ctx, kit.Call{Phase: PhaseConsultation, Kind: KindVote, Turn: round, Agent: k, Role: domain,
		System: system, User: user, Schema: voteSchema})
	if err != nil {
		return Vote{}, Text{}, err
	}
	vote := ParseVote(text)
	if vote.Value != VoteNo {
		return vote, Text{}, nil
	}
	if _, user, err = render("", KindAdvice, data); err != nil {
		return vote, Text{}, err
	}
	text, err = r.do(ctx, kit.Call{Phase: PhaseConsultation, Kind: KindAdvice, Turn: round, Agent: k, Role: domain,
		System: system, User: user, Schema: adviceSchema})
	if err != nil {
		return vote, Text{}, err
	}
	return vote, ParseText(text, []string{"revisions", "revision", "advice"}, "REVISIONS", "REVISION", "ADVICE"), nil
}

// tallyRound notes the round's votes (in expert order) and counts them;
// given is the advice of each "no", an empty one noted and shown as
// "(no advice)".
func (r *run) tallyRound(round int, experts []string, votes []Vote, advice []Text) (rd Round, given []named) {
	rd = Round{Round: round, Votes: make([]string, len(votes))}
	for k, v := range votes {
		r.s.Note(KindVote, round, k, v.Method, v.Err, v.Reason, nil)
		rd.Votes[k] = v.Value
		switch v.Value {
		case VoteNo:
			rd.No++
			a := advice[k]
			if a.Text == "" {
				r.s.Note(KindAdvice, round, k, answer.MethodNone, "empty advice", a.Reason, nil)
				a.Text = "(no advice)"
			} else {
				r.s.Note(KindAdvice, round, k, a.Method, "", "", nil)
			}
			given = append(given, named{Num: k + 1, Domain: experts[k], Text: r.peer(a.Text)})
		case VoteUnread:
			rd.Unread++
		}
	}
	return rd, given
}

// revise asks for the revised total analysis of the report from the
// advice given; an empty reply leaves the report unchanged (noted).
func (r *run) revise(ctx context.Context, round int, report string, given []named) error {
	data := map[string]any{"Report": report, "Advice": given, "JSON": r.a.Structured}
	_, user, err := render("", KindRevision, data)
	if err != nil {
		return err
	}
	text, err := r.do(ctx, kit.Call{Phase: PhaseConsultation, Kind: KindRevision, Turn: round, Agent: -1, Role: "reviser",
		User: user, Schema: revisionSchema})
	if err != nil {
		return err
	}
	rep := ParseReport(text)
	r.noteReport(KindRevision, round, rep)
	if rep.Reason == "" {
		r.report.TotalAnalysis = rep.TotalAnalysis
	}
	r.s.Out.RevisionRounds++
	r.det.Revisions++
	return nil
}

// decideFromReport is stage 6 of syn_only and syn_verif.
func (r *run) decideFromReport(ctx context.Context) (string, error) {
	return r.final(ctx, "final_report", map[string]any{"Report": r.reportText()})
}

// decideFromAnalyses is anal_only's decision: the question, the options and
// every analysis.
func (r *run) decideFromAnalyses(ctx context.Context) (string, error) {
	return r.final(ctx, "final_analyses", map[string]any{"Scenario": r.scenario, "Options": r.options,
		"QCount": numberWord(r.a.QD), "OCount": numberWord(r.a.OD),
		"QAnalyses": r.named(r.qDomains, r.qAnalyses, 1), "OAnalyses": r.named(r.oDomains, r.oAnalyses, r.a.QD+1)})
}

func (r *run) final(ctx context.Context, tmpl string, data map[string]any) (string, error) {
	data["JSON"] = r.a.Structured
	data["Letters"] = orList(r.s.Item.Letters())
	_, user, err := render("", tmpl, data)
	if err != nil {
		return "", err
	}
	return r.do(ctx, kit.Call{Phase: PhaseDecision, Kind: KindFinal, Agent: -1, Role: "decision maker", User: user, Schema: finalSchema})
}

// finalLabels are the labels the decision's answer is read from: the
// reference's "Option: X", and ANSWER.
var finalLabels = map[string]string{"OPTION": "answer", "SELECTED OPTION": "answer", "ANSWER": "answer", "FINAL ANSWER": "answer"}

// ReadFinal reads the decision's option: the JSON answer, else the
// "Option:" (or "Answer:") line — the reference's ”' quotes around it
// ignored — else the reply as free text (kit.ReadPick); nothing is guessed.
func ReadFinal(text string, options []answer.Option) kit.Pick {
	return kit.ReadPick(strings.ReplaceAll(text, "'''", ""), answer.NewSet(options), finalLabels)
}

// decide reads the decision and records the outcome.
func (r *run) decide(text string) {
	s := r.s
	pick := ReadFinal(text, s.Options)
	s.Note(KindFinal, 0, -1, pick.Method, pick.Err, pick.Reason, nil)
	fin := answer.Answer{Confidence: -1, Method: pick.Method, Err: pick.Err, Reason: pick.Reason}
	if pick.Answer != "" {
		fin.Ranking = []string{pick.Answer}
	}
	if s.Item.IsTriage() {
		fin.Diagnosis, fin.Specialty = answer.StatedDiagnosis(text)
	}
	experts := r.experts()
	s.Out.N, s.Out.Roles, s.Out.Rounds = len(experts), experts, [][]answer.Answer{{fin}}
	r.det.FinalAnswer, r.det.FinalParse, r.det.FinalReason = pick.Answer, string(pick.Method), pick.Reason
	r.det.Calls = int(r.calls.Load())
	d := aggregator.Plurality(s.Item.Letters(), []string{pick.Answer})
	if pick.Answer == "" {
		r.det.Rule = RuleFinalUnparsed
		s.Out.Details = *r.det
		s.SafeDefault(d, RuleFinalUnparsed, fmt.Sprintf("final_unparsed: %s (%s)", pick.Err, pick.Reason))
		return
	}
	r.det.Rule = RuleFinal
	s.Out.Details = *r.det
	s.Commit(d, RuleFinal)
}

// orList lists letters as the reference's prompt does: "A, B, C, or D".
func orList(ls []string) string {
	switch len(ls) {
	case 0:
		return ""
	case 1:
		return ls[0]
	case 2:
		return ls[0] + " or " + ls[1]
	}
	return strings.Join(ls[:len(ls)-1], ", ") + ", or " + ls[len(ls)-1]
}

// numberWord writes n as the reference's prompts do ("five", "two").
func numberWord(n int) string {
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}
	if n >= 0 && n < len(words) {
		return words[n]
	}
	return fmt.Sprint(n)
}
