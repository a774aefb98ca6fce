package plot

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

func TestCrowded(t *testing.T) {
	for _, tc := range []struct {
		name             string
		pos              []vg.Length
		capW, lineW      vg.Length
		wantCap, wantLin vg.Length
	}{
		{"apart: as asked", []vg.Length{10, 60, 110}, 4, 1, 4, 1},
		{"one whisker", []vg.Length{10}, 4, 1, 4, 1},
		{"same position counts once", []vg.Length{10, 10, 60}, 4, 1, 4, 1},
		{"5 pt apart: narrower caps", []vg.Length{0, 5, 10}, 4, 1, 3, 1},
		{"2.4 pt apart: thin lines", []vg.Length{0, 2.4, 30}, 4, 1, 0, 0.8},
		{"1.2 pt apart: no caps, thinnest lines", []vg.Length{30, 0, 1.2}, 4, 1, 0, 0.4},
		{"a thin line stays as asked", []vg.Length{0, 1}, 3, 0.3, 0, 0.3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			capW, lineW := crowded(tc.pos, tc.capW, tc.lineW)
			if math.Abs(float64(capW-tc.wantCap)) > 1e-9 || math.Abs(float64(lineW-tc.wantLin)) > 1e-9 {
				t.Errorf("crowded(%v, %v, %v) = cap %v, line %v; want %v, %v", tc.pos, tc.capW, tc.lineW, capW, lineW, tc.wantCap, tc.wantLin)
			}
		})
	}
}

// TestReliabilityCapsApart: in a reliability diagram of small multiples
// (eight arms, as in a report) whose bins sit one point of confidence apart
// (equal-mass bins crowd between 70 and 85%), no two whisker caps overlap:
// each interval can be told from the next.
func TestReliabilityCapsApart(t *testing.T) {
	var bins []ReliabilityBin
	for i := range 16 {
		c := 0.70 + 0.01*float64(i)
		bins = append(bins, ReliabilityBin{MeanConfidence: c, Accuracy: c, Count: 30, Lo: 0.5, Hi: 0.95})
	}
	var series []ReliabilitySeries
	for i := range 8 {
		series = append(series, ReliabilitySeries{Name: fmt.Sprintf("arm %d", i), Bins: bins})
	}
	f := ReliabilityFigure(series)
	rec := new(recorder.Canvas)
	f.paint(draw.NewCanvas(rec, f.w, f.h))
	type seg struct{ y, x0, x1 vg.Length }
	var caps []seg
	vertical := 0
	for _, a := range rec.Actions {
		s, ok := a.(*recorder.Stroke)
		if !ok || len(s.Path) != 2 {
			continue
		}
		if s.Path[0].Pos.X == s.Path[1].Pos.X {
			vertical++
		}
		if s.Path[0].Pos.Y != s.Path[1].Pos.Y {
			continue
		}
		x0, x1 := min(s.Path[0].Pos.X, s.Path[1].Pos.X), max(s.Path[0].Pos.X, s.Path[1].Pos.X)
		if x1-x0 < 8 { // caps, and the y axis's ticks
			caps = append(caps, seg{s.Path[0].Pos.Y, x0, x1})
		}
	}
	if vertical < len(bins)*len(series) {
		t.Fatalf("found %d vertical strokes, want at least the %d whiskers", vertical, len(bins)*len(series))
	}
	overlaps := 0
	var first string
	for i := range caps {
		for j := range i {
			a, b := caps[i], caps[j]
			if math.Abs(float64(a.y-b.y)) < 0.5 && a.x0 < b.x1-0.01 && b.x0 < a.x1-0.01 {
				if overlaps++; first == "" {
					first = fmt.Sprintf("y %.1f: [%.1f, %.1f] and [%.1f, %.1f]", a.y, a.x0, a.x1, b.x0, b.x1)
				}
			}
		}
	}
	if overlaps > 0 {
		t.Errorf("%d pairs of whisker caps overlap, e.g. %s", overlaps, first)
	}
}
