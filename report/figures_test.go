package report

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/report/plot/plottest"
)

// TestWriteFigures: every figure of the page is written as SVG, a vector
// PDF and its caption (.txt and a LaTeX figure environment). The PDF holds
// the SVG's text as written, an arm named with an accent included.
func TestWriteFigures(t *testing.T) {
	arms := presetArms()
	arms[len(arms)-1].name = "Zoë-full"
	rows := synthRows(arms, 60, 1, 7, "sim/default")
	for i := range rows {
		rows[i].Subject = []string{"step1", "step2&3"}[i%2]
	}
	r, err := Build(rows, Options{Seed: 1, Reps: 200})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := WriteFigures(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"forest", "frontier", "reliability", "risk-coverage", "agreement", "position", "subjects"}
	if len(paths) != 4*len(want) {
		t.Errorf("%d files, want %d: %v", len(paths), 4*len(want), paths)
	}
	for _, name := range want {
		svg, err := os.ReadFile(filepath.Join(dir, name+".svg"))
		if err != nil || !bytes.HasPrefix(svg, []byte("<svg ")) {
			t.Errorf("%s.svg: %v, starts %.20q", name, err, svg)
		}
		pdf, err := os.ReadFile(filepath.Join(dir, name+".pdf"))
		if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) || !bytes.Contains(pdf, []byte("/FontFile")) {
			t.Errorf("%s.pdf: %v, not a PDF with an embedded font (%d bytes)", name, err, len(pdf))
		}
		pdfText, err := plottest.PDFText(pdf)
		svgText, err2 := plottest.SVGText(svg)
		if err != nil || err2 != nil || !slices.Equal(slices.Sorted(slices.Values(pdfText)), slices.Sorted(slices.Values(svgText))) {
			t.Errorf("%s.pdf's text differs from %s.svg's (%v, %v):\n pdf %q\n svg %q", name, name, err, err2, pdfText, svgText)
		}
		if !slices.ContainsFunc(pdfText, func(s string) bool { return strings.Contains(s, "Zoë-full") }) {
			t.Errorf("%s.pdf never names the arm Zoë-full: %q", name, pdfText)
		}
		txt, _ := os.ReadFile(filepath.Join(dir, name+".txt"))
		tex, _ := os.ReadFile(filepath.Join(dir, name+".tex"))
		if len(bytes.TrimSpace(txt)) == 0 || !strings.Contains(string(tex), `\includegraphics[width=\linewidth]{`+name+`.pdf}`) ||
			!strings.Contains(string(tex), `\label{fig:`+name+`}`) {
			t.Errorf("%s: caption %q, tex %q", name, txt, tex)
		}
	}
}

func TestTexEscape(t *testing.T) {
	got := texEscape(`95% CI & a_b {x} $1 #2 ~ ^ \`)
	want := `95\% CI \& a\_b \{x\} \$1 \#2 \textasciitilde{} \textasciicircum{} \textbackslash{}`
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
