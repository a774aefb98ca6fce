package plot

import (
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ForestRow is one paired comparison: an arm's difference in accuracy
// against the reference arm and its 95% interval, as fractions (0.031 is
// 3.1 percentage points).
type ForestRow struct {
	Label            string // e.g. "full − base"
	Estimate, Lo, Hi float64
	// Flag, when set, is written beside the row and the row is drawn in
	// gray with a hollow marker (e.g. "identical to c5").
	Flag string
}

// MaxForestRows is the most rows a forest plot draws; later rows are left
// out and the figure says so.
const MaxForestRows = 60

const forestRowH = vg.Length(18)

// Forest draws a forest plot of paired differences: one row per comparison
// in the order given (first at the top), the estimate as a point, the 95%
// interval as a whisker, a dashed line at zero, and on the right each row's
// numbers ("+3.1 [−0.4, +6.5]") and flag. A row whose estimate is not a
// number keeps its label and reads "n/a".
func ForestFigure(rows []ForestRow) Figure {
	if len(rows) == 0 {
		return noDataFigure(KindForest, "Paired differences in accuracy")
	}
	note := ""
	if len(rows) > MaxForestRows {
		note = fmt.Sprintf("first %d of %d comparisons", MaxForestRows, len(rows))
		rows = rows[:MaxForestRows]
	}
	h := 64 + forestRowH*vg.Length(len(rows))
	aria := fmt.Sprintf("Forest plot of %d paired differences in accuracy (percentage points) with 95%% intervals", len(rows))
	return newFigure(KindForest, aria, figWidth, h, func(c draw.Canvas) {
		drawForest(c, rows, note)
	})
}

// Forest is ForestFigure drawn as SVG.
func Forest(rows []ForestRow) ([]byte, error) { return ForestFigure(rows).SVG() }

func drawForest(c draw.Canvas, rows []ForestRow, note string) {
	n := len(rows)
	p := newPlot("Δ accuracy (points)", "")
	names := make([]string, n)
	right := make([]string, n)
	xs := span{}
	xs.add(0)
	var ms marks
	ws := whiskers{horizontal: true, style: draw.LineStyle{Color: black, Width: 1.2}, cap: 5}
	for i, r := range rows {
		y := float64(n - 1 - i)
		names[n-1-i] = cleanLabel(r.Label, labelRunes)
		right[i] = forestText(r)
		if !ok(r.Estimate) {
			continue
		}
		var clr color.Color = black
		var shape draw.GlyphDrawer = draw.CircleGlyph{}
		if r.Flag != "" {
			clr, shape = midGray, draw.RingGlyph{}
		}
		est := pct(r.Estimate)
		xs.add(est)
		ms = append(ms, mark{x: est, y: y, g: draw.GlyphStyle{Color: clr, Radius: 3.5, Shape: shape}})
		if ok(r.Lo, r.Hi) {
			lo, hi := pct(math.Min(r.Lo, r.Hi)), pct(math.Max(r.Lo, r.Hi))
			xs.add(lo, hi)
			ws.ivs = append(ws.ivs, interval{at: y, lo: lo, hi: hi, clr: clr})
		}
	}
	p.NominalY(names...)
	p.Add(grid(true, false), refLine(xy{0, -0.5}, xy{0, float64(n) - 0.5}), ws, ms)
	setRange(&p.X, xs, 0.06)
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	if note != "" {
		p.Title.Text = note
	}
	drawRightColumn(c, p, right, rows)
}

// drawRightColumn draws p with a column of per-row text on its right.
func drawRightColumn(c draw.Canvas, p *gplot.Plot, right []string, rows []ForestRow) {
	const headerH = vg.Length(16)
	head := "Δ points [95% CI]"
	sty := textStyle(tickSize, black, draw.XLeft, draw.YCenter)
	colW := sty.Width(head)
	for _, s := range right {
		colW = max(colW, sty.Width(s))
	}
	colW = min(colW+2*margin, (c.Max.X-c.Min.X)*0.4)
	pc := draw.Crop(c, 0, -colW, 0, -headerH)
	p.Draw(pc)
	dc := p.DataCanvas(pc)
	_, ty := p.Transforms(&dc)
	x := pc.Max.X + margin
	c.FillText(textStyle(tickSize, darkGray, draw.XLeft, draw.YCenter), vg.Point{X: x, Y: c.Max.Y - headerH/2}, head)
	n := len(rows)
	for i, s := range right {
		st := sty
		if rows[i].Flag != "" || !ok(rows[i].Estimate) {
			st.Color = darkGray
		}
		c.FillText(st, vg.Point{X: x, Y: ty(float64(n - 1 - i))}, s)
	}
}

// forestText is the right-hand text of a row: estimate, interval, flag.
func forestText(r ForestRow) string {
	s := "n/a"
	if ok(r.Estimate) {
		s = points(pct(r.Estimate))
		if ok(r.Lo, r.Hi) {
			s += " [" + points(pct(math.Min(r.Lo, r.Hi))) + ", " + points(pct(math.Max(r.Lo, r.Hi))) + "]"
		}
	}
	if r.Flag != "" {
		s += "  " + cleanLabel(r.Flag, pointRunes)
	}
	return s
}

// points formats a signed difference with one decimal and a true minus.
func points(v float64) string {
	if math.Abs(v) < 0.05 {
		return "0.0"
	}
	if v < 0 {
		return fmt.Sprintf("−%.1f", -v)
	}
	return fmt.Sprintf("+%.1f", v)
}
