package aggregator

import (
	"fmt"
	"testing"
)

func TestVoteUrgency(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ranks  []int
		conf   []float64
		levels int
		rank   int
		branch string
		mean   float64
	}{
		{"brief example", []int{2, 2, 1}, []float64{0.9, 0.8, 0.3}, 3, 2, BranchWeightedUrgency, 1.85},
		{"half goes up", []int{2, 1}, []float64{0.5, 0.5}, 3, 2, BranchWeightedUrgency, 1.5},
		{"half goes up from the bottom", []int{1, 0}, []float64{0.5, 0.5}, 3, 1, BranchWeightedUrgency, 0.5},
		{"half within float error", []int{2, 1}, []float64{0.3, 0.3}, 3, 2, BranchWeightedUrgency, 1.5},
		{"half within float error 2", []int{0, 1}, []float64{0.7, 0.7}, 3, 1, BranchWeightedUrgency, 0.5},
		{"just under half", []int{1, 0}, []float64{0.49, 0.51}, 3, 0, BranchWeightedUrgency, 0.49},
		{"two thirds rounds up", []int{0, 0, 2}, []float64{0.6, 0.6, 0.6}, 3, 1, BranchWeightedUrgency, 2.0 / 3},
		{"a confident minority", []int{0, 2}, []float64{0.8, 0.2}, 3, 0, BranchWeightedUrgency, 0.4},
		{"missing confidence weighs 0", []int{2, 0}, []float64{-1, 0.9}, 3, 0, BranchWeightedUrgency, 0},
		{"no level named is left out", []int{-1, 2}, []float64{0.9, 0.5}, 3, 2, BranchWeightedUrgency, 2},
		{"confidence clamps to 1", []int{2, 0}, []float64{5, 1}, 3, 1, BranchWeightedUrgency, 1},
		{"five levels (the seed's scale)", []int{4, 3, 0}, []float64{0.9, 0.9, 0.2}, 5, 3, BranchWeightedUrgency, 6.3 / 2},
		{"zero confidence: middle of 3", []int{2, 2, 2}, []float64{0, 0, -1}, 3, 1, BranchZeroConfidence, -1},
		{"zero confidence: middle of 5 (the seed's 3)", []int{4}, []float64{0}, 5, 2, BranchZeroConfidence, -1},
		{"zero confidence: upper middle of 4", []int{0}, []float64{0}, 4, 2, BranchZeroConfidence, -1},
		{"zero confidence: upper of 2", []int{0}, []float64{0}, 2, 1, BranchZeroConfidence, -1},
		{"no votes", []int{-1, -1}, []float64{0.9, 0.9}, 3, -1, BranchNoVotes, -1},
		{"rank off the scale is no vote", []int{3}, []float64{0.9}, 3, -1, BranchNoVotes, -1},
	} {
		u := VoteUrgency(tc.ranks, tc.conf, tc.levels)
		if u.Rank != tc.rank || u.Branch != tc.branch || !near(u.Mean, tc.mean) {
			t.Errorf("%s: rank %d branch %s mean %v; want %d %s %v", tc.name, u.Rank, u.Branch, u.Mean, tc.rank, tc.branch, tc.mean)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestVoteSpecialty(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sp     []string
		mean   float64
		want   string
		branch string
	}{
		{"plurality, case and spaces ignored", []string{"Cardiology", " cardiology", "Neurology"}, 0.8, "Cardiology", BranchPlurality},
		{"tie", []string{"Cardiology", "Neurology"}, 0.9, GeneralPractice, BranchTie},
		{"tie beside a blank", []string{"Cardiology", "", "Neurology"}, 0.9, GeneralPractice, BranchTie},
		{"tie below a winner is no tie", []string{"Cardiology", "Cardiology", "Neurology", "Dermatology"}, 0.9, "Cardiology", BranchPlurality},
		{"none named", []string{"", " "}, 0.9, GeneralPractice, BranchNoVotes},
		{"low confidence", []string{"Cardiology", "Cardiology", "Neurology"}, 0.6, GeneralPractice, BranchLowConfidence},
		{"0.70 is not below 0.70", []string{"Cardiology"}, 0.7, "Cardiology", BranchPlurality},
	} {
		s := VoteSpecialty(tc.sp, tc.mean)
		if s.Specialty != tc.want || s.Branch != tc.branch {
			t.Errorf("%s: %q (%s); want %q (%s)", tc.name, s.Specialty, s.Branch, tc.want, tc.branch)
		}
	}
}

// TestVoteSpecialties: seed 000 step 3.1 over lists — every specialty in
// every agent's differential list votes; the most named wins; a shared top,
// no specialty at all or a low mean confidence → General Practice.
func TestVoteSpecialties(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lists  [][]string
		mean   float64
		want   string
		branch string
		votes  map[string]int
	}{
		{"the seed's example: rash → dermatology", [][]string{{"Dermatology", "Allergy"}, {"Dermatology", "General Practice"}, {"Allergy", "Dermatology"}}, 0.8,
			"Dermatology", BranchPlurality, map[string]int{"Dermatology": 3, "Allergy": 2, "General Practice": 1}},
		{"a second choice that everyone lists beats a split first choice", [][]string{{"Cardiology", "Pulmonology"}, {"Gastroenterology", "Pulmonology"}, {"Pulmonology"}}, 0.9,
			"Pulmonology", BranchPlurality, map[string]int{"Cardiology": 1, "Gastroenterology": 1, "Pulmonology": 3}},
		{"top two tied → General Practice", [][]string{{"Cardiology", "Pulmonology"}, {"Pulmonology", "Cardiology"}, {"Neurology"}}, 0.9,
			GeneralPractice, BranchTie, map[string]int{"Cardiology": 2, "Pulmonology": 2, "Neurology": 1}},
		{"an agent listing one twice votes once", [][]string{{"Cardiology", "cardiology "}, {"Neurology"}}, 0.9,
			GeneralPractice, BranchTie, map[string]int{"Cardiology": 1, "Neurology": 1}},
		{"empty lists → General Practice", [][]string{nil, {}, {" "}}, 0.9, GeneralPractice, BranchNoVotes, map[string]int{}},
		{"low confidence → General Practice", [][]string{{"Cardiology"}, {"Cardiology"}, {"Neurology"}}, 0.69, GeneralPractice, BranchLowConfidence,
			map[string]int{"Cardiology": 2, "Neurology": 1}},
	} {
		s := VoteSpecialties(tc.lists, tc.mean)
		if s.Specialty != tc.want || s.Branch != tc.branch || fmt.Sprint(s.Votes) != fmt.Sprint(tc.votes) {
			t.Errorf("%s: %q (%s) %v; want %q (%s) %v", tc.name, s.Specialty, s.Branch, s.Votes, tc.want, tc.branch, tc.votes)
		}
	}
}
