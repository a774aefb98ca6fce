package report

import (
	"math"
)

// SummarySchemaVersion is bumped on any incompatible change to SummaryRow.
const SummarySchemaVersion = 1

// Kinds of summary.parquet rows.
const (
	KindGroup      = "group"      // one arm × model × dataset
	KindSubject    = "subject"    // one arm × model × dataset × subject
	KindComparison = "comparison" // an arm against the reference arm, or a model against the reference model
	KindComponent  = "component"  // the paired effect of one component
	KindFactorial  = "factorial"  // one term of the factorial linear probability model
)

// SummaryRow is one row of summary.parquet: flat and typed, a statistic
// the data cannot define is null. Which columns a kind fills is in the
// docs/output.md#summaryparquet; proportions and differences are fractions
// (0.031, not 3.1).
type SummaryRow struct {
	SchemaVersion int32  `parquet:"schema_version"`
	Kind          string `parquet:"kind"`
	Simulated     bool   `parquet:"simulated"`
	Dataset       string `parquet:"dataset"`
	Model         string `parquet:"model"`
	Arm           string `parquet:"arm"`     // the group's arm; a comparison's candidate arm
	Subject       string `parquet:"subject"` // kind subject
	// Scope of a comparison: "arm" (against the reference arm on one
	// model), "model" (against the reference model with one arm) or
	// "published" (a medteam arm against a published arm, the reference:
	// Reference is "ARM (MODEL)" of the published side).
	Scope     string  `parquet:"scope"`
	Reference string  `parquet:"reference"` // the reference arm (arm scope, component: the arm without), or model (model scope)
	Candidate string  `parquet:"candidate"` // the candidate arm or model
	Term      string  `parquet:"term"`      // component name, or factorial term
	Level     float64 `parquet:"level"`     // confidence level of every interval

	N         *int64 `parquet:"n,optional"` // rows (group); pairs (comparison); rows fitted (factorial)
	Questions *int64 `parquet:"questions,optional"`
	Repeats   *int64 `parquet:"repeats,optional"`
	Correct   *int64 `parquet:"correct,optional"`
	Answered  *int64 `parquet:"answered,optional"`
	Abstained *int64 `parquet:"abstained,optional"`
	Errors    *int64 `parquet:"errors,optional"`

	Accuracy          *float64 `parquet:"accuracy,optional"`
	AccuracyLo        *float64 `parquet:"accuracy_lo,optional"`
	AccuracyHi        *float64 `parquet:"accuracy_hi,optional"`
	AccuracySE        *float64 `parquet:"accuracy_clustered_se,optional"`
	Coverage          *float64 `parquet:"coverage,optional"`
	SelectiveAccuracy *float64 `parquet:"selective_accuracy,optional"`
	SelectiveLo       *float64 `parquet:"selective_accuracy_lo,optional"`
	SelectiveHi       *float64 `parquet:"selective_accuracy_hi,optional"`

	CallsMean            *float64 `parquet:"calls_mean,optional"` // per question row
	CallsP50             *float64 `parquet:"calls_p50,optional"`
	CallsP95             *float64 `parquet:"calls_p95,optional"`
	TokensMean           *float64 `parquet:"tokens_mean,optional"` // prompt + completion, per question row
	TokensP50            *float64 `parquet:"tokens_p50,optional"`
	TokensP95            *float64 `parquet:"tokens_p95,optional"`
	PromptTokensMean     *float64 `parquet:"prompt_tokens_mean,optional"`
	CompletionTokensMean *float64 `parquet:"completion_tokens_mean,optional"`
	WallMSMean           *float64 `parquet:"wall_ms_mean,optional"`
	WallMSP50            *float64 `parquet:"wall_ms_p50,optional"`
	WallMSP95            *float64 `parquet:"wall_ms_p95,optional"`
	CostTotal            *float64 `parquet:"cost_total,optional"`
	CostPerQuestion      *float64 `parquet:"cost_per_question,optional"`
	CostUnpricedRows     *int64   `parquet:"cost_unpriced_rows,optional"`

	CalibrationN        *int64   `parquet:"calibration_n,optional"`
	ECE                 *float64 `parquet:"ece,optional"`
	Brier               *float64 `parquet:"brier,optional"`
	AURC                *float64 `parquet:"aurc,optional"`
	AgreementInitial    *float64 `parquet:"agreement_initial,optional"`
	AgreementFinal      *float64 `parquet:"agreement_final,optional"`
	ChangesRightToWrong *int64   `parquet:"changes_right_to_wrong,optional"`
	ChangesWrongToRight *int64   `parquet:"changes_wrong_to_right,optional"`

	RefAccuracy  *float64 `parquet:"ref_accuracy,optional"`
	CandAccuracy *float64 `parquet:"cand_accuracy,optional"`
	Delta        *float64 `parquet:"delta,optional"`
	DeltaSE      *float64 `parquet:"delta_se,optional"`
	DeltaLo      *float64 `parquet:"delta_lo,optional"` // paired bootstrap
	DeltaHi      *float64 `parquet:"delta_hi,optional"`
	DeltaWaldLo  *float64 `parquet:"delta_wald_lo,optional"`
	DeltaWaldHi  *float64 `parquet:"delta_wald_hi,optional"`
	B            *int64   `parquet:"discordant_ref_right,optional"`
	C            *int64   `parquet:"discordant_cand_right,optional"`
	Discordance  *float64 `parquet:"discordance,optional"`
	P            *float64 `parquet:"p,optional"` // McNemar exact (comparison, component); t test (factorial)
	PHolm        *float64 `parquet:"p_holm,optional"`
	MDE          *float64 `parquet:"mde,optional"`
	IdenticalTo  string   `parquet:"identical_to"`
	RefOnly      *int64   `parquet:"ref_only,optional"`
	CandOnly     *int64   `parquet:"cand_only,optional"`
	Duplicates   *int64   `parquet:"duplicates,optional"`

	DeltaCalls    *float64 `parquet:"delta_calls,optional"`
	DeltaCallsLo  *float64 `parquet:"delta_calls_lo,optional"`
	DeltaCallsHi  *float64 `parquet:"delta_calls_hi,optional"`
	DeltaTokens   *float64 `parquet:"delta_tokens,optional"`
	DeltaTokensLo *float64 `parquet:"delta_tokens_lo,optional"`
	DeltaTokensHi *float64 `parquet:"delta_tokens_hi,optional"`

	Estimate   *float64 `parquet:"estimate,optional"` // factorial coefficient
	EstimateSE *float64 `parquet:"estimate_se,optional"`
	EstimateLo *float64 `parquet:"estimate_lo,optional"`
	EstimateHi *float64 `parquet:"estimate_hi,optional"`
	Clusters   *int64   `parquet:"clusters,optional"`

	// Triage columns (added after the above; null or empty without triage
	// rows). Kind group and subject: the group's triage rows
	// (stats.Triage), rates over triage_n with Wilson bounds and, with
	// repeats, clustered SEs; the levels least urgent first with their
	// recall. Kind comparison (arm scope): the paired safe and
	// under-triage differences (candidate − reference) with their
	// bootstrap bounds, McNemar and Holm p.
	TriageN          *int64    `parquet:"triage_n,optional"`
	TriageLevels     []string  `parquet:"triage_levels,list"`
	TriageRecall     []float64 `parquet:"triage_recall,list"`
	TriageAccuracy   *float64  `parquet:"triage_accuracy,optional"`
	TriageAccuracyLo *float64  `parquet:"triage_accuracy_lo,optional"`
	TriageAccuracyHi *float64  `parquet:"triage_accuracy_hi,optional"`
	UnderTriage      *float64  `parquet:"under_triage,optional"`
	UnderTriageLo    *float64  `parquet:"under_triage_lo,optional"`
	UnderTriageHi    *float64  `parquet:"under_triage_hi,optional"`
	UnderTriageSE    *float64  `parquet:"under_triage_clustered_se,optional"`
	OverTriage       *float64  `parquet:"over_triage,optional"`
	OverTriageLo     *float64  `parquet:"over_triage_lo,optional"`
	OverTriageHi     *float64  `parquet:"over_triage_hi,optional"`
	Safe             *float64  `parquet:"safe,optional"`
	SafeLo           *float64  `parquet:"safe_lo,optional"`
	SafeHi           *float64  `parquet:"safe_hi,optional"`
	SafeSE           *float64  `parquet:"safe_clustered_se,optional"`
	NoLevel          *int64    `parquet:"no_level,optional"`
	Kappa            *float64  `parquet:"kappa_quadratic,optional"`
	DiagnosisScored  *int64    `parquet:"diagnosis_scored,optional"`
	DiagnosisMatch   *float64  `parquet:"diagnosis_match,optional"`
	DiagnosisMatchLo *float64  `parquet:"diagnosis_match_lo,optional"`
	DiagnosisMatchHi *float64  `parquet:"diagnosis_match_hi,optional"`

	DeltaSafe    *float64 `parquet:"delta_safe,optional"`
	DeltaSafeLo  *float64 `parquet:"delta_safe_lo,optional"`
	DeltaSafeHi  *float64 `parquet:"delta_safe_hi,optional"`
	PSafe        *float64 `parquet:"p_safe,optional"`
	PHolmSafe    *float64 `parquet:"p_holm_safe,optional"`
	DeltaUnder   *float64 `parquet:"delta_under_triage,optional"`
	DeltaUnderLo *float64 `parquet:"delta_under_triage_lo,optional"`
	DeltaUnderHi *float64 `parquet:"delta_under_triage_hi,optional"`
	PUnder       *float64 `parquet:"p_under_triage,optional"`
	PHolmUnder   *float64 `parquet:"p_holm_under_triage,optional"`

	// Columns added after the above (issue 34; additive, so the schema
	// version stays 1: readers of the earlier columns are unaffected).
	// Kind group and subject: the actual spend beside the list cost
	// (stats.Cost.Spent: billed tokens only — no cache hits, no calls
	// shared from another arm — at the rates paid, batch rates for
	// provider batches), the billed tokens, the debiased ECE with its
	// interval (stats.Calibration.ECEDebiased), and the accuracy's design
	// effect with design_effect_bound true when it is the conservative
	// rows-per-question bound (fewer than stats.MinDeffClusters questions),
	// not an estimate. Kind comparison and component: no_discordant is
	// true when b = c = 0 and the delta interval is Newcombe's paired
	// interval (stats.NewcombePaired), not the bootstrap's. Kind
	// factorial: mean_cell_diff is a component's mean on − off cell
	// difference (stats.LPM.CellDiffs; null for the intercept and the
	// interactions), which the effect 2β (estimate) equals only in a full
	// 2⁵ design.
	CostSpent            *float64 `parquet:"cost_spent,optional"`
	CostSpentPerQuestion *float64 `parquet:"cost_spent_per_question,optional"`
	PaidTokens           *int64   `parquet:"paid_tokens,optional"`
	ECEDebiased          *float64 `parquet:"ece_debiased,optional"`
	ECEDebiasedLo        *float64 `parquet:"ece_debiased_lo,optional"`
	ECEDebiasedHi        *float64 `parquet:"ece_debiased_hi,optional"`
	DesignEffect         *float64 `parquet:"design_effect,optional"`
	DesignEffectBound    bool     `parquet:"design_effect_bound"`
	NoDiscordant         bool     `parquet:"no_discordant"`
	MeanCellDiff         *float64 `parquet:"mean_cell_diff,optional"`
	// Kind group and subject, when some call's usage reported a cached
	// count (null otherwise: Ollama and the simulator report none, which is
	// unknown, not 0): the billed prompt tokens of the rows whose calls all
	// reported one, the part the provider served from its prompt (prefix)
	// cache and its share (stats.PromptCache), and, priced, what the
	// cached_prompt rate saved against the prompt rate — report.md's
	// "prompt cached" and "cache saved".
	PromptCacheTokens  *int64   `parquet:"prompt_cache_billed_tokens,optional"`
	PromptCachedTokens *int64   `parquet:"prompt_cached_tokens,optional"`
	PromptCachedShare  *float64 `parquet:"prompt_cached_share,optional"`
	CostCacheSaved     *float64 `parquet:"cost_cache_saved,optional"`
}

// f is x as a nullable column: nil for NaN and ±Inf.
func f(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// n is a count as a nullable column.
func n[T ~int | ~int32 | ~int64](x T) *int64 {
	v := int64(x)
	return &v
}

// SummaryRows is r as summary.parquet rows: groups, subjects, comparisons
// (arm, then model scope), components, factorial terms.
func SummaryRows(r *Report) []SummaryRow {
	var out []SummaryRow
	base := func(kind string) SummaryRow {
		return SummaryRow{SchemaVersion: SummarySchemaVersion, Kind: kind, Simulated: r.Simulated, Level: r.Level}
	}
	for _, g := range r.Groups {
		out = append(out, groupRow(base(KindGroup), g))
	}
	for _, g := range r.Subjects {
		out = append(out, groupRow(base(KindSubject), g))
	}
	for _, c := range r.Comparisons {
		s := comparisonRow(base(KindComparison), c)
		s.Scope, s.Arm = "arm", c.Candidate
		out = append(out, s)
	}
	for _, c := range r.ModelComparisons {
		s := comparisonRow(base(KindComparison), c.Comparison)
		s.Scope, s.Arm, s.Model, s.Reference, s.Candidate = "model", c.Arm, c.CandModel, c.RefModel, c.CandModel
		out = append(out, s)
	}
	for _, c := range r.Published {
		s := comparisonRow(base(KindComparison), c.Comparison)
		s.Scope, s.Arm, s.Model, s.Reference, s.Candidate = "published", c.Arm, c.Model, c.PubArm+" ("+c.PubModel+")", c.Arm
		out = append(out, s)
	}
	for _, e := range r.Components {
		s := comparisonRow(base(KindComponent), e.Comparison)
		s.Arm, s.Term = e.Candidate, e.Component
		out = append(out, s)
	}
	for _, fit := range r.Factorial {
		if fit.Fit != nil {
			out = append(out, factorialRows(base(KindFactorial), fit)...)
		}
	}
	return out
}
