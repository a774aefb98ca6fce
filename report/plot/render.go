package plot

import (
	"bytes"
	"fmt"
	"html"
	"strconv"

	"github.com/medteam-bench/medteam/report/plot/pdfcanvas"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The kinds of figure, as written in each SVG's data-plot attribute.
const (
	KindForest      = "forest"
	KindFrontier    = "frontier"
	KindReliability = "reliability"
	KindAgreement   = "agreement"
	KindRiskCover   = "risk-coverage"
	KindSubjects    = "subjects"
	KindConfusion   = "confusion"
)

// vgsvg's document starts with an XML prolog, a comment and an <svg> start
// tag with fixed sizes; everything up to the end of that tag is replaced.
var rootEnd = []byte("xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n")

// Figure is one drawn figure, ready to be written as SVG (for the page) or
// PDF (vector, for LaTeX): the same drawing either way.
type Figure struct {
	kind, aria string
	w, h       vg.Length
	paint      func(c draw.Canvas)
	empty      bool // the "no data" figure
}

func newFigure(kind, aria string, w, h vg.Length, paint func(c draw.Canvas)) Figure {
	return Figure{kind: kind, aria: aria, w: w, h: h, paint: paint}
}

// Kind is the figure's kind (KindForest, ...).
func (f Figure) Kind() string { return f.kind }

// Empty reports whether the figure is the "no data" one.
func (f Figure) Empty() bool { return f.empty }

// SVG is the figure as a standalone <svg> element (see the package doc).
func (f Figure) SVG() ([]byte, error) {
	doc, err := render(f.kind, f.aria, f.w, f.h, f.paint)
	if err != nil || !f.empty {
		return doc, err
	}
	return markEmpty(doc), nil
}

// PDF is the figure as a one-page vector PDF of the same size, its font
// (Liberation Sans) embedded as Unicode (see package pdfcanvas): every
// label's text renders and extracts as in the SVG. A panic inside
// gonum/plot becomes an error.
func (f Figure) PDF() (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("plot %s: drawing the PDF failed: %v", f.kind, r)
		}
	}()
	cv := pdfcanvas.New(f.w, f.h)
	c := draw.New(cv)
	c.SetColor(white)
	c.Fill(c.Rectangle.Path())
	f.paint(draw.Crop(c, margin, -margin, margin, -margin))
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plot %s: PDF: %w", f.kind, err)
	}
	return buf.Bytes(), nil
}

// render draws a figure of w×h points with paint and returns the SVG element.
// A panic inside gonum/plot becomes an error.
func render(kind, aria string, w, h vg.Length, paint func(c draw.Canvas)) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("plot %s: drawing failed: %v", kind, r)
		}
	}()
	cv := vgsvg.NewWith(vgsvg.UseWH(w, h))
	c := draw.New(cv)
	c.SetColor(white)
	c.Fill(c.Rectangle.Path())
	paint(draw.Crop(c, margin, -margin, margin, -margin))
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plot %s: %w", kind, err)
	}
	return rewriteRoot(buf.Bytes(), kind, aria, w, h)
}

// rewriteRoot replaces vgsvg's prolog and fixed-size start tag with a root
// element that scales (viewBox, width 100%) and says what it shows.
func rewriteRoot(doc []byte, kind, aria string, w, h vg.Length) ([]byte, error) {
	i := bytes.Index(doc, rootEnd)
	if i < 0 {
		return nil, fmt.Errorf("plot %s: unexpected SVG header from vgsvg", kind)
	}
	body := doc[i+len(rootEnd):]
	var b bytes.Buffer
	b.Grow(len(body) + len(fontDefs()) + 256)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="100%%"`,
		num(w.Points()), num(h.Points()))
	fmt.Fprintf(&b, ` preserveAspectRatio="xMidYMid meet" role="img" aria-label="%s" data-plot="%s"`,
		html.EscapeString(cleanLabel(aria, 200)), html.EscapeString(kind))
	b.WriteString(">\n")
	b.WriteString(fontDefs())
	b.Write(body)
	return b.Bytes(), nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// noDataFigure is the small figure drawn for an input with nothing to plot.
func noDataFigure(kind, what string) Figure {
	w, h := figWidth, vg.Length(48)
	msg := cleanLabel(what, 80) + ": no data"
	f := newFigure(kind, msg, w, h, func(c draw.Canvas) {
		border := draw.LineStyle{Color: lightGray, Width: 1, Dashes: []vg.Length{4, 3}}
		r := c.Rectangle
		c.StrokeLines(border, []vg.Point{
			{X: r.Min.X + 1, Y: r.Min.Y + 1}, {X: r.Max.X - 1, Y: r.Min.Y + 1},
			{X: r.Max.X - 1, Y: r.Max.Y - 1}, {X: r.Min.X + 1, Y: r.Max.Y - 1},
			{X: r.Min.X + 1, Y: r.Min.Y + 1},
		})
		c.FillText(textStyle(labelSize, darkGray, draw.XCenter, draw.YCenter), c.Center(), msg)
	})
	f.empty = true
	return f
}

// markEmpty adds data-empty="true" to a rendered root.
func markEmpty(doc []byte) []byte {
	i := bytes.IndexByte(doc, '>')
	if i < 0 {
		return doc
	}
	out := make([]byte, 0, len(doc)+20)
	out = append(out, doc[:i]...)
	out = append(out, ` data-empty="true"`...)
	return append(out, doc[i:]...)
}
