package plot_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/report/plot"
	"github.com/medteam-bench/medteam/report/plot/plottest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got (normalized: fonts as digests) with testdata/name.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	got = plottest.Normalize(got)
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report/plot -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (%d bytes, want %d); if intended, run go test ./report/plot -update and review the diff",
			name, len(got), len(want))
	}
}

// wellFormed parses svg as XML and checks what every figure promises: one
// <svg> root with a viewBox, width 100%, a data-plot kind, an embedded font
// and no reference outside the document.
func wellFormed(t *testing.T, svg []byte) (kind string, empty bool) {
	t.Helper()
	if !bytes.HasPrefix(svg, []byte("<svg ")) {
		t.Fatalf("output does not start with <svg: %.60q", svg)
	}
	if n := bytes.Count(svg, []byte(plot.FontFaceCSS())); n != 1 {
		t.Fatalf("the font is embedded %d times, want once", n)
	}
	if bytes.Count(svg, []byte("font-family:")) != 1+bytes.Count(svg, []byte("font-family:Liberation Sans;font-variant:normal;font-weight:normal;font-style:normal")) {
		t.Error("text in a face other than the embedded Liberation Sans Regular")
	}
	dec := xml.NewDecoder(bytes.NewReader(plot.StripFont(svg)))
	depth, roots := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				kind, empty = checkRoot(t, el)
			}
			checkElement(t, el)
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if roots != 1 || depth != 0 {
		t.Fatalf("want one root element, got %d (depth %d at the end)", roots, depth)
	}
	return kind, empty
}

func checkRoot(t *testing.T, el xml.StartElement) (kind string, empty bool) {
	t.Helper()
	attrs := map[string]string{}
	for _, a := range el.Attr {
		attrs[a.Name.Local] = a.Value
	}
	if el.Name.Local != "svg" || attrs["viewBox"] == "" || attrs["width"] != "100%" || attrs["role"] != "img" {
		t.Errorf("root element: %v %v", el.Name, attrs)
	}
	return attrs["data-plot"], attrs["data-empty"] == "true"
}

func checkElement(t *testing.T, el xml.StartElement) {
	t.Helper()
	switch el.Name.Local {
	case "script", "foreignObject", "image", "a", "use", "iframe":
		t.Errorf("unexpected element <%s>", el.Name.Local)
	}
	for _, a := range el.Attr {
		if strings.HasPrefix(strings.ToLower(a.Name.Local), "on") || a.Name.Local == "href" {
			t.Errorf("unexpected attribute %s on <%s>", a.Name.Local, el.Name.Local)
		}
		if a.Name.Local != "aria-label" && (strings.Contains(a.Value, "NaN") || strings.Contains(a.Value, "Inf")) {
			t.Errorf("attribute %s=%.80q of <%s> holds a non-finite number", a.Name.Local, a.Value, el.Name.Local)
		}
	}
}

func TestSamplesGolden(t *testing.T) {
	figs, err := plottest.All()
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{plot.KindForest, plot.KindFrontier, plot.KindReliability, plot.KindAgreement,
		plot.KindRiskCover, plot.KindSubjects, plot.KindConfusion}
	if len(figs) != len(kinds) {
		t.Fatalf("%d samples, want %d", len(figs), len(kinds))
	}
	for i, f := range figs {
		kind, empty := wellFormed(t, f.SVG)
		if kind != kinds[i] || f.Kind != kind || empty {
			t.Errorf("sample %d: kind %q (figure says %q), empty %v; want %q", i, kind, f.Kind, empty, kinds[i])
		}
		golden(t, f.Kind+".svg", f.SVG)
	}
}

func TestDeterministic(t *testing.T) {
	a, err := plottest.All()
	if err != nil {
		t.Fatal(err)
	}
	b, err := plottest.All()
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if !bytes.Equal(a[i].SVG, b[i].SVG) {
			t.Errorf("%s: two renderings of the same input differ", a[i].Kind)
		}
	}
}

// every renders one input through all seven figures.
type input struct {
	forest   []plot.ForestRow
	cost     []plot.CostPoint
	rel      []plot.ReliabilitySeries
	agree    []plot.AgreementSeries
	risk     []plot.RiskCoverageSeries
	subjects []plot.SubjectCell
	conf     plot.Confusion
}

func (in input) render() map[string]func() ([]byte, error) {
	return map[string]func() ([]byte, error){
		plot.KindForest:      func() ([]byte, error) { return plot.Forest(in.forest) },
		plot.KindFrontier:    func() ([]byte, error) { return plot.CostAccuracy("calls", in.cost) },
		plot.KindReliability: func() ([]byte, error) { return plot.Reliability(in.rel) },
		plot.KindAgreement:   func() ([]byte, error) { return plot.AgreementByRound(in.agree) },
		plot.KindRiskCover:   func() ([]byte, error) { return plot.RiskCoverage(in.risk) },
		plot.KindSubjects:    func() ([]byte, error) { return plot.SubjectBreakdown(in.subjects) },
		plot.KindConfusion:   func() ([]byte, error) { return plot.ConfusionMatrix(in.conf) },
	}
}

// figures is every kind of figure of in, to draw as SVG or PDF.
func (in input) figures() map[string]plot.Figure {
	return map[string]plot.Figure{
		plot.KindForest:      plot.ForestFigure(in.forest),
		plot.KindFrontier:    plot.CostAccuracyFigure("calls", in.cost),
		plot.KindReliability: plot.ReliabilityFigure(in.rel),
		plot.KindAgreement:   plot.AgreementByRoundFigure(in.agree),
		plot.KindRiskCover:   plot.RiskCoverageFigure(in.risk),
		plot.KindSubjects:    plot.SubjectBreakdownFigure(in.subjects),
		plot.KindConfusion:   plot.ConfusionMatrixFigure(in.conf),
	}
}

func TestEmptyInputSaysNoData(t *testing.T) {
	nan := math.NaN()
	cases := map[string]input{
		"nil": {},
		"only NaN": {
			cost:     []plot.CostPoint{{Label: "x", Cost: nan, Accuracy: 0.5}},
			rel:      []plot.ReliabilitySeries{{Name: "a", Bins: []plot.ReliabilityBin{{MeanConfidence: nan, Accuracy: 0.5}}}},
			agree:    []plot.AgreementSeries{{Name: "a", Points: []plot.RoundPoint{{Round: 1, Mean: nan}}}},
			risk:     []plot.RiskCoverageSeries{{Name: "a", Points: []plot.RiskCoveragePoint{{Coverage: math.Inf(1), Risk: 0.1}}}},
			subjects: []plot.SubjectCell{{Subject: "s", Arm: "a", Accuracy: nan}},
			conf:     plot.Confusion{Labels: []string{"a", "b"}, Counts: [][]int{{0, 0}, {0}}},
		},
		"series without points": {
			rel:   []plot.ReliabilitySeries{{Name: "a"}},
			agree: []plot.AgreementSeries{{Name: "a"}},
			risk:  []plot.RiskCoverageSeries{{Name: "a"}},
			conf:  plot.Confusion{Counts: [][]int{{3}}},
		},
	}
	for name, in := range cases {
		for kind, draw := range in.render() {
			if name == "only NaN" && kind == plot.KindForest {
				continue // a forest keeps its rows (see TestNaNForestRowReadsNA)
			}
			svg, err := draw()
			if err != nil {
				t.Fatalf("%s/%s: %v", name, kind, err)
			}
			gotKind, empty := wellFormed(t, svg)
			if gotKind != kind || !empty || !bytes.Contains(svg, []byte("no data")) {
				t.Errorf("%s/%s: kind %q empty %v; want a no-data figure", name, kind, gotKind, empty)
			}
		}
	}
	svg, _ := plot.Forest(nil)
	golden(t, "empty.svg", svg)
}

func TestNaNForestRowReadsNA(t *testing.T) {
	nan := math.NaN()
	svg, err := plot.Forest([]plot.ForestRow{
		{Label: "ok", Estimate: 0.02, Lo: nan, Hi: 0.04},
		{Label: "missing", Estimate: nan, Lo: -0.01, Hi: 0.01},
		{Label: "huge", Estimate: 1e300, Lo: math.Inf(-1), Hi: math.Inf(1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, svg)
	if n := bytes.Count(svg, []byte(">n/a<")); n != 2 {
		t.Errorf("%d rows read n/a, want 2", n)
	}
	if !bytes.Contains(svg, []byte(">+2.0<")) {
		t.Error("the row without an interval should still show its estimate, +2.0")
	}
	if bytes.Contains(svg, []byte("NaN")) || bytes.Contains(svg, []byte("Inf")) {
		t.Error("NaN or Inf leaked into the SVG")
	}
}

func TestSinglePointAndLongLabels(t *testing.T) {
	long := strings.Repeat("very long arm name ", 10) + "\x00\xff\n end"
	in := input{
		forest:   []plot.ForestRow{{Label: long, Estimate: 0.01, Lo: 0.01, Hi: 0.01, Flag: long}},
		cost:     []plot.CostPoint{{Label: long, Cost: 3, Accuracy: 0.6, Lo: 0.6, Hi: 0.6}},
		rel:      []plot.ReliabilitySeries{{Name: long, Bins: []plot.ReliabilityBin{{MeanConfidence: 0.7, Accuracy: 0.6, Count: 1}}}},
		agree:    []plot.AgreementSeries{{Name: long, Points: []plot.RoundPoint{{Round: 2, Mean: 0.8, Lo: 0.8, Hi: 0.8}}}},
		risk:     []plot.RiskCoverageSeries{{Name: long, Points: []plot.RiskCoveragePoint{{Coverage: 1, Risk: 0}}}},
		subjects: []plot.SubjectCell{{Subject: long, Arm: long, Count: 1, Accuracy: 1, Lo: 1, Hi: 1}},
		conf:     plot.Confusion{Labels: []string{long}, Counts: [][]int{{7}}},
	}
	for kind, draw := range in.render() {
		svg, err := draw()
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		gotKind, empty := wellFormed(t, svg)
		if gotKind != kind || empty {
			t.Errorf("%s: kind %q, empty %v", kind, gotKind, empty)
		}
		if !bytes.Contains(svg, []byte("…</text>")) {
			t.Errorf("%s: the long label is not cut with an ellipsis", kind)
		}
		if bytes.Contains(svg, []byte(strings.Repeat("very long arm name ", 3))) {
			t.Errorf("%s: the long label is drawn whole", kind)
		}
		if kind == plot.KindForest || kind == plot.KindFrontier {
			golden(t, "single-"+kind+".svg", svg)
		}
	}
}

func TestParetoFrontier(t *testing.T) {
	nan := math.NaN()
	pt := func(cost, acc float64) plot.CostPoint { return plot.CostPoint{Cost: cost, Accuracy: acc} }
	cases := []struct {
		name string
		in   []plot.CostPoint
		want []int
	}{
		{"empty", nil, nil},
		{"one", []plot.CostPoint{pt(1, 0.5)}, []int{0}},
		{"chain", []plot.CostPoint{pt(1, 0.5), pt(2, 0.6), pt(3, 0.7)}, []int{0, 1, 2}},
		{"dominated in the middle", []plot.CostPoint{pt(1, 0.5), pt(2, 0.45), pt(3, 0.7)}, []int{0, 2}},
		{"unsorted input", []plot.CostPoint{pt(3, 0.7), pt(1, 0.5), pt(2, 0.6)}, []int{1, 2, 0}},
		{"cheaper and better dominates all", []plot.CostPoint{pt(5, 0.5), pt(1, 0.9), pt(3, 0.7)}, []int{1}},
		{"same cost: the more accurate", []plot.CostPoint{pt(2, 0.5), pt(2, 0.6)}, []int{1}},
		{"same accuracy: the cheaper", []plot.CostPoint{pt(3, 0.6), pt(2, 0.6)}, []int{1}},
		{"identical points both stay", []plot.CostPoint{pt(2, 0.6), pt(2, 0.6), pt(1, 0.4)}, []int{2, 0, 1}},
		{"NaN is ignored", []plot.CostPoint{pt(nan, 0.9), pt(1, nan), pt(2, 0.5)}, []int{2}},
		{"Inf is ignored", []plot.CostPoint{pt(math.Inf(-1), 0.9), pt(2, 0.5)}, []int{1}},
		{"negative cost", []plot.CostPoint{pt(-1, 0.2), pt(0, 0.3)}, []int{0, 1}},
	}
	for _, c := range cases {
		got := plot.ParetoFrontier(c.in)
		if len(got) == 0 && len(c.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCaps(t *testing.T) {
	var cells []plot.SubjectCell
	for s := 0; s < 30; s++ {
		for a := 0; a < 12; a++ {
			cells = append(cells, plot.SubjectCell{Subject: fmt.Sprintf("subject %02d", s), Arm: fmt.Sprintf("arm %d", a),
				Count: 100 + s, Accuracy: 0.5, Lo: 0.4, Hi: 0.6})
		}
	}
	svg, err := plot.SubjectBreakdown(cells)
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, svg)
	for _, want := range []string{"top 20 of 30 subjects by question count", "subject 29 (n=129)", "One panel per arm"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("missing %q", want)
		}
	}
	if bytes.Contains(svg, []byte("subject 09 (n=109)")) {
		t.Error("a capped subject is drawn")
	}
	for a := 0; a < 12; a++ {
		if !bytes.Contains(svg, []byte(fmt.Sprintf(">arm %d<", a))) {
			t.Errorf("arm %d is not drawn", a)
		}
	}
	rows := make([]plot.ForestRow, plot.MaxForestRows+5)
	svg, err = plot.Forest(rows)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte(fmt.Sprintf("first %d of %d comparisons", plot.MaxForestRows, len(rows)))) {
		t.Error("the forest plot does not say it left rows out")
	}
}

// TestConcurrent: figures may be drawn from several goroutines at once
// (run with -race).
func TestConcurrent(t *testing.T) {
	want, err := plottest.All()
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			got, err := plottest.All()
			if err == nil {
				for i := range got {
					if !bytes.Equal(got[i].SVG, want[i].SVG) {
						err = fmt.Errorf("%s differs when drawn concurrently", got[i].Kind)
					}
				}
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestConfusionAxisTitles: the axes are named as the caller says, and
// "reference" / "predicted" by default.
func TestConfusionAxisTitles(t *testing.T) {
	m := plot.Confusion{Labels: []string{"em", "ne", "sc"}, Counts: [][]int{{3, 1, 0}, {0, 2, 1}, {0, 0, 4}}}
	for _, c := range []struct{ row, col, wantRow, wantCol string }{
		{"", "", "reference", "predicted"},
		{"true urgency", "predicted urgency", "true urgency", "predicted urgency"},
	} {
		m.RowTitle, m.ColTitle = c.row, c.col
		svg, err := plot.ConfusionMatrix(m)
		if err != nil {
			t.Fatal(err)
		}
		if s := string(svg); !strings.Contains(s, c.wantRow) || !strings.Contains(s, c.wantCol) {
			t.Errorf("titles %q/%q: the SVG lacks %q or %q", c.row, c.col, c.wantRow, c.wantCol)
		}
	}
}
