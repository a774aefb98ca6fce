package teamwork

import (
	"math"
	"slices"
	"testing"

	"github.com/medteam-bench/medteam/answer"
)

func TestUpdateTrust(t *testing.T) {
	tests := []struct{ t, q, want float64 }{
		{0.8, 1.0, 0.86},
		{0.8, 0.0, 0.56},
		{0.4, 0.0, 0.4},  // clamped at the floor
		{1.0, 1.0, 1.0},  // and the ceiling
		{0.45, 0.0, 0.4}, // 0.315 → 0.4
		{0.8, -1, 0.8},   // unparsed rating leaves it
		{0.8, 1.5, 0.8},  // out of range leaves it
		{0.8, math.NaN(), 0.8},
	}
	for _, tt := range tests {
		if got := updateTrust(tt.t, tt.q); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("updateTrust(%v, %v) = %v, want %v", tt.t, tt.q, got, tt.want)
		}
	}
}

func TestHeuristicQuality(t *testing.T) {
	ans := []answer.Answer{
		{Ranking: []string{"B", "A", "C", "D"}, Confidence: 0.9},
		{Ranking: []string{"B", "C"}, Confidence: -1},
		{Ranking: []string{"A", "B", "C", "D"}, Confidence: 0.2},
		{},
	}
	got := heuristicQuality(ans, 4)
	want := []float64{
		0.5*(1.0/3) + 0.25*1 + 0.25*(1-math.Abs(0.9-1.0/3)),
		0.5*(1.0/3) + 0.25*0.5 + 0.25*(1-math.Abs(0.5-1.0/3)),
		0.5*0 + 0.25*1 + 0.25*(1-0.2),
		0,
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("agent %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func TestFactIntersection(t *testing.T) {
	ans := []answer.Answer{
		{Facts: []string{"Fever suggests infection.", "Troponin is raised"}},
		{Facts: []string{"fever   suggests infection", "ECG is normal"}},
		{Facts: []string{"ECG is normal.", "troponin is raised", "  "}},
	}
	got := factIntersection(ans)
	want := []string{"Fever suggests infection.", "Troponin is raised", "ECG is normal"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	// One agent repeating a fact does not verify it.
	if got := factIntersection([]answer.Answer{{Facts: []string{"x", "x"}}, {Facts: []string{"y"}}}); len(got) != 0 {
		t.Fatalf("self-repetition verified: %q", got)
	}
}

func TestWeightsAndRoles(t *testing.T) {
	c3, _ := ParseComponents("c3", Default())
	if w := teamWeights(c3, 3); !slices.Equal(w, []float64{0.5, 0.3, 0.2}) {
		t.Errorf("TO∧L weights %v", w)
	}
	to, _ := ParseComponents("to", Default())
	if w := teamWeights(to, 2); !slices.Equal(w, []float64{0.5, 0.5}) {
		t.Errorf("TO without L weights %v", w)
	}
	names, _, complete := fillRoles([]RoleSpec{{Name: "Cardiologist"}}, 3)
	if complete || !slices.Equal(names, []string{"Cardiologist", "Expert 2", "Expert 3"}) {
		t.Errorf("fillRoles = %v %v", names, complete)
	}
	if weakestByConfidence([]answer.Answer{{Ranking: []string{"A"}, Confidence: 0.9}, {Ranking: []string{"B"}, Confidence: 0.3}, {Ranking: []string{"A"}, Confidence: 0.3}}) != 1 {
		t.Error("weakest should be the first lowest-confidence agent")
	}
}
