// Package medagents is MedAgents (Tang et al., ACL Findings 2024,
// "MedAgents: Large Language Models as Collaborators for Zero-shot Medical
// Reasoning") as a protocol.Protocol, following its public code
// (gersteinlab/MedAgents utils.py fully_decode, prompt_generator.py,
// run.py): "medagents" (method syn_verif), "medagents:syn_only",
// "medagents:anal_only"; options qd=5, od=2, rounds=3 (the code's NUM_QD,
// NUM_OD, --max_attempt_vote). Every call is greedy (temperature 0), as in
// the code. See docs/protocols.md#medagents.
//
//  1. Expert gathering: one call names qd question domains, one names od
//     option domains ("Medical Field: A | B | …"); a short list is padded
//     with "General Medicine" (the code's fallback), a long one cut.
//  2. Question analyses: one call per question domain, on the question
//     without its options.
//  3. Option analyses: one call per option domain, each seeing every
//     question analysis and the options.
//  4. anal_only: the final decision from the analyses (1 call). Otherwise a
//     synthesiser writes the report ("Key Knowledge", "Total Analysis").
//  5. syn_verif: up to rounds consultation rounds: every domain expert
//     (qd+od) votes yes or no on the report; each "no" writes revision
//     advice (one call); if any voted no, one call revises the report's
//     total analysis. A round where all vote yes ends the consultation.
//  6. The final decision from the report ("Option: X"), read through
//     package answer; an unreadable one falls back to the safe default
//     (abstention; on triage the most urgent level).
//
// A vote that is neither yes nor no is recorded as unread (a parse
// failure) and counts as yes, as the code's cleansing_voting does: it asks
// for no advice. Calls: anal_only 2+qd+od+1; syn_only 2+qd+od+2; syn_verif
// from 2+qd+od+1+(qd+od)+1 (18) to 2+qd+od+1+rounds·(2(qd+od)+1)+1 (56).
// No call depends on the method, so the three methods share the gathering
// and analyses (and syn_only and syn_verif the report) through the cache.
package medagents

import (
	"context"
	"embed"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/qa"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompts = kit.MustPrompts(promptFS, "prompts/*.tmpl")

// Methods (the code's --method choices that use the agents).
const (
	MethodSynVerif = "syn_verif" // report, consultation, decision (the default)
	MethodSynOnly  = "syn_only"  // report, decision
	MethodAnalOnly = "anal_only" // decision from the analyses
)

// Defaults: the code's NUM_QD, NUM_OD and --max_attempt_vote.
const (
	DefaultQD     = 5
	DefaultOD     = 2
	DefaultRounds = 3
	// maxRounds bounds the rounds option (and keeps Order unique).
	maxRounds = 10
	// maxDomains bounds qd and od.
	maxDomains = 10
)

// Phases (llm.Meta.Phase).
const (
	PhaseGather       = "gather"       // expert gathering
	PhaseAnalysis     = "analysis"     // question and option analyses
	PhaseSynthesis    = "synthesis"    // the synthesised report
	PhaseConsultation = "consultation" // votes, advice, revisions
	PhaseDecision     = kit.PhaseDecision
)

// Call kinds (llm.Meta.Kind); protocols/FORMATS.md documents each answer.
const (
	KindQuestionDomains  = "question_domains"
	KindOptionDomains    = "option_domains"
	KindQuestionAnalysis = "question_analysis"
	KindOptionAnalysis   = "option_analysis"
	KindReport           = "synthesis_report"
	KindVote             = "consensus_vote"
	KindAdvice           = "revision_advice"
	KindRevision         = "report_revision"
	KindFinal            = "final_option"
)

// Kinds lists every call kind, in stage order.
var Kinds = []string{KindQuestionDomains, KindOptionDomains, KindQuestionAnalysis, KindOptionAnalysis,
	KindReport, KindVote, KindAdvice, KindRevision, KindFinal}

// Decision rules (decision_rule).
const (
	RuleFinal         = "final_answer"
	RuleFinalUnparsed = "final_unparsed"
)

var (
	domainsSchema  = kit.Schema(KindQuestionDomains, kit.P("fields", kit.Strings))
	analysisSchema = kit.Schema(KindQuestionAnalysis, kit.P("analysis", kit.String))
	reportSchema   = kit.Schema(KindReport, kit.P("key_knowledge", kit.String), kit.P("total_analysis", kit.String))
	voteSchema     = kit.Schema(KindVote, kit.P("vote", kit.String))
	adviceSchema   = kit.Schema(KindAdvice, kit.P("revisions", kit.String))
	revisionSchema = kit.Schema(KindRevision, kit.P("total_analysis", kit.String))
	finalSchema    = kit.Schema(KindFinal, kit.P("answer", kit.String))
)

// Protocol is MedAgents.
var Protocol = &protocol.Protocol{
	Name: "medagents",
	Doc: "MedAgents (Tang et al. 2024; gersteinlab/MedAgents): gather question and option domain experts, " +
		"analyse the question and the options, synthesise a report, consult the experts (yes/no votes, advice " +
		"from each no, a revision; up to 3 rounds), then decide from the report (greedy; methods syn_verif, " +
		"syn_only, anal_only). Calls vary: 18 to 56 by default.",
	Parse:      parseArm,
	Presets:    []string{"medagents", "medagents:" + MethodSynOnly, "medagents:" + MethodAnalOnly},
	Accounting: writeAccounting,
	Stub:       Stub,
	Prompts:    kit.HashOf(prompts),
	// No first answer is the shared request (docs/protocols.md).
	OwnFirstAnswer: true,
	Sim:            &Sim,
}

// Arm is one MedAgents configuration.
type Arm struct {
	Method     string
	QD, OD     int // question and option domains
	Rounds     int // consultation rounds at most (syn_verif)
	Structured bool
	MaxTokens  int
	PeerChars  int
	// SharedLayout puts an expert's system prompt after its user prompt, in
	// one user message (--prompt-layout shared; sharedLayout).
	SharedLayout bool
}

func parseArm(spec string, s protocol.Settings) (protocol.Arm, bool, error) {
	sp, ok, err := kit.ParseSpec(spec, "medagents")
	if !ok || err != nil {
		return nil, ok, err
	}
	if err := sp.Check("method", "qd", "od", "rounds"); err != nil {
		return nil, true, err
	}
	a := Arm{Structured: s.Structured, MaxTokens: s.MaxTokens, PeerChars: s.PeerChars, SharedLayout: s.SharedLayout()}
	if a.Method, err = specMethod(sp); err != nil {
		return nil, true, err
	}
	if a.QD, err = sp.Int("qd", -1, DefaultQD, 1, maxDomains); err != nil {
		return nil, true, err
	}
	if a.OD, err = sp.Int("od", -1, DefaultOD, 1, maxDomains); err != nil {
		return nil, true, err
	}
	if _, given := sp.Keyed["rounds"]; given && a.Method != MethodSynVerif {
		return nil, true, fmt.Errorf("medagents: rounds applies to %s only (%s has no consultation)", MethodSynVerif, a.Method)
	}
	if a.Rounds, err = sp.Int("rounds", -1, DefaultRounds, 1, maxRounds); err != nil {
		return nil, true, err
	}
	if a.Method != MethodSynVerif {
		a.Rounds = 0
	}
	return a, true, nil
}

// specMethod is the method a spec names, bare (medagents:syn_only) or keyed
// (medagents:method=syn_only); MethodSynVerif when it names none.
func specMethod(sp kit.Spec) (string, error) {
	method := MethodSynVerif
	if v, ok := sp.Keyed["method"]; ok {
		method = v
	}
	switch {
	case len(sp.Bare) > 1 || len(sp.Bare) == 1 && sp.Keyed["method"] != "":
		return "", fmt.Errorf("medagents takes one method (medagents:syn_only or medagents:method=syn_only)")
	case len(sp.Bare) == 1:
		method = sp.Bare[0]
	}
	switch method {
	case MethodSynVerif, MethodSynOnly, MethodAnalOnly:
		return method, nil
	}
	return "", fmt.Errorf("medagents: unknown method %q (methods: %s, %s, %s)", method, MethodSynVerif, MethodSynOnly, MethodAnalOnly)
}

// Protocol is medagents' Protocol.
func (a Arm) Protocol() *protocol.Protocol { return Protocol }

// Label is the canonical label: the name, then the options that differ
// from the defaults.
func (a Arm) Label() string {
	var opts []string
	if a.Method != MethodSynVerif {
		opts = append(opts, a.Method)
	}
	if a.QD != DefaultQD {
		opts = append(opts, fmt.Sprintf("qd=%d", a.QD))
	}
	if a.OD != DefaultOD {
		opts = append(opts, fmt.Sprintf("od=%d", a.OD))
	}
	if a.Method == MethodSynVerif && a.Rounds != DefaultRounds {
		opts = append(opts, fmt.Sprintf("rounds=%d", a.Rounds))
	}
	if len(opts) == 0 {
		return "medagents"
	}
	return "medagents:" + strings.Join(opts, ",")
}

// Info describes the arm: a team of qd+od domain experts, every call greedy.
func (a Arm) Info() protocol.ArmInfo {
	return protocol.ArmInfo{Label: a.Label(), Protocol: Protocol.Name, Turns: a.Rounds,
		AgentPolicy: fmt.Sprintf("fixed:%d", a.QD+a.OD), Structured: a.Structured}
}

// Bounds are the fewest and the most calls one question makes.
func (a Arm) Bounds() (lo, hi int) {
	base := 2 + a.QD + a.OD // gathering and analyses
	e := a.QD + a.OD
	switch a.Method {
	case MethodAnalOnly:
		return base + 1, base + 1
	case MethodSynOnly:
		return base + 2, base + 2
	}
	return base + 1 + e + 1, base + 1 + a.Rounds*(2*e+1) + 1
}

// Calls is the accounting: the fewest calls (every expert agrees with the
// first report) and how many more a question may make (every expert
// disagrees in every round).
func (a Arm) Calls(int) (int, int) {
	lo, hi := a.Bounds()
	return lo, hi - lo
}

func writeAccounting(w io.Writer) error {
	fmt.Fprintln(w, "calls = gathering 2 + analyses QD+OD + report 1 (not anal_only) + consultation (syn_verif) + decision 1;")
	fmt.Fprintln(w, "a consultation round = E votes + 1 advice per no + 1 revision if any no (E = QD+OD); it ends at a round")
	fmt.Fprintln(w, "of E yes votes or after R rounds: min 2+QD+OD+1+E+1, max 2+QD+OD+1+R·(2E+1)+1")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "arm\tQD\tOD\tR\tgather\tanalyses\treport\tconsultation per round\tdecision\tmin\tmax")
	for _, spec := range []string{"medagents", "medagents:rounds=1", "medagents:" + MethodSynOnly, "medagents:" + MethodAnalOnly} {
		p, _, err := parseArm(spec, protocol.Settings{})
		if err != nil {
			return err
		}
		a := p.(Arm)
		lo, hi := a.Bounds()
		rounds, report, consult := "-", "1", "0"
		switch a.Method {
		case MethodSynVerif:
			rounds = fmt.Sprint(a.Rounds)
			consult = fmt.Sprintf("%d + #no + 1 if any no", a.QD+a.OD)
		case MethodAnalOnly:
			report = "0"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t2\t%d\t%s\t%s\t1\t%d\t%d\n", a.Label(), a.QD, a.OD, rounds, a.QD+a.OD, report, consult, lo, hi)
	}
	return tw.Flush()
}

// Run runs the stages on one item.
func (a Arm) Run(ctx context.Context, c llm.Client, item qa.Item, u protocol.Unit) (*protocol.Outcome, error) {
	r := newRun(a, kit.NewSession(c, item, u, a.Structured, a.MaxTokens))
	if err := r.gather(ctx); err != nil {
		return nil, err
	}
	if err := r.analyse(ctx); err != nil {
		return nil, err
	}
	var text string
	var err error
	if a.Method == MethodAnalOnly {
		text, err = r.decideFromAnalyses(ctx)
	} else {
		if err = r.synthesise(ctx); err != nil {
			return nil, err
		}
		if a.Method == MethodSynVerif {
			if err = r.consult(ctx); err != nil {
				return nil, err
			}
		}
		text, err = r.decideFromReport(ctx)
	}
	if err != nil {
		return nil, err
	}
	r.decide(text)
	return r.s.Out, nil
}

// order is the llm.Meta.Order of a call: stages in their order, each
// consultation round's votes and advice (expert by expert) before its
// revision, the decision last.
func order(kind string, turn, agent int) int {
	stage := map[string]int{KindQuestionDomains: 0, KindOptionDomains: 1, KindQuestionAnalysis: 2, KindOptionAnalysis: 3,
		KindReport: 4, KindVote: 5, KindAdvice: 5, KindRevision: 6, KindFinal: 7}[kind]
	slot := agent + 1
	switch kind {
	case KindVote:
		slot = 2 * agent
	case KindAdvice:
		slot = 2*agent + 1
	case KindFinal:
		turn = maxRounds + 1
	}
	return (turn*8+stage)*64 + slot + 1
}
