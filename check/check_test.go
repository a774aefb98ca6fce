package check

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/stats"
)

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"empty", "", "t.yaml: the file is empty; a thresholds file is a mapping with thresholds: [...] (see configs/thresholds.yaml)"},
		{"not yaml", "thresholds:\n  - metric: accuracy\n    bound: value: 1\n", "t.yaml:3: not valid YAML: mapping values are not allowed in this context"},
		{"not mapping", "- a\n", `t.yaml:1: a thresholds file is a mapping with the key thresholds, not a list; see configs/thresholds.yaml`},
		{"unknown top key", "thresholds: []\nlimits: 3\n", `t.yaml:2: unknown key "limits"; a thresholds file has one key, thresholds`},
		{"empty list", "thresholds: []\n", `t.yaml:1: thresholds must be a non-empty list of entries such as {metric: accuracy, bound: "ci_low >= 0.55"}`},
		{"entry not mapping", "thresholds:\n  - accuracy\n", `t.yaml:2: a threshold is a mapping with metric and bound (and selectors or compare), not "accuracy"`},
		{"unknown metric", "thresholds:\n  - metric: acuracy\n    bound: value >= 0.5\n",
			`t.yaml:2: unknown metric "acuracy"; use one of accuracy, coverage, selective_accuracy, error_rate, abstention_rate, calls_per_q, tokens_per_q, latency_p95, cost_per_q, ece, under_triage, over_triage, safe, kappa, diagnosis_match`},
		{"missing metric", "thresholds:\n  - bound: value >= 0.5\n",
			`t.yaml:2: threshold without metric; add metric: one of accuracy, coverage, selective_accuracy, error_rate, abstention_rate, calls_per_q, tokens_per_q, latency_p95, cost_per_q, ece, under_triage, over_triage, safe, kappa, diagnosis_match`},
		{"unknown key", "thresholds:\n  - metric: accuracy\n    arms: full\n    bound: value >= 0.5\n",
			`t.yaml:3: unknown key "arms"; the keys of a threshold are metric, bound, arm, model, dataset, subject, compare`},
		{"duplicate key", "thresholds:\n  - metric: accuracy\n    bound: value >= 0.5\n    bound: value >= 0.6\n", `t.yaml:4: key "bound" given twice in one threshold; keep one`},
		{"selector list", "thresholds:\n  - metric: accuracy\n    arm: [full, base]\n    bound: value >= 0.5\n", `t.yaml:3: arm must be a single value; got a list`},
		{"empty selector", "thresholds:\n  - metric: accuracy\n    model: \"\"\n    bound: value >= 0.5\n", `t.yaml:3: model is empty; give a name or leave the selector out`},
		{"missing bound", "thresholds:\n  - metric: accuracy\n", `t.yaml:2: threshold without bound; add e.g. bound: "ci_low >= 0.55" or bound: "value <= 20"`},
		{"bad bound", "thresholds:\n  - metric: accuracy\n    bound: at least 0.5\n",
			`t.yaml:3: bound "at least 0.5": write SIDE OP NUMBER, SIDE one of value, ci_low, ci_high and OP one of >=, <=, >, <, e.g. "ci_low >= 0.55"`},
		{"bad side", "thresholds:\n  - metric: accuracy\n    bound: mean >= 0.5\n", `t.yaml:3: bound "mean >= 0.5": unknown side "mean"; use value, ci_low or ci_high`},
		{"bad number", "thresholds:\n  - metric: accuracy\n    bound: value >= half\n", `t.yaml:3: bound "value >= half": "half" is not a number`},
		{"no interval", "thresholds:\n  - metric: calls_per_q\n    bound: ci_high <= 20\n",
			`t.yaml:3: bound "ci_high <= 20": calls_per_q has no interval; bound its value, or use accuracy, selective_accuracy, under_triage, over_triage, safe, diagnosis_match`},
		{"compare one arm", "thresholds:\n  - metric: accuracy\n    compare: [full]\n    bound: ci_low >= 0\n",
			`t.yaml:3: compare must be a list of two arms [candidate, reference], e.g. compare: [full, base]; got a list`},
		{"compare itself", "thresholds:\n  - metric: accuracy\n    compare: [full, full]\n    bound: ci_low >= 0\n",
			`t.yaml:3: compare: [full, full] compares an arm with itself; name two arms`},
		{"compare with arm", "thresholds:\n  - metric: accuracy\n    arm: full\n    compare: [full, base]\n    bound: ci_low >= 0\n",
			`t.yaml:3: arm and compare in one threshold: compare names the arms; drop arm`},
		{"compare with subject", "thresholds:\n  - metric: accuracy\n    subject: cardiology\n    compare: [full, base]\n    bound: ci_low >= 0\n",
			`t.yaml:3: subject and compare in one threshold: comparisons are made over all subjects; drop subject`},
		{"compare metric", "thresholds:\n  - metric: ece\n    compare: [full, base]\n    bound: value <= 0\n",
			`t.yaml:2: metric "ece" cannot be compared; a comparison bounds one of accuracy, calls_per_q, tokens_per_q, safe, under_triage`},
		{"second entry", "thresholds:\n  - metric: accuracy\n    bound: value >= 0.5\n  - metric: coverage\n    bound: value => 0.9\n",
			`t.yaml:5: bound "value => 0.9": write SIDE OP NUMBER, SIDE one of value, ci_low, ci_high and OP one of >=, <=, >, <, e.g. "ci_low >= 0.55"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(c.yaml))
			if err == nil {
				t.Fatalf("no error, want %s", c.want)
			}
			if err.Error() != c.want {
				t.Errorf("error\n got %s\nwant %s", err, c.want)
			}
		})
	}
}

func TestParseExample(t *testing.T) {
	th, err := Load("../configs/thresholds.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(th) < 4 {
		t.Fatalf("%d thresholds in the example, want several", len(th))
	}
	for _, x := range th {
		if x.Line == 0 || x.Metric == "" || x.Bound.Op == "" {
			t.Errorf("incomplete threshold %+v", x)
		}
	}
	got, err := Parse("t.yaml", []byte("thresholds:\n  - metric: accuracy\n    arm: full\n    model: sim/default\n    dataset: medqa\n    bound: ci_low >= 0.55\n  - compare: [full, base]\n    metric: accuracy\n    bound: \"ci_low >= -0.02\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Threshold{
		{File: "t.yaml", Line: 2, Metric: Accuracy, Arm: "full", Model: "sim/default", Dataset: "medqa", Bound: Bound{CILow, ">=", 0.55}},
		{File: "t.yaml", Line: 7, Metric: Accuracy, Compare: []string{"full", "base"}, Bound: Bound{CILow, ">=", -0.02}},
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.File != w.File || g.Line != w.Line || g.Metric != w.Metric || g.Arm != w.Arm || g.Model != w.Model || g.Dataset != w.Dataset ||
			g.Bound != w.Bound || strings.Join(g.Compare, ",") != strings.Join(w.Compare, ",") {
			t.Errorf("threshold %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if n := got[1].Name(); n != "delta(accuracy, full, base) ci_low >= -0.02" {
		t.Errorf("name %q", n)
	}
}

// group is a summary with every metric set to a distinct value.
func group(dataset, model, arm, subject string, acc float64) stats.Group {
	return stats.Group{
		Key: stats.GroupKey{Dataset: dataset, Model: model, Arm: arm, Subject: subject}, Rows: 200,
		Errors: 4, Abstained: 10, Accuracy: acc, AccuracyCI: stats.Interval{Lo: acc - 0.05, Hi: acc + 0.05},
		Coverage: 0.93, SelectiveAccuracy: 0.8, SelectiveCI: stats.Interval{Lo: 0.74, Hi: 0.85},
		Calls: stats.Dist{Mean: 11.5}, Tokens: stats.Dist{Mean: 6400}, WallMS: stats.Dist{P95: 1234},
		Calibration: stats.Calibration{ECE: 0.07}, Cost: &stats.Cost{Priced: true, PerQuestion: 0.0031},
	}
}

func testReport() *report.Report {
	cmpr := func(model, cand string, d, lo, hi float64) stats.Comparison {
		return stats.Comparison{Dataset: "medqa", Model: model, Reference: "base", Candidate: cand, Matched: 200,
			Accuracy: stats.PairedBinary{Delta: stats.Estimate{Value: d, Boot: stats.Interval{Lo: lo, Hi: hi}}},
			Calls:    stats.Estimate{Value: 6, Boot: stats.Interval{Lo: 5.9, Hi: 6.1}},
			Tokens:   stats.Estimate{Value: 6400, Boot: stats.Interval{Lo: 6300, Hi: 6500}}}
	}
	return &report.Report{
		Priced: true, Datasets: []string{"medqa"}, Models: []string{"m1", "m2"}, Arms: []string{"base", "full"},
		Groups: []stats.Group{
			group("medqa", "m1", "base", "", 0.70), group("medqa", "m1", "full", "", 0.80),
			group("medqa", "m2", "base", "", 0.60), group("medqa", "m2", "full", "", 0.62),
		},
		Subjects: []stats.Group{group("medqa", "m1", "full", "cardiology", 0.9), group("medqa", "m1", "full", "neurology", 0.5)},
		Comparisons: []stats.Comparison{
			cmpr("m1", "full", 0.10, 0.06, 0.14),
			cmpr("m2", "full", 0.02, -0.03, 0.07),
		},
	}
}

func TestEvaluate(t *testing.T) {
	r := testReport()
	type obs struct {
		where string
		x     float64
		pass  bool
	}
	cases := []struct {
		yaml string
		want []obs
	}{
		{"metric: accuracy\n    arm: full\n    model: m1\n    bound: value >= 0.75", []obs{{"medqa · m1 · full", 0.80, true}}},
		{"metric: accuracy\n    arm: full\n    bound: ci_low >= 0.6", []obs{{"medqa · m1 · full", 0.75, true}, {"medqa · m2 · full", 0.57, false}}},
		{"metric: accuracy\n    model: m2\n    dataset: medqa\n    bound: ci_high <= 0.66", []obs{{"medqa · m2 · base", 0.65, true}, {"medqa · m2 · full", 0.67, false}}},
		{"metric: accuracy\n    subject: cardiology\n    bound: value > 0.85", []obs{{"medqa · m1 · full · cardiology", 0.9, true}}},
		{"metric: coverage\n    arm: base\n    model: m1\n    bound: value >= 0.95", []obs{{"medqa · m1 · base", 0.93, false}}},
		{"metric: selective_accuracy\n    arm: base\n    model: m1\n    bound: ci_low >= 0.7", []obs{{"medqa · m1 · base", 0.74, true}}},
		{"metric: error_rate\n    arm: base\n    model: m1\n    bound: value <= 0.01", []obs{{"medqa · m1 · base", 0.02, false}}},
		{"metric: abstention_rate\n    arm: base\n    model: m1\n    bound: value < 0.1", []obs{{"medqa · m1 · base", 0.05, true}}},
		{"metric: calls_per_q\n    arm: base\n    model: m1\n    bound: value <= 11", []obs{{"medqa · m1 · base", 11.5, false}}},
		{"metric: tokens_per_q\n    arm: base\n    model: m1\n    bound: value <= 7000", []obs{{"medqa · m1 · base", 6400, true}}},
		{"metric: latency_p95\n    arm: base\n    model: m1\n    bound: value <= 1000", []obs{{"medqa · m1 · base", 1234, false}}},
		{"metric: cost_per_q\n    arm: base\n    model: m1\n    bound: value <= 0.005", []obs{{"medqa · m1 · base", 0.0031, true}}},
		{"metric: ece\n    arm: base\n    model: m1\n    bound: value <= 0.05", []obs{{"medqa · m1 · base", 0.07, false}}},
		{"compare: [full, base]\n    metric: accuracy\n    bound: ci_low >= -0.02",
			[]obs{{"medqa · m1 · full − base (200 pairs)", 0.06, true}, {"medqa · m2 · full − base (200 pairs)", -0.03, false}}},
		{"compare: [base, full]\n    model: m1\n    metric: accuracy\n    bound: ci_high <= -0.05", []obs{{"medqa · m1 · base − full (200 pairs)", -0.06, true}}},
		{"compare: [full, base]\n    model: m2\n    metric: accuracy\n    bound: value >= 0", []obs{{"medqa · m2 · full − base (200 pairs)", 0.02, true}}},
		{"compare: [full, base]\n    model: m1\n    metric: calls_per_q\n    bound: ci_high <= 6", []obs{{"medqa · m1 · full − base (200 pairs)", 6.1, false}}},
		{"compare: [full, base]\n    model: m1\n    metric: tokens_per_q\n    bound: value <= 7000", []obs{{"medqa · m1 · full − base (200 pairs)", 6400, true}}},
	}
	for _, c := range cases {
		th, err := Parse("t.yaml", []byte("thresholds:\n  - "+c.yaml+"\n"))
		if err != nil {
			t.Fatalf("%s: %v", c.yaml, err)
		}
		if err := Validate(r, th); err != nil {
			t.Fatalf("%s: %v", c.yaml, err)
		}
		got := Evaluate(r, th)
		if len(got) != len(c.want) {
			t.Fatalf("%s: %d results, want %d: %+v", c.yaml, len(got), len(c.want), got)
		}
		for i, w := range c.want {
			g := got[i]
			if g.Where != w.where || math.Abs(g.Observed-w.x) > 1e-9 || g.Pass != w.pass || g.Pos != "t.yaml:2" {
				t.Errorf("%s: result %d = %+v, want %+v", c.yaml, i, g, w)
			}
		}
	}
}

func TestEvaluateUndefinedFails(t *testing.T) {
	r := testReport()
	r.Groups[0].Calibration.ECE = math.NaN()
	r.Groups[0].Cost = nil
	th, err := Parse("t.yaml", []byte("thresholds:\n  - {metric: ece, arm: base, model: m1, bound: value <= 1}\n  - {metric: cost_per_q, arm: base, model: m1, bound: value <= 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := Evaluate(r, th)
	if len(got) != 2 || got[0].Pass || got[1].Pass || got[0].Detail != "undefined on these rows" || !strings.Contains(got[1].Detail, "not priced") {
		t.Errorf("undefined values: %+v", got)
	}
}

func TestValidate(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"{metric: accuracy, arm: ful, bound: value >= 0}", `t.yaml:2: unknown arm "ful"; the results have base, full`},
		{"{metric: accuracy, model: m3, bound: value >= 0}", `t.yaml:2: no group matches the selectors (arm "", model "m3", dataset "", subject ""); the results have datasets medqa and models m1, m2`},
		{"{metric: accuracy, subject: dermatology, bound: value >= 0}", `t.yaml:2: no group matches the selectors (arm "", model "", dataset "", subject "dermatology"); the results have datasets medqa and models m1, m2`},
		{"{metric: accuracy, compare: [full, c1], bound: ci_low >= 0}", `t.yaml:2: unknown arm "c1" in compare; the results have base, full`},
		{"{metric: accuracy, compare: [full, base], dataset: pubmedqa, bound: ci_low >= 0}", `t.yaml:2: no comparison of full with base matches the selectors (dataset "pubmedqa", model "")`},
	}
	for _, c := range cases {
		th, err := Parse("t.yaml", []byte("thresholds:\n  - "+c.yaml+"\n"))
		if err != nil {
			t.Fatalf("%s: %v", c.yaml, err)
		}
		err = Validate(testReport(), th)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.yaml, err, c.want)
		}
	}
	r := testReport()
	r.Priced = false
	th, _ := Parse("t.yaml", []byte("thresholds:\n  - metric: cost_per_q\n    bound: value <= 1\n"))
	if err := Validate(r, th); err == nil || err.Error() != "t.yaml:2: cost_per_q needs a price table; give --prices (see configs/prices.yaml)" {
		t.Errorf("cost without prices: %v", err)
	}
}

func TestReferences(t *testing.T) {
	th, err := Parse("t.yaml", []byte("thresholds:\n  - {metric: accuracy, compare: [full, base], bound: ci_low >= 0}\n  - {metric: accuracy, compare: [full, c1], bound: ci_low >= 0}\n  - {metric: accuracy, compare: [c2, base], bound: ci_low >= 0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(References(th), ","); got != "base,c1" {
		t.Errorf("References = %s", got)
	}
}

func rows(arm string, n int, correct func(i int) bool) []results.QuestionRow {
	out := make([]results.QuestionRow, n)
	for i := range out {
		out[i] = results.QuestionRow{Dataset: "medqa", Model: "m", Arm: arm, QuestionID: string(rune('a'+i/26)) + string(rune('a'+i%26)), Correct: correct(i)}
	}
	return out
}

func TestBaseline(t *testing.T) {
	base := append(rows("full", 300, func(i int) bool { return i%10 < 7 }), rows("base", 50, func(int) bool { return true })...)
	same := rows("full", 310, func(i int) bool { return i%10 < 7 }) // 10 more questions, unchanged outcomes
	worse := rows("full", 300, func(i int) bool { return i%10 < 5 })
	extra := rows("c1", 20, func(int) bool { return true })

	s := Baseline(base, append(same, extra...), BaselineOptions{Seed: 1})
	if len(s.Results) != 1 || !s.Results[0].Pass || s.Shared != 300 || s.CandOnly != 10 || s.BaseOnly != 0 {
		t.Fatalf("unchanged: %+v", s)
	}
	if got := strings.Join(s.Unmatched, "; "); got != "medqa · c1 (candidate only); medqa · base (baseline only)" {
		t.Errorf("unmatched: %s", got)
	}
	r := s.Results[0]
	if r.Arm != "full" || r.Observed != 0 || r.Bound != -DefaultMargin || r.Insufficient ||
		r.Detail != "Δ +0.000, one-sided 95% bounds [+0.000, +0.000] on 300 shared pairs over 300 questions (100% of the baseline's units; 0 baseline only, 10 candidate only); margin 0.05" {
		t.Errorf("unchanged result: %+v", r)
	}
	s = Baseline(base, worse, BaselineOptions{Seed: 1, Margin: 0.1})
	if len(s.Results) != 1 || s.Results[0].Pass || s.Results[0].Insufficient || s.Results[0].Bound != -0.1 || s.Results[0].Observed >= -0.1 {
		t.Errorf("20 points worse: %+v", s.Results)
	}
	// Better on 5 shared questions of 300: too little evidence to judge
	// (the 3 shared pairs against 497 unshared passed).
	s = Baseline(base, rows("full", 5, func(int) bool { return true }), BaselineOptions{Seed: 1})
	if r := s.Results[0]; r.Pass || !r.Insufficient || !strings.HasPrefix(r.Detail, "insufficient evidence: 5 shared pairs over 5 questions (2% of the baseline's units") {
		t.Errorf("5 shared questions: %+v", r)
	}

	// A model change: one model on each side, paired across them.
	other := rows("full", 300, func(i int) bool { return i%10 < 7 })
	for i := range other {
		other[i].Model = "m2"
	}
	s = Baseline(base, other, BaselineOptions{Seed: 1})
	if len(s.Results) != 1 || s.Shared != 300 || s.Results[0].Where != "medqa · m2 vs baseline m · full" {
		t.Errorf("model change: %+v", s)
	}
	// Several models: model by model, so m2 has no baseline.
	s = Baseline(base, append(other, same...), BaselineOptions{Seed: 1})
	if len(s.Results) != 1 || s.Results[0].Where != "medqa · m · full" || !strings.Contains(strings.Join(s.Unmatched, ";"), "medqa · m2 · full (candidate only)") {
		t.Errorf("several models: %+v", s)
	}
	// Nothing shared fails.
	s = Baseline(base, rows("full", 0, nil), BaselineOptions{})
	if len(s.Results) != 0 {
		t.Errorf("no candidate rows: %+v", s)
	}
	r = NonInferior(stats.Comparison{RefOnly: 3}, BaselineOptions{})
	if r.Pass || !r.Insufficient || !strings.HasPrefix(r.Detail, "insufficient evidence: 0 shared pairs over 0 questions (0% of the baseline's units") {
		t.Errorf("nothing paired: %+v", r)
	}
}

// The minimum coverage: 200 of the baseline's 300 units shared, 200
// questions (enough), 67% coverage (< 90%): insufficient evidence; with
// --min-coverage 0.6 the same pairs are judged.
func TestBaselineMinCoverage(t *testing.T) {
	base := rows("full", 300, func(i int) bool { return i%10 < 7 })
	cand := rows("full", 200, func(i int) bool { return i%10 < 7 })
	if r := Baseline(base, cand, BaselineOptions{}).Results[0]; !r.Insufficient || r.Pass {
		t.Errorf("67%% coverage: %+v", r)
	}
	if r := Baseline(base, cand, BaselineOptions{MinCoverage: 0.6}).Results[0]; r.Insufficient || !r.Pass {
		t.Errorf("67%% coverage, --min-coverage 0.6: %+v", r)
	}
	if r := Baseline(base, cand, BaselineOptions{MinQuestions: 201, MinCoverage: 0.6}).Results[0]; !r.Insufficient {
		t.Errorf("200 questions, --min-questions 201: %+v", r)
	}
}

// The three verdicts by hand. G = 100 questions: t_{0.95, 99} = 1.660391
// (R: qt(0.95, 99)).
//
//	Δ −0.02, SE 0.01: L = −0.02 − 0.016604 = −0.036604, U = −0.003396
//	  δ 0.05: L ≥ −δ → PASS; δ 0.03: L < −δ and U < 0 → FAIL
//	Δ 0, SE 0.04: L = −0.066416 < −0.05, U = +0.066416 ≥ 0 → INSUFFICIENT
//	Δ 0, SE 0.03: L = −0.049812 ≥ −0.05 → PASS
func TestNonInferiorVerdicts(t *testing.T) {
	cmp := func(delta, se float64) stats.Comparison {
		c := stats.Comparison{Matched: 100, Questions: 100}
		c.Accuracy = stats.PairedBinary{N: 100, Clusters: 100, B: 10, C: 8, Discordance: 0.18,
			Delta: stats.Estimate{Value: delta, SE: se}}
		return c
	}
	for _, tc := range []struct {
		delta, se, margin  float64
		pass, insufficient bool
		lo                 float64
	}{
		{-0.02, 0.01, 0.05, true, false, -0.036604},
		{-0.02, 0.01, 0.03, false, false, -0.036604},
		{0, 0.04, 0.05, false, true, -0.066416},
		{0, 0.03, 0.05, true, false, -0.049812},
	} {
		r := NonInferior(cmp(tc.delta, tc.se), BaselineOptions{Margin: tc.margin})
		if r.Pass != tc.pass || r.Insufficient != tc.insufficient || math.Abs(r.Observed-tc.lo) > 1e-6 {
			t.Errorf("Δ %v SE %v δ %v: pass %v insufficient %v L %v; want %v %v %v", tc.delta, tc.se, tc.margin, r.Pass, r.Insufficient, r.Observed, tc.pass, tc.insufficient, tc.lo)
		}
	}
}

// Power by hand (Python's statistics.NormalDist): n = 500, ψ = 0.14, δ =
// 0.05, α = 0.05: (0.05·√500 − 1.644854·√0.14)/√(0.14 − 0.0025) = 1.355374,
// Φ = 0.912351. n = 100: Φ(−0.311340) = 0.377771. ψ = 0.01 < δ is raised to
// δ: n = 100, Φ((0.5 − 1.644854·√0.05)/√0.0475) = Φ(0.606573) = 0.727933.
func TestNonInferiorityPower(t *testing.T) {
	for _, tc := range []struct{ n, psi, want float64 }{{500, 0.14, 0.912351}, {100, 0.14, 0.377771}, {100, 0.01, 0.727933}} {
		if got := stats.NonInferiorityPower(tc.n, tc.psi, 0.05, 0.05); math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("power(n %v, ψ %v) = %v, want %v", tc.n, tc.psi, got, tc.want)
		}
	}
}

func TestExampleFileExists(t *testing.T) {
	if _, err := os.Stat("../configs/thresholds.yaml"); err != nil {
		t.Fatal(err)
	}
}

// The family's α split by hand (issue 34): Δ −0.02, SE 0.01, G = 100, δ
// 0.03. Alone (a = 0.05): U = −0.02 + 1.660391·0.01 = −0.003396 < 0 and L
// < −δ → FAIL. One of two checks (a = 0.025, t_{0.975, 99} = 1.984217, R:
// qt(0.975, 99)): U = −0.02 + 0.019842 = −0.000158 < 0 → still FAIL; SE
// 0.0101: U = −0.02 + 0.020041 = +0.000041 ≥ 0 → INSUFFICIENT, where alone
// U = −0.003230 → FAIL. The name gives the level.
func TestNonInferiorFamily(t *testing.T) {
	c := stats.Comparison{Matched: 100, Questions: 100}
	c.Accuracy = stats.PairedBinary{N: 100, Clusters: 100, B: 10, C: 8, Discordance: 0.18, Delta: stats.Estimate{Value: -0.02, SE: 0.0101}}
	alone := NonInferior(c, BaselineOptions{Margin: 0.03})
	two := NonInferior(c, BaselineOptions{Margin: 0.03, Family: 2})
	if alone.Pass || alone.Insufficient || !two.Insufficient || two.Pass {
		t.Errorf("alone %+v\ntwo %+v: want FAIL alone, INSUFFICIENT as one of two", alone, two)
	}
	if !strings.Contains(two.Name, "lower 97.5% bound") || !strings.Contains(two.Detail, "α 0.05 split over 2 checks") {
		t.Errorf("name %q, detail %q", two.Name, two.Detail)
	}
	// Baseline splits α over the comparisons it makes (two arms).
	base := append(rows("full", 100, func(i int) bool { return i%10 < 7 }), rows("base", 100, func(i int) bool { return i%10 < 7 })...)
	s := Baseline(base, base, BaselineOptions{})
	if len(s.Results) != 2 || !strings.Contains(s.Results[0].Name, "97.5%") || Comparisons(base, base) != 2 {
		t.Errorf("two arms: %+v", s.Results)
	}
}

// A clear pass carries no low-power warning, and the power of an undecided
// check comes from the null discordance 2·min(B, C)/N: a candidate 24
// points better on 50 questions (B 0, C 12) passes with no warning, where
// the observed discordance (24%) gave "power 17%" before issue 34.
func TestBaselinePowerNullDiscordance(t *testing.T) {
	base := rows("full", 50, func(i int) bool { return i%50 < 25 })
	cand := rows("full", 50, func(i int) bool { return i%50 < 37 })
	s := Baseline(base, cand, BaselineOptions{})
	r := s.Results[0]
	if !r.Pass || len(s.LowPower) != 0 || strings.Contains(r.Detail, "power") {
		t.Errorf("clear pass: %+v, low power %v", r, s.LowPower)
	}
	pb := stats.PairedBinary{N: 100, Clusters: 100, B: 4, C: 16, Discordance: 0.2}
	if got := pb.NullDiscordance(); math.Abs(got-0.08) > 1e-12 {
		t.Errorf("null discordance %v, want 0.08", got)
	}
	// n = ((z_{0.95}·√0.08 + z_{0.8}·√(0.08 − 0.0025))/0.05)² = 195.74 → 196
	// (Python's statistics.NormalDist).
	if got := questionsNeeded(pb, 0.08, 0.05, 0.05); got != 196 {
		t.Errorf("questions needed %d, want 196", got)
	}
}
