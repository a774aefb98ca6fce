package plottest

import (
	"github.com/medteam-bench/medteam/report/plot"
)

// Glyphs are the non-ASCII characters the report's labels use; the
// samples of Unicode put every one of them in some label of every figure.
const Glyphs = "Δ…±κ≥≤→–éü"

// Named is one figure with the kind it is.
type Named struct {
	Kind string
	Fig  plot.Figure
}

// Unicode draws every kind of figure with labels full of Glyphs: arms named
// with accents ("Zoë", "café ± κ"), subjects and levels with Greek letters,
// arrows, dashes and inequalities, long labels cut with an ellipsis.
func Unicode() []Named {
	arms := []string{"Zoë ≥ κ", "café → ü", "naïve ≤ 2 – Δ"}
	forest := []plot.ForestRow{
		{Label: arms[0] + " − base", Estimate: 0.03, Lo: 0.01, Hi: 0.05},
		{Label: arms[1] + " − base", Estimate: -0.02, Lo: -0.05, Hi: 0.01, Flag: "same as Zoë ± κ"},
		{Label: arms[2] + " − base, a label long enough to be cut", Estimate: 0.01, Lo: -0.01, Hi: 0.03},
	}
	var cost []plot.CostPoint
	var rel []plot.ReliabilitySeries
	var agree []plot.AgreementSeries
	var risk []plot.RiskCoverageSeries
	var pos []plot.PositionSeries
	var subjects []plot.SubjectCell
	for i, a := range arms {
		f := float64(i)
		cost = append(cost, plot.CostPoint{Label: a, Cost: 1 + 3*f, Accuracy: 0.6 + 0.05*f, Lo: 0.55 + 0.05*f, Hi: 0.65 + 0.05*f})
		rel = append(rel, plot.ReliabilitySeries{Name: a, Reference: i == 0, Bins: []plot.ReliabilityBin{
			{MeanConfidence: 0.5, Accuracy: 0.45 + 0.05*f, Count: 50, Lo: 0.35, Hi: 0.6},
			{MeanConfidence: 0.8, Accuracy: 0.7 + 0.05*f, Count: 80, Lo: 0.62, Hi: 0.85},
		}})
		agree = append(agree, plot.AgreementSeries{Name: a, Reference: i == 0, Points: []plot.RoundPoint{
			{Round: 0, Mean: 0.6, Lo: 0.55, Hi: 0.65}, {Round: 1, Mean: 0.7 + 0.05*f, Lo: 0.65, Hi: 0.8},
		}})
		risk = append(risk, plot.RiskCoverageSeries{Name: a, Reference: i == 0, Points: []plot.RiskCoveragePoint{
			{Coverage: 0.5, Risk: 0.1 + 0.02*f}, {Coverage: 1, Risk: 0.3},
		}})
		pos = append(pos, plot.PositionSeries{Name: a, Flag: "bias ≥ 5 points", Shares: []plot.PositionShare{
			{Predicted: 0.3, Lo: 0.25, Hi: 0.35, Gold: 0.25}, {Predicted: 0.2, Lo: 0.15, Hi: 0.25, Gold: 0.25},
		}})
		for k, s := range []string{"Pädiatrie – κ", "Médecine → Δ", "Chirurgie ± ≤ 3 …"} {
			subjects = append(subjects, plot.SubjectCell{Subject: s, Arm: a, Count: 40 + 10*k, Reference: i == 0,
				Accuracy: 0.6 + 0.03*f, Lo: 0.5, Hi: 0.7})
		}
	}
	conf := plot.Confusion{
		Labels:   []string{"émergence ≥ 1", "urgent – Δ", "semi → κ", "self-care ± ü…"},
		Counts:   [][]int{{5, 1, 0, 0}, {1, 6, 1, 0}, {0, 1, 7, 1}, {0, 0, 1, 8}},
		RowTitle: "référence ≤", ColTitle: "prédit →",
	}
	return []Named{
		{plot.KindForest, plot.ForestFigure(forest)},
		{plot.KindFrontier, plot.CostAccuracyFigure("calls per question (≤ 3 → cheap)", cost)},
		{plot.KindReliability, plot.ReliabilityFigure(rel)},
		{plot.KindAgreement, plot.AgreementByRoundFigure(agree)},
		{plot.KindRiskCover, plot.RiskCoverageFigure(risk)},
		{plot.KindPosition, plot.PositionBiasFigure(pos)},
		{plot.KindSubjects, plot.SubjectBreakdownFigure(subjects)},
		{plot.KindConfusion, plot.ConfusionMatrixFigure(conf)},
	}
}
