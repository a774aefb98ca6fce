package plot_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/medteam-bench/medteam/report/plot/plottest"
)

// TestPDFTextIsTheSVGText: every kind of figure, drawn with labels full of
// non-ASCII characters (plottest.Glyphs: Δ … ± κ ≥ ≤ → – é ü, arms named
// with accents), writes in its PDF the very strings its SVG shows; no
// mojibake ("Î”" for "Δ") and no glyph missing from the embedded font.
// The PDF is read twice: by plottest.PDFText (pure Go, always) and by
// poppler's pdftotext, as a reader would (skipped when not installed).
func TestPDFTextIsTheSVGText(t *testing.T) {
	pdftotext, lookErr := exec.LookPath("pdftotext")
	seen := map[rune]bool{}
	for _, f := range plottest.Unicode() {
		t.Run(f.Kind, func(t *testing.T) {
			if f.Fig.Kind() != f.Kind || f.Fig.Empty() {
				t.Fatalf("sample is kind %q (empty %v), want a %q figure with data", f.Fig.Kind(), f.Fig.Empty(), f.Kind)
			}
			svg, err := f.Fig.SVG()
			if err != nil {
				t.Fatal(err)
			}
			pdf, err := f.Fig.PDF()
			if err != nil {
				t.Fatal(err)
			}
			labels, err := plottest.SVGText(svg)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range labels {
				for _, r := range l {
					seen[r] = true
				}
			}
			runs, err := plottest.PDFText(pdf)
			if err != nil {
				t.Fatal(err)
			}
			want, got := slices.Sorted(slices.Values(labels)), slices.Sorted(slices.Values(runs))
			if !slices.Equal(got, want) {
				t.Errorf("PDF strings differ from the SVG's text:\n missing: %q\n extra:   %q", minus(want, got), minus(got, want))
			}
			if lookErr != nil {
				t.Skip("pdftotext not found (Debian package poppler-utils): PDF text not checked with poppler")
			}
			path := filepath.Join(t.TempDir(), f.Kind+".pdf")
			if err := os.WriteFile(path, pdf, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(pdftotext, path, "-").CombinedOutput()
			if err != nil {
				t.Fatalf("pdftotext %s: %v\n%s", path, err, out)
			}
			text := squash(string(out))
			var lost []string
			for _, l := range labels {
				if !strings.Contains(text, squash(l)) {
					lost = append(lost, l)
				}
			}
			if len(lost) > 0 {
				t.Errorf("pdftotext lacks %d of %d labels: %q; it read:\n%s", len(lost), len(labels), lost, out)
			}
		})
	}
	for _, r := range plottest.Glyphs {
		if !seen[r] {
			t.Errorf("no label shows %q: the samples do not test it", r)
		}
	}
}

// TestPDFConcurrent: PDFs may be drawn from several goroutines at once
// (run with -race) and hold the same text.
func TestPDFConcurrent(t *testing.T) {
	figs := plottest.Unicode()
	errs := make(chan error, len(figs))
	for _, f := range figs {
		go func() {
			pdf, err := f.Fig.PDF()
			if err == nil {
				var runs []string
				if runs, err = plottest.PDFText(pdf); err == nil && len(runs) == 0 {
					err = fmt.Errorf("%s: no text in the PDF", f.Kind)
				}
			}
			errs <- err
		}()
	}
	for range figs {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// minus is the strings of a not in b, counting repeats.
func minus(a, b []string) []string {
	left := map[string]int{}
	for _, s := range b {
		left[s]++
	}
	var out []string
	for _, s := range a {
		if left[s] > 0 {
			left[s]--
			continue
		}
		out = append(out, s)
	}
	return out
}

// squash drops white space: pdftotext puts its own between words and lines.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}
