package pdfcanvas_test

import (
	"bytes"
	"compress/zlib"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"

	_ "github.com/medteam-bench/medteam/report/plot" // registers Liberation Sans in font.DefaultCache
	"github.com/medteam-bench/medteam/report/plot/pdfcanvas"
	"github.com/medteam-bench/medteam/report/plot/plottest"
)

func face(t testing.TB) font.Face {
	t.Helper()
	f := font.DefaultCache.Lookup(font.Font{Typeface: "Liberation", Variant: "Sans"}, 10)
	if f.Face == nil {
		t.Fatal("Liberation Sans is not in font.DefaultCache")
	}
	return f
}

// write draws each string on its own line of a new page and returns the PDF.
func write(t testing.TB, texts ...string) []byte {
	t.Helper()
	c := pdfcanvas.New(300, vg.Length(20+15*len(texts)))
	for i, s := range texts {
		c.FillString(face(t), vg.Point{X: 10, Y: vg.Length(10 + 15*i)}, s)
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestTextIsUnicode: what is drawn is what a reader gets back; a rune the
// PDF cannot show (no glyph in the font, past U+FFFF, invalid UTF-8) is a
// '?' rather than a panic or a broken document.
func TestTextIsUnicode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Δ accuracy (points)", "Δ accuracy (points)"},
		{"κ ≥ 0.6 ≤ 1 → café – Zoë ± 2 … ü", "κ ≥ 0.6 ≤ 1 → café – Zoë ± 2 … ü"},
		{`parens ( ) and \ backslash`, `parens ( ) and \ backslash`},
		{"emoji 🙂 past the BMP", "emoji ? past the BMP"},
		{"CJK 中文 not in the font", "CJK ?? not in the font"},
		{"bad \xff\xfe UTF-8", "bad ?? UTF-8"},
		{"control \r char", "control ? char"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			pdf := write(t, tc.in)
			got, err := plottest.PDFText(pdf)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, []string{tc.want}) {
				t.Errorf("drew %q, PDF holds %q, want %q", tc.in, got, tc.want)
			}
			for _, want := range []string{"/Subtype /Type0", "/Encoding /Identity-H", "/ToUnicode", "/FontFile2"} {
				if !bytes.Contains(pdf, []byte(want)) {
					t.Errorf("PDF lacks %s: the font is not embedded as Unicode", want)
				}
			}
		})
	}
}

// TestArcTurnsCounterclockwise: an arc is drawn as Bézier curves in vg's
// direction (counterclockwise, y up) and continues the path it is in.
func TestArcTurnsCounterclockwise(t *testing.T) {
	c := pdfcanvas.New(100, 100)
	var p vg.Path
	p.Move(vg.Point{X: 10, Y: 50})
	p.Arc(vg.Point{X: 50, Y: 50}, 10, 0, math.Pi/2) // from (60,50) to (50,60)
	p.Close()
	c.Stroke(p)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	content := pageContent(t, buf.Bytes())
	// The stream's numbers are fpdf's, y from the top (100 − y): the curve
	// ends at (50, 60) and leaves (60, 50) upwards (control point y 55.52).
	want := []string{"10.00 50.00 m", "60.00 50.00 l", "60.00000 44.47715 55.52285 40.00000 50.00000 40.00000 c",
		"10.00 50.00 l", "h"}
	at := 0
	for _, w := range want {
		i := strings.Index(content[at:], w)
		if i < 0 {
			t.Fatalf("the path lacks %q after offset %d:\n%s", w, at, content)
		}
		at += i + len(w)
	}
	if n := strings.Count(content, " c\n"); n != 1 {
		t.Errorf("a quarter arc drawn with %d curves, want 1:\n%s", n, content)
	}
	if n := strings.Count(content, " m\n"); n != 1 {
		t.Errorf("%d subpaths, want 1: the arc must continue the path:\n%s", n, content)
	}
}

var contentRE = regexp.MustCompile(`(?s)<</Filter /FlateDecode /Length \d+>>\s*stream\r?\n(.*?)\r?\nendstream`)

func pageContent(t *testing.T, pdf []byte) string {
	t.Helper()
	m := contentRE.FindSubmatch(pdf)
	if m == nil {
		t.Fatalf("no page content stream in %.300q", pdf)
	}
	zr, err := zlib.NewReader(bytes.NewReader(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzFillString: any string draws without a panic into a PDF whose text
// reads back with as many runes (invalid bytes count one each).
func FuzzFillString(f *testing.F) {
	for _, s := range []string{"", "Δ", "a)b(c\\", "\xe2\x82", "🙂中", "\x00\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pdf := write(t, s)
		got, err := plottest.PDFText(pdf)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for range s { // an invalid byte is one rune here
			n++
		}
		if s == "" {
			if len(got) != 0 {
				t.Fatalf("empty string drew %q", got)
			}
			return
		}
		if len(got) != 1 || len([]rune(got[0])) != n {
			t.Fatalf("drew %q (%d runes), read back %q", s, n, got)
		}
	})
}
