package plot

import (
	"cmp"
	"fmt"
	"image/color"
	"strconv"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Confusion is a confusion matrix over ordinal labels (triage levels, most
// urgent first, say): Counts[i][j] is how many items of reference label i
// were predicted as label j. Missing cells count as zero and negative ones
// are left blank.
type Confusion struct {
	Labels []string
	Counts [][]int
	// RowTitle and ColTitle name the axes; "" is "reference" and
	// "predicted".
	RowTitle, ColTitle string
}

// MaxConfusionLabels is the most labels the heatmap draws.
const MaxConfusionLabels = 24

// ConfusionMatrix draws the matrix as a heatmap: rows are the reference
// labels, columns the predictions, both in the order given; every cell
// shows its count (and, when there is room, its share of the row), and its
// shade is that share. Diagonal cells (agreement) are outlined.
func ConfusionMatrixFigure(m Confusion) Figure {
	names := m.Labels
	note := ""
	if len(names) > MaxConfusionLabels {
		note = fmt.Sprintf("first %d of %d labels", MaxConfusionLabels, len(names))
		names = names[:MaxConfusionLabels]
	}
	n := len(names)
	total := 0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			total += max(0, countAt(m.Counts, i, j))
		}
	}
	if n == 0 || total == 0 {
		return noDataFigure(KindConfusion, "Confusion matrix")
	}
	cell := vg.Length(min(56, max(14, 380/float64(n))))
	h := cell*vg.Length(n) + 72
	aria := fmt.Sprintf("Confusion matrix of %d labels over %d items: reference by row, prediction by column", n, total)
	return newFigure(KindConfusion, aria, figWidth, h, func(c draw.Canvas) {
		drawConfusion(c, names, m.Counts, cell, note, cmp.Or(m.RowTitle, "reference"), cmp.Or(m.ColTitle, "predicted"))
	})
}

// ConfusionMatrix is ConfusionMatrixFigure drawn as SVG.
func ConfusionMatrix(m Confusion) ([]byte, error) { return ConfusionMatrixFigure(m).SVG() }

// countAt is counts[i][j], or 0 where the matrix is ragged.
func countAt(counts [][]int, i, j int) int {
	if i >= len(counts) || j >= len(counts[i]) {
		return 0
	}
	return counts[i][j]
}

var heatDark = rgb(0x2f5f8f)

func drawConfusion(c draw.Canvas, names []string, counts [][]int, cell vg.Length, note, rowTitle, colTitle string) {
	n := len(names)
	p := newPlot(colTitle, rowTitle)
	cols := make([]string, n)
	rows := make([]string, n)
	for i, l := range names {
		cols[i] = fitLabel(l, 24, p.X.Tick.Label, cell-3)
		rows[n-1-i] = cleanLabel(l, 24)
	}
	var cells rects
	var texts labels
	for i := 0; i < n; i++ {
		rowTotal := 0
		for j := 0; j < n; j++ {
			rowTotal += max(0, countAt(counts, i, j))
		}
		for j := 0; j < n; j++ {
			r, t := confusionCell(i, j, n, countAt(counts, i, j), rowTotal, cell)
			cells = append(cells, r)
			texts = append(texts, t...)
		}
	}
	p.NominalX(cols...)
	p.NominalY(rows...)
	p.Add(cells, texts)
	p.X.Min, p.X.Max = -0.5, float64(n)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	p.Title.Text = "shade: share of the row"
	if note != "" {
		p.Title.Text = note + "; " + p.Title.Text
	}
	p.Title.TextStyle = textStyle(noteSize, darkGray, draw.XCenter, draw.YTop)
	w := min(c.Max.X-c.Min.X, cell*vg.Length(n)+170)
	left := (c.Max.X - c.Min.X - w) / 2
	pc := draw.Crop(c, left, -left, 0, 0)
	p.Draw(pc)
}

// confusionCell is the rectangle and text of cell (i, j).
func confusionCell(i, j, n, count, rowTotal int, cell vg.Length) (rect, []label) {
	x, y := float64(j), float64(n-1-i)
	r := rect{x0: x - 0.5, x1: x + 0.5, y0: y - 0.5, y1: y + 0.5, fill: white,
		line: &draw.LineStyle{Color: white, Width: 1}}
	if i == j {
		r.line = &draw.LineStyle{Color: black, Width: 1.2}
	}
	if count < 0 {
		return r, nil
	}
	share := 0.0
	if rowTotal > 0 {
		share = float64(count) / float64(rowTotal)
	}
	r.fill = mix(white, heatDark, share)
	var fg color.Color = black
	if share > 0.5 {
		fg = white
	}
	size := min(tickSize, cell/2.6)
	main := label{x: x, y: y, s: strconv.Itoa(count), sty: textStyle(size, fg, draw.XCenter, draw.YCenter)}
	if count == 0 {
		main.sty.Color = midGray
	}
	if cell < 34 || count == 0 {
		return r, []label{main}
	}
	main.dy = 5
	sub := label{x: x, y: y, dy: -6, s: fmt.Sprintf("%.0f%%", share*100),
		sty: textStyle(7.5, fg, draw.XCenter, draw.YCenter)}
	return r, []label{main, sub}
}

// mix is a blend of a and b: t=0 gives a, t=1 gives b.
func mix(a, b color.Color, t float64) color.Color {
	t = min(1, max(0, t))
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	f := func(x, y uint32) uint8 { return uint8((float64(x)*(1-t) + float64(y)*t) / 257) }
	return color.RGBA{R: f(ar, br), G: f(ag, bg), B: f(ab, bb), A: 0xff}
}
