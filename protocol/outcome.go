package protocol

import (
	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/answer"
)

// MonitorRound is one mutual-monitoring exchange (between turns).
type MonitorRound struct {
	AfterTurn int
	Target    int // 0-based agent the concern went to
	// TargetFallback is true when the leader's choice could not be read and
	// the agent with the lowest confidence was challenged instead.
	TargetFallback bool
	Concern        string
	Accepted       bool
	Before         string // target's first choice before the exchange
	After          string // target's first choice in its answer ("" if it gave none)
	Quality        float64
	Debated        string
}

// QualityParts is one agent's automated quality score without a leader:
// Quality = 0.5·Agree + 0.25·Complete + 0.25·Alignment, where Agree is the
// share of the other agents with the same first choice, Complete the share
// of the options ranked, and Alignment 1 − |confidence − Agree|.
type QualityParts struct {
	Agree, Complete, Alignment, Quality float64
}

// ParseNote records how the answer of one call was read. (Kind, Turn, Agent)
// identifies the call within a question.
type ParseNote struct {
	Kind   string
	Turn   int
	Agent  int
	Method answer.Method
	Err    string
	// Reason is the abstention reason code when nothing could be read
	// (answer.Answer's Reason), "" otherwise.
	Reason string
	// Notes are what the parser or the protocol observed without failing:
	// letters outside the options, out-of-range numbers, scores it could not
	// attribute to an expert, an analysis that names an answer.
	Notes []string
}

// Outcome is everything the protocol decided and observed for one question.
// It never contains the gold answer: scoring is the runner's job.
type Outcome struct {
	N       int
	Roles   []string
	Weights []float64 // aggregation weights before trust (hierarchical or equal)

	// Analysis is the question analysis the agents saw ("" without SMM);
	// AnalysisNamesOption is the letter the recruiter's analysis stated as
	// the answer, whether or not SMM showed it ("" when none).
	Analysis            string
	AnalysisNamesOption string
	Facts               []string
	FactsMethod         string // "leader", "intersection" or "" (SMM off)
	Report              string
	Debated             []string

	// Rounds[0] is the initial prediction; Rounds[t] is discussion turn t.
	Rounds [][]answer.Answer
	// Trust is the final trust score per agent (nil when trust is off).
	Trust []float64
	// Quality is the leader's synthesis quality score per agent (-1 = none
	// usable), nil without the synthesis call or without trust.
	Quality    []float64
	Monitoring []MonitorRound
	Mediations []string
	Leanings   []string

	// FactsStated is the number of facts the agents stated in their
	// initial answers, from which Facts were verified (0 without SMM).
	FactsStated int

	// HeuristicQuality is, with trust but no leader, each agent's automated
	// quality score and its parts (teamwork's heuristicQuality): the one
	// trust observation before the discussion; nil otherwise.
	HeuristicQuality []QualityParts

	Decision      aggregator.Decision
	Predicted     string // "" = the team abstained
	TieBrokenBy   string // "leader", "leader_override", "seeded_draw" or "escalated" (kit.BreakTie; + "_leader_unparsed" after an unreadable tie-break), or ""
	AbstainReason string

	Parses []ParseNote

	// On a triage item: the team's most likely diagnosis and specialty as
	// the protocol read them ("" when none was stated; the triage task then
	// takes them from the final answers, see tasks/triage.TeamDiagnosis),
	// and the name of the red-flag rule that escalated the case before any
	// call ("" when none fired).
	Diagnosis string
	Specialty string
	RedFlag   string

	// FirstPrompt names the prompt of agent 0's independent first answer
	// (kit.PromptHash: system prompt, user prompt and answer schema — not
	// the temperature or seed); "" when the protocol asks for none (a red
	// flag decided with zero calls). Arms compared with different first
	// prompts are flagged in the report (DESIGN §5 "Equal terms").
	FirstPrompt string

	// Route is the path a routing protocol took for the question (mdagents:
	// basic, intermediate or advanced); "" for protocols that do not route.
	Route string
	// RevisionRounds counts the consultation rounds that revised a shared
	// report (medagents); 0 for protocols without a consultation.
	RevisionRounds int

	// Details is the protocol's own record of how it decided (the inputs of
	// its rule, a vote breakdown, peer rankings, attributions): a value that
	// encodes as a JSON object, stored in the row's protocol_json column.
	// nil when the protocol keeps nothing beyond the fields above.
	Details any
}

// Final returns the last round.
func (o *Outcome) Final() []answer.Answer {
	if len(o.Rounds) == 0 {
		return nil
	}
	return o.Rounds[len(o.Rounds)-1]
}

// LeaderInterventions counts mediations and leader tie-breaks.
func (o *Outcome) LeaderInterventions() int {
	n := len(o.Mediations)
	if o.TieBrokenBy == "leader" || o.TieBrokenBy == "leader_override" {
		n++
	}
	return n
}

// ParseFailures counts calls whose answer could not be read.
func (o *Outcome) ParseFailures() int {
	n := 0
	for _, p := range o.Parses {
		if p.Method == answer.MethodNone {
			n++
		}
	}
	return n
}
