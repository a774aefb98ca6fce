package report

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/stats"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// handRows: 20 questions. base is right on q00–q09; c1 on q00–q05 and
// q10–q17 (b = 4: q06–q09, c = 8: q10–q17); c2 has c1's outcomes; c4 is
// right on q00–q19 (b = 0, c = 10).
func handRows() []results.QuestionRow {
	right := map[string]func(int) bool{
		"base": func(q int) bool { return q < 10 },
		"c1":   func(q int) bool { return q < 6 || q >= 10 && q < 18 },
		"c2":   func(q int) bool { return q < 6 || q >= 10 && q < 18 },
		"c4":   func(int) bool { return true },
	}
	fl := map[string][5]bool{"base": {}, "c1": {true}, "c2": {false, true}, "c4": {false, false, false, true}}
	var rows []results.QuestionRow
	for _, arm := range []string{"base", "c1", "c2", "c4"} {
		for q := range 20 {
			f := fl[arm]
			r := results.QuestionRow{RunID: "run-hand", Dataset: "d", Model: "m", Arm: arm, Protocol: "teamwork", Turns: 2,
				QuestionID: string(rune('a'+q/10)) + string(rune('0'+q%10)), Correct: right[arm](q), Predicted: "A",
				SMM: f[0], Leadership: f[1], Trust: f[3], Calls: 10, PromptTokens: 1000, CompletionTokens: 100, ConfidenceMean: -1}
			if arm == "c4" {
				r.Calls = 12
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// Known answers: McNemar b = 4, c = 8 gives p = 2·Σ_{k≤4} C(12,k)/2¹² =
// 2·794/4096 = 0.387695 (R: binom.test(4, 12)$p.value); b = 0, c = 10
// gives 2/1024 = 0.001953 (one row per question: the clustered McNemar
// test is the exact one). c1 and c2 have the same outcomes but different
// components: two hypotheses (issue 24, item 5), Holm over {c1, c2, c4}
// (m = 3): c4 3·0.001953 = 0.005859, c1 max(0.005859, 2·0.387695) =
// 0.775391, c2 max(0.775391, 0.387695) = 0.775391. Wilson 10/20: [0.2993,
// 0.7007] (R: prop.test(10, 20, correct = FALSE)$conf.int).
func TestBuildKnownAnswers(t *testing.T) {
	r, err := Build(handRows(), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Reference != "base" || !slices.Equal(r.Arms, []string{"base", "c1", "c2", "c4"}) || r.Rows != 80 || r.Questions != 20 {
		t.Fatalf("reference %q arms %v rows %d questions %d", r.Reference, r.Arms, r.Rows, r.Questions)
	}
	if len(r.Comparisons) != 3 {
		t.Fatalf("%d comparisons", len(r.Comparisons))
	}
	want := []struct {
		arm       string
		b, c      int
		delta     float64
		p, holm   float64
		identical string
	}{
		{"c1", 4, 8, 0.2, 0.387695, 0.775391, ""},
		{"c2", 4, 8, 0.2, 0.387695, 0.775391, ""},
		{"c4", 0, 10, 0.5, 0.001953, 0.005859, ""},
	}
	for i, w := range want {
		c := r.Comparisons[i]
		pb := c.Accuracy
		if c.Candidate != w.arm || pb.B != w.b || pb.C != w.c || !near(pb.Delta.Value, w.delta, 1e-12) ||
			!near(pb.McNemarP, w.p, 1e-6) || !near(c.HolmP, w.holm, 1e-6) || c.IdenticalTo != w.identical {
			t.Errorf("comparison %d: got %s b %d c %d Δ %v p %v holm %v identical %q", i, c.Candidate, pb.B, pb.C, pb.Delta.Value, pb.McNemarP, c.HolmP, c.IdenticalTo)
		}
	}
	if c4 := r.Comparisons[2]; c4.Calls.Value != 2 || !near(c4.MDD, c4.MDD, 0) {
		t.Errorf("Δcalls of c4 = %v", c4.Calls.Value)
	}
	g := r.Groups[0]
	if !near(g.AccuracyCI.Lo, 0.2993, 5e-5) || !near(g.AccuracyCI.Hi, 0.7007, 5e-5) {
		t.Errorf("Wilson 10/20 = %+v", g.AccuracyCI)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"| base | 20 | 50.0% [29.9, 70.1] |", "| c1 | 20 | 50.0 → 70.0 | +20.0 |", "0.3877 | 0.7754", "| c4 | 20 | 50.0 → 100.0 | +50.0 |", "0.0020 | 0.0059", "| smm | base → c1 |"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("report.md lacks %q:\n%s", s, md.String())
		}
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestReferenceChoice(t *testing.T) {
	rows := handRows()
	tests := []struct {
		name, want, got string
		drop            string
		err             bool
	}{
		{name: "default base", got: "base"},
		{name: "explicit", want: "c4", got: "c4"},
		{name: "no base: the first arm", drop: "base", got: "c1"},
		{name: "unknown", want: "c9", err: true},
	}
	for _, tc := range tests {
		var in []results.QuestionRow
		for _, q := range rows {
			if q.Arm != tc.drop {
				in = append(in, q)
			}
		}
		r, err := Build(in, Options{Reference: tc.want})
		var re *ReferenceError
		switch {
		case tc.err && !errors.As(err, &re):
			t.Errorf("%s: err %v, want a ReferenceError", tc.name, err)
		case !tc.err && (err != nil || r.Reference != tc.got):
			t.Errorf("%s: reference %v, err %v; want %s", tc.name, r, err, tc.got)
		}
	}
	if _, err := Build(nil, Options{}); !errors.Is(err, ErrNoRows) {
		t.Errorf("no rows: %v", err)
	}
}

// Two runs of the same arms are relabelled ARM@RUN and compared; the
// reference "base" is the first run's copy.
func TestPoolRelabelsArmsOfSeveralRuns(t *testing.T) {
	a, b := handRows(), handRows()
	for i := range b {
		b[i].RunID = "run-other"
	}
	b = slices.DeleteFunc(b, func(q results.QuestionRow) bool { return q.Arm == "c4" })
	rows, infos, notes, err := Pool([]RunRows{{Info: RunInfo{Name: "run-hand"}, Rows: a}, {Info: RunInfo{Name: "run-other"}, Rows: b}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 140 || len(infos) != 2 || infos[1].Rows != 60 || len(notes) != 3 {
		t.Fatalf("%d rows, infos %+v, notes %q", len(rows), infos, notes)
	}
	r, err := Build(rows, Options{Runs: infos, ArmOrder: []string{"base", "c1", "c2", "c4"}})
	if err != nil {
		t.Fatal(err)
	}
	wantArms := []string{"base@run-hand", "base@run-other", "c1@run-hand", "c1@run-other", "c2@run-hand", "c2@run-other", "c4"}
	if r.Reference != "base@run-hand" || !slices.Equal(r.Arms, wantArms) {
		t.Fatalf("reference %s arms %v", r.Reference, r.Arms)
	}
	if c := r.Comparisons[0]; c.Candidate != "base@run-other" || c.Accuracy.B+c.Accuracy.C != 0 || c.IdenticalTo != "" {
		t.Errorf("the other run's base: %+v", c)
	}
	if !strings.Contains(r.SQL, "min(run_id) OVER w <> max(run_id) OVER w") {
		t.Errorf("SQL does not relabel:\n%s", r.SQL)
	}
	// The same run id twice is refused.
	if _, _, _, err := Pool([]RunRows{{Info: RunInfo{Name: "x"}, Rows: a}, {Info: RunInfo{Name: "y"}, Rows: a}}); err == nil || !strings.Contains(err.Error(), "run-hand") {
		t.Errorf("same run id: %v", err)
	}
}

// Two models: each arm on the second model against the first.
func TestModelComparisons(t *testing.T) {
	a := synthRows(presetArms()[:3], 200, 1, 7, "sim/default")
	b := synthRows(presetArms()[:3], 200, 1, 8, "sim/weak")
	r, err := Build(append(a, b...), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.ReferenceModel != "sim/default" || len(r.ModelComparisons) != 3 || len(r.Comparisons) != 4 {
		t.Fatalf("reference model %q, %d model comparisons, %d arm comparisons", r.ReferenceModel, len(r.ModelComparisons), len(r.Comparisons))
	}
	for _, c := range r.ModelComparisons {
		if c.CandModel != "sim/weak" || c.Matched != 200 || math.IsNaN(c.HolmP) {
			t.Errorf("%+v", c)
		}
	}
	if _, err := Build(a, Options{ReferenceModel: "sim/nope"}); err == nil {
		t.Error("unknown reference model accepted")
	}
}

// The 24 valid combinations are a factorial design: the effect-coded LPM
// is fitted and recovers the simulated main effects (smm +4, l +6, t −3 pp,
// times 0.97 for the 3% of rows that abstain or fail) within its
// intervals, the null main effects (to, mm) with at most one miss; the
// nine presets are not a factorial design.
func TestFactorialDesign(t *testing.T) {
	r, err := Build(synthRows(factorialArms(), 400, 1, 3, "sim/default"), Options{Seed: 1, Reps: 200})
	if err != nil {
		t.Fatal(err)
	}
	f := r.Factorial[0]
	if f.Fit == nil || f.Combinations != 24 || len(f.Arms) != 24 || !slices.Contains(f.Fit.Dropped, "l:mm") {
		t.Fatalf("factorial: %+v", f)
	}
	effect := func(name string) (stats.Coef, bool) {
		for _, c := range f.Fit.Effects {
			if c.Name == name {
				return c, true
			}
		}
		return stats.Coef{}, false
	}
	misses := 0
	for name, want := range map[string]float64{"smm": 0.0388, "l": 0.0582, "t": -0.0291, "to": 0, "mm": 0} {
		c, ok := effect(name)
		t.Logf("%s: effect %+.4f [%+.4f, %+.4f], Holm p %.4f", name, c.Estimate, c.CI.Lo, c.CI.Hi, c.HolmP)
		switch {
		case !ok || math.IsNaN(c.HolmP):
			t.Errorf("%s: %+v", name, c)
		case want != 0 && !c.CI.Contains(want):
			t.Errorf("%s: %+v, want %v inside", name, c, want)
		case !c.CI.Contains(want):
			misses++
		}
	}
	if misses > 1 {
		t.Errorf("%d null main effects exclude 0", misses)
	}
	r, err = Build(synthRows(presetArms(), 50, 1, 3, "sim/default"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := r.Factorial[0]; f.Fit != nil || f.Combinations != 8 || !strings.Contains(f.Note, "8 of the 24") {
		t.Errorf("presets: %+v", f)
	}
}

// TestMarkdownGolden: report.md of a fixed synthetic run (nine presets ×
// 300 questions × 2 repeats, subjects, failures, a price table). Run with
// -update to rewrite testdata/synthetic.md after an intended change.
func TestMarkdownGolden(t *testing.T) {
	r, err := Build(synthRows(presetArms(), 300, 2, 11, "sim/default"), Options{
		Seed: 1, Reps: 500, Prices: Prices{"sim/default": {Prompt: 0.15, Completion: 0.6}},
		Runs: []RunInfo{{Name: "run-synth", Parquet: "questions.parquet"}}, ArmOrder: []string{"base", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "full"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteMarkdown(&got, r); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "synthetic.md"), got.Bytes())
}

// golden compares got with the file, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run with -update after an intended change); got:\n%s", path, got)
	}
}
