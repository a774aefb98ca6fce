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
	CI             Interval // design-effect-corrected Wilson 95% interval of Accuracy (ClusteredWilson)
}

// Calibration is how well stated confidence matches accuracy.
type Calibration struct {
	N            int // items with a confidence: the calibration's denominator
	NoConfidence int // items without one (negative or NaN confidence): excluded, counted
	Unanswered   int // rows without an answer (abstained, failed): excluded, counted (CalibrationOf)
	ECE          float64
	Brier        float64
	// ECECI is the question-bootstrap percentile interval of ECE, the bin
	// edges fixed at the sample's; BrierCI is Brier ± t_{G−1}·SE_CR1
	// (ClusteredMean of the squared errors), clamped to [0, 1]. Both NaN
	// with fewer than 2 questions.
	ECECI, BrierCI Interval
	// ECEDebiased is Kumar et al.'s (2019) debiased ℓ2 calibration error
	// over the same bins, √max(0, ECE₂²) (debiasedECE2): the plug-in ECE
	// is biased up (about 0.03 for a perfectly calibrated model at 500
	// questions), this one is not on the squared scale. ECEDebiasedCI is
	// its bias-corrected question-bootstrap interval (debiasedECE), whose
	// coverage a simulation test measures.
	ECEDebiased   float64
	ECEDebiasedCI Interval
	Bins          []ReliabilityBin
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
	return CalibrateClustered(conf, correct, seq(len(conf)), bins, Bootstrap{})
}

// CalibrateClustered is Calibrate with the items in question clusters
// (cluster[i] is item i's question): every interval treats a question's
// rows as one draw. A bin's interval is ClusteredWilson's; Brier's is
// ClusteredMean's t interval of the squared errors; ECE's is the
// percentile interval of opt's question bootstrap (BootstrapMeans' draws):
// each replicate draws the G questions with replacement and recomputes
//
//	ECE* = Σ_k |Σ_{i∈B_k} (yᵢ − confᵢ)| / N*
//
// over the bins B_k fixed at the sample's edges (an equal-mass re-binning
// of each replicate would move the edges with the draw). It panics when
// the slices differ in length.
func CalibrateClustered[K comparable](conf []float64, correct []bool, cluster []K, bins int, opt Bootstrap) Calibration {
	if len(conf) != len(correct) || len(conf) != len(cluster) {
		panic("stats: Calibrate: conf, correct and cluster differ in length")
	}
	if bins <= 0 {
		bins = DefaultBins
	}
	cidx, _ := denseIndex(cluster)
	type item struct {
		c  float64
		y  bool
		cl int
	}
	items := make([]item, 0, len(conf))
	var out Calibration
	for i, c := range conf {
		if math.IsNaN(c) || c < 0 {
			out.NoConfidence++
			continue
		}
		items = append(items, item{c, correct[i], cidx[i]})
	}
	slices.SortFunc(items, func(a, b item) int {
		return cmp.Or(cmp.Compare(a.c, b.c), cmp.Compare(b2f(a.y), b2f(b.y)), cmp.Compare(a.cl, b.cl))
	})
	out.N = len(items)
	out.ECE, out.Brier, out.ECEDebiased = math.NaN(), math.NaN(), math.NaN()
	out.ECECI, out.BrierCI, out.ECEDebiasedCI = nanInterval(), nanInterval(), nanInterval()
	if out.N == 0 {
		return out
	}
	cs, ys, cl := make([]float64, out.N), make([]bool, out.N), make([]int, out.N)
	sq := make([]float64, out.N)
	for i, it := range items {
		cs[i], ys[i], cl[i] = it.c, it.y, it.cl
		sq[i] = (it.c - b2f(it.y)) * (it.c - b2f(it.y))
	}
	dcl, g := denseIndex(cl)
	bm := ClusterMean{N: out.N, Clusters: g}
	bm.Mean, bm.SE = clusteredSE(sq, dcl, g)
	out.Brier, out.BrierCI = bm.Mean, bm.CI(opt.Level, 0, 1)
	var edges []int
	out.Bins, edges = equalMassBins(cs, ys, dcl, bins, opt.Level)
	out.ECE = 0
	for _, b := range out.Bins {
		out.ECE += float64(b.N) / float64(out.N) * math.Abs(b.Accuracy-b.Confidence)
	}
	out.ECECI = eceBootstrap(cs, ys, dcl, g, edges, opt)
	out.ECEDebiased, out.ECEDebiasedCI = debiasedECE(cs, ys, dcl, g, edges, opt)
	return out
}

// eceBootstrap is CalibrateClustered's ECE interval: items sorted, bin b
// holding items edges[b] … edges[b+1] − 1, cl their dense questions.
func eceBootstrap(cs []float64, ys []bool, cl []int, g int, edges []int, opt Bootstrap) Interval {
	if g < 2 {
		return nanInterval()
	}
	// Per question: its bins' sums of (y − conf), and its size.
	type part struct {
		bin int
		d   float64
	}
	parts := make([][]part, g)
	size := make([]float64, g)
	for b := 0; b+1 < len(edges); b++ {
		for i := edges[b]; i < edges[b+1]; i++ {
			k := cl[i]
			size[k]++
			ps := parts[k]
			if n := len(ps); n > 0 && ps[n-1].bin == b {
				ps[n-1].d += b2f(ys[i]) - cs[i]
			} else {
				ps = append(ps, part{b, b2f(ys[i]) - cs[i]})
			}
			parts[k] = ps
		}
	}
	r := opt.rng()
	nb := len(edges) - 1
	acc := make([]float64, nb)
	reps := make([]float64, 0, opt.reps())
	for range opt.reps() {
		clear(acc)
		n := 0.0
		for range g {
			k := r.IntN(g)
			n += size[k]
			for _, p := range parts[k] {
				acc[p.bin] += p.d
			}
		}
		if n == 0 {
			continue
		}
		e := 0.0
		for _, v := range acc {
			e += math.Abs(v)
		}
		reps = append(reps, e/n)
	}
	return percentile(reps, opt.Level)
}

// equalMassBins bins sorted confidences (see Calibrate), cl the items'
// dense questions; it returns the bins and their edges (bin b holds items
// edges[b] … edges[b+1] − 1).
func equalMassBins(cs []float64, ys []bool, cl []int, k int, lvl float64) ([]ReliabilityBin, []int) {
	n := len(cs)
	var out []ReliabilityBin
	edges := []int{0}
	start := 0
	for b := 0; b < k && start < n; b++ {
		end := (b + 1) * n / k
		if end <= start {
			continue
		}
		for end < n && cs[end] == cs[end-1] {
			end++
		}
		out = append(out, reliabilityBin(cs[start:end], ys[start:end], cl[start:end], lvl))
		edges = append(edges, end)
		start = end
	}
	return out, edges
}

// reliabilityBin summarises one bin.
func reliabilityBin(cs []float64, ys []bool, cl []int, lvl float64) ReliabilityBin {
	b := ReliabilityBin{N: len(cs), ConfLo: cs[0], ConfHi: cs[len(cs)-1]}
	k := 0
	for i, c := range cs {
		b.Confidence += c
		k += int(b2f(ys[i]))
	}
	b.Confidence /= float64(b.N)
	b.Accuracy = float64(k) / float64(b.N)
	b.CI = ClusteredWilson(ys, cl, lvl).CI
	return b
}

// CalibrationOf is Calibrate over the answered rows (not abstained, not
// failed) of rows, with ConfidenceMean as the team's confidence (−1 = none,
// counted in NoConfidence); unanswered rows are counted in Unanswered.
// Rows are clustered by question id (CalibrateClustered, with the default
// bootstrap seed 0).
func CalibrationOf(rows []results.QuestionRow, bins int) Calibration {
	idx := seq(len(rows))
	return calibrationIdx(rows, idx, bins, Bootstrap{})
}

func calibrationIdx(rows []results.QuestionRow, idx []int, bins int, opt Bootstrap) Calibration {
	conf := make([]float64, 0, len(idx))
	y := make([]bool, 0, len(idx))
	var q []string
	skipped := 0
	for _, i := range idx {
		r := &rows[i]
		if !answered(r) {
			skipped++
			continue
		}
		conf, y, q = append(conf, r.ConfidenceMean), append(y, r.Correct), append(q, r.QuestionID)
	}
	c := CalibrateClustered(conf, y, q, bins, opt)
	c.Unanswered = skipped
	return c
}
