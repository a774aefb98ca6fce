package stats

import (
	"cmp"
	"math"
	"slices"

	"github.com/medteam-bench/medteam/results"
)

// DefaultBins is the number of equal-mass calibration bins used when a
// caller passes 0.
const DefaultBins = 10

// ReliabilityBin is one point of a reliability diagram.
type ReliabilityBin struct {
	N              int
	ConfLo, ConfHi float64  // smallest and largest confidence in the bin
	Confidence     float64  // mean stated confidence
	Accuracy       float64  // share correct
	CI             Interval // Wilson 95% interval of Accuracy
}

// Calibration is how well stated confidence matches accuracy.
type Calibration struct {
	N            int // items with a confidence: the calibration's denominator
	NoConfidence int // items without one (negative or NaN confidence): excluded, counted
	Unanswered   int // rows without an answer (abstained, failed): excluded, counted (CalibrationOf)
	ECE          float64
	Brier        float64
	Bins         []ReliabilityBin
}

// Calibrate measures the calibration of confidences conf[i] ∈ [0, 1] against
// outcomes correct[i]; items with a negative or NaN confidence are excluded
// and counted in NoConfidence.
//
// Brier score (Brier 1950, Monthly Weather Review 78:1–3):
// (1/N)·Σᵢ (confᵢ − yᵢ)², yᵢ ∈ {0, 1}.
//
// Expected calibration error (Naeini, Cooper & Hauskrecht 2015, AAAI; Guo
// et al. 2017, ICML, eq. 3) over bins B_k: Σ_k (|B_k|/N)·|acc(B_k) −
// conf(B_k)|. The bins have equal mass (Nixon et al. 2019, "Measuring
// Calibration in Deep Learning", CVPR workshops; Roelofs et al. 2022,
// AISTATS): items sorted by confidence, bin k ideally holding ranks
// ⌊kN/K⌋ … ⌊(k+1)N/K⌋ − 1 of K = bins (0 = DefaultBins = 10) bins. Stated
// confidences are few distinct values, so a boundary that would split a run
// of equal confidences moves to the end of the run: equal confidences share
// a bin, the result does not depend on the rows' order, and there may be
// fewer than K bins (one per distinct value at most). Empty: N = 0, ECE and
// Brier NaN. It panics when the slices differ in length.
func Calibrate(conf []float64, correct []bool, bins int) Calibration {
	if len(conf) != len(correct) {
		panic("stats: Calibrate: conf and correct differ in length")
	}
	if bins <= 0 {
		bins = DefaultBins
	}
	type item struct {
		c float64
		y bool
	}
	items := make([]item, 0, len(conf))
	var out Calibration
	for i, c := range conf {
		if math.IsNaN(c) || c < 0 {
			out.NoConfidence++
			continue
		}
		items = append(items, item{c, correct[i]})
	}
	slices.SortFunc(items, func(a, b item) int { return cmp.Or(cmp.Compare(a.c, b.c), cmp.Compare(b2f(a.y), b2f(b.y))) })
	out.N = len(items)
	out.ECE, out.Brier = math.NaN(), math.NaN()
	if out.N == 0 {
		return out
	}
	cs, ys := make([]float64, out.N), make([]bool, out.N)
	brier := 0.0
	for i, it := range items {
		cs[i], ys[i] = it.c, it.y
		brier += (it.c - b2f(it.y)) * (it.c - b2f(it.y))
	}
	out.Brier = brier / float64(out.N)
	out.Bins = equalMassBins(cs, ys, bins)
	out.ECE = 0
	for _, b := range out.Bins {
		out.ECE += float64(b.N) / float64(out.N) * math.Abs(b.Accuracy-b.Confidence)
	}
	return out
}

// equalMassBins bins sorted confidences (see Calibrate).
func equalMassBins(cs []float64, ys []bool, k int) []ReliabilityBin {
	n := len(cs)
	var out []ReliabilityBin
	start := 0
	for b := 0; b < k && start < n; b++ {
		end := (b + 1) * n / k
		if end <= start {
			continue
		}
		for end < n && cs[end] == cs[end-1] {
			end++
		}
		out = append(out, reliabilityBin(cs[start:end], ys[start:end]))
		start = end
	}
	return out
}

// reliabilityBin summarises one bin.
func reliabilityBin(cs []float64, ys []bool) ReliabilityBin {
	b := ReliabilityBin{N: len(cs), ConfLo: cs[0], ConfHi: cs[len(cs)-1]}
	k := 0
	for i, c := range cs {
		b.Confidence += c
		k += int(b2f(ys[i]))
	}
	b.Confidence /= float64(b.N)
	b.Accuracy = float64(k) / float64(b.N)
	b.CI = Wilson(k, b.N, 0)
	return b
}

// CalibrationOf is Calibrate over the answered rows (not abstained, not
// failed) of rows, with ConfidenceMean as the team's confidence (−1 = none,
// counted in NoConfidence); unanswered rows are counted in Unanswered.
func CalibrationOf(rows []results.QuestionRow, bins int) Calibration {
	idx := seq(len(rows))
	return calibrationIdx(rows, idx, bins)
}

func calibrationIdx(rows []results.QuestionRow, idx []int, bins int) Calibration {
	conf := make([]float64, 0, len(idx))
	y := make([]bool, 0, len(idx))
	skipped := 0
	for _, i := range idx {
		r := &rows[i]
		if !answered(r) {
			skipped++
			continue
		}
		conf, y = append(conf, r.ConfidenceMean), append(y, r.Correct)
	}
	c := Calibrate(conf, y, bins)
	c.Unanswered = skipped
	return c
}
