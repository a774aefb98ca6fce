package plot

import (
	"fmt"
	"testing"

	"gonum.org/v1/plot/vg"
)

func intersects(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// TestPlaceLabelsNoOverlap: labels of points that sit on top of each other
// (base/c4 and c5/c7 in the shipped sweep; a pile-up of 24 arms on the
// factorial) end up clear of each other, of every mark and inside the plot.
// Placing every label at its default spot (right of its point), as the
// figures did before the collision pass, overlaps in every case.
func TestPlaceLabelsNoOverlap(t *testing.T) {
	bounds := vg.Rectangle{Max: vg.Point{X: 500, Y: 300}}
	cases := map[string][]vg.Point{
		"pair":      {{X: 100, Y: 150}, {X: 101, Y: 152}},
		"two pairs": {{X: 100, Y: 150}, {X: 100, Y: 150}, {X: 300, Y: 100}, {X: 303, Y: 98}},
		"pile-up":   nil,
		"edge":      {{X: 495, Y: 295}, {X: 494, Y: 290}, {X: 5, Y: 5}},
	}
	for i := 0; i < 24; i++ { // a 6×4 grid 9 pt apart: labels wider than the spacing
		cases["pile-up"] = append(cases["pile-up"], vg.Point{X: 200 + vg.Length(i%6)*9, Y: 120 + vg.Length(i/6)*9})
	}
	for name, anchors := range cases {
		sizes := make([]vg.Point, len(anchors))
		var marks []vg.Rectangle
		for i, a := range anchors {
			sizes[i] = vg.Point{X: vg.Length(24 + 3*len(fmt.Sprint(i))), Y: 10}
			marks = append(marks, vg.Rectangle{Min: a.Sub(vg.Point{X: 4, Y: 4}), Max: a.Add(vg.Point{X: 4, Y: 4})})
		}
		got := placeLabels(anchors, sizes, marks, nil, bounds)
		naive := 0
		for i := range anchors {
			di := candidates(anchors[i], sizes[i].X, sizes[i].Y)[0]
			for j := 0; j < i; j++ {
				if intersects(di, candidates(anchors[j], sizes[j].X, sizes[j].Y)[0]) {
					naive++
				}
			}
			for j, m := range marks {
				if j != i && intersects(di, m) {
					naive++
				}
			}
			b := got[i].box
			if !inside(b, bounds) {
				t.Errorf("%s: label %d at %v is outside the plot", name, i, b)
			}
			for j := 0; j < i; j++ {
				if intersects(b, got[j].box) {
					t.Errorf("%s: labels %d and %d overlap: %v %v", name, i, j, b, got[j].box)
				}
			}
			for j, m := range marks {
				if intersects(b, m) {
					t.Errorf("%s: label %d overlaps mark %d", name, i, j)
				}
			}
		}
		if naive == 0 && name != "edge" {
			t.Errorf("%s: the default placement does not collide; the case tests nothing", name)
		}
	}
}

func TestPlaceLabelsDeterministic(t *testing.T) {
	a := []vg.Point{{X: 10, Y: 10}, {X: 12, Y: 10}, {X: 14, Y: 11}}
	s := []vg.Point{{X: 20, Y: 8}, {X: 20, Y: 8}, {X: 20, Y: 8}}
	b := vg.Rectangle{Max: vg.Point{X: 200, Y: 200}}
	x, y := placeLabels(a, s, nil, nil, b), placeLabels(a, s, nil, nil, b)
	for i := range x {
		if x[i] != y[i] {
			t.Fatalf("label %d: %v then %v", i, x[i], y[i])
		}
	}
	if x[0].leader {
		t.Error("a label with room next to its point got a leader line")
	}
}
