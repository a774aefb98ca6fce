package stats

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

func handRows() []results.QuestionRow {
	row := func(q string, rep int32, calls int32, pt, ct int64, wall float64) results.QuestionRow {
		return results.QuestionRow{Dataset: "d", Model: "m", Arm: "base", QuestionID: q, Repeat: rep,
			Calls: calls, PromptTokens: pt, CompletionTokens: ct, WallMS: wall, CallLatencyMS: wall * 0.9, ConfidenceMean: -1}
	}
	rs := []results.QuestionRow{
		row("q1", 0, 4, 100, 10, 1000),
		row("q1", 1, 6, 200, 20, 2000),
		row("q2", 0, 5, 150, 15, 1500),
		row("q2", 1, 2, 50, 0, 500),
		row("q3", 0, 4, 100, 10, 1200),
	}
	rs[0].Correct, rs[0].ConfidenceMean = true, 0.9
	rs[1].ConfidenceMean = 0.6
	rs[2].Abstained = true
	rs[3].Error, rs[3].ErrorClass, rs[3].Correct = "deadline", "timeout", true // a failed row is never correct
	rs[4].Correct, rs[4].ConfidenceMean = true, 0.8
	rs[4].ChangesWrongToRight = 1
	return rs
}

// By hand (see handRows): 5 rows of 3 questions; correct q1/0 and q3/0;
// q2/0 abstained, q2/1 failed. Accuracy 2/5, coverage 3/5, selective 2/3.
// Clustered SE: y = (1,0 | 0,0 | 1), ȳ = 0.4, residual sums 0.2, −0.8, 0.6,
// Σe² = 1.04, Var = (3/2)·1.04/25 = 0.0624. Design effect: the rows taken
// as independent have Var = p̂(1 − p̂)/(N − 1) = 0.24/4 = 0.06, deff = 0.0624
// / 0.06 = 1.04 (within [1, N/G = 5/3]) — but 3 questions are below
// MinDeffClusters, so deff is the bound N/G = 5/3 and the accuracy interval
// is Wilson's at p̂ = 0.4 and n = 3 (likewise the selective one at n = 2).
// Selective accuracy: the
// answered rows q1/0 (1), q1/1 (0), q3/0 (1): p̂ = 2/3, residual sums −1/3,
// 1/3, Var_CR1 = 2·(2/9)/9 = 0.0494 < Var_iid = (2/9)/2 = 0.111: deff is
// limited to 1 and the interval is Wilson(2, 3). Calls 2,4,4,5,6: mean 4.2,
// p50 4, p95 6. Tokens 50,110,110,165,220: mean 131. Cost at 0.001 per
// prompt and 0.002 per completion token: 0.12 + 0.24 + 0.18 + 0.05 + 0.12
// = 0.71.
func TestAggregateHand(t *testing.T) {
	price := func(model string, p, c int64) (float64, bool) {
		return 0.001*float64(p) + 0.002*float64(c), model == "m"
	}
	gs := Aggregate(handRows(), AggregateOptions{Price: price})
	if len(gs) != 1 {
		t.Fatalf("%d groups", len(gs))
	}
	g := gs[0]
	if g.Key != (GroupKey{"d", "m", "base", ""}) || g.Rows != 5 || g.Questions != 3 || g.Repeats != 2 ||
		g.Correct != 2 || g.Answered != 3 || g.Abstained != 1 || g.Errors != 1 || g.ErrorClasses["timeout"] != 1 {
		t.Errorf("counts: %+v", g)
	}
	// 3 questions (2 answered) are below MinDeffClusters: deff is the bound rows per question.
	if g.Accuracy != 0.4 || !near(g.DesignEffect, 5.0/3, 1e-12) || !g.DeffBound || !nearIv(g.AccuracyCI, wilsonP(0.4, 3, ZFor(0)), 1e-12) || !near(g.Coverage, 0.6, 1e-15) ||
		!near(g.SelectiveAccuracy, 2.0/3, 1e-15) || !nearIv(g.SelectiveCI, wilsonP(2.0/3, 2, ZFor(0)), 1e-12) {
		t.Errorf("rates: %+v", g)
	}
	if !near(g.ClusteredSE, math.Sqrt(0.0624), 1e-12) {
		t.Errorf("ClusteredSE = %v, want %v", g.ClusteredSE, math.Sqrt(0.0624))
	}
	if g.Calls != (Dist{5, 4.2, 4, 6}) || g.Tokens != (Dist{5, 131, 110, 220}) || g.WallMS.P95 != 2000 {
		t.Errorf("dists: calls %+v tokens %+v wall %+v", g.Calls, g.Tokens, g.WallMS)
	}
	if g.Cost == nil || !g.Cost.Priced || !near(g.Cost.Total, 0.71, 1e-12) || !near(g.Cost.PerQuestion, 0.142, 1e-12) {
		t.Errorf("cost: %+v", g.Cost)
	}
	if g.Calibration.N != 3 || g.Calibration.Unanswered != 2 || g.Calibration.NoConfidence != 0 {
		t.Errorf("calibration: %+v", g.Calibration)
	}
	if g.RiskCoverage.Total != 5 || g.RiskCoverage.Ranked != 3 || g.Convergence.WrongToRight != 1 {
		t.Errorf("risk–coverage %+v, convergence %+v", g.RiskCoverage, g.Convergence)
	}
	// Without repeats there is no clustered SE; an unknown model is unpriced.
	rs := handRows()
	for i := range rs {
		rs[i].Repeat, rs[i].QuestionID, rs[i].Model = 0, rs[i].QuestionID+string(rune('a'+i)), "other"
	}
	g = Aggregate(rs, AggregateOptions{Price: price})[0]
	if !math.IsNaN(g.ClusteredSE) || g.Repeats != 1 || g.Cost.Priced || g.Cost.Unpriced != 5 {
		t.Errorf("no repeats: SE %v repeats %d cost %+v", g.ClusteredSE, g.Repeats, g.Cost)
	}
	if Aggregate(rs, AggregateOptions{})[0].Cost != nil {
		t.Error("cost without a price function")
	}
}

func TestAggregateBySubject(t *testing.T) {
	rows := synthRows(presetArms()[:2], 40, 1, 3, func([5]bool, float64) float64 { return 0.6 })
	gs := Aggregate(rows, AggregateOptions{BySubject: true})
	if len(gs) != 4 || gs[0].Key.Arm != "base" || gs[0].Key.Subject != "step1" || gs[1].Key.Subject != "step2&3" {
		t.Fatalf("groups: %v", keys(gs))
	}
	if gs[0].Rows+gs[1].Rows != 40 {
		t.Errorf("rows %d + %d", gs[0].Rows, gs[1].Rows)
	}
}

func keys(gs []Group) []GroupKey {
	var out []GroupKey
	for _, g := range gs {
		out = append(out, g.Key)
	}
	return out
}

// The order of the rows — the order in which questions finished — changes
// nothing: sums run over rows sorted by (question, repeat).
func TestRowOrderInvariance(t *testing.T) {
	rows := synthRows(presetArms(), 150, 2, 5, func(f [5]bool, qe float64) float64 { return 0.55 + qe + 0.05*b2f(f[1]) })
	shuffled := append([]results.QuestionRow(nil), rows...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	opt := AggregateOptions{}
	if a, b := Aggregate(rows, opt), Aggregate(shuffled, opt); !reflect.DeepEqual(fmtAll(a), fmtAll(b)) {
		t.Error("Aggregate depends on row order")
	}
	bo := Bootstrap{Seed: 3, Reps: 300}
	if a, b := CompareToReference(rows, "base", bo), CompareToReference(shuffled, "base", bo); !reflect.DeepEqual(fmtAll(a), fmtAll(b)) {
		t.Error("CompareToReference depends on row order")
	}
	if a, b := ComponentEffects(rows, bo), ComponentEffects(shuffled, bo); !reflect.DeepEqual(fmtAll(a), fmtAll(b)) {
		t.Error("ComponentEffects depends on row order")
	}
	la, _ := FactorialLPM(rows, 0)
	lb, _ := FactorialLPM(shuffled, 0)
	if !reflect.DeepEqual(fmtAll(la), fmtAll(lb)) {
		t.Error("FactorialLPM depends on row order")
	}
}

// fmtAll renders values with %v so NaN compares equal to NaN.
func fmtAll[T any](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmtV(x)
	}
	return out
}
