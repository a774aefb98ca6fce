// Package pdfcanvas is a gonum/plot canvas (vg.Canvas) that draws one
// vector PDF page whose text is Unicode: every font a figure uses is
// embedded as a TrueType subset (a Type0 font, Identity-H encoding) with a
// ToUnicode map, so any glyph of the font renders (Δ … ± κ ≥ ≤ → – é ü)
// and a PDF reader or pdftotext extracts the text as written.
//
// gonum's own vgpdf embeds fonts with the cp1252 code page and writes the
// string's UTF-8 bytes as cp1252 codes: "Δ" comes out as "Î”" and anything
// outside cp1252 cannot be drawn at all. Paths, colours and transforms here
// follow vgpdf (gonum.org/v1/plot/vg/vgpdf, BSD-3-Clause, © The Gonum
// Authors); only the text differs.
package pdfcanvas

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"

	"codeberg.org/go-pdf/fpdf"
	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// dpi is the PDF's nominal resolution: one unit is one point.
const dpi = 72

// Canvas draws into a one-page PDF of a fixed size. Drawing errors (a font
// that cannot be read, an image that cannot be encoded) are kept and
// returned by WriteTo.
type Canvas struct {
	doc    *fpdf.Fpdf
	w, h   vg.Length
	widths []vg.Length // line width per Push level; the last is current
	fonts  map[string]bool
	images int
	err    error
}

// New is an empty w×h page, filled with nothing, origin at the bottom left.
func New(w, h vg.Length) *Canvas {
	doc := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: w.Points(), Ht: h.Points()}})
	doc.SetMargins(0, 0, 0)
	doc.SetAutoPageBreak(false, 0)
	doc.AddPage()
	c := &Canvas{doc: doc, w: w, h: h, widths: []vg.Length{1}, fonts: map[string]bool{}}
	// fpdf's origin is the top left with y down; vg's is the bottom left
	// with y up.
	c.Push()
	c.Translate(vg.Point{Y: h})
	c.Scale(1, -1)
	vg.Initialize(c)
	return c
}

// Size is the page size.
func (c *Canvas) Size() (w, h vg.Length) { return c.w, c.h }

// DPI is the resolution of the canvas: 72, one unit a point.
func (c *Canvas) DPI() float64 { return dpi }

func (c *Canvas) unit(l vg.Length) float64 { return l.Dots(dpi) }

// SetLineWidth sets the width of stroked paths; a width ≤ 0 strokes nothing.
func (c *Canvas) SetLineWidth(w vg.Length) {
	c.widths[len(c.widths)-1] = w
	c.doc.SetLineWidth(c.unit(w))
}

// SetLineDash sets the dash pattern of stroked paths.
func (c *Canvas) SetLineDash(dashes []vg.Length, offs vg.Length) {
	ds := make([]float64, len(dashes))
	for i, d := range dashes {
		ds[i] = c.unit(d)
	}
	c.doc.SetDashPattern(ds, c.unit(offs))
}

// SetColor sets the colour of strokes, fills and text (nil is black).
func (c *Canvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	r, g, b, a := clr.RGBA()
	ri, gi, bi := int(r>>8), int(g>>8), int(b>>8)
	c.doc.SetFillColor(ri, gi, bi)
	c.doc.SetDrawColor(ri, gi, bi)
	c.doc.SetTextColor(ri, gi, bi)
	c.doc.SetAlpha(float64(a)/math.MaxUint16, "Normal")
}

// Rotate rotates the coordinate system by rad radians, counterclockwise.
func (c *Canvas) Rotate(rad float64) { c.doc.TransformRotate(-rad*180/math.Pi, 0, 0) }

// Translate moves the origin to pt.
func (c *Canvas) Translate(pt vg.Point) {
	c.doc.TransformTranslate(c.unit(pt.X), c.unit(pt.Y))
}

// Scale scales the coordinate system by x and y.
func (c *Canvas) Scale(x, y float64) { c.doc.TransformScale(x*100, y*100, 0, 0) }

// Push saves the graphics state (transform, colour, line width and dashes).
func (c *Canvas) Push() {
	c.widths = append(c.widths, c.widths[len(c.widths)-1])
	c.doc.TransformBegin()
}

// Pop restores the state saved by the matching Push.
func (c *Canvas) Pop() {
	c.doc.TransformEnd()
	c.widths = c.widths[:len(c.widths)-1]
}

// Stroke strokes p with the current line width, colour and dashes.
func (c *Canvas) Stroke(p vg.Path) {
	if c.widths[len(c.widths)-1] > 0 {
		c.path(p, "D")
	}
}

// Fill fills p with the current colour.
func (c *Canvas) Fill(p vg.Path) { c.path(p, "F") }

// FillString draws s with its baseline's left end at pt, in fnt (embedded
// as Unicode on first use). A zero-size font draws nothing.
func (c *Canvas) FillString(fnt font.Face, pt vg.Point, s string) {
	if fnt.Font.Size == 0 || s == "" {
		return
	}
	name := fnt.Name()
	if !c.fonts[name] {
		var ttf bytes.Buffer
		if _, err := fnt.Face.WriteSourceTo(nil, &ttf); err != nil {
			c.fail(fmt.Errorf("pdfcanvas: font %s: %w", name, err))
			return
		}
		c.doc.AddUTF8FontFromBytes(name, "", ttf.Bytes())
		c.fonts[name] = true
	}
	c.doc.SetFont(name, "", c.unit(fnt.Font.Size))
	c.Push()
	defer c.Pop()
	c.Translate(pt)
	c.Scale(1, -1) // text upright again in the flipped page
	c.doc.Text(0, 0, drawable(fnt, s))
}

// drawable is s with every rune the PDF cannot show in fnt replaced by
// U+FFFD (or '?' when the font has no U+FFFD either): invalid UTF-8, runes
// past U+FFFF (fpdf's Identity-H fonts stop there) and runes the font has
// no glyph for.
func drawable(fnt font.Face, s string) string {
	var buf sfnt.Buffer
	has := func(r rune) bool {
		if r > 0xFFFF || fnt.Face == nil {
			return false
		}
		g, err := fnt.Face.GlyphIndex(&buf, r)
		return err == nil && g != 0
	}
	repl := '\uFFFD'
	if !has(repl) {
		repl = '?'
	}
	var b strings.Builder
	for _, r := range s { // invalid UTF-8 comes out as U+FFFD
		if !has(r) {
			r = repl
		}
		b.WriteRune(r)
	}
	return b.String()
}

// DrawImage draws img scaled into rect.
func (c *Canvas) DrawImage(rect vg.Rectangle, img image.Image) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		c.fail(fmt.Errorf("pdfcanvas: image: %w", err))
		return
	}
	c.images++
	name := fmt.Sprintf("image_%03d.png", c.images)
	opts := fpdf.ImageOptions{ImageType: "png", ReadDpi: true}
	c.doc.RegisterImageOptionsReader(name, opts, &buf)
	size := rect.Size()
	c.doc.ImageOptions(name, c.unit(rect.Min.X), c.unit(rect.Min.Y), c.unit(size.X), c.unit(size.Y),
		false, opts, 0, "")
}

func (c *Canvas) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// path draws p: style "D" strokes, "F" fills.
func (c *Canvas) path(p vg.Path, style string) {
	pn := pen{doc: c.doc}
	for _, comp := range p {
		x, y := c.unit(comp.Pos.X), c.unit(comp.Pos.Y)
		switch comp.Type {
		case vg.MoveComp:
			pn.moveTo(x, y)
		case vg.LineComp:
			pn.lineTo(x, y)
		case vg.ArcComp:
			pn.arc(x, y, c.unit(comp.Radius), comp.Start, comp.Angle)
		case vg.CurveComp:
			c.curve(comp, x, y)
		case vg.CloseComp:
			pn.close()
		default:
			c.fail(fmt.Errorf("pdfcanvas: unknown path component %d", comp.Type))
			return
		}
	}
	c.doc.DrawPath(style)
}

func (c *Canvas) curve(comp vg.PathComp, x, y float64) {
	switch len(comp.Control) {
	case 1:
		c.doc.CurveTo(c.unit(comp.Control[0].X), c.unit(comp.Control[0].Y), x, y)
	case 2:
		c.doc.CurveBezierCubicTo(c.unit(comp.Control[0].X), c.unit(comp.Control[0].Y),
			c.unit(comp.Control[1].X), c.unit(comp.Control[1].Y), x, y)
	default:
		c.fail(fmt.Errorf("pdfcanvas: a curve with %d control points", len(comp.Control)))
	}
}

// pen builds one path: it knows whether a subpath is open and where it
// started (a vg path may begin with an arc, and PDF needs a moveto first).
type pen struct {
	doc    *fpdf.Fpdf
	open   bool
	sx, sy float64
}

func (p *pen) moveTo(x, y float64) {
	p.doc.MoveTo(x, y)
	p.open, p.sx, p.sy = true, x, y
}

func (p *pen) lineTo(x, y float64) {
	if !p.open {
		p.moveTo(x, y)
		return
	}
	p.doc.LineTo(x, y)
}

func (p *pen) close() {
	if p.open {
		p.doc.LineTo(p.sx, p.sy)
		p.doc.ClosePath()
		p.open = false
	}
}

// arc draws a circular arc (centre, radius, start and sweep in radians,
// counterclockwise) as cubic Bézier segments of at most 90° each, after a
// line to its start. fpdf's own arcs end the path and, in the flipped
// page, turn the wrong way.
func (p *pen) arc(cx, cy, r, start, sweep float64) {
	at := func(a float64) (float64, float64) { return cx + r*math.Cos(a), cy + r*math.Sin(a) }
	p.lineTo(at(start))
	n := int(math.Ceil(math.Abs(sweep) / (math.Pi / 2)))
	if n == 0 {
		return
	}
	step := sweep / float64(n)
	k := 4.0 / 3 * math.Tan(step/4) * r // control arm of one segment
	for i := 0; i < n; i++ {
		a0 := start + float64(i)*step
		a1 := a0 + step
		x0, y0 := at(a0)
		x1, y1 := at(a1)
		p.doc.CurveBezierCubicTo(x0-k*math.Sin(a0), y0+k*math.Cos(a0), x1+k*math.Sin(a1), y1-k*math.Cos(a1), x1, y1)
	}
}

// WriteTo writes the PDF to w; the canvas cannot be drawn on afterwards.
func (c *Canvas) WriteTo(w io.Writer) (int64, error) {
	if c.err != nil {
		return 0, c.err
	}
	c.Pop()
	c.doc.Close()
	cw := &counter{w: w}
	bw := bufio.NewWriter(cw)
	if err := c.doc.Output(bw); err != nil {
		return cw.n, fmt.Errorf("pdfcanvas: %w", err)
	}
	err := bw.Flush()
	return cw.n, err
}

type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
