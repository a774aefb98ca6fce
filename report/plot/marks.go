package plot

import (
	"image/color"
	"math"
	"slices"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The plotters below draw in data coordinates on a gonum plot. They take
// values that ok() accepted; none of them returns an error.

type xy struct{ x, y float64 }

// mark is one glyph at a data point.
type mark struct {
	x, y float64
	g    draw.GlyphStyle
}

type marks []mark

func (ms marks) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, ty := p.Transforms(&c)
	for _, m := range ms {
		c.DrawGlyph(m.g, vg.Point{X: tx(m.x), Y: ty(m.y)})
	}
}

func (ms marks) GlyphBoxes(p *gplot.Plot) []gplot.GlyphBox {
	out := make([]gplot.GlyphBox, len(ms))
	for i, m := range ms {
		out[i] = gplot.GlyphBox{X: p.X.Norm(m.x), Y: p.Y.Norm(m.y), Rectangle: m.g.Rectangle()}
	}
	return out
}

// interval is a whisker from lo to hi at position at on the other axis,
// in clr (nil: the whiskers' style color).
type interval struct {
	at, lo, hi float64
	clr        color.Color
}

// whiskers draws intervals with end caps, vertical unless horizontal.
// Where neighbouring whiskers crowd (bins a few points of confidence
// apart), their caps narrow and their lines thin (crowded) so that each
// interval stays apart from the next instead of merging into a band.
type whiskers struct {
	ivs        []interval
	horizontal bool
	style      draw.LineStyle
	cap        vg.Length
}

func (w whiskers) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, ty := p.Transforms(&c)
	at := func(iv interval) vg.Length {
		if w.horizontal {
			return ty(iv.at)
		}
		return tx(iv.at)
	}
	pos := make([]vg.Length, len(w.ivs))
	for i, iv := range w.ivs {
		pos[i] = at(iv)
	}
	capW, lineW := crowded(pos, w.cap, w.style.Width)
	for _, iv := range w.ivs {
		var a, b vg.Point
		var d vg.Point
		if w.horizontal {
			a = vg.Point{X: tx(iv.lo), Y: at(iv)}
			b = vg.Point{X: tx(iv.hi), Y: at(iv)}
			d = vg.Point{Y: capW / 2}
		} else {
			a = vg.Point{X: at(iv), Y: ty(iv.lo)}
			b = vg.Point{X: at(iv), Y: ty(iv.hi)}
			d = vg.Point{X: capW / 2}
		}
		lines := [][]vg.Point{{a, b}}
		if capW > 0 {
			lines = append(lines, []vg.Point{a.Sub(d), a.Add(d)}, []vg.Point{b.Sub(d), b.Add(d)})
		}
		sty := w.style
		sty.Width = lineW
		if iv.clr != nil {
			sty.Color = iv.clr
		}
		c.StrokeLines(sty, c.ClipLinesXY(lines...)...)
	}
}

// crowded is the cap width and line width for whiskers at positions pos
// (canvas units along the axis they are spread on), given the widths
// wanted: a cap no wider than 60% of the smallest gap between two
// neighbouring whiskers (none when that is under 1.5 points, a cap would
// be a dot), a line no wider than a third of that gap (at least 0.4
// points). Whiskers at the same position (gap 0) are one whisker.
func crowded(pos []vg.Length, capWant, lineWant vg.Length) (capW, lineW vg.Length) {
	sorted := slices.Clone(pos)
	slices.Sort(sorted)
	gap := vg.Length(math.Inf(1))
	for i := 1; i < len(sorted); i++ {
		if d := sorted[i] - sorted[i-1]; d > 0.01 {
			gap = min(gap, d)
		}
	}
	capW = min(capWant, 0.6*gap)
	if capW < 1.5 {
		capW = 0
	}
	lineW = max(min(lineWant, gap/3), min(lineWant, 0.4))
	return capW, lineW
}

// polyline joins points in order; step draws a post-step staircase
// (horizontal first, then vertical).
type polyline struct {
	pts   []xy
	style draw.LineStyle
	step  bool
}

func (l polyline) Plot(c draw.Canvas, p *gplot.Plot) {
	if len(l.pts) < 2 {
		return
	}
	tx, ty := p.Transforms(&c)
	ps := make([]vg.Point, 0, 2*len(l.pts))
	for i, q := range l.pts {
		pt := vg.Point{X: tx(q.x), Y: ty(q.y)}
		if l.step && i > 0 {
			ps = append(ps, vg.Point{X: pt.X, Y: ps[len(ps)-1].Y})
		}
		ps = append(ps, pt)
	}
	c.StrokeLines(l.style, c.ClipLinesXY(ps)...)
}

// label is text placed at a data point, moved by (dx, dy).
type label struct {
	x, y   float64
	s      string
	dx, dy vg.Length
	sty    text.Style
}

type labels []label

func (ls labels) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, ty := p.Transforms(&c)
	for _, l := range ls {
		c.FillText(l.sty, vg.Point{X: tx(l.x) + l.dx, Y: ty(l.y) + l.dy}, l.s)
	}
}

func (ls labels) GlyphBoxes(p *gplot.Plot) []gplot.GlyphBox {
	out := make([]gplot.GlyphBox, len(ls))
	for i, l := range ls {
		r := l.sty.Rectangle(l.s)
		r.Min = r.Min.Add(vg.Point{X: l.dx, Y: l.dy})
		r.Max = r.Max.Add(vg.Point{X: l.dx, Y: l.dy})
		out[i] = gplot.GlyphBox{X: p.X.Norm(l.x), Y: p.Y.Norm(l.y), Rectangle: r}
	}
	return out
}

// rect is a filled rectangle in data coordinates.
type rect struct {
	x0, x1, y0, y1 float64
	fill           color.Color
	line           *draw.LineStyle
}

type rects []rect

func (rs rects) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, ty := p.Transforms(&c)
	for _, r := range rs {
		x0, x1 := tx(math.Min(r.x0, r.x1)), tx(math.Max(r.x0, r.x1))
		y0, y1 := ty(math.Min(r.y0, r.y1)), ty(math.Max(r.y0, r.y1))
		pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		c.FillPolygon(r.fill, c.ClipPolygonXY(pts))
		if r.line != nil {
			c.StrokeLines(*r.line, c.ClipLinesXY(append(pts, pts[0]))...)
		}
	}
}

// grid is light grid lines at the ticks of the axes asked for.
func grid(vertical, horizontal bool) *plotter.Grid {
	g := plotter.NewGrid()
	sty := draw.LineStyle{Color: color.Gray{Y: 0xe8}, Width: 0.5}
	g.Vertical, g.Horizontal = draw.LineStyle{}, draw.LineStyle{}
	if vertical {
		g.Vertical = sty
	}
	if horizontal {
		g.Horizontal = sty
	}
	return g
}

// refLine is a dashed reference line through two data points.
func refLine(a, b xy) polyline {
	return polyline{
		pts:   []xy{a, b},
		style: draw.LineStyle{Color: midGray, Width: 0.8, Dashes: []vg.Length{4, 3}},
	}
}

// legendItem is one entry of a legend drawn beside the plot.
type legendItem struct {
	name  string
	clr   color.Color
	shape draw.GlyphDrawer // nil: no glyph
	line  bool             // a line through the thumbnail
	bar   bool             // a filled box as the thumbnail
}

func (it legendItem) Thumbnail(c *draw.Canvas) {
	mid := c.Center()
	if it.bar {
		h := (c.Max.Y - c.Min.Y) * 0.7
		c.FillPolygon(it.clr, []vg.Point{
			{X: c.Min.X, Y: mid.Y - h/2}, {X: c.Max.X, Y: mid.Y - h/2},
			{X: c.Max.X, Y: mid.Y + h/2}, {X: c.Min.X, Y: mid.Y + h/2},
		})
		return
	}
	if it.line {
		c.StrokeLine2(draw.LineStyle{Color: it.clr, Width: 1.5}, c.Min.X, mid.Y, c.Max.X, mid.Y)
	}
	if it.shape != nil {
		c.DrawGlyph(draw.GlyphStyle{Color: it.clr, Radius: 3, Shape: it.shape}, mid)
	}
}

// drawWithLegend draws p into c, keeping a column on the right for a
// legend of items (none: p takes the whole canvas).
func drawWithLegend(c draw.Canvas, p *gplot.Plot, items []legendItem) {
	if len(items) == 0 {
		p.Draw(c)
		return
	}
	const thumbW = vg.Length(18)
	sty := textStyle(tickSize, black, draw.XLeft, draw.YBottom)
	l := gplot.NewLegend()
	l.TextStyle, l.Top, l.Left, l.ThumbnailWidth, l.Padding = sty, true, true, thumbW, 3
	var textW vg.Length
	for _, it := range items {
		name := cleanLabel(it.name, 28)
		l.Add(name, it)
		textW = max(textW, sty.Width(name))
	}
	lw := min(textW+thumbW+3*margin, (c.Max.X-c.Min.X)*0.34)
	p.Draw(draw.Crop(c, 0, -lw, 0, 0))
	lc := c
	lc.Min.X = c.Max.X - lw + margin
	lc.Max.Y -= 2 * margin
	l.Draw(lc)
}
