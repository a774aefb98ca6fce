package runner

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/task"
)

// RowMeta identifies the unit a row belongs to.
type RowMeta struct {
	RunID, Set, Model string
	Arm               Arm
	Repeat            int
	Seed              int64
}

// QuestionRow fills every column the outcome determines and has the task of
// the question's kind (in ts) score it against the gold answer. err, when
// not nil, is recorded as the question's error (the row stays in the
// denominator).
func QuestionRow(m RowMeta, ts task.Registry, q qa.Question, out *protocol.Outcome, err error) results.QuestionRow {
	r := baseRow(m, q)
	if err != nil {
		r.Error = err.Error()
		r.ErrorClass = string(llm.ClassOf(err))
		r.AbstainReason = "error"
		ts.Score(&r, q, nil)
		return r
	}
	r.NAgents = int32(out.N)
	r.Roles = out.Roles
	r.Weights = out.Weights
	r.Predicted = out.Predicted
	r.AbstainReason = out.AbstainReason
	r.DecisionRule = out.Decision.Rule
	r.Tie = out.Decision.Tie
	r.Tied = out.Decision.Tied
	r.TieBrokenBy = out.TieBrokenBy
	r.FirstPrompt = out.FirstPrompt
	r.Route = out.Route
	r.RevisionRounds = int32(out.RevisionRounds)
	r.Scores = out.Decision.Scores
	roundColumns(&r, out)
	confidenceColumns(&r, out.Final())
	teamColumns(&r, out)
	r.ProtocolJSON = detailsJSON(out.Details)
	ts.Score(&r, q, out)
	return r
}

// detailsJSON encodes a protocol's Details for the protocol_json column
// ("" when it keeps none).
func detailsJSON(d any) string {
	if d == nil {
		return ""
	}
	b, err := json.Marshal(d)
	if err != nil { // a protocol's bug, kept visible in the row
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	return string(b)
}

// baseRow is the row's identity, the arm's description and the question's
// columns: what a row has even when the unit failed.
func baseRow(m RowMeta, q qa.Question) results.QuestionRow {
	c := m.Arm.Protocol.Info()
	return results.QuestionRow{
		SchemaVersion: results.SchemaVersion,
		RunID:         m.RunID, Dataset: m.Set, Split: q.Split, QuestionID: q.ID, SourceID: q.SourceID,
		Arm: m.Arm.Label, Protocol: c.Protocol,
		SMM: c.SMM, Leadership: c.Leadership, Orientation: c.Orientation, Trust: c.Trust, Monitoring: c.Monitoring,
		Turns: int32(c.Turns), Discussion: c.Discussion, AgentPolicy: c.AgentPolicy, StructuredOut: c.Structured,
		Model: m.Model, Repeat: int32(m.Repeat), Seed: m.Seed,
		Gold: q.Gold, NOptions: int32(len(q.Options)), OptionOrder: q.Meta["option_order"],
		Subject:          subject(q.Meta),
		MetaJSON:         metaJSON(q.Meta),
		ConfidenceMean:   -1,
		AgreementInitial: 0,
	}
}

// roundColumns fills the first choices per round, the agreement and the
// opinion changes (those against the gold answer are the task's).
func roundColumns(r *results.QuestionRow, out *protocol.Outcome) {
	firsts := make([][]string, len(out.Rounds))
	for i, round := range out.Rounds {
		firsts[i] = make([]string, len(round))
		for j, a := range round {
			firsts[i][j] = a.First()
		}
		r.Rounds = append(r.Rounds, strings.Join(firsts[i], ","))
	}
	if len(firsts) == 0 {
		return
	}
	initial, final := firsts[0], firsts[len(firsts)-1]
	r.AgreementInitial, r.InitialMajority = Agreement(initial)
	r.AgreementFinal, _ = Agreement(final)
	r.Unanimous = r.AgreementFinal == 1
	r.OpinionChanges = int32(Changed(initial, final))
}

// confidenceColumns fills the final round's confidences and their mean over
// the agents that stated one.
func confidenceColumns(r *results.QuestionRow, final []answer.Answer) {
	r.Confidences = make([]float64, len(final))
	sum, n := 0.0, 0
	for i, a := range final {
		r.Confidences[i] = a.Confidence
		if a.Confidence >= 0 {
			sum += a.Confidence
			n++
		}
	}
	if n > 0 {
		r.ConfidenceMean = sum / float64(n)
	}
}

// teamColumns fills what the team's components observed: trust, the
// shared mental model, monitoring, leader interventions, parse failures.
func teamColumns(r *results.QuestionRow, out *protocol.Outcome) {
	r.TrustFinal = out.Trust
	r.LeaderQuality = out.Quality
	r.TrustSpread = StdDev(out.Trust)
	r.QuestionAnalysis = out.Analysis
	r.AnalysisNamesOption = out.AnalysisNamesOption
	r.Facts = out.Facts
	r.FactsMethod = out.FactsMethod
	r.DebatedPoints = out.Debated
	if out.FactsMethod != "" {
		stated, verified := int32(out.FactsStated), int32(len(out.Facts))
		r.FactsStated, r.FactsVerified = &stated, &verified
	}
	for _, p := range out.HeuristicQuality {
		r.HeuristicAgree = append(r.HeuristicAgree, p.Agree)
		r.HeuristicComplete = append(r.HeuristicComplete, p.Complete)
		r.HeuristicAlignment = append(r.HeuristicAlignment, p.Alignment)
		r.HeuristicQuality = append(r.HeuristicQuality, p.Quality)
	}
	r.MonitoringRounds = int32(len(out.Monitoring))
	for _, m := range out.Monitoring {
		r.MonitoringTargets = append(r.MonitoringTargets, int32(m.Target))
		r.MonitoringAccepted = append(r.MonitoringAccepted, m.Accepted)
		r.MonitoringChanged = append(r.MonitoringChanged, m.After != "" && m.After != m.Before)
		r.MonitoringQuality = append(r.MonitoringQuality, m.Quality)
	}
	r.LeaderInterventions = int32(out.LeaderInterventions())
	r.ParseFailures = int32(out.ParseFailures())
}

// Agreement is the share of agents whose first choice is the most common
// one (abstentions count as disagreeing), and that choice ("" when no agent
// answered or the most common choice is tied).
func Agreement(firsts []string) (float64, string) {
	if len(firsts) == 0 {
		return 0, ""
	}
	counts := map[string]int{}
	for _, f := range firsts {
		if f != "" {
			counts[f]++
		}
	}
	best, top, tied := 0, "", false
	for l, c := range counts {
		switch {
		case c > best:
			best, top, tied = c, l, false
		case c == best:
			tied = true
		}
	}
	if tied {
		top = ""
	}
	return float64(best) / float64(len(firsts)), top
}

// Changed counts the agents whose first choice differs between two rounds
// (both answered).
func Changed(initial, final []string) int {
	n := 0
	for i := range min(len(initial), len(final)) {
		if a, b := initial[i], final[i]; a != "" && b != "" && a != b {
			n++
		}
	}
	return n
}

// StdDev is the population standard deviation (0 for fewer than 2 values).
func StdDev(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	return math.Sqrt(v / float64(len(xs)))
}

func subject(meta map[string]string) string {
	for _, k := range []string{"subject", "step", "category"} {
		if v := meta[k]; v != "" {
			return v
		}
	}
	return ""
}

func metaJSON(meta map[string]string) string {
	if len(meta) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(meta) // map[string]string always marshals; keys sorted
	return string(b)
}

// CallRows converts the meter's records and the protocol's parse notes into
// calls.parquet rows, in canonical order.
func CallRows(m RowMeta, qid string, calls []llm.CallRecord, notes []protocol.ParseNote) []results.CallRow {
	type key struct {
		k     string
		turn  int
		agent int
	}
	byKey := make(map[key]protocol.ParseNote, len(notes))
	for _, n := range notes {
		byKey[key{n.Kind, n.Turn, n.Agent}] = n
	}
	rows := make([]results.CallRow, len(calls))
	for i, c := range calls {
		r := results.CallRow{
			SchemaVersion: results.SchemaVersion,
			RunID:         m.RunID, QuestionID: qid, Arm: m.Arm.Label, Repeat: int32(m.Repeat), Seq: int32(i),
			Phase: string(c.Meta.Phase), Kind: string(c.Meta.Kind), Turn: int32(c.Meta.Turn), Agent: int32(c.Meta.Agent),
			Role: c.Meta.Role, Model: m.Model,
			LatencyMS: float64(c.Latency.Microseconds()) / 1000,
			Attempts:  int32(c.Attempts), Cached: c.Cached, FinishReason: c.FinishReason,
			ServedModel: c.ServedModel, Refusal: c.Refusal,
			Status: "ok", RequestHash: c.RequestHash, Seed: c.Seed,
			Prompt: c.Prompt, Response: c.Response, Transcript: c.Transcript,
		}
		if c.Err == nil && !c.Usage.Missing { // else null: no usage was reported
			prompt, completion := int64(c.Usage.PromptTokens), int64(c.Usage.CompletionTokens)
			r.PromptTokens, r.CompletionTokens = &prompt, &completion
			if c.Usage.CachedReported {
				cached := int64(c.Usage.CachedTokens)
				r.CachedPromptTokens = &cached
			}
		}
		for _, e := range c.AttemptErrors {
			r.AttemptErrors = append(r.AttemptErrors, string(e))
		}
		if c.Err != nil {
			r.Status, r.ErrorClass, r.Error = "error", string(c.Class), c.Err.Error()
		}
		if n, ok := byKey[key{c.Meta.Kind, c.Meta.Turn, c.Meta.Agent}]; ok {
			r.ParseMethod, r.ParseError, r.ParseReason, r.ParseNotes = string(n.Method), n.Err, n.Reason, n.Notes
		}
		rows[i] = r
	}
	return rows
}

// ItemRow is the items.parquet row of a question of set: its text as the
// models were shown it, with its gold (the run's record; protocols are
// given q.Item(), never this).
func ItemRow(set string, q qa.Question) results.ItemRow {
	opts := make([]string, len(q.Options))
	for i, o := range q.Options {
		opts[i] = o.Text
	}
	return results.ItemRow{
		SchemaVersion: results.SchemaVersion, Dataset: set, Split: q.Split, QuestionID: q.ID, SourceID: q.SourceID,
		ItemKind: q.Kind, Stem: q.Stem, Context: q.Context, Options: opts, Gold: q.Gold,
		Subject: subject(q.Meta), MetaJSON: metaJSON(q.Meta),
	}
}

// ItemRows are the items.parquet rows of every question of the sets, in
// plan order.
func ItemRows(sets []QuestionSet) []results.ItemRow {
	var out []results.ItemRow
	for _, s := range sets {
		for _, q := range s.Questions {
			out = append(out, ItemRow(s.Name, q))
		}
	}
	return out
}

// Subject is the subject a question row records from the question's
// metadata (subject, else step, else category; "" for none).
func Subject(meta map[string]string) string { return subject(meta) }
