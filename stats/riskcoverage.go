package stats

import (
	"cmp"
	"math"
	"slices"

	"github.com/medteam-bench/medteam/results"
)

// RCPoint is one point of a risk–coverage curve: answering only the items
// whose confidence is at least Threshold.
type RCPoint struct {
	Threshold float64
	Answered  int     // items answered at this threshold
	Coverage  float64 // Answered / Total
	Risk      float64 // selective risk: share of those answered that are wrong
}

// RiskCoverage is the risk–coverage curve of a confidence ranking.
type RiskCoverage struct {
	Total        int // coverage denominator: every row
	Ranked       int // answered items with a confidence: the curve's items
	NoConfidence int // answered items without one: not on the curve, counted
	Points       []RCPoint
	// AURC is the area under the risk–coverage curve in the sense of Geifman,
	// Uziel & El-Yaniv (2019, "Bias-Reduced Uncertainty Estimation for Deep
	// Neural Classifiers", ICLR): the mean selective risk over the Ranked
	// coverage levels, (1/n)·Σ_{k=1..n} risk(k) with n = Ranked — the area on
	// a coverage axis k/n. Lower is better. NaN when Ranked = 0.
	AURC float64
	// Area is the area under the plotted curve, whose coverage axis is
	// k/Total: AURC·Ranked/Total.
	Area float64
}

// RiskCoverageCurve builds the risk–coverage curve (El-Yaniv & Wiener 2010,
// JMLR 11) of answered items with confidence conf[i] and outcome correct[i]
// (items with a negative or NaN confidence are counted in NoConfidence and
// left out); total ≥ len(conf) is the number of rows the coverage is a share
// of (pass the abstentions and failures too, so that the curve ends at the
// protocol's coverage). Items are sorted by confidence, highest first; a
// point is placed after each run of equal confidences (a threshold cannot
// split a tie), at coverage k/total with selective risk (wrong among the top
// k)/k. In AURC every k of a tied run takes the run's risk. It panics when
// the slices differ in length.
func RiskCoverageCurve(conf []float64, correct []bool, total int) RiskCoverage {
	if len(conf) != len(correct) {
		panic("stats: RiskCoverageCurve: conf and correct differ in length")
	}
	type item struct {
		c float64
		y bool
	}
	var items []item
	rc := RiskCoverage{Total: max(total, len(conf)), AURC: math.NaN(), Area: math.NaN()}
	for i, c := range conf {
		if math.IsNaN(c) || c < 0 {
			rc.NoConfidence++
			continue
		}
		items = append(items, item{c, correct[i]})
	}
	slices.SortFunc(items, func(a, b item) int { return cmp.Compare(b.c, a.c) })
	rc.Ranked = len(items)
	if rc.Ranked == 0 {
		return rc
	}
	wrong, area := 0, 0.0
	for k, it := range items {
		if !it.y {
			wrong++
		}
		if k+1 < len(items) && items[k+1].c == it.c {
			continue
		}
		risk := float64(wrong) / float64(k+1)
		prev := 0
		if n := len(rc.Points); n > 0 {
			prev = rc.Points[n-1].Answered
		}
		area += risk * float64(k+1-prev)
		rc.Points = append(rc.Points, RCPoint{Threshold: it.c, Answered: k + 1, Coverage: float64(k+1) / float64(rc.Total), Risk: risk})
	}
	rc.AURC = area / float64(rc.Ranked)
	rc.Area = area / float64(rc.Total)
	return rc
}

// RiskCoverageOf is RiskCoverageCurve over the answered rows (not abstained,
// not failed) ranked by ConfidenceMean, with every row in the coverage
// denominator.
func RiskCoverageOf(rows []results.QuestionRow) RiskCoverage {
	return riskCoverageIdx(rows, seq(len(rows)))
}

func riskCoverageIdx(rows []results.QuestionRow, idx []int) RiskCoverage {
	var conf []float64
	var y []bool
	for _, i := range idx {
		if r := &rows[i]; answered(r) {
			conf, y = append(conf, r.ConfidenceMean), append(y, r.Correct)
		}
	}
	return RiskCoverageCurve(conf, y, len(idx))
}
