package stats

import (
	"math"

	"github.com/medteam-bench/medteam/results"
)

// PriceFunc prices one row's tokens on a model: the cost and whether the
// model has a price.
type PriceFunc func(model string, promptTok, complTok int64) (float64, bool)

// AggregateOptions configure Aggregate.
type AggregateOptions struct {
	BySubject bool      // group by subject as well
	Price     PriceFunc // nil: no cost; the list price of every call's tokens
	// PaidPrice prices the tokens actually billed (the rows' paid_* columns:
	// cache hits and calls shared across arms cost nothing) at the rates
	// paid — a provider batch's discount, say; nil = Price.
	PaidPrice PriceFunc
	// CacheSaving is what the cached-input rates paid saved on the paid
	// prompt tokens served from the provider's prompt cache (the rows'
	// paid_cached_prompt_tokens), taken off Cost.Spent; nil = none.
	CacheSaving CacheSavingFunc
	Bins        int     // calibration bins; 0 = DefaultBins
	Level       float64 // confidence level; 0 = DefaultLevel
	// Seed and Reps drive the question bootstrap of the ECE interval
	// (CalibrateClustered); Reps 0 = DefaultReps.
	Seed uint64
	Reps int
}

// Cost is what a group's tokens cost at a price table.
type Cost struct {
	Priced      bool    // every row's model had a price
	Unpriced    int     // rows whose model had none
	Total       float64 // list cost: every call's tokens at list price, over the priced rows
	PerQuestion float64 // Total / Rows
	// Spent is what was paid: the tokens of the calls that reached the
	// model (no cache hits, no calls shared from another arm) at the rates
	// paid (AggregateOptions.PaidPrice). A call shared by several arms is
	// paid by the unit that sent it first, so an arm's Spent depends on
	// scheduling; the total over arms is what the run cost.
	Spent float64
	// PaidTokens are the prompt and completion tokens billed (the rows'
	// paid_* columns), over every row priced or not.
	PaidTokens int64
	// CacheSaved is what the cached-input rate saved on the paid prompt
	// tokens the provider served from its prompt cache (already taken off
	// Spent).
	CacheSaved float64
}

// Group is the summary of one arm × model × dataset (× subject). Every
// question row counts in the denominator Rows; an error or an abstention
// is not correct.
type Group struct {
	Key          GroupKey
	Rows         int // question rows (questions × repeats)
	Questions    int // distinct question ids
	Repeats      int // most rows of one question
	Correct      int
	Answered     int // neither abstained nor failed
	Abstained    int // the team gave no answer; failures excluded
	Errors       int // the unit failed (Error or ErrorClass set)
	ErrorClasses map[string]int

	Accuracy float64 // Correct / Rows
	// AccuracyCI is the design-effect-corrected Wilson interval of
	// Correct / Rows (ClusteredWilson): Wilson's with one row per question.
	AccuracyCI Interval
	// DesignEffect is ClusteredWilson's design effect of Accuracy (1 with
	// one row per question); DeffBound is true when it is the
	// conservative bound rows per question, not an estimate (below
	// MinDeffClusters questions: Proportion.DeffBound).
	DesignEffect float64
	DeffBound    bool
	// ClusteredSE is the question-clustered standard error of Accuracy
	// (ClusteredMean); NaN unless some question has more than one row.
	ClusteredSE       float64
	Coverage          float64  // Answered / Rows
	SelectiveAccuracy float64  // Correct / Answered
	SelectiveCI       Interval // ClusteredWilson interval of Correct / Answered (answered rows, clustered by question)

	// Per question row (every row, failed ones included).
	Calls, Tokens, PromptTokens, CompletionTokens, WallMS, CallLatencyMS Dist

	Calibration  Calibration  // CalibrationOf the group's rows
	RiskCoverage RiskCoverage // RiskCoverageOf the group's rows
	Convergence  Convergence  // ConvergenceOf the group's rows (flows summed)
	Cost         *Cost        // nil without a PriceFunc
	// PromptCache is the provider prompt caching of the group's paid calls.
	PromptCache PromptCache
	// Triage is the triage summary (TriageOf) of the group's triage rows;
	// nil when it has none (multiple-choice items).
	Triage *Triage
}

// Aggregate summarises rows per dataset × model × arm (× subject with
// BySubject), groups ordered by dataset, model, arm, subject. See Group for
// the fields and the functions each is computed with.
func Aggregate(rows []results.QuestionRow, opt AggregateOptions) []Group {
	gs := groupRows(rows, opt.BySubject)
	out := make([]Group, len(gs))
	for i, g := range gs {
		out[i] = aggregateGroup(rows, g, opt)
	}
	return out
}

// aggregateGroup summarises one group's rows (sorted by question).
func aggregateGroup(rows []results.QuestionRow, g group, opt AggregateOptions) Group {
	s := Group{Key: g.key, Rows: len(g.idx), ErrorClasses: map[string]int{}}
	y := make([]float64, len(g.idx))
	var ans []int
	for j, i := range g.idx {
		r := &rows[i]
		y[j] = b2f(isCorrect(r))
		s.count(r)
		if answered(r) {
			ans = append(ans, i)
		}
	}
	s.Answered = s.Rows - s.Abstained - s.Errors
	lvl := level(opt.Level)
	cl, nq := clusterOf(rows, g.idx)
	s.Questions, s.Repeats = nq, maxRun(cl)
	acc := clusteredProportion(y, cl, nq, lvl)
	s.Accuracy, s.AccuracyCI, s.DesignEffect = ratio(s.Correct, s.Rows), acc.CI, acc.DesignEffect
	s.DeffBound = acc.DeffBound
	s.Coverage = ratio(s.Answered, s.Rows)
	s.SelectiveAccuracy, s.SelectiveCI = ratio(s.Correct, s.Answered), proportionIdx(rows, ans, isCorrect, lvl).CI
	s.ClusteredSE = math.NaN()
	if s.Repeats > 1 {
		s.ClusteredSE = acc.SE
	}
	s.describe(rows, g.idx)
	s.Calibration = calibrationIdx(rows, g.idx, opt.Bins, Bootstrap{Reps: opt.Reps, Seed: opt.Seed, Level: lvl})
	s.RiskCoverage = riskCoverageIdx(rows, g.idx)
	s.Convergence = convergenceIdx(rows, g.idx, lvl)
	if opt.Price != nil {
		s.Cost = costOf(rows, g.idx, opt.Price, opt.PaidPrice, opt.CacheSaving)
	}
	s.PromptCache = promptCacheIdx(rows, g.idx)
	s.Triage = triageIdx(rows, g.idx, lvl)
	return s
}

// count adds one row's outcome to the counts.
func (s *Group) count(r *results.QuestionRow) {
	switch {
	case errored(r):
		s.Errors++
		s.ErrorClasses[r.ErrorClass]++
	case r.Abstained:
		s.Abstained++
	}
	if isCorrect(r) {
		s.Correct++
	}
}

// describe fills the per-question distributions.
func (s *Group) describe(rows []results.QuestionRow, idx []int) {
	n := len(idx)
	v := make([][]float64, 6)
	for k := range v {
		v[k] = make([]float64, n)
	}
	for j, i := range idx {
		r := &rows[i]
		v[0][j], v[1][j] = float64(r.Calls), float64(r.PromptTokens+r.CompletionTokens)
		v[2][j], v[3][j] = float64(r.PromptTokens), float64(r.CompletionTokens)
		v[4][j], v[5][j] = r.WallMS, r.CallLatencyMS
	}
	s.Calls, s.Tokens, s.PromptTokens = Describe(v[0]), Describe(v[1]), Describe(v[2])
	s.CompletionTokens, s.WallMS, s.CallLatencyMS = Describe(v[3]), Describe(v[4]), Describe(v[5])
}

// costOf prices every row of idx.
func costOf(rows []results.QuestionRow, idx []int, price, paid PriceFunc, saving CacheSavingFunc) *Cost {
	if paid == nil {
		paid = price
	}
	c := &Cost{}
	for _, i := range idx {
		r := &rows[i]
		c.PaidTokens += r.PaidPromptTokens + r.PaidCompletionTokens
		if usd, ok := rowCostUSD(r); ok {
			c.Total, c.Spent = c.Total+usd, c.Spent+usd
			continue
		}
		v, ok := price(r.Model, r.PromptTokens, r.CompletionTokens)
		if !ok {
			c.Unpriced++
			continue
		}
		c.Total += v
		if w, ok := paid(r.Model, r.PaidPromptTokens, r.PaidCompletionTokens); ok {
			c.Spent += w
			cacheSaving(c, r, saving)
		}
	}
	c.Priced = c.Unpriced == 0
	c.PerQuestion = c.Total / float64(max(len(idx), 1))
	return c
}

// proportionIdx is the ClusteredWilson share of rows idx (sorted by
// question) for which hit holds.
func proportionIdx(rows []results.QuestionRow, idx []int, hit func(*results.QuestionRow) bool, lvl float64) Proportion {
	y := make([]float64, len(idx))
	for j, i := range idx {
		y[j] = b2f(hit(&rows[i]))
	}
	cl, g := clusterOf(rows, idx)
	return clusteredProportion(y, cl, g, lvl)
}

// maxRun is the longest run of equal values in sorted cluster indices: the
// most rows of one question.
func maxRun(cl []int) int {
	best, run := 0, 0
	for j := range cl {
		if j > 0 && cl[j] == cl[j-1] {
			run++
		} else {
			run = 1
		}
		best = max(best, run)
	}
	return best
}
