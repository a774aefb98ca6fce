package plot

import (
	"image/color"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Layout constants shared by the figures.
const (
	figWidth   = 8 * vg.Inch // every figure is this wide; heights vary
	tickSize   = vg.Length(9)
	labelSize  = vg.Length(10)
	noteSize   = vg.Length(8.5)
	margin     = vg.Length(6)
	maxAbs     = 1e12 // larger magnitudes are treated as missing
	labelRunes = 32   // longest axis or legend label, in runes
	pointRunes = 24   // longest label next to a point
)

// sans is the one face every figure uses; it is embedded in the SVG.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

var (
	black     = color.Gray{Y: 0x20}
	darkGray  = color.Gray{Y: 0x55}
	midGray   = color.Gray{Y: 0x99}
	lightGray = color.Gray{Y: 0xdd}
	white     = color.White
)

// palette is Okabe & Ito's colour-blind-safe set ("Color Universal
// Design", 2008), darkest first, in an order that keeps neighbours apart
// under deuteranopia and protanopia; each series also gets its own glyph
// shape, so series stay apart in grayscale print. A figure overlays at most
// MaxOverlaid series, so the eight colours are never reused in one panel.
var palette = []color.Color{
	rgb(0x0072b2), rgb(0xe69f00), rgb(0x009e73), rgb(0xd55e00),
	rgb(0xcc79a7), rgb(0x56b4e9), rgb(0x000000), rgb(0xf0e442),
}

// refColor draws the reference arm in the panels of small multiples.
var refColor = color.Gray{Y: 0x8a}

var shapes = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{},
	draw.RingGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{},
}

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

func seriesColor(i int) color.Color      { return palette[i%len(palette)] }
func seriesShape(i int) draw.GlyphDrawer { return shapes[i%len(shapes)] }

// textStyle is Liberation Sans at size in clr, aligned by (xa, ya).
func textStyle(size vg.Length, clr color.Color, xa text.XAlignment, ya text.YAlignment) text.Style {
	return text.Style{
		Color:   clr,
		Font:    font.From(sans, size),
		XAlign:  xa,
		YAlign:  ya,
		Handler: gplot.DefaultTextHandler,
	}
}

// newPlot is a gonum plot set in Liberation Sans with a light grid.
func newPlot(xLabel, yLabel string) *gplot.Plot {
	p := gplot.New()
	p.BackgroundColor = nil // the canvas is filled once, by render
	p.Title.TextStyle = textStyle(labelSize, black, draw.XCenter, draw.YTop)
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, labelSize)
		a.Label.TextStyle.Color = black
		a.Tick.Label.Font = font.From(sans, tickSize)
		a.Tick.Label.Color = black
		a.Tick.Length = 4
		a.Tick.Marker = niceTicks{}
		a.LineStyle.Color = darkGray
		a.Tick.LineStyle.Color = darkGray
	}
	p.X.Label.Text = cleanLabel(xLabel, 60)
	p.Y.Label.Text = cleanLabel(yLabel, 60)
	p.Legend.TextStyle = textStyle(tickSize, black, draw.XLeft, draw.YBottom)
	return p
}

// ok reports whether every v is finite and within ±maxAbs.
func ok(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.Abs(v) > maxAbs {
			return false
		}
	}
	return true
}

// span is a running [lo, hi] over the values it was given.
type span struct {
	lo, hi float64
	any    bool
}

func (s *span) add(vs ...float64) {
	for _, v := range vs {
		if !ok(v) {
			continue
		}
		if !s.any {
			s.lo, s.hi, s.any = v, v, true
			continue
		}
		s.lo = math.Min(s.lo, v)
		s.hi = math.Max(s.hi, v)
	}
}

// padded is the span widened by frac of its width on each side; a span of
// (almost) no width is widened around its middle, and no span is [0, 1].
func (s span) padded(frac float64) (lo, hi float64) {
	if !s.any {
		return 0, 1
	}
	lo, hi = s.lo, s.hi
	w := hi - lo
	if w <= 1e-9*math.Max(1, math.Max(math.Abs(lo), math.Abs(hi))) {
		d := math.Abs(lo+hi) / 2 * 0.1
		if d < 1e-9 {
			d = 1
		}
		return lo - d, hi + d
	}
	return lo - w*frac, hi + w*frac
}

// setRange fixes an axis to the padded span.
func setRange(a *gplot.Axis, s span, frac float64) {
	a.Min, a.Max = s.padded(frac)
}

// cleanLabel makes s safe and short for a figure: invalid UTF-8 and
// characters XML does not allow become U+FFFD, control characters (newlines
// included) become spaces, runs of spaces collapse, and a label longer than
// max runes is cut to max-1 runes and an ellipsis.
func cleanLabel(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == 0xFFFE || r == 0xFFFF:
			r = '\uFFFD'
		case unicode.IsControl(r) || unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if max < 1 || utf8.RuneCountInString(out) <= max {
		return out
	}
	runes := []rune(out)
	return strings.TrimRight(string(runes[:max-1]), " ") + "…"
}

// pct turns a fraction into percent.
func pct(v float64) float64 { return v * 100 }

// niceTicks labels about six ticks at steps of 1, 2, 2.5 or 5 times a power
// of ten, with as many decimals as the step needs.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []gplot.Tick { return ticksAbout(lo, hi, 6) }

// fewTicks labels about three ticks, for the small panels of small
// multiples.
type fewTicks struct{}

func (fewTicks) Ticks(lo, hi float64) []gplot.Tick { return ticksAbout(lo, hi, 3) }

func ticksAbout(lo, hi, n float64) []gplot.Tick {
	if !ok(lo, hi) || !(hi > lo) {
		return nil
	}
	step, decimals := niceStep((hi - lo) / n)
	if step <= 0 || math.IsInf(step, 0) {
		return nil
	}
	k0 := math.Ceil(lo/step - 1e-9)
	var ticks []gplot.Tick
	for i := 0.0; i < 40; i++ {
		v := (k0 + i) * step
		if v > hi+step*1e-9 {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, gplot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
	}
	return ticks
}

// niceStep rounds raw up to 1, 2, 2.5 or 5 times a power of ten and says
// how many decimals its labels need.
func niceStep(raw float64) (step float64, decimals int) {
	if !(raw > 0) {
		return 0, 0
	}
	exp := math.Floor(math.Log10(raw))
	base := math.Pow(10, exp)
	decimals = max(0, int(-exp))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*base*(1+1e-9) {
			if m == 2.5 {
				decimals++
			}
			if m == 10 && decimals > 0 {
				decimals--
			}
			return m * base, decimals
		}
	}
	return 10 * base, decimals
}

// fitLabel is cleanLabel(s, max) cut further, with an ellipsis, until it
// is no wider than w in sty.
func fitLabel(s string, max int, sty text.Style, w vg.Length) string {
	out := cleanLabel(s, max)
	n := utf8.RuneCountInString(out)
	for n > 2 && sty.Width(out) > w {
		n--
		out = cleanLabel(s, n)
	}
	return out
}
