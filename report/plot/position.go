package plot

import (
	"fmt"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// KindPosition is the position-bias figure's kind.
const KindPosition = "position"

// PositionShare is one position's share of an arm's answers (a fraction,
// with its 95% interval) and the share of the same questions whose gold
// answer is there.
type PositionShare struct {
	Predicted, Lo, Hi float64
	Gold              float64
}

// PositionSeries is one arm's shares by position (A = first); Flag, when
// not empty, is added to its panel's title (e.g. "position bias").
type PositionSeries struct {
	Name   string
	Shares []PositionShare
	Flag   string
}

// PositionBiasFigure draws, per arm, one panel of the share of answers at
// each position (dot, 95% interval) beside the share of gold answers there
// (gray ring), on shared axes: an arm without position bias has its dots
// on the rings. Every arm has a panel.
func PositionBiasFigure(series []PositionSeries) Figure {
	var ss []PositionSeries
	positions := 0
	for _, s := range series {
		if len(s.Shares) > 0 {
			ss = append(ss, s)
			positions = max(positions, len(s.Shares))
		}
	}
	if len(ss) == 0 {
		return noDataFigure(KindPosition, "Position bias")
	}
	cols := panelCols(len(ss))
	rows := (len(ss) + cols - 1) / cols
	h := vg.Length(rows)*panelHeight + 4*noteLine
	aria := fmt.Sprintf("Share of answers by option position against the gold answers' share, one panel per arm, %d arms", len(ss))
	return newFigure(KindPosition, aria, figWidth, h, func(c draw.Canvas) { drawPosition(c, ss, positions) })
}

// PositionBias is PositionBiasFigure drawn as SVG.
func PositionBias(series []PositionSeries) ([]byte, error) {
	return PositionBiasFigure(series).SVG()
}

func drawPosition(c draw.Canvas, ss []PositionSeries, positions int) {
	c = drawHead(c, "Dots: the arm's share of answers at each position (95% interval); gray rings: the share of gold answers there.")
	ys := span{0, 0, true}
	for _, s := range ss {
		for _, q := range s.Shares {
			ys.add(pct(q.Predicted), pct(q.Gold))
			if lo, hi, has := ci(q.Lo, q.Hi); has {
				ys.add(lo, hi)
			}
		}
	}
	var ticks gplot.ConstantTicks
	for k := 0; k < positions; k++ {
		ticks = append(ticks, gplot.Tick{Value: float64(k), Label: string(rune('A' + k))})
	}
	cols := panelCols(len(ss))
	rows := (len(ss) + cols - 1) / cols
	plots := make([][]*gplot.Plot, rows)
	for r := range plots {
		plots[r] = make([]*gplot.Plot, cols)
	}
	for i, s := range ss {
		p := newPlot("", "")
		var ms marks
		ws := whiskers{style: draw.LineStyle{Color: palette[0], Width: 1}, cap: 3}
		for k, q := range s.Shares {
			if ok(q.Gold) {
				ms = append(ms, mark{x: float64(k), y: pct(q.Gold), g: draw.GlyphStyle{Color: refColor, Radius: 4, Shape: draw.RingGlyph{}}})
			}
			if !ok(q.Predicted) {
				continue
			}
			if lo, hi, has := ci(q.Lo, q.Hi); has {
				ws.ivs = append(ws.ivs, interval{at: float64(k), lo: lo, hi: hi})
			}
			ms = append(ms, mark{x: float64(k), y: pct(q.Predicted), g: draw.GlyphStyle{Color: palette[0], Radius: 2.5, Shape: draw.CircleGlyph{}}})
		}
		p.Add(grid(false, true), ws, ms)
		p.X.Tick.Marker = ticks
		p.Y.Tick.Marker = fewTicks{}
		p.X.Min, p.X.Max = -0.5, float64(positions)-0.5
		setRange(&p.Y, ys, 0.05)
		title := cleanLabel(s.Name, labelRunes)
		if s.Flag != "" {
			title += " — " + s.Flag
		}
		p.Title.Text = title
		p.Title.TextStyle.Font.Size = tickSize
		plots[i/cols][i%cols] = p
	}
	drawPanelGrid(c, plots, "position of the option as shown", "share of answers (%)")
}
