package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/medteam-bench/medteam/report/htmlpage"
	"github.com/medteam-bench/medteam/report/plot"
	"github.com/medteam-bench/medteam/stats"
)

// HTMLFile is the report page's name in a run directory.
const HTMLFile = "report.html"

// WriteHTML writes the report as one self-contained offline page: the
// sections of report.md (Sections) with their tables, and beside them the
// plots (inline SVG, fonts embedded, no script, nothing loaded from
// anywhere): the forest plot of paired differences under the comparisons,
// the cost–accuracy frontier under cost, the reliability diagram and the
// risk–coverage curve under calibration, agreement by round under
// convergence, the confusion matrix of each arm under triage, and the
// per-subject breakdown under subjects.
func WriteHTML(w io.Writer, r *Report) error {
	figs, err := figures(r)
	if err != nil {
		return err
	}
	page := htmlpage.Page{Title: htmlTitle(r), Run: runKV(r), Footer: "medteam report · SVG plots made with gonum/plot"}
	for _, s := range Sections(r) {
		// The page's text has no bold: Markdown's ** would show as is.
		hs := htmlpage.Section{Heading: s.Heading, Text: strings.ReplaceAll(s.Text, "**", ""), Figures: figs[s.ID]}
		for _, t := range s.Tables {
			hs.Tables = append(hs.Tables, htmlpage.Table{Caption: t.Caption, Header: t.Header, Rows: t.Rows})
		}
		page.Sections = append(page.Sections, hs)
	}
	return htmlpage.Write(w, page)
}

// WriteHTMLFile writes report.html into dir and returns its path.
func WriteHTMLFile(dir string, r *Report) (string, error) {
	path := filepath.Join(dir, HTMLFile)
	if err := writeFileAtomic(path, func(f *os.File) error { return WriteHTML(f, r) }); err != nil {
		return "", fmt.Errorf("report: write %s: %w", path, err)
	}
	return path, nil
}

func htmlTitle(r *Report) string {
	t := "medteam report — " + strings.Join(r.Datasets, ", ")
	if r.Simulated {
		t += " (SIMULATED)"
	}
	if len(r.NotComplete()) > 0 {
		t += " (INCOMPLETE RUN)"
	}
	return t
}

func runKV(r *Report) []htmlpage.KV {
	var runs []string
	for _, ri := range r.Runs {
		runs = append(runs, ri.Name)
	}
	var kv []htmlpage.KV
	if nc := r.NotComplete(); len(nc) > 0 {
		kv = append(kv, htmlpage.KV{Key: "INCOMPLETE", Value: strings.Join(nc, "; ") + " — the figures cover only the units done"})
	}
	kv = append(kv, []htmlpage.KV{
		{Key: "runs", Value: strings.Join(runs, ", ")},
		{Key: "models", Value: strings.Join(r.Models, ", ")},
		{Key: "arms", Value: strings.Join(r.Arms, ", ")},
		{Key: "rows", Value: fmt.Sprintf("%d question rows, %d questions", r.Rows, r.Questions)},
		{Key: "reference", Value: r.Reference},
	}...)
	if r.Simulated {
		kv = append(kv, htmlpage.KV{Key: "model results", Value: "none: the simulator's figures test the harness, they are not a model's accuracy"})
	}
	return kv
}

// figures draws every plot of the report, by the section it belongs to.
func figures(r *Report) (map[string][]htmlpage.Figure, error) {
	out := map[string][]htmlpage.Figure{}
	for _, f := range reportFigures(r) {
		svg, err := f.Fig.SVG()
		if err != nil {
			return nil, fmt.Errorf("report: %s plot: %w", f.Section, err)
		}
		out[f.Section] = append(out[f.Section], htmlpage.Figure{SVG: svg, Caption: f.Caption})
	}
	return out, nil
}

// NamedFigure is one figure of the report: the section it belongs to, a
// file name stem (e.g. "forest", "confusion-full"), its caption and the
// drawing.
type NamedFigure struct {
	Section, Name, Caption string
	Fig                    plot.Figure
}

// reportFigures is every figure of the report, in page order.
func reportFigures(r *Report) []NamedFigure {
	var out []NamedFigure
	add := func(sec, name, caption string, f plot.Figure) {
		out = append(out, NamedFigure{Section: sec, Name: name, Caption: caption, Fig: f})
	}
	label := groupLabeller(r)
	add(SecComparisons, "forest", "Paired difference in accuracy against "+r.Reference+" (percentage points) with the seeded question-bootstrap 95% interval.", plot.ForestFigure(forestRows(r)))
	costLabel, pts := costPoints(r, label)
	add(SecCost, "frontier", "Accuracy (design-effect-corrected Wilson 95% interval) against "+costLabel+"; the line is the Pareto frontier (no arm is cheaper and more accurate).", plot.CostAccuracyFigure(costLabel, pts))
	add(SecCalibration, "reliability", "Reliability diagram: accuracy against the team's stated confidence, equal-mass bins (design-effect-corrected Wilson 95% intervals); the diagonal is perfect calibration.", plot.ReliabilityFigure(reliability(r, label)))
	add(SecCalibration, "risk-coverage", "Risk–coverage: answering only the questions above a confidence threshold, the share answered against the share of those wrong.", plot.RiskCoverageFigure(riskCoverage(r, label)))
	add(SecConvergence, "agreement", "Agreement with the round's plurality by round (0 = the initial answers), with question-clustered 95% intervals.", plot.AgreementByRoundFigure(agreement(r, label)))
	triageFigures(r, label, add)
	if len(r.Position) > 0 {
		add(SecPosition, "position", "Share of answered questions predicting each option position (dots, question-clustered Wilson 95% intervals) against the share whose gold answer is at that position (gray rings); arms flagged by the Holm-adjusted goodness-of-fit test are marked.", plot.PositionBiasFigure(positionSeries(r)))
	}
	if len(r.Subjects) > 0 {
		add(SecSubjects, "subjects", "Accuracy per subject and arm (design-effect-corrected Wilson 95% intervals).", plot.SubjectBreakdownFigure(subjects(r, label)))
	}
	return out
}

// groupLabeller names a group by its arm, adding the model and dataset
// when the report has several.
func groupLabeller(r *Report) func(stats.GroupKey) string {
	return func(k stats.GroupKey) string {
		l := k.Arm
		if len(r.Models) > 1 {
			l += " · " + k.Model
		}
		if len(r.Datasets) > 1 {
			l += " · " + k.Dataset
		}
		return l
	}
}

func forestRows(r *Report) []plot.ForestRow {
	var rows []plot.ForestRow
	for _, c := range r.Comparisons {
		l := c.Candidate
		if len(r.Models) > 1 {
			l += " · " + c.Model
		}
		if len(r.Datasets) > 1 {
			l += " · " + c.Dataset
		}
		fr := plot.ForestRow{Label: l, Estimate: c.Accuracy.Delta.Value, Lo: c.Accuracy.Delta.Boot.Lo, Hi: c.Accuracy.Delta.Boot.Hi}
		if c.IdenticalTo != "" {
			fr.Flag = "same configuration as " + c.IdenticalTo
		}
		rows = append(rows, fr)
	}
	return rows
}

// costPoints are the groups' accuracy against their cost per question in
// USD when priced, else their calls per question.
func costPoints(r *Report, label func(stats.GroupKey) string) (string, []plot.CostPoint) {
	unit := "calls per question"
	if r.Priced {
		unit = "cost per question (USD)"
	}
	var pts []plot.CostPoint
	for _, g := range r.Groups {
		cost := g.Calls.Mean
		if r.Priced && g.Cost != nil {
			cost = g.Cost.PerQuestion
		}
		pts = append(pts, plot.CostPoint{Label: label(g.Key), Cost: cost, Accuracy: g.Accuracy, Lo: g.AccuracyCI.Lo, Hi: g.AccuracyCI.Hi})
	}
	return unit, pts
}

func reliability(r *Report, label func(stats.GroupKey) string) []plot.ReliabilitySeries {
	var out []plot.ReliabilitySeries
	for _, g := range r.Groups {
		s := plot.ReliabilitySeries{Name: label(g.Key), Reference: g.Key.Arm == r.Reference}
		for _, b := range g.Calibration.Bins {
			s.Bins = append(s.Bins, plot.ReliabilityBin{MeanConfidence: b.Confidence, Accuracy: b.Accuracy, Count: b.N, Lo: b.CI.Lo, Hi: b.CI.Hi})
		}
		out = append(out, s)
	}
	return out
}

func riskCoverage(r *Report, label func(stats.GroupKey) string) []plot.RiskCoverageSeries {
	var out []plot.RiskCoverageSeries
	for _, g := range r.Groups {
		s := plot.RiskCoverageSeries{Name: label(g.Key), Reference: g.Key.Arm == r.Reference}
		for _, p := range g.RiskCoverage.Points {
			s.Points = append(s.Points, plot.RiskCoveragePoint{Coverage: p.Coverage, Risk: p.Risk})
		}
		out = append(out, s)
	}
	return out
}

func agreement(r *Report, label func(stats.GroupKey) string) []plot.AgreementSeries {
	var out []plot.AgreementSeries
	for _, g := range r.Groups {
		s := plot.AgreementSeries{Name: label(g.Key), Reference: g.Key.Arm == r.Reference, Reason: "a single answer, no rounds"}
		for _, a := range g.Convergence.ByRound {
			s.Points = append(s.Points, plot.RoundPoint{Round: a.Round, Mean: a.Mean, Lo: a.CI.Lo, Hi: a.CI.Hi})
		}
		out = append(out, s)
	}
	return out
}

func subjects(r *Report, label func(stats.GroupKey) string) []plot.SubjectCell {
	var out []plot.SubjectCell
	for _, g := range r.Subjects {
		k := g.Key
		subject := k.Subject
		k.Subject = ""
		out = append(out, plot.SubjectCell{Subject: subject, Arm: label(k), Count: g.Questions, Accuracy: g.Accuracy, Lo: g.AccuracyCI.Lo, Hi: g.AccuracyCI.Hi, Reference: k.Arm == r.Reference})
	}
	return out
}

func positionSeries(r *Report) []plot.PositionSeries {
	var out []plot.PositionSeries
	for _, pb := range r.Position {
		s := plot.PositionSeries{Name: r.groupName(pb.Key)}
		if pb.Flagged {
			s.Flag = "position bias"
		}
		for k := range pb.Predicted {
			p := pb.Predicted[k]
			s.Shares = append(s.Shares, plot.PositionShare{Predicted: p.Value, Lo: p.CI.Lo, Hi: p.CI.Hi, Gold: pb.Gold[k].Value})
		}
		out = append(out, s)
	}
	return out
}
