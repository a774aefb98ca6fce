package plot

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CostPoint is one arm in the cost–accuracy plane: its cost per question
// (in the unit the caller names) and its accuracy with a 95% interval, as
// fractions.
type CostPoint struct {
	Label            string
	Cost             float64
	Accuracy, Lo, Hi float64
}

// ParetoFrontier returns the indices of the points no other point
// dominates, ordered by cost (then by accuracy, highest first, then by
// index). A point dominates another when it costs no more and is no less
// accurate, and is strictly better in one of the two. Points whose cost or
// accuracy is not a number are neither on the frontier nor dominate.
// Identical points are all on the frontier.
func ParetoFrontier(points []CostPoint) []int {
	idx := make([]int, 0, len(points))
	for i, p := range points {
		if ok(p.Cost, p.Accuracy) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		pa, pb := points[idx[a]], points[idx[b]]
		if pa.Cost != pb.Cost {
			return pa.Cost < pb.Cost
		}
		return pa.Accuracy > pb.Accuracy
	})
	var out []int
	best := math.Inf(-1)
	for _, i := range idx {
		p := points[i]
		tied := len(out) > 0 && sameAs(points[out[len(out)-1]], p)
		if p.Accuracy > best || tied {
			out = append(out, i)
			best = math.Max(best, p.Accuracy)
		}
	}
	return out
}

func sameAs(a, b CostPoint) bool { return a.Cost == b.Cost && a.Accuracy == b.Accuracy }

// CostAccuracy draws each arm's accuracy (with its 95% interval) against its
// cost per question, labels the points, and draws the Pareto frontier as a
// step line through the non-dominated points, ending at the last of them
// (filled; dominated points are hollow). Labels are placed by a collision
// pass (placeLabels) clear of each other and of the points, with a leader
// line when they sit away from their point. costLabel names the x axis, e.g. "calls per question".
func CostAccuracyFigure(costLabel string, points []CostPoint) Figure {
	valid := 0
	for _, p := range points {
		if ok(p.Cost, p.Accuracy) {
			valid++
		}
	}
	if valid == 0 {
		return noDataFigure(KindFrontier, "Cost and accuracy")
	}
	if costLabel == "" {
		costLabel = "cost per question"
	}
	aria := fmt.Sprintf("Accuracy against %s for %d arms, with the Pareto frontier", cleanLabel(costLabel, 60), valid)
	return newFigure(KindFrontier, aria, figWidth, 4.5*vg.Inch, func(c draw.Canvas) {
		drawFrontier(c, costLabel, points)
	})
}

// CostAccuracy is CostAccuracyFigure drawn as SVG.
func CostAccuracy(costLabel string, points []CostPoint) ([]byte, error) {
	return CostAccuracyFigure(costLabel, points).SVG()
}

func drawFrontier(c draw.Canvas, costLabel string, points []CostPoint) {
	p := newPlot(costLabel, "accuracy (%)")
	front := ParetoFrontier(points)
	onFront := make(map[int]bool, len(front))
	line := polyline{step: true, style: draw.LineStyle{Color: palette[0], Width: 1.5}}
	for _, i := range front {
		onFront[i] = true
		line.pts = append(line.pts, xy{points[i].Cost, pct(points[i].Accuracy)})
	}
	var xs, ys span
	var ms marks
	var ls labels
	same := map[xy]int{}
	ws := whiskers{style: draw.LineStyle{Color: darkGray, Width: 1}, cap: 4}
	lsty := textStyle(tickSize, black, draw.XLeft, draw.YCenter) // for the default spot
	for i, pt := range points {
		if !ok(pt.Cost, pt.Accuracy) {
			continue
		}
		x, y := pt.Cost, pct(pt.Accuracy)
		xs.add(x)
		ys.add(y)
		if ok(pt.Lo, pt.Hi) {
			ws.ivs = append(ws.ivs, interval{at: x, lo: pct(pt.Lo), hi: pct(pt.Hi)})
			ys.add(pct(pt.Lo), pct(pt.Hi))
		}
		g := draw.GlyphStyle{Color: palette[0], Radius: 4, Shape: draw.CircleGlyph{}}
		if !onFront[i] {
			g = draw.GlyphStyle{Color: darkGray, Radius: 4, Shape: draw.RingGlyph{}}
		}
		ms = append(ms, mark{x: x, y: y, g: g})
		// Arms at the same point share one label ("smm, smm+t").
		name := cleanLabel(pt.Label, pointRunes)
		if at, dup := same[xy{x, y}]; dup {
			ls[at].s += ", " + name
			continue
		}
		same[xy{x, y}] = len(ls)
		ls = append(ls, label{x: x, y: y, s: name, dx: 7, dy: 0, sty: lsty})
	}
	// The frontier ends at its last point: beyond it there is no data.
	p.Add(grid(true, true), line, ws, ms, pointLabels{ls: ls, ms: ms, ws: ws, lines: []polyline{line}, sty: textStyle(tickSize, black, draw.XLeft, draw.YBottom)})
	setRange(&p.X, xs, 0.08)
	setRange(&p.Y, ys, 0.08)
	items := []legendItem{{name: "Pareto frontier", clr: palette[0], shape: draw.CircleGlyph{}, line: true}}
	if len(ms) > len(front) {
		items = append(items, legendItem{name: "dominated", clr: color.Color(darkGray), shape: draw.RingGlyph{}})
	}
	drawWithLegend(c, p, items)
}
