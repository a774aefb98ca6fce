package plot

import (
	"fmt"
	"image/color"
	"sort"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MaxOverlaid is the most series one panel overlays. A figure with more
// becomes small multiples: one panel per arm on shared axes, the reference
// arm (if any) drawn in gray in every panel. No arm is ever left out.
const MaxOverlaid = 6

// panelCols is the number of columns of small multiples.
func panelCols(n int) int {
	switch {
	case n <= 4:
		return max(n, 1)
	case n <= 12:
		return 4
	default:
		return 5
	}
}

// seriesPoint is one point of a line series, in plot units.
type seriesPoint struct {
	x, y   float64
	lo, hi float64
	ci     bool      // lo and hi are drawn
	r      vg.Length // glyph radius; 0 means the default
}

// lineSeries is a named series ready to draw.
type lineSeries struct {
	name   string
	pts    []seriesPoint
	ref    bool   // the reference arm: in every panel of small multiples
	reason string // why the series has no points (shown when pts is empty)
}

// addSeries adds a series (line, whiskers, glyphs in clr and shape) to p,
// widens xs and ys, and returns its legend entry.
func addSeries(p *gplot.Plot, s lineSeries, clr color.Color, shape draw.GlyphDrawer, xs, ys *span) legendItem {
	pts := append([]seriesPoint(nil), s.pts...)
	sort.SliceStable(pts, func(a, b int) bool { return pts[a].x < pts[b].x })
	line := polyline{style: draw.LineStyle{Color: clr, Width: 1.5}}
	ws := whiskers{style: draw.LineStyle{Color: clr, Width: 1}, cap: 4}
	var ms marks
	for _, q := range pts {
		xs.add(q.x)
		ys.add(q.y)
		line.pts = append(line.pts, xy{q.x, q.y})
		if q.ci {
			ws.ivs = append(ws.ivs, interval{at: q.x, lo: q.lo, hi: q.hi})
			ys.add(q.lo, q.hi)
		}
		r := q.r
		if r == 0 {
			r = 3.5
		}
		ms = append(ms, mark{x: q.x, y: q.y, g: draw.GlyphStyle{Color: clr, Radius: r, Shape: shape}})
	}
	p.Add(line, ws, ms)
	return legendItem{name: s.name, clr: clr, shape: shape, line: true}
}

// missingNote names the series without points, grouped by reason, e.g.
// "no data (no stated confidence): zeroshot, vote".
func missingNote(series []lineSeries) []string {
	var reasons []string
	by := map[string][]string{}
	for _, s := range series {
		if len(s.pts) > 0 {
			continue
		}
		r := s.reason
		if r == "" {
			r = "no points"
		}
		if _, seen := by[r]; !seen {
			reasons = append(reasons, r)
		}
		by[r] = append(by[r], cleanLabel(s.name, labelRunes))
	}
	var out []string
	for _, r := range reasons {
		out = append(out, fmt.Sprintf("No data (%s): %s.", r, strings.Join(by[r], ", ")))
	}
	return out
}

// seriesFigure draws named series on p with a legend, the axes fixed to the
// data widened to include [xmin, xmax] × [ymin, ymax] when those are given.
type seriesFigure struct {
	kind, aria, what string
	xLabel, yLabel   string
	series           []lineSeries
	xFix, yFix       span // always included in the axes
	extra            []gplot.Plotter
	xTicks           gplot.Ticker
	height           vg.Length
}

// drawn is the series with points.
func (f seriesFigure) drawn() []lineSeries {
	var out []lineSeries
	for _, s := range f.series {
		if len(s.pts) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// panels is the series that get a panel of their own in small multiples:
// every drawn one but the reference, or nil when one panel overlays all.
func (f seriesFigure) panels() []lineSeries {
	d := f.drawn()
	if len(d) <= MaxOverlaid {
		return nil
	}
	var out []lineSeries
	for _, s := range d {
		if !s.ref {
			out = append(out, s)
		}
	}
	return out
}

const panelHeight = 2.1 * vg.Inch

func (f seriesFigure) figure() Figure {
	if len(f.drawn()) == 0 {
		return noDataFigure(f.kind, f.what)
	}
	notes := missingNote(f.series)
	var h vg.Length
	if ps := f.panels(); ps != nil {
		rows := (len(ps) + panelCols(len(ps)) - 1) / panelCols(len(ps))
		h = vg.Length(rows)*panelHeight + 2*noteLine
	} else {
		h = f.height
		if h == 0 {
			h = 4.5 * vg.Inch
		}
	}
	h += noteHeight(notes, figWidth-2*margin)
	return newFigure(f.kind, f.aria, figWidth, h, func(c draw.Canvas) {
		c = drawNotes(c, notes)
		if ps := f.panels(); ps != nil {
			f.drawPanels(c, ps)
			return
		}
		f.draw(c)
	})
}

func (f seriesFigure) draw(c draw.Canvas) {
	p := newPlot(f.xLabel, f.yLabel)
	p.Add(grid(true, true))
	p.Add(f.extra...)
	xs, ys := f.xFix, f.yFix
	var items []legendItem
	for i, s := range f.drawn() {
		items = append(items, addSeries(p, s, seriesColor(i), seriesShape(i), &xs, &ys))
	}
	setRange(&p.X, xs, 0.03)
	setRange(&p.Y, ys, 0.03)
	if f.xTicks != nil {
		p.X.Tick.Marker = f.xTicks
	}
	drawWithLegend(c, p, items)
}

// drawPanels draws one panel per series in ps on shared axes, each with
// the reference series (if any) in gray beneath it.
func (f seriesFigure) drawPanels(c draw.Canvas, ps []lineSeries) {
	var refs []lineSeries
	for _, s := range f.drawn() {
		if s.ref {
			refs = append(refs, s)
		}
	}
	// Shared ranges over every series.
	xs, ys := f.xFix, f.yFix
	scratch := gplot.New()
	for _, s := range f.drawn() {
		addSeries(scratch, s, black, draw.CircleGlyph{}, &xs, &ys)
	}
	head := "One panel per arm"
	if len(refs) > 0 {
		var names []string
		for _, r := range refs {
			names = append(names, cleanLabel(r.name, labelRunes))
		}
		head += "; gray: the reference, " + strings.Join(names, ", ") + ", in every panel"
	}
	c = drawHead(c, head+".")
	cols := panelCols(len(ps))
	rows := (len(ps) + cols - 1) / cols
	grid2 := make([][]*gplot.Plot, rows)
	for r := range grid2 {
		grid2[r] = make([]*gplot.Plot, cols)
	}
	for i, s := range ps {
		p := newPlot("", "")
		p.Add(grid(true, true))
		p.Add(f.extra...)
		var dx, dy span
		for _, r := range refs {
			addSeries(p, small(r), refColor, draw.RingGlyph{}, &dx, &dy)
		}
		addSeries(p, small(s), palette[0], draw.CircleGlyph{}, &dx, &dy)
		setRange(&p.X, xs, 0.03)
		setRange(&p.Y, ys, 0.03)
		p.X.Tick.Marker, p.Y.Tick.Marker = fewTicks{}, fewTicks{}
		if f.xTicks != nil {
			p.X.Tick.Marker = f.xTicks
		}
		p.Title.Text = cleanLabel(s.name, labelRunes)
		p.Title.TextStyle.Font.Size = tickSize
		grid2[i/cols][i%cols] = p
	}
	drawPanelGrid(c, grid2, f.xLabel, f.yLabel)
}

// small is s with its glyphs at 60% of their radius, for a panel.
func small(s lineSeries) lineSeries {
	pts := make([]seriesPoint, len(s.pts))
	for i, q := range s.pts {
		if q.r == 0 {
			q.r = 3.5
		}
		q.r *= 0.6
		pts[i] = q
	}
	s.pts = pts
	return s
}
