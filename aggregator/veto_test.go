package aggregator

import (
	"maps"
	"math"
	"slices"
	"testing"
)

// TestVetoRule is seed 004's decision matrix with ACT on an answer as that
// option and REFUSE as REFUSE (the seed's matrix rows in the comments:
// ACT/WARN/REFUSE counts; WARN has no ballot here).
func TestVetoRule(t *testing.T) {
	b := func(choice string) VetoBallot { return VetoBallot{Choice: choice, Risk: 0.2, Confidence: 0.8} }
	veto := func(choice string) VetoBallot {
		return VetoBallot{Choice: choice, Veto: true, Risk: 0.85, Confidence: 0.05}
	}
	tests := []struct {
		name      string
		ballots   []VetoBallot
		branch    string
		typ       string
		agreed    string
		winner    string
		agreement float64
	}{
		{"3/0/0 unanimous", []VetoBallot{b("A"), b("A"), b("A")}, BranchUnanimous, ConsensusUnanimous, "A", "A", 1},
		{"2/0/1 strong majority: REFUSE is the outlier", []VetoBallot{b("A"), b(Refuse), b("A")}, BranchStrongMajority, ConsensusStrongMajority, "A", "A", 2.0 / 3},
		{"2 on one option, 1 on another", []VetoBallot{b("C"), b("B"), b("C")}, BranchStrongMajority, ConsensusStrongMajority, "C", "C", 2.0 / 3},
		{"0/1/2 strong majority against", []VetoBallot{b("A"), b(Refuse), b(Refuse)}, BranchRefuse, ConsensusStrongMajority, Refuse, "", 2.0 / 3},
		{"0/0/3 unanimous refusal", []VetoBallot{b(Refuse), b(Refuse), b(Refuse)}, BranchRefuse, ConsensusUnanimous, Refuse, "", 1},
		{"1/1/1 split", []VetoBallot{b("A"), b("B"), b(Refuse)}, BranchSplit, ConsensusSplit, "", "", 1.0 / 3},
		{"three options split", []VetoBallot{b("A"), b("B"), b("C")}, BranchSplit, ConsensusSplit, "", "", 1.0 / 3},
		{"a veto overrides a unanimous rest", []VetoBallot{b("A"), b("A"), veto("A")}, BranchVeto, ConsensusVeto, "", "", 2.0 / 3},
		{"a veto overrides a split", []VetoBallot{b("A"), b("B"), veto(Refuse)}, BranchVeto, ConsensusVeto, "", "", 1.0 / 3},
		{"an unreadable ballot counts as REFUSE", []VetoBallot{b("A"), {Risk: -1, Confidence: -1}, b("A")}, BranchStrongMajority, ConsensusStrongMajority, "A", "A", 2.0 / 3},
		{"a letter that is not an option counts as REFUSE", []VetoBallot{b("E"), b("D"), b("Z")}, BranchRefuse, ConsensusStrongMajority, Refuse, "", 2.0 / 3},
		{"two REFUSE, two A of four: a shared top is a split", []VetoBallot{b("A"), b(Refuse), b("A"), b(Refuse)}, BranchSplit, ConsensusSplit, "", "", 0.5},
		{"no ballots", nil, BranchNoVotes, ConsensusSplit, "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := VetoRule(abcd, tt.ballots)
			if v.Branch != tt.branch || v.Type != tt.typ || v.Agreed != tt.agreed || v.Decision.Winner != tt.winner ||
				v.Fallback != (tt.winner == "") || math.Abs(v.Agreement-tt.agreement) > 1e-9 || v.Decision.Tie {
				t.Fatalf("VetoRule = branch %q type %q agreed %q winner %q fallback %v agreement %v tie %v; want %q %q %q %q %v",
					v.Branch, v.Type, v.Agreed, v.Decision.Winner, v.Fallback, v.Agreement, v.Decision.Tie, tt.branch, tt.typ, tt.agreed, tt.winner, tt.agreement)
			}
		})
	}
}

// TestVetoRuleRecord: the seed's metadata — vote breakdown, vetoes, max
// risk (highlighted above 75%), average confidence (a warning below 60%).
func TestVetoRuleRecord(t *testing.T) {
	v := VetoRule(abcd, []VetoBallot{
		{Choice: "A", Risk: 0.2, Confidence: 0.8},
		{Choice: Refuse, Risk: 0.76, Confidence: 0.5},
		{Choice: "B", Veto: true, Risk: 0.9, Confidence: 0.2},
	})
	if !slices.Equal(v.Vetoes, []int{2}) || v.MaxRisk != 0.9 || !v.HighRisk || math.Abs(v.MeanConfidence-0.5) > 1e-12 || !v.LowConfidence ||
		!maps.Equal(v.Counts, map[string]int{"A": 1, Veto: 1, Refuse: 1}) || !approxEq(v.Decision.Scores, []float64{1, 0, 0, 0}) {
		t.Fatalf("record = %+v", v)
	}
	for _, tc := range []struct {
		risks, confs []float64
		high, low    bool
		mean         float64
	}{
		{[]float64{0.75, 0.1, 0.2}, []float64{0.6, 0.6, 0.6}, false, false, 0.6},       // 75% is not above 75%; 60% is not below 60%
		{[]float64{0.751, 0.1, 0.2}, []float64{0.59, 0.6, 0.6}, true, true, 1.79 / 3},  // just above, just below
		{[]float64{-1, -1, -1}, []float64{-1, -1, -1}, false, false, -1},               // nothing stated
		{[]float64{-1, 0.3, -1}, []float64{0.9, -1, 0.3}, false, false, 0.6},           // the mean is over the stated ones
		{[]float64{0.75, 0.75, 0.75}, []float64{0.5, 0.5, 0.5}, false, true, 0.5},      // the seed's parse-failure ballots
		{[]float64{0.2, 0.2, 0.2}, []float64{0.95, 0.98, 0.9}, false, false, 2.83 / 3}, // the seed's capital-of-France example
	} {
		var bs []VetoBallot
		for i := range tc.risks {
			bs = append(bs, VetoBallot{Choice: "A", Risk: tc.risks[i], Confidence: tc.confs[i]})
		}
		v := VetoRule(abcd, bs)
		if v.HighRisk != tc.high || v.LowConfidence != tc.low || math.Abs(v.MeanConfidence-tc.mean) > 1e-9 || v.Branch != BranchUnanimous {
			t.Fatalf("risks %v confs %v: high %v low %v mean %v %s", tc.risks, tc.confs, v.HighRisk, v.LowConfidence, v.MeanConfidence, v.Branch)
		}
	}
}
