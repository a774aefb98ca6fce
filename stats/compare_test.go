package stats

import (
	"math"
	"slices"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

func unit(arm, q string, rep int32, correct bool, calls int32, tok int64) results.QuestionRow {
	return results.QuestionRow{Dataset: "d", Model: "m", Arm: arm, QuestionID: q, Repeat: rep,
		Correct: correct, Predicted: map[bool]string{true: "A", false: "B"}[correct],
		Calls: calls, PromptTokens: tok, ConfidenceMean: -1}
}

// Pairing by (question, repeat): q1/0, q2/0, q3/0 pair; q4/0 only in the
// reference, q5/0 only in the candidate; q6/0 twice in the candidate (both
// left out as duplicates, the reference's q6/0 unmatched). Among the pairs:
// ref ✓✓✗, cand ✗✓✓ → B = 1, C = 1, Δ = 0; Δcalls = (6−4 + 7−4 + 4−4)/3 =
// 5/3; Δtokens = (300 − 100·3)/3 = 0.
func TestCompareUnmatched(t *testing.T) {
	ref := []results.QuestionRow{
		unit("base", "q1", 0, true, 4, 100), unit("base", "q2", 0, true, 4, 100),
		unit("base", "q3", 0, false, 4, 100), unit("base", "q4", 0, true, 4, 100),
		unit("base", "q6", 0, true, 4, 100),
	}
	cand := []results.QuestionRow{
		unit("full", "q3", 0, true, 4, 100), unit("full", "q1", 0, false, 6, 100),
		unit("full", "q2", 0, true, 7, 100), unit("full", "q5", 0, true, 4, 100),
		unit("full", "q6", 0, true, 4, 100), unit("full", "q6", 0, false, 4, 100),
	}
	c := Compare(ref, cand, Bootstrap{Seed: 1, Reps: 200})
	if c.Reference != "base" || c.Candidate != "full" || c.Matched != 3 || c.Questions != 3 ||
		c.RefOnly != 2 || c.CandOnly != 1 || c.Duplicates != 2 {
		t.Errorf("pairing: %+v", c)
	}
	if c.Accuracy.B != 1 || c.Accuracy.C != 1 || c.Accuracy.Delta.Value != 0 || c.Accuracy.McNemarP != 1 {
		t.Errorf("accuracy: %+v", c.Accuracy)
	}
	if !near(c.Calls.Value, 5.0/3, 1e-12) || c.Tokens.Value != 0 || !math.IsNaN(c.HolmP) {
		t.Errorf("calls %+v tokens %+v holm %v", c.Calls, c.Tokens, c.HolmP)
	}
	// An error or an abstention in a pair is not correct.
	ref[0].ErrorClass, cand[0].Abstained = "timeout", true
	ref[2].Correct = true // q3: correct but failed → not correct
	ref[2].Error = "x"
	c = Compare(ref, cand, Bootstrap{Seed: 1, Reps: 200})
	if c.Accuracy.RefRate != 1.0/3 || c.Accuracy.CandRate != 1.0/3 {
		t.Errorf("errors counted as correct: %+v", c.Accuracy)
	}
}

// The presets on a deterministic backend: c5 and c7 are the same
// configuration and give the same rows; they count once in the Holm family
// (m = 7 hypotheses for 8 comparisons) and c7 names c5.
func TestCompareToReferenceIdentical(t *testing.T) {
	p := func(f [5]bool, qe float64) float64 { return 0.5 + qe + 0.08*b2f(f[1]) - 0.03*b2f(f[3]) }
	rows := synthRows(presetArms(), 300, 2, 7, p)
	cs := CompareToReference(rows, "base", Bootstrap{Seed: 1, Reps: 500})
	var names []string
	for _, c := range cs {
		names = append(names, c.Candidate)
	}
	if !slices.Equal(names, []string{"c1", "c2", "c3", "c4", "c5", "c6", "c7", "full"}) {
		t.Fatalf("candidates %v", names)
	}
	c5, c7 := cs[4], cs[6]
	if c7.IdenticalTo != "c5" || c5.IdenticalTo != "" || c7.HolmP != c5.HolmP || c7.Accuracy.McNemarP != c5.Accuracy.McNemarP {
		t.Errorf("c5 %+v\nc7 %+v", c5, c7)
	}
	p7 := make([]float64, 0, 7)
	for i, c := range cs {
		if i != 6 {
			p7 = append(p7, c.Accuracy.McNemarP)
		}
		if c.Matched != 600 || c.Questions != 300 || c.RefOnly+c.CandOnly+c.Duplicates != 0 {
			t.Errorf("%s: matched %d questions %d", c.Candidate, c.Matched, c.Questions)
		}
		if !c.Accuracy.Delta.Boot.Defined() || !c.Accuracy.Delta.Wald.Defined() || !(c.MDD > 0 && c.MDD < 0.2) {
			t.Errorf("%s: %+v MDD %v", c.Candidate, c.Accuracy.Delta, c.MDD)
		}
	}
	h := Holm(p7)
	for i, j := range []int{0, 1, 2, 3, 4, 5, 7} {
		if cs[j].HolmP != h[i] {
			t.Errorf("%s: HolmP %v, want %v (family of 7)", cs[j].Candidate, cs[j].HolmP, h[i])
		}
	}
	arms := [][]results.QuestionRow{armRows(rows, "c4"), armRows(rows, "c5"), armRows(rows, "c6"), armRows(rows, "c7"), armRows(rows, "c5")}
	if got := SameConfigGroups(arms); !slices.Equal(got, []int{0, 1, 2, 1, 1}) {
		t.Errorf("SameConfigGroups = %v", got)
	}
	// No reference in the rows: no comparison.
	if got := CompareToReference(rows, "nosuch", Bootstrap{}); len(got) != 0 {
		t.Errorf("%d comparisons without the reference", len(got))
	}
}

func armRows(rows []results.QuestionRow, arm string) []results.QuestionRow {
	var out []results.QuestionRow
	for _, r := range rows {
		if r.Arm == arm {
			out = append(out, r)
		}
	}
	return out
}

// Component pairs among the presets (c7 stands down for c5): smm base→c1,
// l base→c2, to c2→c3, t base→c4, smm c3→c6. The simulated leadership
// effect (+0.15) is found where leadership is the difference.
func TestComponentEffects(t *testing.T) {
	p := func(f [5]bool, qe float64) float64 { return 0.45 + qe + 0.15*b2f(f[1]) }
	rows := synthRows(presetArms(), 500, 1, 9, p)
	es := ComponentEffects(rows, Bootstrap{Seed: 2, Reps: 500})
	var got []string
	for _, e := range es {
		got = append(got, e.Component+":"+e.Reference+"→"+e.Candidate)
		if e.Component == "l" && !(e.Accuracy.Delta.Boot.Contains(0.15*0.97) && e.Accuracy.McNemarP < 1e-6) {
			t.Errorf("leadership effect %+v", e.Accuracy)
		}
		if math.IsNaN(e.HolmP) || e.HolmP < e.Accuracy.McNemarP {
			t.Errorf("%s: HolmP %v", e.Component, e.HolmP)
		}
	}
	want := []string{"smm:base→c1", "l:base→c2", "t:base→c4", "to:c2→c3", "smm:c3→c6"}
	if !slices.Equal(got, want) {
		t.Errorf("effects %v, want %v", got, want)
	}
	// A different turn count is not a component effect.
	for i := range rows {
		if rows[i].Arm == "c1" {
			rows[i].Turns = 3
		}
	}
	for _, e := range ComponentEffects(rows, Bootstrap{Reps: 50}) {
		if e.Candidate == "c1" {
			t.Errorf("c1 with 3 turns compared: %s", e.Component)
		}
	}
}

// PairedMetric on wall time: pairs q1 (1000 → 1500) and q2 (2000 → 2100),
// q3 only in the reference: Δ = (500 + 100)/2 = 300 over 2 pairs; it
// agrees with Compare's Δcalls when the metric is calls.
func TestPairedMetric(t *testing.T) {
	ref := []results.QuestionRow{unit("base", "q1", 0, true, 4, 1), unit("base", "q2", 0, true, 4, 1), unit("base", "q3", 0, true, 4, 1)}
	cand := []results.QuestionRow{unit("x", "q2", 0, true, 9, 1), unit("x", "q1", 0, true, 5, 1)}
	ref[0].WallMS, ref[1].WallMS, cand[1].WallMS, cand[0].WallMS = 1000, 2000, 1500, 2100
	e, n := PairedMetric(ref, cand, func(r *results.QuestionRow) float64 { return r.WallMS }, Bootstrap{Reps: 100})
	if n != 2 || e.Value != 300 || !e.Boot.Defined() {
		t.Errorf("PairedMetric = %+v, %d", e, n)
	}
	calls, _ := PairedMetric(ref, cand, func(r *results.QuestionRow) float64 { return float64(r.Calls) }, Bootstrap{Seed: 4, Reps: 100})
	if c := Compare(ref, cand, Bootstrap{Seed: 4, Reps: 100}); calls != c.Calls {
		t.Errorf("PairedMetric(calls) %+v, Compare %+v", calls, c.Calls)
	}
}

// Arms are merged in the Holm family because their configurations are
// equivalent, never because their outcomes happened to match (issue 24,
// item 5): an arm relabelled with other components but the same outcomes
// as c4 is a hypothesis of its own, and the family keeps every arm compared,
// one without pairs included.
func TestHolmFamilyFixedByDesign(t *testing.T) {
	p := func(f [5]bool, qe float64) float64 { return 0.5 + qe + 0.08*b2f(f[1]) - 0.03*b2f(f[3]) }
	rows := synthRows(presetArms(), 300, 1, 7, p)
	var twin []results.QuestionRow
	for _, r := range rows {
		if r.Arm == "c4" {
			r.Arm, r.Turns = "twin", r.Turns+1
			twin = append(twin, r)
		}
	}
	rows = append(rows, twin...)
	if got := SameConfigGroups([][]results.QuestionRow{armRows(rows, "c4"), armRows(rows, "twin")}); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("same outcomes, other config: groups %v, want [0 1]", got)
	}
	cs := CompareToReference(rows, "base", Bootstrap{Seed: 1, Reps: 200})
	var ps []float64
	var c4, tw Comparison
	for _, c := range cs {
		if c.Candidate != "c7" { // c7 is c5's configuration: one hypothesis
			ps = append(ps, c.Accuracy.McNemarP)
		}
		switch c.Candidate {
		case "c4":
			c4 = c
		case "twin":
			tw = c
		}
	}
	if len(ps) != 8 || tw.IdenticalTo != "" || c4.HolmP != tw.HolmP {
		t.Fatalf("family %d (want 8), twin %+v", len(ps), tw)
	}
	h := Holm(ps)
	if c4.HolmP != h[3] {
		t.Errorf("c4 HolmP %v, want %v (a family of 8)", c4.HolmP, h[3])
	}
	// A member that could not be tested still counts.
	if got := HolmFamily([]float64{0.01, math.NaN(), 0.04}, 3); !near(got[0], 0.03, 1e-15) || !math.IsNaN(got[1]) || !near(got[2], 0.08, 1e-15) {
		t.Errorf("HolmFamily = %v, want [0.03 NaN 0.08]", got)
	}
	if got := HolmGrouped([]float64{0.01, math.NaN(), 0.04}, []int{0, 1, 2}); !near(got[0], 0.03, 1e-15) {
		t.Errorf("HolmGrouped with an untestable member = %v, want 0.03 first", got)
	}
}
