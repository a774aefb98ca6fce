package plot

import (
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// labelGap is the clearance kept between a placed label and anything else.
const labelGap = vg.Length(1.5)

// placement is where a label went: its box and whether it sits away from
// its point (drawn with a leader line).
type placement struct {
	box    vg.Rectangle
	leader bool
}

// placeLabels is the collision pass for point labels: label i, of size
// sizes[i] (width, height), goes next to anchors[i] at the first of a
// fixed list of candidate positions (right, left, above, below, the
// diagonals, then the same farther out) whose box stays inside bounds and
// clear, by labelGap, of every label placed before it and of every
// obstacle (the marks). Labels are placed in order. When no candidate is
// clear, the one overlapping least is used. Positions beyond the first
// ring get a leader line. A pure function: same input, same output.
//
// soft are lines (whiskers, the frontier) a label should rather not cross:
// among the candidates clear of labels and marks, the first that crosses
// fewest soft obstacles for its distance wins (each ring out costs
// ringCost).
func placeLabels(anchors, sizes []vg.Point, obstacles, soft []vg.Rectangle, bounds vg.Rectangle) []placement {
	out := make([]placement, len(anchors))
	var placed []vg.Rectangle
	for i, a := range anchors {
		w, h := sizes[i].X, sizes[i].Y
		best, bestCost := placement{}, math.Inf(1)
		for k, cand := range candidates(a, w, h) {
			if !inside(cand, bounds) {
				continue
			}
			cost := 1e6*(overlapArea(cand, placed)+overlapArea(cand, obstacles)) + overlapArea(cand, soft) + ringCost*float64(k/8)
			if cost < bestCost {
				best, bestCost = placement{box: cand, leader: k >= 8}, cost
			}
			if cost < ringCost/2 && k%8 == 7 { // nothing better further out
				break
			}
		}
		if math.IsInf(bestCost, 1) { // nothing fits inside: the default spot
			best = placement{box: candidates(a, w, h)[0]}
		}
		out[i] = best
		placed = append(placed, best.box)
	}
	return out
}

// ringCost is what moving a label one ring farther out costs, in the
// units of overlapArea (pt²): about the area a label shares with one line
// it crosses.
const ringCost = 30

// labelRings are the distances from the point at which candidates sit.
var labelRings = []vg.Length{6, 16, 30, 46, 64, 84, 108, 136, 170}

// candidates lists the boxes a w×h label may take around a, nearest first:
// right, left, above, below, then the four diagonals, ring by ring.
func candidates(a vg.Point, w, h vg.Length) []vg.Rectangle {
	box := func(x, y vg.Length) vg.Rectangle {
		return vg.Rectangle{Min: vg.Point{X: x, Y: y}, Max: vg.Point{X: x + w, Y: y + h}}
	}
	var out []vg.Rectangle
	for _, d := range labelRings {
		dd := d * 0.75
		out = append(out,
			box(a.X+d, a.Y-h/2),
			box(a.X-d-w, a.Y-h/2),
			box(a.X-w/2, a.Y+d),
			box(a.X-w/2, a.Y-d-h),
			box(a.X+dd, a.Y+dd),
			box(a.X-dd-w, a.Y+dd),
			box(a.X+dd, a.Y-dd-h),
			box(a.X-dd-w, a.Y-dd-h),
		)
	}
	return out
}

func inside(r, b vg.Rectangle) bool {
	return r.Min.X >= b.Min.X && r.Min.Y >= b.Min.Y && r.Max.X <= b.Max.X && r.Max.Y <= b.Max.Y
}

// overlapArea is the total area r, grown by labelGap, shares with rs.
func overlapArea(r vg.Rectangle, rs []vg.Rectangle) float64 {
	g := vg.Rectangle{Min: r.Min.Sub(vg.Point{X: labelGap, Y: labelGap}), Max: r.Max.Add(vg.Point{X: labelGap, Y: labelGap})}
	total := 0.0
	for _, o := range rs {
		w := math.Min(float64(g.Max.X), float64(o.Max.X)) - math.Max(float64(g.Min.X), float64(o.Min.X))
		h := math.Min(float64(g.Max.Y), float64(o.Max.Y)) - math.Max(float64(g.Min.Y), float64(o.Min.Y))
		if w > 0 && h > 0 {
			total += w * h
		}
	}
	return total
}

// pointLabels draws labels at data points, placed by placeLabels clear of
// each other and of the marks ms.
type pointLabels struct {
	ls    labels
	ms    marks
	ws    whiskers // soft obstacles
	lines []polyline
	sty   text.Style // XLeft, YBottom
}

func (pl pointLabels) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, ty := p.Transforms(&c)
	var obstacles []vg.Rectangle
	for _, m := range pl.ms {
		r := m.g.Rectangle()
		at := vg.Point{X: tx(m.x), Y: ty(m.y)}
		obstacles = append(obstacles, vg.Rectangle{Min: at.Add(r.Min), Max: at.Add(r.Max)})
	}
	var soft []vg.Rectangle
	thin := func(a, b vg.Point) vg.Rectangle {
		const t = 1
		return vg.Rectangle{Min: vg.Point{X: min(a.X, b.X) - t, Y: min(a.Y, b.Y) - t}, Max: vg.Point{X: max(a.X, b.X) + t, Y: max(a.Y, b.Y) + t}}
	}
	for _, iv := range pl.ws.ivs {
		soft = append(soft, thin(vg.Point{X: tx(iv.at), Y: ty(iv.lo)}, vg.Point{X: tx(iv.at), Y: ty(iv.hi)}))
	}
	for _, l := range pl.lines {
		for i := 1; i < len(l.pts); i++ {
			a, b := vg.Point{X: tx(l.pts[i-1].x), Y: ty(l.pts[i-1].y)}, vg.Point{X: tx(l.pts[i].x), Y: ty(l.pts[i].y)}
			if l.step { // horizontal, then vertical
				soft = append(soft, thin(a, vg.Point{X: b.X, Y: a.Y}), thin(vg.Point{X: b.X, Y: a.Y}, b))
				continue
			}
			soft = append(soft, thin(a, b))
		}
	}
	anchors := make([]vg.Point, len(pl.ls))
	sizes := make([]vg.Point, len(pl.ls))
	offs := make([]vg.Point, len(pl.ls))
	for i, l := range pl.ls {
		anchors[i] = vg.Point{X: tx(l.x), Y: ty(l.y)}
		r := pl.sty.Rectangle(l.s)
		sizes[i] = r.Max.Sub(r.Min)
		offs[i] = r.Min
	}
	leader := draw.LineStyle{Color: midGray, Width: 0.5}
	for i, pc := range placeLabels(anchors, sizes, obstacles, soft, c.Rectangle) {
		if pc.leader {
			c.StrokeLine2(leader, anchors[i].X, anchors[i].Y, nearest(pc.box, anchors[i]).X, nearest(pc.box, anchors[i]).Y)
		}
		c.FillText(pl.sty, pc.box.Min.Sub(offs[i]), pl.ls[i].s)
	}
}

// nearest is the point of r closest to a.
func nearest(r vg.Rectangle, a vg.Point) vg.Point {
	clamp := func(v, lo, hi vg.Length) vg.Length { return max(lo, min(hi, v)) }
	return vg.Point{X: clamp(a.X, r.Min.X, r.Max.X), Y: clamp(a.Y, r.Min.Y, r.Max.Y)}
}

// GlyphBoxes reserves some room to the right of each point for its label
// (at most 48 pt: a longer label is placed elsewhere by the collision
// pass rather than shrinking the plot), so the axes leave space for it.
func (pl pointLabels) GlyphBoxes(p *gplot.Plot) []gplot.GlyphBox {
	out := pl.ls.GlyphBoxes(p)
	for i := range out {
		out[i].Rectangle.Max.X = min(out[i].Rectangle.Max.X, out[i].Rectangle.Min.X+48)
	}
	return out
}
