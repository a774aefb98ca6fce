package stats

import (
	"fmt"
	"math"
	"slices"

	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
)

// TriageObs is one triage outcome on an ordinal urgency scale: the true
// level's rank (0 = least urgent), the predicted level's rank (-1 = no
// prediction: the unit failed, or the team named no level), whether the
// stated diagnosis matched the gold one (nil = not scored), and the cluster
// the observation belongs to (its question id: repeats of one case are not
// independent draws).
type TriageObs struct {
	Cluster        string
	Truth, Pred    int
	DiagnosisMatch *bool
}

// Rate is a proportion K/N with its design-effect-corrected Wilson
// interval and, when some cluster has more than one observation, its
// question-clustered standard error.
type Rate struct {
	K, N  int
	Value float64 // K/N; NaN when N = 0
	// CI is the ClusteredWilson interval of K/N over the observations'
	// clusters: Wilson's (WilsonZ) with one observation per cluster.
	CI Interval
	// ClusteredSE is the CR1 question-clustered standard error of the rate
	// (ClusteredMean of the 0/1 outcomes); NaN unless there are repeats.
	ClusteredSE float64
	// DeffBound is true when CI's design effect is the conservative bound
	// rows per cluster, not an estimate (Proportion.DeffBound: fewer than
	// MinDeffClusters clusters, or every row alike, with repeats).
	DeffBound bool
}

// Triage is the triage summary of a set of outcomes (TriageMetrics).
//
// Every observation counts in N. One without a prediction (an error, or no
// level named) is counted in None: it is not correct, not safe, and neither
// under- nor over-triaged, so that Correct + Under + Over + None = N. The
// rates are over N, as accuracy is over every question row.
type Triage struct {
	Levels []string // the scale's codes, least urgent first
	N      int      // observations (question rows) on the scale
	None   int      // observations without a prediction
	// Skipped counts observations whose true rank is outside the scale:
	// they are in no count above.
	Skipped int
	Repeats int // most observations of one cluster
	// Confusion is truth rank × predicted rank: len(Levels) rows of
	// len(Levels)+1 columns, the last column counting the rows of that
	// true level with no prediction.
	Confusion [][]int

	Accuracy Rate // predicted level = true level
	Under    Rate // under-triage: predicted less urgent than the truth (the unsafe error)
	Over     Rate // over-triage: predicted more urgent than the truth
	Safe     Rate // predicted at or above the truth (the published "safe" rate)
	// Recall is, per true level, the share of its observations predicted
	// at that level (rows with no prediction included in the denominator).
	Recall []Rate
	// Kappa is the quadratic-weighted Cohen's kappa of truth against
	// prediction (QuadraticKappa) over the observations with a
	// prediction; NaN when it is undefined.
	Kappa float64
	// Diagnosis is the diagnosis match rate over the observations whose
	// diagnosis was scored (DiagnosisMatch non-nil): K matched of N scored.
	Diagnosis Rate
}

// TriageMetrics summarises triage outcomes on a scale of len(levels)
// levels at a confidence level (0 = 0.95). The proportions' intervals are
// ClusteredWilson's over the observations' clusters (an observation
// without a cluster is its own); their clustered standard errors follow
// ClusteredMean; kappa follows
// QuadraticKappa. Under-, over-triage and "safe" are the definitions of
// Semigran et al. (BMJ 2015;351:h3480) as the medask triage benchmark
// computes them: safe = predicted urgency at or above the true one.
func TriageMetrics(obs []TriageObs, levels []string, lvl float64) Triage {
	k := len(levels)
	t := Triage{Levels: levels, Confusion: make([][]int, k)}
	for i := range t.Confusion {
		t.Confusion[i] = make([]int, k+1)
	}
	var kept []TriageObs
	for _, o := range obs {
		if o.Truth < 0 || o.Truth >= k {
			t.Skipped++
			continue
		}
		p := o.Pred
		if p < 0 || p >= k {
			p = k
			t.None++
		}
		t.Confusion[o.Truth][p]++
		kept = append(kept, o)
	}
	t.N = len(kept)
	idx, g := obsClusters(kept)
	t.Repeats = maxCount(idx, g)
	rate := func(hit func(TriageObs) bool) Rate { return rateOf(kept, idx, g, t.Repeats, hit, lvl) }
	t.Accuracy = rate(func(o TriageObs) bool { return predicted(o, k) && o.Pred == o.Truth })
	t.Under = rate(func(o TriageObs) bool { return predicted(o, k) && o.Pred < o.Truth })
	t.Over = rate(func(o TriageObs) bool { return predicted(o, k) && o.Pred > o.Truth })
	t.Safe = rate(func(o TriageObs) bool { return predicted(o, k) && o.Pred >= o.Truth })
	t.Recall = make([]Rate, k)
	for i := range k {
		var sub []TriageObs
		for _, o := range kept {
			if o.Truth == i {
				sub = append(sub, o)
			}
		}
		si, sg := obsClusters(sub)
		t.Recall[i] = rateOf(sub, si, sg, maxCount(si, sg), func(o TriageObs) bool { return o.Pred == o.Truth }, lvl)
	}
	sq := make([][]int, k)
	for i := range sq {
		sq[i] = t.Confusion[i][:k]
	}
	t.Kappa = QuadraticKappa(sq)
	t.Diagnosis = diagnosisRate(kept, lvl)
	return t
}

// predicted reports whether o has a prediction on a scale of k levels.
func predicted(o TriageObs, k int) bool { return o.Pred >= 0 && o.Pred < k }

// rateOf is the rate of hit over obs with its Wilson interval and, with
// repeats, its clustered SE.
func rateOf(obs []TriageObs, idx []int, g, repeats int, hit func(TriageObs) bool, lvl float64) Rate {
	y := make([]float64, len(obs))
	for i, o := range obs {
		y[i] = b2f(hit(o))
	}
	p := clusteredProportion(y, idx, g, lvl)
	r := Rate{K: p.K, N: p.N, Value: ratio(p.K, p.N), CI: p.CI, ClusteredSE: math.NaN(), DeffBound: p.DeffBound}
	if repeats > 1 {
		r.ClusteredSE = p.SE
	}
	return r
}

// obsClusters numbers the observations' clusters densely; an observation
// without a cluster name is a cluster of its own.
func obsClusters(obs []TriageObs) ([]int, int) {
	cl := make([]string, len(obs))
	for i, o := range obs {
		cl[i] = o.Cluster
		if o.Cluster == "" {
			cl[i] = fmt.Sprintf("\x00%d", i)
		}
	}
	return denseIndex(cl)
}

// diagnosisRate is the match rate over the scored observations.
func diagnosisRate(obs []TriageObs, lvl float64) Rate {
	var sub []TriageObs
	for _, o := range obs {
		if o.DiagnosisMatch != nil {
			sub = append(sub, o)
		}
	}
	idx, g := obsClusters(sub)
	return rateOf(sub, idx, g, maxCount(idx, g), func(o TriageObs) bool { return *o.DiagnosisMatch }, lvl)
}

// maxCount is the largest number of observations in one of g clusters.
func maxCount(idx []int, g int) int {
	c := make([]int, g)
	best := 0
	for _, i := range idx {
		c[i]++
		best = max(best, c[i])
	}
	return best
}

// QuadraticKappa is Cohen's (1968) weighted kappa with quadratic
// (Fleiss–Cohen) disagreement weights of a k×k table m of counts, rows
// the first rater (truth), columns the second (prediction), both in scale
// order:
//
//	w_ij = (i − j)² / (k − 1)²
//	E_ij = R_i · C_j / n          (R, C the row and column totals)
//	κ_w  = 1 − Σ w_ij O_ij / Σ w_ij E_ij
//
// as R's irr::kappa2(weight = "squared") and scikit-learn's
// cohen_kappa_score(weights = "quadratic") compute it. NaN when n = 0,
// k < 2 or Σ w·E = 0 (truth and prediction always the same one level).
// Rows shorter than k count as zeros.
func QuadraticKappa(m [][]int) float64 {
	k := len(m)
	if k < 2 {
		return math.NaN()
	}
	rows, cols := make([]float64, k), make([]float64, k)
	n := 0.0
	for i := range k {
		for j := range k {
			v := float64(cell(m, i, j))
			rows[i] += v
			cols[j] += v
			n += v
		}
	}
	if n == 0 {
		return math.NaN()
	}
	den := float64((k - 1) * (k - 1))
	var obs, exp float64
	for i := range k {
		for j := range k {
			w := float64((i-j)*(i-j)) / den
			obs += w * float64(cell(m, i, j))
			exp += w * rows[i] * cols[j] / n
		}
	}
	if exp == 0 {
		return math.NaN()
	}
	return 1 - obs/exp
}

// cell is m[i][j], 0 where the row is short.
func cell(m [][]int, i, j int) int {
	if j >= len(m[i]) {
		return 0
	}
	return m[i][j]
}

// IsTriageRow reports whether a question row is a triage item's.
func IsTriageRow(r *results.QuestionRow) bool {
	return r.ItemKind == qa.KindTriage && r.UrgencyRank >= 0
}

// TriageObsOf is a triage row's outcome: its truth, and its prediction
// (-1 when the unit failed or abstained or named no level).
func TriageObsOf(r *results.QuestionRow) TriageObs {
	p := int(r.PredictedRank)
	if !answered(r) {
		p = -1
	}
	return TriageObs{Cluster: r.QuestionID, Truth: int(r.UrgencyRank), Pred: p, DiagnosisMatch: r.DiagnosisMatch}
}

// TriageOf summarises the triage rows among rows (TriageMetrics), the
// scale's codes read from the rows (urgency at urgency_rank, predicted
// urgency at predicted_rank; "level r" where no row names rank r), its
// size the largest urgency_levels; nil when no row is a triage row.
func TriageOf(rows []results.QuestionRow, lvl float64) *Triage {
	return triageIdx(rows, seq(len(rows)), lvl)
}

// triageIdx is TriageOf over the rows idx.
func triageIdx(rows []results.QuestionRow, idx []int, lvl float64) *Triage {
	var obs []TriageObs
	codes := map[int]string{}
	k := 0
	for _, i := range idx {
		r := &rows[i]
		if !IsTriageRow(r) {
			continue
		}
		o := TriageObsOf(r)
		obs = append(obs, o)
		k = max(k, int(r.UrgencyLevels), o.Truth+1, o.Pred+1)
		nameLevel(codes, o.Truth, r.Urgency)
		nameLevel(codes, int(r.PredictedRank), r.PredictedUrgency)
	}
	if len(obs) == 0 {
		return nil
	}
	levels := make([]string, k)
	for i := range levels {
		levels[i] = codes[i]
		if levels[i] == "" {
			levels[i] = fmt.Sprintf("level %d", i)
		}
	}
	t := TriageMetrics(obs, levels, lvl)
	return &t
}

// nameLevel records the code of rank r when it is the first seen.
func nameLevel(codes map[int]string, r int, code string) {
	if r >= 0 && code != "" && codes[r] == "" {
		codes[r] = code
	}
}

// TriageComparison is a candidate arm's safe and under-triage rates
// against the reference arm's on the same triage rows, paired by (question
// id, repeat) as accuracy is (ComparePaired): Safe pairs the 0/1 outcome
// "at or above the true level", Under the outcome "less urgent than the
// true level". For Under, B counts the pairs the reference under-triaged
// and the candidate did not, C the reverse, and a negative Δ means fewer
// under-triages. A row without a prediction is neither safe nor
// under-triaged (TriageMetrics).
type TriageComparison struct {
	Safe, Under PairedBinary
	// SafeHolmP and UnderHolmP are the McNemar p-values Holm-adjusted over
	// the family, as Comparison.HolmP; NaN for a comparison made alone.
	SafeHolmP, UnderHolmP float64
}

// triageCompare is the triage comparison of paired rows, nil when the
// reference rows are not triage rows; cl and g are the pairs' question
// clusters. Both metrics come from one resampling with opt's seed.
func triageCompare(ref []results.QuestionRow, ri []int, cand []results.QuestionRow, ci []int, cl []int, g int, opt Bootstrap) *TriageComparison {
	if !slices.ContainsFunc(ri, func(i int) bool { return IsTriageRow(&ref[i]) }) {
		return nil
	}
	n := len(ri)
	rs, cs, ru, cu := make([]bool, n), make([]bool, n), make([]bool, n), make([]bool, n)
	d := [][]float64{make([]float64, n), make([]float64, n)}
	for j := range ri {
		rs[j], ru[j] = triageFlags(&ref[ri[j]])
		cs[j], cu[j] = triageFlags(&cand[ci[j]])
		d[0][j], d[1][j] = b2f(cs[j])-b2f(rs[j]), b2f(cu[j])-b2f(ru[j])
	}
	est := pairedEstimates(d, cl, g, opt)
	tc := &TriageComparison{Safe: binaryCounts(rs, cs, cl), Under: binaryCounts(ru, cu, cl), SafeHolmP: math.NaN(), UnderHolmP: math.NaN()}
	tc.Safe.Clusters, tc.Safe.Delta = g, est[0]
	tc.Under.Clusters, tc.Under.Delta = g, est[1]
	tc.Safe = pairedNoDiscordant(tc.Safe, rs, cl, g, opt.Level)
	tc.Under = pairedNoDiscordant(tc.Under, ru, cl, g, opt.Level)
	return tc
}

// triageFlags are a row's safe and under-triage outcomes (false, false
// for a row without a prediction or not a triage row).
func triageFlags(r *results.QuestionRow) (safe, under bool) {
	if !IsTriageRow(r) {
		return false, false
	}
	o := TriageObsOf(r)
	if o.Pred < 0 {
		return false, false
	}
	return o.Pred >= o.Truth, o.Pred < o.Truth
}

// adjustTriage Holm-adjusts the triage comparisons' McNemar p-values over
// the family, identical arms counted once, as adjustFamily does accuracy's.
func adjustTriage(cs []Comparison, same []int) {
	if !slices.ContainsFunc(cs, func(c Comparison) bool { return c.Triage != nil }) {
		return
	}
	safe, under := make([]float64, len(cs)), make([]float64, len(cs))
	for i, c := range cs {
		safe[i], under[i] = math.NaN(), math.NaN()
		if c.Triage != nil && c.Triage.Safe.N > 0 {
			safe[i], under[i] = c.Triage.Safe.McNemarP, c.Triage.Under.McNemarP
		}
	}
	hs, hu := HolmGrouped(safe, same), HolmGrouped(under, same)
	for i := range cs {
		if cs[i].Triage != nil {
			cs[i].Triage.SafeHolmP, cs[i].Triage.UnderHolmP = hs[i], hu[i]
		}
	}
}
