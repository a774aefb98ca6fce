// Package results owns the parquet row types (a public, versioned contract),
// their writers and readers, and the run manifest.
package results

// SchemaVersion is bumped on any incompatible change to QuestionRow, CallRow
// or ItemRow. items.parquet (ItemRow) came as a new, optional file under
// version 5: files written before it are unchanged, so it needed no bump.
// Version 6 added the cached prompt tokens (cached_prompt_tokens in both
// files, paid_cached_prompt_tokens and calls_cached_unreported in
// questions.parquet).
const SchemaVersion = 6

// QuestionRow is one row of questions.parquet: one question × arm × repeat.
//
// List columns that describe the team are in agent order; Scores is in option
// order. Rounds holds each round's first choices: index 0 is the initial
// prediction, index t the discussion turn t (the last one is the final
// ranking); each element lists the agents' first choices separated by commas,
// an empty field meaning that agent abstained in that round.
type QuestionRow struct {
	SchemaVersion int32  `parquet:"schema_version"`
	RunID         string `parquet:"run_id"`
	Dataset       string `parquet:"dataset"`
	Split         string `parquet:"split"`
	QuestionID    string `parquet:"question_id"`
	// SourceID is the dataset's own id of the question (MedMCQA id, realidx,
	// PubMedQA PMID, MMLU-Pro question_id; "" when it has none). QuestionID
	// is derived from the content, so copies of a dataset line up.
	SourceID      string `parquet:"source_id"`
	Arm           string `parquet:"arm"`
	Protocol      string `parquet:"protocol"`
	SMM           bool   `parquet:"smm"`
	Leadership    bool   `parquet:"leadership"`
	Orientation   bool   `parquet:"orientation"`
	Trust         bool   `parquet:"trust"`
	Monitoring    bool   `parquet:"monitoring"`
	Turns         int32  `parquet:"turns"`
	Discussion    string `parquet:"discussion"`   // round_robin | parallel
	AgentPolicy   string `parquet:"agent_policy"` // dynamic | fixed:N
	StructuredOut bool   `parquet:"structured_output"`
	Model         string `parquet:"model"`
	Repeat        int32  `parquet:"repeat"`
	Seed          int64  `parquet:"seed"`

	Gold     string `parquet:"gold"`
	NOptions int32  `parquet:"n_options"`
	// OptionOrder is the option permutation under --shuffle-options: the
	// original letter shown at each position (e.g. "CADB"); "" when unshuffled.
	OptionOrder string `parquet:"option_order"`
	Subject     string `parquet:"subject"`   // dataset subject/step metadata when present
	MetaJSON    string `parquet:"meta_json"` // all item metadata as a JSON object

	NAgents int32     `parquet:"n_agents"`
	Roles   []string  `parquet:"roles,list"`
	Weights []float64 `parquet:"weights,list"`

	Predicted     string    `parquet:"predicted"`
	Correct       bool      `parquet:"correct"`
	Abstained     bool      `parquet:"abstained"`
	AbstainReason string    `parquet:"abstain_reason"`
	DecisionRule  string    `parquet:"decision_rule"`
	Tie           bool      `parquet:"tie"`
	Tied          []string  `parquet:"tied,list"`
	TieBrokenBy   string    `parquet:"tie_broken_by"` // leader | leader_override | seeded_draw | escalated (triage) | …_leader_unparsed | ""
	Scores        []float64 `parquet:"scores,list"`

	Rounds              []string  `parquet:"rounds,list"`
	AgreementInitial    float64   `parquet:"agreement_initial"`
	AgreementFinal      float64   `parquet:"agreement_final"`
	Unanimous           bool      `parquet:"unanimous"`
	OpinionChanges      int32     `parquet:"opinion_changes"`
	ChangesRightToWrong int32     `parquet:"changes_right_to_wrong"`
	ChangesWrongToRight int32     `parquet:"changes_wrong_to_right"`
	InitialMajority     string    `parquet:"initial_majority"` // plurality first choice of the initial round ("" on a tie)
	ConfidenceMean      float64   `parquet:"confidence_mean"`  // mean final-round confidence of agents that gave one; -1 if none
	Confidences         []float64 `parquet:"confidences,list"` // final-round confidence per agent (-1 = not given)

	TrustFinal []float64 `parquet:"trust_final,list"`
	// LeaderQuality is the leader's synthesis quality score per agent, keyed
	// by the expert it named (-1 = no usable score); empty without the
	// synthesis call or without trust.
	LeaderQuality []float64 `parquet:"leader_quality,list"`
	TrustSpread   float64   `parquet:"trust_spread"` // population std. dev. of TrustFinal

	// The automated quality score of each agent's initial answer with trust
	// but no leader, and its parts, in agent order (empty otherwise): the
	// one trust observation before the discussion (docs/protocols.md,
	// teamwork: quality = 0.5·agree + 0.25·complete + 0.25·alignment).
	// Added in issue 36 so the conformity it rewards can be seen.
	HeuristicAgree     []float64 `parquet:"heuristic_agree,list"`     // share of the other agents with the same first choice
	HeuristicComplete  []float64 `parquet:"heuristic_complete,list"`  // share of the options the ranking covers
	HeuristicAlignment []float64 `parquet:"heuristic_alignment,list"` // 1 − |confidence − agree|
	HeuristicQuality   []float64 `parquet:"heuristic_quality,list"`   // the score itself

	QuestionAnalysis string `parquet:"question_analysis"`
	// AnalysisNamesOption is the option letter the recruiter's question
	// analysis states as the answer ("" when it names none; the prompt forbids
	// it). Recorded whether or not SMM shows the analysis to the agents.
	AnalysisNamesOption string   `parquet:"analysis_names_option"`
	Facts               []string `parquet:"facts,list"`
	FactsMethod         string   `parquet:"facts_method"` // leader | intersection | ""
	DebatedPoints       []string `parquet:"debated_points,list"`

	// FactsStated counts the facts the agents stated in their initial
	// answers and FactsVerified the verified facts SMM showed them (the
	// length of Facts); both null when the arm has no facts step (SMM off,
	// or not a teamwork arm). Added in issue 36: a leaderless SMM that
	// verifies nothing shows as FactsVerified 0.
	FactsStated   *int32 `parquet:"facts_stated,optional"`
	FactsVerified *int32 `parquet:"facts_verified,optional"`

	MonitoringRounds    int32     `parquet:"monitoring_rounds"`
	MonitoringTargets   []int32   `parquet:"monitoring_targets,list"`  // 0-based agent index challenged per round
	MonitoringAccepted  []bool    `parquet:"monitoring_accepted,list"` // target accepted the concern
	MonitoringChanged   []bool    `parquet:"monitoring_changed,list"`  // target's first choice changed in its answer
	MonitoringQuality   []float64 `parquet:"monitoring_quality,list"`  // leader's rating (-1 = unparsed)
	LeaderInterventions int32     `parquet:"leader_interventions"`     // mediations + tie-breaks

	Calls       int32 `parquet:"calls"`
	Attempts    int32 `parquet:"attempts"`
	CachedCalls int32 `parquet:"cached_calls"`
	// PromptTokens and CompletionTokens sum the calls whose usage the API
	// reported; with CallsUsageMissing > 0 they are lower bounds.
	PromptTokens     int64 `parquet:"prompt_tokens"`
	CompletionTokens int64 `parquet:"completion_tokens"`
	// PaidPromptTokens and PaidCompletionTokens sum the calls that reached
	// the model (not served from the cache, nor shared from an identical
	// request of another arm): the tokens actually billed. A call shared
	// across arms is paid by the unit that sent it — the first to ask, so
	// with --parallel > 1 which arm pays depends on scheduling; the sum over
	// a run's rows does not.
	PaidPromptTokens     int64 `parquet:"paid_prompt_tokens"`
	PaidCompletionTokens int64 `parquet:"paid_completion_tokens"`
	// CachedPromptTokens sums the prompt tokens the provider reported
	// serving from its prompt cache, over the calls that reported a count;
	// PaidCachedPromptTokens the same over the paid calls (billed at the
	// cached-input rate). CallsCachedUnreported counts the paid answered
	// calls with usage that reported no cached count (Ollama, sim, servers
	// without the field): when it equals the paid calls with usage, the
	// cached columns are unknown, not 0.
	CachedPromptTokens     int64 `parquet:"cached_prompt_tokens"`
	PaidCachedPromptTokens int64 `parquet:"paid_cached_prompt_tokens"`
	CallsCachedUnreported  int32 `parquet:"calls_cached_unreported"`
	// CallsUsageMissing counts the answered calls whose usage the API did not
	// report (their token columns in calls.parquet are null).
	CallsUsageMissing int32 `parquet:"calls_usage_missing"`
	// CallsTruncated, CallsFiltered and CallsRefused count the answered
	// calls the backend cut off at their token limit (finish reason length),
	// withheld by its content filter (finish reason content_filter), and the
	// model refused (a refusal message): none of them is read as an answer.
	CallsTruncated int32   `parquet:"calls_truncated"`
	CallsFiltered  int32   `parquet:"calls_filtered"`
	CallsRefused   int32   `parquet:"calls_refused"`
	CallLatencyMS  float64 `parquet:"call_latency_ms"` // sum over calls
	WallMS         float64 `parquet:"wall_ms"`         // end-to-end for the question
	// Tries is how many times the unit was run: more than 1 when earlier
	// tries ended in a retryable error (an outage, or on resume); the row
	// describes the last try, calls.parquet keeps every try's calls.
	Tries         int32 `parquet:"tries"`
	ParseFailures int32 `parquet:"parse_failures"`

	Error      string `parquet:"error"`
	ErrorClass string `parquet:"error_class"`

	// ProtocolJSON is the protocol's own record of how it decided, a JSON
	// object whose fields each protocol documents (vote: the breakdown and
	// mean confidence; veto: agreement, max risk, vetoes, rule; judge: the
	// judge's flag beside the computed mean; council: labels, peer rankings,
	// standings, the chairman's attribution; sc and debate: the vote and any
	// seeded draw); "" for protocols that keep none (teamwork). Added in
	// schema version 3.
	ProtocolJSON string `parquet:"protocol_json"`

	// Triage columns (added in schema version 4). On a multiple-choice item
	// ItemKind is "", the codes and diagnoses are "", the ranks are -1 and
	// the flags false. Ranks index the item's urgency scale, 0 = least
	// urgent; a row with no prediction (an error) has PredictedRank -1 and
	// none of under/over/safe set, and counts as not correct.
	ItemKind         string `parquet:"item_kind"`                // "" (multiple choice) | triage
	Urgency          string `parquet:"urgency"`                  // the true level's code, e.g. "em"
	UrgencyRank      int32  `parquet:"urgency_rank"`             // its rank on the scale
	PredictedUrgency string `parquet:"predicted_urgency"`        // the predicted level's code
	PredictedRank    int32  `parquet:"predicted_rank"`           // its rank; -1 = none
	UrgencyLevels    int32  `parquet:"urgency_levels"`           // the scale's size (0 on multiple choice)
	UnderTriage      bool   `parquet:"under_triage"`             // predicted less urgent than the truth: the unsafe error
	OverTriage       bool   `parquet:"over_triage"`              // predicted more urgent than the truth
	Safe             bool   `parquet:"safe"`                     // predicted at or above the truth
	Diagnosis        string `parquet:"diagnosis"`                // the team's most likely diagnosis, as stated
	GoldDiagnosis    string `parquet:"gold_diagnosis"`           // the dataset's correct diagnosis (free text)
	DiagnosisMatch   *bool  `parquet:"diagnosis_match,optional"` // null when not scored (no gold or no diagnosis stated)
	DiagnosisMethod  string `parquet:"diagnosis_method"`         // how it was scored: normalized | llm_judge | ""
	Specialty        string `parquet:"specialty"`                // the team's specialty, where asked
	GoldSpecialty    string `parquet:"gold_specialty"`
	SpecialtyMatch   *bool  `parquet:"specialty_match,optional"`
	RedFlag          string `parquet:"red_flag"` // the red-flag rule that escalated the case with zero calls ("" none)

	// FirstPrompt is the hash of agent 0's first-answer prompt (system,
	// user, schema; not temperature or seed): arms with equal values asked
	// their first answers the same way. "" when no first answer was asked.
	FirstPrompt string `parquet:"first_prompt"`
	// Route is the path a routing protocol took (mdagents: basic,
	// intermediate, advanced); "" otherwise.
	Route string `parquet:"route"`
	// RevisionRounds counts the consultation rounds that revised the
	// synthesised report (medagents); 0 for other protocols.
	RevisionRounds int32 `parquet:"revision_rounds"`
}

// CallRow is one row of calls.parquet: one logical model call.
type CallRow struct {
	SchemaVersion int32  `parquet:"schema_version"`
	RunID         string `parquet:"run_id"`
	QuestionID    string `parquet:"question_id"`
	Arm           string `parquet:"arm"`
	Repeat        int32  `parquet:"repeat"`
	Seq           int32  `parquet:"seq"`      // position of the call in the protocol's canonical order for the question (within its try)
	UnitTry       int32  `parquet:"unit_try"` // which try of the unit made the call (0 = the first; the question row is the last try's)
	Phase         string `parquet:"phase"`
	Kind          string `parquet:"kind"`
	Turn          int32  `parquet:"turn"`
	Agent         int32  `parquet:"agent"` // -1 = recruiter/leader
	Role          string `parquet:"role"`
	Model         string `parquet:"model"`
	// PromptTokens and CompletionTokens are the API's own counts, null when it
	// reported none — an answer without usage, or a failed call — never 0 in
	// their stead (see Tokens).
	PromptTokens     *int64 `parquet:"prompt_tokens,optional"`
	CompletionTokens *int64 `parquet:"completion_tokens,optional"`
	// CachedPromptTokens is the part of PromptTokens the provider reported
	// serving from its prompt cache; null when it reported no cached count
	// (Ollama, sim, a server without the field, a call without usage) —
	// unknown, never 0 in its stead.
	CachedPromptTokens *int64   `parquet:"cached_prompt_tokens,optional"`
	LatencyMS          float64  `parquet:"latency_ms"`
	Attempts           int32    `parquet:"attempts"`
	AttemptErrors      []string `parquet:"attempt_errors,list"` // class of each failed attempt (retried or final)
	Cached             bool     `parquet:"cached"`
	Status             string   `parquet:"status"`        // ok | error
	FinishReason       string   `parquet:"finish_reason"` // the backend's: stop, length (cut off at the token limit), content_filter, …; "" when none
	ServedModel        string   `parquet:"served_model"`  // the model name the server echoed (may differ from model: an alias resolved); "" when none
	Refusal            string   `parquet:"refusal"`       // the model's refusal message (the call is an abstention, reason refusal); "" when none
	ErrorClass         string   `parquet:"error_class"`
	Error              string   `parquet:"error"`
	ParseMethod        string   `parquet:"parse_method"` // how the answer was read; "none" when unparseable
	ParseError         string   `parquet:"parse_error"`
	ParseReason        string   `parquet:"parse_reason"`     // abstention reason code when nothing was read: empty, no_answer, ambiguous, …
	ParseNotes         []string `parquet:"parse_notes,list"` // what was read but not used: letters outside the options, out-of-range numbers, unattributable scores
	RequestHash        string   `parquet:"request_hash"`
	Seed               int64    `parquet:"seed"`
	Prompt             string   `parquet:"prompt"`   // only with --transcripts
	Response           string   `parquet:"response"` // only with --transcripts
	// Transcript is, while the row is in the journal, the id of its texts in
	// the journal's transcripts table (Prompt and Response are then empty
	// until the journal reads the row back); 0 when the texts are inline or
	// absent. Not a parquet column.
	Transcript int64 `parquet:"-" json:",omitempty"`
}

// Tokens returns a call's token counts and whether the API reported them
// (false when the columns are null).
func (r CallRow) Tokens() (prompt, completion int64, ok bool) {
	if r.PromptTokens == nil || r.CompletionTokens == nil {
		return 0, 0, false
	}
	return *r.PromptTokens, *r.CompletionTokens, true
}
