package plot_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/medteam-bench/medteam/report/plot"
	"github.com/medteam-bench/medteam/report/plot/plottest"
)

// source turns fuzz bytes into values, leaning towards the awkward ones.
type source struct {
	b []byte
	i int
}

func (s *source) byte() byte {
	if s.i >= len(s.b) {
		return 0
	}
	s.i++
	return s.b[s.i-1]
}

func (s *source) n(max int) int { return int(s.byte()) % (max + 1) }

func (s *source) float() float64 {
	switch k := s.byte(); k % 16 {
	case 0:
		return math.NaN()
	case 1:
		return math.Inf(1)
	case 2:
		return math.Inf(-1)
	case 3:
		return 1e300 * float64(int(k%2)*2-1)
	case 4:
		return 1e-300
	case 5:
		return 0
	case 6:
		var raw [8]byte
		for i := range raw {
			raw[i] = s.byte()
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(raw[:]))
	case 7:
		return float64(int16(uint16(s.byte())<<8|uint16(s.byte()))) / 100
	default:
		return float64(s.byte()) / 255
	}
}

func (s *source) str() string {
	b := make([]byte, s.n(60))
	for i := range b {
		b[i] = s.byte()
	}
	return string(b)
}

func (s *source) input() input {
	var in input
	for range s.n(8) {
		in.forest = append(in.forest, plot.ForestRow{Label: s.str(), Estimate: s.float(), Lo: s.float(), Hi: s.float(), Flag: s.str()})
		in.cost = append(in.cost, plot.CostPoint{Label: s.str(), Cost: s.float(), Accuracy: s.float(), Lo: s.float(), Hi: s.float()})
		in.subjects = append(in.subjects, plot.SubjectCell{Subject: s.str(), Arm: s.str(), Count: int(int8(s.byte())),
			Accuracy: s.float(), Lo: s.float(), Hi: s.float()})
	}
	for range s.n(4) {
		rel := plot.ReliabilitySeries{Name: s.str()}
		ag := plot.AgreementSeries{Name: s.str()}
		rc := plot.RiskCoverageSeries{Name: s.str()}
		for range s.n(6) {
			rel.Bins = append(rel.Bins, plot.ReliabilityBin{MeanConfidence: s.float(), Accuracy: s.float(),
				Count: int(int8(s.byte())), Lo: s.float(), Hi: s.float()})
			ag.Points = append(ag.Points, plot.RoundPoint{Round: int(int8(s.byte())), Mean: s.float(), Lo: s.float(), Hi: s.float()})
			rc.Points = append(rc.Points, plot.RiskCoveragePoint{Coverage: s.float(), Risk: s.float()})
		}
		in.rel, in.agree, in.risk = append(in.rel, rel), append(in.agree, ag), append(in.risk, rc)
	}
	for range s.n(6) {
		in.conf.Labels = append(in.conf.Labels, s.str())
		row := make([]int, s.n(6))
		for j := range row {
			row[j] = int(int8(s.byte()))
		}
		in.conf.Counts = append(in.conf.Counts, row)
	}
	return in
}

// FuzzFigures: whatever the input, every figure renders without error or
// panic and is well-formed XML with no non-finite coordinate, and its PDF
// draws as many strings as the SVG has texts.
func FuzzFigures(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x03\x01abc\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"))
	f.Add([]byte{8, 5, 'x', 'y', 0xff, 0xfe, 0x80, 7, 0x7f, 0xff, 7, 0x80, 0, 6, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	f.Add([]byte("\x04\x03\x02\x01seriesname\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x06\x09\x09\x09\x09\x09"))
	f.Fuzz(func(t *testing.T, data []byte) {
		src := &source{b: data}
		in := src.input()
		for kind, draw := range in.render() {
			svg, err := draw()
			if err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			if got, _ := wellFormed(t, svg); got != kind {
				t.Fatalf("%s: data-plot %q", kind, got)
			}
		}
		for kind, f := range in.figures() {
			pdf, err := f.PDF()
			if err != nil {
				t.Fatalf("%s PDF: %v", kind, err)
			}
			svg, err := f.SVG()
			if err != nil {
				t.Fatal(err)
			}
			labels, err := plottest.SVGText(svg)
			if err != nil {
				t.Fatal(err)
			}
			runs, err := plottest.PDFText(pdf)
			if err != nil || len(runs) != len(labels) {
				t.Fatalf("%s: the PDF holds %d strings (%v), the SVG %d", kind, len(runs), err, len(labels))
			}
		}
	})
}
