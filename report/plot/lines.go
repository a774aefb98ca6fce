package plot

import (
	"fmt"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// ReliabilityBin is one confidence bin: the mean stated confidence of its
// answers, their accuracy with a 95% interval (fractions) and how many
// answers fell in it.
type ReliabilityBin struct {
	MeanConfidence, Accuracy float64
	Count                    int
	Lo, Hi                   float64
}

// ReliabilitySeries is one arm's bins. Reference marks the arm the others
// are compared with (drawn in every panel of small multiples); Reason says
// why an arm has no bins (default "no stated confidence").
type ReliabilitySeries struct {
	Name      string
	Bins      []ReliabilityBin
	Reference bool
	Reason    string
}

// Reliability draws a reliability diagram: accuracy against mean stated
// confidence per bin, one line per series, 95% intervals as whiskers,
// glyph area growing with the bin's count, and the diagonal of perfect
// calibration.
func ReliabilityFigure(series []ReliabilitySeries) Figure {
	maxCount := 0
	for _, s := range series {
		for _, b := range s.Bins {
			maxCount = max(maxCount, b.Count)
		}
	}
	f := seriesFigure{
		kind: KindReliability, what: "Reliability diagram",
		aria:   fmt.Sprintf("Reliability diagram of %d arms: accuracy against stated confidence", len(series)),
		xLabel: "mean stated confidence (%)", yLabel: "accuracy (%)",
		xFix: span{0, 100, true}, yFix: span{0, 100, true},
		extra:  []gplot.Plotter{refLine(xy{0, 0}, xy{100, 100})},
		height: 5 * vg.Inch,
	}
	for _, s := range series {
		ls := lineSeries{name: s.Name, ref: s.Reference, reason: orDefault(s.Reason, "no stated confidence")}
		for _, b := range s.Bins {
			if !ok(b.MeanConfidence, b.Accuracy) {
				continue
			}
			q := seriesPoint{x: pct(b.MeanConfidence), y: pct(b.Accuracy), r: countRadius(b.Count, maxCount)}
			q.lo, q.hi, q.ci = ci(b.Lo, b.Hi)
			ls.pts = append(ls.pts, q)
		}
		f.series = append(f.series, ls)
	}
	return f.figure()
}

// Reliability is ReliabilityFigure drawn as SVG.
func Reliability(series []ReliabilitySeries) ([]byte, error) { return ReliabilityFigure(series).SVG() }

// countRadius grows a glyph's area with count: 2.5 to 6 points.
func countRadius(count, maxCount int) vg.Length {
	if count <= 0 || maxCount <= 0 {
		return 2.5
	}
	return vg.Length(2.5 + 3.5*math.Sqrt(float64(count)/float64(maxCount)))
}

// ci turns a fraction interval into percent, ordered, or reports it missing.
func ci(lo, hi float64) (float64, float64, bool) {
	if !ok(lo, hi) {
		return 0, 0, false
	}
	return pct(math.Min(lo, hi)), pct(math.Max(lo, hi)), true
}

// RoundPoint is the mean agreement of a team after one round (fraction of
// members on the majority answer, say) with a 95% interval.
type RoundPoint struct {
	Round        int
	Mean, Lo, Hi float64
}

// AgreementSeries is one arm's agreement by round; Reference and Reason
// as for ReliabilitySeries (default reason "no rounds").
type AgreementSeries struct {
	Name      string
	Points    []RoundPoint
	Reference bool
	Reason    string
}

// AgreementByRound draws mean agreement against round, one line per arm,
// with 95% intervals. Arms are nudged apart sideways so that their
// whiskers do not hide each other.
func AgreementByRoundFigure(series []AgreementSeries) Figure {
	f := seriesFigure{
		kind: KindAgreement, what: "Agreement by round",
		aria:   fmt.Sprintf("Mean agreement by debate round for %d arms", len(series)),
		xLabel: "round", yLabel: "agreement (%)",
		yFix: span{lo: 0, hi: 100, any: true},
	}
	rounds := map[int]bool{}
	k := float64(len(series))
	for i, s := range series {
		ls := lineSeries{name: s.Name, ref: s.Reference, reason: orDefault(s.Reason, "no rounds")}
		nudge := 0.0
		if k <= MaxOverlaid {
			nudge = (float64(i) - (k-1)/2) * math.Min(0.06, 0.3/k)
		}
		for _, r := range s.Points {
			if !ok(r.Mean) {
				continue
			}
			rounds[r.Round] = true
			q := seriesPoint{x: float64(r.Round) + nudge, y: pct(r.Mean)}
			q.lo, q.hi, q.ci = ci(r.Lo, r.Hi)
			ls.pts = append(ls.pts, q)
		}
		f.series = append(f.series, ls)
	}
	f.xTicks = roundTicks(rounds)
	return f.figure()
}

// AgreementByRound is AgreementByRoundFigure drawn as SVG.
func AgreementByRound(series []AgreementSeries) ([]byte, error) {
	return AgreementByRoundFigure(series).SVG()
}

// roundTicks labels every round when there are few, else leaves it to
// niceTicks.
func roundTicks(rounds map[int]bool) gplot.Ticker {
	if len(rounds) == 0 || len(rounds) > 20 {
		return nil
	}
	lo, hi := math.MaxInt, math.MinInt
	for r := range rounds {
		lo, hi = min(lo, r), max(hi, r)
	}
	if hi-lo > 20 {
		return nil
	}
	var ts gplot.ConstantTicks
	for r := lo; r <= hi; r++ {
		ts = append(ts, gplot.Tick{Value: float64(r), Label: fmt.Sprint(r)})
	}
	return ts
}

// RiskCoveragePoint is one operating point of selective answering: the
// share of questions answered and the error rate among them (fractions).
type RiskCoveragePoint struct {
	Coverage, Risk float64
}

// RiskCoverageSeries is one arm's curve; Reference and Reason as for
// ReliabilitySeries (default reason "no stated confidence").
type RiskCoverageSeries struct {
	Name      string
	Points    []RiskCoveragePoint
	Reference bool
	Reason    string
}

// RiskCoverage draws selective risk against coverage, one curve per arm,
// the points joined in order of coverage.
func RiskCoverageFigure(series []RiskCoverageSeries) Figure {
	f := seriesFigure{
		kind: KindRiskCover, what: "Risk–coverage",
		aria:   fmt.Sprintf("Risk–coverage curves for %d arms: error rate among answered questions against coverage", len(series)),
		xLabel: "coverage (% of questions answered)", yLabel: "selective risk (% wrong among answered)",
		xFix: span{0, 100, true}, yFix: span{0, 0, true},
	}
	for _, s := range series {
		ls := lineSeries{name: s.Name, ref: s.Reference, reason: orDefault(s.Reason, "no stated confidence")}
		for _, q := range s.Points {
			if ok(q.Coverage, q.Risk) {
				ls.pts = append(ls.pts, seriesPoint{x: pct(q.Coverage), y: pct(q.Risk), r: 2})
			}
		}
		f.series = append(f.series, ls)
	}
	return f.figure()
}

// RiskCoverage is RiskCoverageFigure drawn as SVG.
func RiskCoverage(series []RiskCoverageSeries) ([]byte, error) {
	return RiskCoverageFigure(series).SVG()
}

// orDefault is s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
