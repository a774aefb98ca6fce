package plot

import (
	"math"
	"strings"

	gplot "gonum.org/v1/plot"

	"gonum.org/v1/plot/text"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// noteLine is the height of one line of a figure's notes.
const noteLine = noteSize * 1.5

// wrapText breaks s into lines no wider than w in sty, at spaces; a word
// wider than w stands on a line of its own.
func wrapText(s string, sty text.Style, w vg.Length) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		try := word
		if cur != "" {
			try = cur + " " + word
		}
		if cur != "" && sty.Width(try) > w {
			lines = append(lines, cur)
			cur = word
			continue
		}
		cur = try
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

func noteStyle() text.Style { return textStyle(noteSize, darkGray, draw.XLeft, draw.YBottom) }

// noteHeight is the height drawNotes takes for notes in width w.
func noteHeight(notes []string, w vg.Length) vg.Length {
	n := 0
	for _, s := range notes {
		n += len(wrapText(cleanLabel(s, 2000), noteStyle(), w))
	}
	if n == 0 {
		return 0
	}
	return vg.Length(n)*noteLine + margin
}

// drawNotes writes notes, wrapped, along the bottom of c and returns the
// canvas above them.
func drawNotes(c draw.Canvas, notes []string) draw.Canvas {
	w := c.Max.X - c.Min.X
	var lines []string
	for _, s := range notes {
		lines = append(lines, wrapText(cleanLabel(s, 2000), noteStyle(), w)...)
	}
	if len(lines) == 0 {
		return c
	}
	sty := noteStyle()
	y := c.Min.Y + vg.Length(len(lines)-1)*noteLine
	for _, l := range lines {
		c.FillText(sty, vg.Point{X: c.Min.X, Y: y}, l)
		y -= noteLine
	}
	out := c
	out.Min.Y += vg.Length(len(lines))*noteLine + margin
	return out
}

// drawHead writes one line of text along the top of c and returns the
// canvas below it.
func drawHead(c draw.Canvas, s string) draw.Canvas {
	sty := textStyle(tickSize, black, draw.XLeft, draw.YTop)
	c.FillText(sty, vg.Point{X: c.Min.X, Y: c.Max.Y}, fitLabel(s, 400, sty, c.Max.X-c.Min.X))
	out := c
	out.Max.Y -= 2 * noteLine
	return out
}

// drawPanelGrid draws the panels of small multiples (nil: an empty cell)
// aligned on c, with one x-axis title centred under them and one y-axis
// title (rotated) left of them, shared by every panel: a title per panel
// would not fit a narrow panel and would collide with its neighbour's.
func drawPanelGrid(c draw.Canvas, plots [][]*gplot.Plot, xLabel, yLabel string) {
	inner := c
	if xLabel != "" {
		sty := textStyle(labelSize, black, draw.XCenter, draw.YBottom)
		c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Min.Y}, cleanLabel(xLabel, 80))
		inner.Min.Y += 2 * labelSize
	}
	if yLabel != "" {
		sty := textStyle(labelSize, black, draw.XCenter, draw.YTop)
		sty.Rotation = math.Pi / 2
		c.FillText(sty, vg.Point{X: c.Min.X, Y: (inner.Min.Y + c.Max.Y) / 2}, cleanLabel(yLabel, 80))
		inner.Min.X += 2 * labelSize
	}
	rows := len(plots)
	if rows == 0 {
		return
	}
	cols := len(plots[0])
	cs := gplot.Align(plots, draw.Tiles{Rows: rows, Cols: cols, PadX: 8, PadY: 6}, inner)
	for r := range plots {
		for k, p := range plots[r] {
			if p != nil {
				p.Draw(cs[r][k])
			}
		}
	}
}
