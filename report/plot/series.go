package plot

import (
	"fmt"
	"sort"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MaxSeries is the most series (arms) a line figure draws; later series are
// left out and the figure says so.
const MaxSeries = 12

// seriesPoint is one point of a line series, in plot units.
type seriesPoint struct {
	x, y   float64
	lo, hi float64
	ci     bool      // lo and hi are drawn
	r      vg.Length // glyph radius; 0 means the default
}

// lineSeries is a named series ready to draw.
type lineSeries struct {
	name string
	pts  []seriesPoint
}

// addSeries adds series i (line, whiskers, glyphs in its color and shape)
// to p, widens xs and ys, and returns its legend entry.
func addSeries(p *gplot.Plot, i int, s lineSeries, xs, ys *span) legendItem {
	clr, shape := seriesColor(i), seriesShape(i)
	sort.SliceStable(s.pts, func(a, b int) bool { return s.pts[a].x < s.pts[b].x })
	line := polyline{style: draw.LineStyle{Color: clr, Width: 1.5}}
	ws := whiskers{style: draw.LineStyle{Color: clr, Width: 1}, cap: 4}
	var ms marks
	for _, q := range s.pts {
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

// capSeries keeps the first MaxSeries series and says what it left out.
func capSeries[T any](s []T, what string) ([]T, string) {
	if len(s) <= MaxSeries {
		return s, ""
	}
	return s[:MaxSeries], fmt.Sprintf("first %d of %d %s", MaxSeries, len(s), what)
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
	note             string
	height           vg.Length
}

func (f seriesFigure) render() ([]byte, error) {
	n := 0
	for _, s := range f.series {
		n += len(s.pts)
	}
	if n == 0 {
		return noData(f.kind, f.what)
	}
	h := f.height
	if h == 0 {
		h = 4.5 * vg.Inch
	}
	return render(f.kind, f.aria, figWidth, h, f.draw)
}

func (f seriesFigure) draw(c draw.Canvas) {
	p := newPlot(f.xLabel, f.yLabel)
	p.Add(grid(true, true))
	p.Add(f.extra...)
	xs, ys := f.xFix, f.yFix
	var items []legendItem
	for i, s := range f.series {
		if len(s.pts) == 0 {
			continue
		}
		items = append(items, addSeries(p, i, s, &xs, &ys))
	}
	setRange(&p.X, xs, 0.03)
	setRange(&p.Y, ys, 0.03)
	if f.xTicks != nil {
		p.X.Tick.Marker = f.xTicks
	}
	p.Title.Text = f.note
	drawWithLegend(c, p, items)
}
