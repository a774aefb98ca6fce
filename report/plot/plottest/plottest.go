// Package plottest holds sample inputs for every figure of package plot, as
// a medteam report would fill them: for golden tests, for the example page
// of package htmlpage, and for trying the report end to end in a browser.
package plottest

import (
	"bytes"
	"crypto/sha256"
	"fmt"

	"github.com/medteam-bench/medteam/report/plot"
)

// Figure is one rendered sample.
type Figure struct {
	Kind    string // plot.Kind*
	Caption string
	SVG     []byte
}

// Forest is a sample forest plot: four arms against base, one flagged.
func Forest() []plot.ForestRow {
	return []plot.ForestRow{
		{Label: "full − base", Estimate: 0.034, Lo: 0.008, Hi: 0.061},
		{Label: "debate − base", Estimate: 0.012, Lo: -0.015, Hi: 0.04},
		{Label: "c5 − base", Estimate: -0.021, Lo: -0.052, Hi: 0.009},
		{Label: "c7 − base", Estimate: -0.021, Lo: -0.052, Hi: 0.009, Flag: "identical to c5"},
		{Label: "vote-only, self-consistency with 9 samples − base", Estimate: 0.027, Lo: 0.002, Hi: 0.052},
	}
}

// Frontier is a sample cost–accuracy plane.
func Frontier() []plot.CostPoint {
	return []plot.CostPoint{
		{Label: "base", Cost: 1, Accuracy: 0.612, Lo: 0.585, Hi: 0.638},
		{Label: "vote", Cost: 5, Accuracy: 0.641, Lo: 0.615, Hi: 0.667},
		{Label: "debate", Cost: 9, Accuracy: 0.624, Lo: 0.597, Hi: 0.650},
		{Label: "full", Cost: 14, Accuracy: 0.646, Lo: 0.620, Hi: 0.672},
		{Label: "c5", Cost: 7, Accuracy: 0.591, Lo: 0.564, Hi: 0.618},
	}
}

// Reliability is a sample reliability diagram of two arms.
func Reliability() []plot.ReliabilitySeries {
	bins := func(acc []float64) []plot.ReliabilityBin {
		conf := []float64{0.35, 0.55, 0.7, 0.82, 0.93}
		counts := []int{40, 120, 260, 380, 473}
		out := make([]plot.ReliabilityBin, len(conf))
		for i := range conf {
			out[i] = plot.ReliabilityBin{MeanConfidence: conf[i], Accuracy: acc[i], Count: counts[i],
				Lo: acc[i] - 0.08 + 0.01*float64(i), Hi: acc[i] + 0.08 - 0.01*float64(i)}
		}
		return out
	}
	return []plot.ReliabilitySeries{
		{Name: "base", Bins: bins([]float64{0.30, 0.44, 0.55, 0.66, 0.80})},
		{Name: "full", Bins: bins([]float64{0.33, 0.50, 0.62, 0.74, 0.86})},
	}
}

// Agreement is a sample of agreement by round for two debating arms.
func Agreement() []plot.AgreementSeries {
	return []plot.AgreementSeries{
		{Name: "debate", Points: []plot.RoundPoint{
			{Round: 0, Mean: 0.62, Lo: 0.60, Hi: 0.64}, {Round: 1, Mean: 0.78, Lo: 0.76, Hi: 0.80},
			{Round: 2, Mean: 0.86, Lo: 0.84, Hi: 0.88}, {Round: 3, Mean: 0.89, Lo: 0.875, Hi: 0.905},
		}},
		{Name: "full", Points: []plot.RoundPoint{
			{Round: 0, Mean: 0.60, Lo: 0.58, Hi: 0.62}, {Round: 1, Mean: 0.74, Lo: 0.72, Hi: 0.76},
			{Round: 2, Mean: 0.83, Lo: 0.81, Hi: 0.85},
		}},
	}
}

// RiskCoverage is a sample of two risk–coverage curves.
func RiskCoverage() []plot.RiskCoverageSeries {
	curve := func(scale float64) []plot.RiskCoveragePoint {
		var pts []plot.RiskCoveragePoint
		for i := 1; i <= 20; i++ {
			c := float64(i) / 20
			pts = append(pts, plot.RiskCoveragePoint{Coverage: c, Risk: scale * (0.05 + 0.4*c*c)})
		}
		return pts
	}
	return []plot.RiskCoverageSeries{{Name: "base", Points: curve(1)}, {Name: "full", Points: curve(0.85)}}
}

// Subjects is a sample per-subject breakdown: 8 subjects, 3 arms.
func Subjects() []plot.SubjectCell {
	subjects := []string{"Pharmacology", "Internal medicine", "Pediatrics", "Surgery",
		"Obstetrics & gynecology", "Psychiatry", "Microbiology", "Biochemistry"}
	arms := []string{"base", "debate", "full"}
	var cells []plot.SubjectCell
	for i, s := range subjects {
		for k, a := range arms {
			acc := 0.5 + 0.03*float64((i*7+k*3)%9)
			cells = append(cells, plot.SubjectCell{Subject: s, Arm: a, Count: 200 - 20*i,
				Accuracy: acc, Lo: acc - 0.07, Hi: acc + 0.07})
		}
	}
	return cells
}

// Confusion is a sample triage confusion matrix (five levels, most urgent
// first).
func Confusion() plot.Confusion {
	return plot.Confusion{
		Labels: []string{"emergency", "urgent", "semi-urgent", "non-urgent", "self-care"},
		Counts: [][]int{
			{41, 7, 2, 0, 0},
			{6, 52, 11, 1, 0},
			{1, 9, 47, 8, 2},
			{0, 2, 10, 38, 6},
			{0, 0, 1, 7, 29},
		},
	}
}

// All renders every sample, in the order of a report.
func All() ([]Figure, error) {
	type job struct {
		kind, caption string
		draw          func() ([]byte, error)
	}
	jobs := []job{
		{plot.KindForest, "Paired difference in accuracy against base, with 95% bootstrap intervals.",
			func() ([]byte, error) { return plot.Forest(Forest()) }},
		{plot.KindFrontier, "Accuracy against model calls per question; the line is the Pareto frontier.",
			func() ([]byte, error) { return plot.CostAccuracy("model calls per question", Frontier()) }},
		{plot.KindReliability, "Reliability of the team's stated confidence (equal-mass bins).",
			func() ([]byte, error) { return plot.Reliability(Reliability()) }},
		{plot.KindAgreement, "Agreement among members by debate round.",
			func() ([]byte, error) { return plot.AgreementByRound(Agreement()) }},
		{plot.KindRiskCover, "Selective risk against coverage.",
			func() ([]byte, error) { return plot.RiskCoverage(RiskCoverage()) }},
		{plot.KindSubjects, "Accuracy by subject.",
			func() ([]byte, error) { return plot.SubjectBreakdown(Subjects()) }},
		{plot.KindConfusion, "Triage: reference level by predicted level.",
			func() ([]byte, error) { return plot.ConfusionMatrix(Confusion()) }},
	}
	out := make([]Figure, 0, len(jobs))
	for _, j := range jobs {
		svg, err := j.draw()
		if err != nil {
			return nil, err
		}
		out = append(out, Figure{Kind: j.kind, Caption: j.caption, SVG: svg})
	}
	return out, nil
}

// Normalize replaces every base64 payload of a data: URL (the embedded
// fonts, half a megabyte each) by a short digest of it, so that golden files
// stay small and still change when the payload does.
func Normalize(svg []byte) []byte {
	const marker = "base64,"
	var out bytes.Buffer
	rest := svg
	for {
		i := bytes.Index(rest, []byte(marker))
		if i < 0 {
			out.Write(rest)
			return out.Bytes()
		}
		i += len(marker)
		out.Write(rest[:i])
		j := i
		for j < len(rest) && isBase64(rest[j]) {
			j++
		}
		sum := sha256.Sum256(rest[i:j])
		fmt.Fprintf(&out, "[%d bytes, sha256 %x]", j-i, sum[:8])
		rest = rest[j:]
	}
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}
