package stats

import (
	"math"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// By hand, 3 equal-mass bins of 6 items: sorted (0.3,✗) (0.6,✗) (0.6,✓)
// (0.8,✗) (0.9,✓) (0.9,✓). The first boundary (after rank 2) would split
// the 0.6 tie, so bin 1 = {0.3, 0.6, 0.6}: conf 0.5, acc 1/3; bin 2 = {0.8}:
// conf 0.8, acc 0; bin 3 = {0.9, 0.9}: conf 0.9, acc 1.
// ECE = (3/6)(1/6) + (1/6)(0.8) + (2/6)(0.1) = 0.25.
// Brier = (0.01 + 0.01 + 0.64 + 0.16 + 0.36 + 0.09)/6 = 1.27/6.
func TestCalibrateHand(t *testing.T) {
	conf := []float64{0.9, 0.9, 0.8, 0.6, 0.6, 0.3, -1, math.NaN()}
	y := []bool{true, true, false, true, false, false, true, false}
	got := Calibrate(conf, y, 3)
	if got.N != 6 || got.NoConfidence != 2 || !near(got.ECE, 0.25, 1e-12) || !near(got.Brier, 1.27/6, 1e-12) {
		t.Errorf("Calibrate = %+v", got)
	}
	want := []ReliabilityBin{
		{N: 3, ConfLo: 0.3, ConfHi: 0.6, Confidence: 0.5, Accuracy: 1.0 / 3},
		{N: 1, ConfLo: 0.8, ConfHi: 0.8, Confidence: 0.8, Accuracy: 0},
		{N: 2, ConfLo: 0.9, ConfHi: 0.9, Confidence: 0.9, Accuracy: 1},
	}
	if len(got.Bins) != len(want) {
		t.Fatalf("bins = %+v", got.Bins)
	}
	for i, w := range want {
		b := got.Bins[i]
		if b.N != w.N || b.ConfLo != w.ConfLo || b.ConfHi != w.ConfHi || !near(b.Confidence, w.Confidence, 1e-12) || !near(b.Accuracy, w.Accuracy, 1e-12) {
			t.Errorf("bin %d = %+v, want %+v", i, b, w)
		}
		if ci := Wilson(int(math.Round(w.Accuracy*float64(w.N))), w.N, 0); b.CI != ci {
			t.Errorf("bin %d CI = %v, want %v", i, b.CI, ci)
		}
	}
	// Order does not matter.
	rev := Calibrate([]float64{0.3, 0.6, 0.6, 0.8, 0.9, 0.9}, []bool{false, true, false, false, true, true}, 3)
	if rev.ECE != got.ECE || rev.Brier != got.Brier {
		t.Errorf("reordered: %+v vs %+v", rev, got)
	}
}

// Perfect calibration: 10 bins of 10 items at confidence c = 0.1, 0.2, …,
// 1.0 with k = 10c of each bin's 10 correct: ECE 0, and
// Brier = Σ_c [k(1−c)² + (10−k)c²]/100 = Σ_c c(1−c)/10.
func TestCalibratePerfect(t *testing.T) {
	var conf []float64
	var y []bool
	brier := 0.0
	for b := 1; b <= 10; b++ {
		c := float64(b) / 10
		for i := range 10 {
			conf, y = append(conf, c), append(y, i < b)
		}
		brier += c * (1 - c) / 10
	}
	got := Calibrate(conf, y, 0)
	if len(got.Bins) != 10 || !near(got.ECE, 0, 1e-12) || !near(got.Brier, brier, 1e-12) {
		t.Errorf("Calibrate = ECE %v Brier %v (want %v) bins %d", got.ECE, got.Brier, brier, len(got.Bins))
	}
	// One confidence value → one bin; ECE = |acc − conf| = |0.5 − 0.8|.
	one := Calibrate([]float64{0.8, 0.8, 0.8, 0.8}, []bool{true, false, true, false}, 10)
	if len(one.Bins) != 1 || !near(one.ECE, 0.3, 1e-12) {
		t.Errorf("one value: %+v", one)
	}
	// Fewer items than bins: one item per bin.
	few := Calibrate([]float64{0.2, 0.7}, []bool{false, true}, 10)
	if len(few.Bins) != 2 || !near(few.ECE, 0.25, 1e-12) {
		t.Errorf("few: %+v", few)
	}
	if e := Calibrate(nil, nil, 0); e.N != 0 || !math.IsNaN(e.ECE) || !math.IsNaN(e.Brier) {
		t.Errorf("empty: %+v", e)
	}
}

func TestCalibrationOfRows(t *testing.T) {
	rows := []results.QuestionRow{
		{QuestionID: "a", Correct: true, ConfidenceMean: 0.9},
		{QuestionID: "b", Correct: false, ConfidenceMean: 0.9},
		{QuestionID: "c", Abstained: true, ConfidenceMean: 0.4},
		{QuestionID: "d", Error: "boom", ErrorClass: "timeout", ConfidenceMean: -1},
		{QuestionID: "e", Correct: true, ConfidenceMean: -1},
	}
	got := CalibrationOf(rows, 0)
	if got.N != 2 || got.Unanswered != 2 || got.NoConfidence != 1 || !near(got.ECE, 0.4, 1e-12) || !near(got.Brier, (0.01+0.81)/2, 1e-12) {
		t.Errorf("CalibrationOf = %+v", got)
	}
}

// Risk–coverage by hand: answered items (0.9,✓) (0.8,✗) (0.8,✓) (0.5,✗)
// plus one without confidence, of 6 rows. Points after each tie run:
// k=1 risk 0, k=3 risk 1/3, k=4 risk 1/2. AURC = (0 + 2·1/3 + 1/2)/4 =
// 7/24; Area = 7/6 / 6 = 7/36.
func TestRiskCoverageHand(t *testing.T) {
	got := RiskCoverageCurve([]float64{0.8, 0.9, 0.5, 0.8, -1}, []bool{false, true, false, true, true}, 6)
	want := []RCPoint{{0.9, 1, 1.0 / 6, 0}, {0.8, 3, 0.5, 1.0 / 3}, {0.5, 4, 4.0 / 6, 0.5}}
	if got.Ranked != 4 || got.NoConfidence != 1 || got.Total != 6 || len(got.Points) != 3 {
		t.Fatalf("RiskCoverageCurve = %+v", got)
	}
	for i, w := range want {
		p := got.Points[i]
		if p.Threshold != w.Threshold || p.Answered != w.Answered || !near(p.Coverage, w.Coverage, 1e-12) || !near(p.Risk, w.Risk, 1e-12) {
			t.Errorf("point %d = %+v, want %+v", i, p, w)
		}
	}
	if !near(got.AURC, 7.0/24, 1e-12) || !near(got.Area, 7.0/36, 1e-12) {
		t.Errorf("AURC = %v, Area = %v", got.AURC, got.Area)
	}
	// Geifman et al. (2019) AURC without ties: risks 1, 1/2, 1/3 → 11/18.
	g := RiskCoverageCurve([]float64{0.9, 0.7, 0.5}, []bool{false, true, true}, 0)
	if !near(g.AURC, 11.0/18, 1e-12) || g.Area != g.AURC {
		t.Errorf("Geifman case: %+v", g)
	}
	// A perfect ranking (all right before all wrong) beats its reverse.
	good := RiskCoverageCurve([]float64{0.9, 0.8, 0.2, 0.1}, []bool{true, true, false, false}, 4)
	bad := RiskCoverageCurve([]float64{0.9, 0.8, 0.2, 0.1}, []bool{false, false, true, true}, 4)
	if !(good.AURC < bad.AURC) {
		t.Errorf("good %v, bad %v", good.AURC, bad.AURC)
	}
	if e := RiskCoverageCurve(nil, nil, 3); !math.IsNaN(e.AURC) || e.Total != 3 {
		t.Errorf("empty = %+v", e)
	}
}

func TestRiskCoverageOf(t *testing.T) {
	rows := []results.QuestionRow{
		{Correct: true, ConfidenceMean: 0.9},
		{Correct: false, ConfidenceMean: 0.6},
		{Abstained: true, ConfidenceMean: 0.3},
		{ErrorClass: "timeout", ConfidenceMean: -1},
	}
	got := RiskCoverageOf(rows)
	if got.Total != 4 || got.Ranked != 2 || got.Points[1].Coverage != 0.5 || !near(got.AURC, 0.25, 1e-12) {
		t.Errorf("RiskCoverageOf = %+v", got)
	}
}
