package plot

import (
	"fmt"
	"image/color"
	"math"
	"reflect"
	"testing"
)

// Issue 27 item 3: "a colour-blind-safe palette (Okabe–Ito or Tol: the
// first 8 series stay distinguishable under simulated deuteranopia)".
//
// Simulation: Machado, Oliveira & Fernandes (2009), "A Physiologically-based
// Model for Simulation of Color Vision Deficiency", IEEE TVCG 15(6):1291–1298,
// the deuteranomaly matrix at severity 1.0 (i.e. deuteranopia) from the
// authors' published table (also colour-science's CVD_MATRICES_MACHADO2010,
// "Deuteranomaly" 1.0). The matrix acts on linear RGB, so colours are
// linearised with the sRGB transfer function first; results are clipped to
// [0, 1], as a display would show them.
var deuteranopia = [3][3]float64{
	{0.367322, 0.860646, -0.227968},
	{0.280085, 0.672501, 0.047413},
	{-0.011820, 0.042940, 0.968881},
}

var identity = [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}

// minDeltaE is the smallest CIEDE76 (Euclidean CIELAB) difference that
// counts as "distinguishable" for two series. A just-noticeable difference
// is about ΔE76 2.3 for large patches side by side (Mahy, Van Eycken &
// Oosterlinck 1994); series in a plot are thin lines and small glyphs, seen
// apart and matched against a legend, which needs several JNDs, so we ask
// for ΔE76 ≥ 10 (about four JNDs). The threshold comes from this reasoning,
// not from the palette: the measured minimum is logged and sits well above.
const minDeltaE = 10.0

// lab is a CIELAB (D65) colour.
type lab struct{ L, A, B float64 }

// srgbLinear is the sRGB (IEC 61966-2-1) decoding of one channel in [0, 1].
func srgbLinear(c float64) float64 {
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// linearRGB is c's linear-light sRGB channels in [0, 1].
func linearRGB(c color.Color) [3]float64 {
	r, g, b, _ := color.NRGBAModel.Convert(c).RGBA()
	return [3]float64{srgbLinear(float64(r) / 0xffff), srgbLinear(float64(g) / 0xffff), srgbLinear(float64(b) / 0xffff)}
}

// simulate applies m to linear RGB v and clips to the display gamut.
func simulate(m [3][3]float64, v [3]float64) [3]float64 {
	var out [3]float64
	for i := range out {
		s := m[i][0]*v[0] + m[i][1]*v[1] + m[i][2]*v[2]
		out[i] = math.Min(1, math.Max(0, s))
	}
	return out
}

// toLab converts linear sRGB to CIELAB with the D65 white (sRGB → XYZ
// matrix of IEC 61966-2-1; CIE 15:2004 Lab with the exact ε, κ).
func toLab(v [3]float64) lab {
	x := 0.4124564*v[0] + 0.3575761*v[1] + 0.1804375*v[2]
	y := 0.2126729*v[0] + 0.7151522*v[1] + 0.0721750*v[2]
	z := 0.0193339*v[0] + 0.1191920*v[1] + 0.9503041*v[2]
	f := func(t float64) float64 {
		const eps, kappa = 216.0 / 24389, 24389.0 / 27
		if t > eps {
			return math.Cbrt(t)
		}
		return (kappa*t + 16) / 116
	}
	fx, fy, fz := f(x/0.95047), f(y/1.0), f(z/1.08883)
	return lab{L: 116*fy - 16, A: 500 * (fx - fy), B: 200 * (fy - fz)}
}

// deltaE76 is the CIE 1976 colour difference.
func deltaE76(p, q lab) float64 {
	return math.Sqrt((p.L-q.L)*(p.L-q.L) + (p.A-q.A)*(p.A-q.A) + (p.B-q.B)*(p.B-q.B))
}

// closest is the smallest pairwise ΔE76 among cs after simulation with m,
// and the indices of the pair.
func closest(m [3][3]float64, cs []color.Color) (d float64, i, j int) {
	labs := make([]lab, len(cs))
	for k, c := range cs {
		labs[k] = toLab(simulate(m, linearRGB(c)))
	}
	d, i, j = math.Inf(1), -1, -1
	for a := range labs {
		for b := a + 1; b < len(labs); b++ {
			if e := deltaE76(labs[a], labs[b]); e < d {
				d, i, j = e, a, b
			}
		}
	}
	return d, i, j
}

func hex(c color.Color) string {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return fmt.Sprintf("#%02x%02x%02x", n.R, n.G, n.B)
}

// TestLabKnownAnswers checks the conversion against published values
// (sRGB primaries in CIELAB D65, e.g. Lindbloom's calculator).
func TestLabKnownAnswers(t *testing.T) {
	cases := []struct {
		c    color.Color
		want lab
	}{
		{rgb(0xffffff), lab{100, 0, 0}},
		{rgb(0x000000), lab{0, 0, 0}},
		{rgb(0xff0000), lab{53.24, 80.09, 67.20}},
		{rgb(0x00ff00), lab{87.73, -86.18, 83.18}},
		{rgb(0x0000ff), lab{32.30, 79.19, -107.86}},
		{color.Gray{Y: 0x80}, lab{53.59, 0, 0}},
	}
	for _, tc := range cases {
		got := toLab(linearRGB(tc.c))
		if deltaE76(got, tc.want) > 0.02 {
			t.Errorf("Lab(%s) = %.3f, want %.2f", hex(tc.c), got, tc.want)
		}
	}
	// Severity 1.0 maps pure red to the matrix's first column.
	if got, want := simulate(deuteranopia, [3]float64{1, 0, 0}), [3]float64{0.367322, 0.280085, 0}; got != want {
		t.Errorf("simulate(red) = %v, want %v (first column, clipped)", got, want)
	}
	// Each row of a Machado matrix sums to 1: white and greys are unchanged.
	for _, g := range []float64{1, 0.5, 0.2} {
		got := simulate(deuteranopia, [3]float64{g, g, g})
		for _, v := range got {
			if math.Abs(v-g) > 1e-5 {
				t.Errorf("simulate(grey %.1f) = %v, want the grey unchanged", g, got)
			}
		}
	}
}

// TestPaletteDeuteranopia: the first 8 series colours stay at least
// minDeltaE apart under simulated deuteranopia.
func TestPaletteDeuteranopia(t *testing.T) {
	if len(palette) < 8 {
		t.Fatalf("palette has %d colours, want at least 8", len(palette))
	}
	if MaxOverlaid > 8 {
		t.Errorf("MaxOverlaid = %d overlays more series than the 8 checked here", MaxOverlaid)
	}
	first := make([]color.Color, 8)
	for i := range first {
		first[i] = seriesColor(i)
	}
	d, i, j := closest(deuteranopia, first)
	t.Logf("deuteranopia (Machado 2009, severity 1.0): min ΔE76 = %.2f between series %d %s and %d %s",
		d, i, hex(first[i]), j, hex(first[j]))
	if d < minDeltaE {
		t.Errorf("series %d %s and %d %s are ΔE76 %.2f apart under deuteranopia, want ≥ %.0f",
			i, hex(first[i]), j, hex(first[j]), d, minDeltaE)
	}
	dn, in, jn := closest(identity, first)
	t.Logf("normal vision: min ΔE76 = %.2f between %s and %s", dn, hex(first[in]), hex(first[jn]))
}

// TestDeuteranopiaCheckCanFail: the check rejects a palette that is not
// colour-blind safe. Matplotlib's tab10 (first 8) has a red and a green
// ~120 ΔE76 apart to normal vision that collapse under deuteranopia.
func TestDeuteranopiaCheckCanFail(t *testing.T) {
	tab10 := []color.Color{
		rgb(0x1f77b4), rgb(0xff7f0e), rgb(0x2ca02c), rgb(0xd62728),
		rgb(0x9467bd), rgb(0x8c564b), rgb(0xe377c2), rgb(0x7f7f7f),
	}
	red := []color.Color{rgb(0xd62728), rgb(0x2ca02c)} // tab10's red and green
	if d, _, _ := closest(identity, red); d < minDeltaE {
		t.Fatalf("red/green pair is only ΔE76 %.2f apart to normal vision; the test needs a pair that only deuteranopia confuses", d)
	}
	if d, _, _ := closest(deuteranopia, red); d >= minDeltaE {
		t.Errorf("red %s vs green %s under deuteranopia: ΔE76 %.2f, want < %.0f (the check could not fail)",
			hex(red[0]), hex(red[1]), d, minDeltaE)
	}
	d, i, j := closest(deuteranopia, tab10)
	t.Logf("tab10 under deuteranopia: min ΔE76 = %.2f between %s and %s", d, hex(tab10[i]), hex(tab10[j]))
	if d >= minDeltaE {
		t.Errorf("tab10 passes the deuteranopia check (min ΔE76 %.2f); the check could not fail", d)
	}
}

// TestSeriesGlyphsDistinct: each of the first 8 series also has its own
// glyph shape, so series stay apart where colour alone does not (grayscale
// print, or a viewer whose deficiency is stronger than the model's).
func TestSeriesGlyphsDistinct(t *testing.T) {
	seen := map[reflect.Type]int{}
	for i := 0; i < 8; i++ {
		s := seriesShape(i)
		if s == nil {
			t.Fatalf("series %d has no glyph shape", i)
		}
		ty := reflect.TypeOf(s)
		if k, ok := seen[ty]; ok {
			t.Errorf("series %d and %d share glyph %v", k, i, ty)
		}
		seen[ty] = i
	}
}
