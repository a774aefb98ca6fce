package aggregator

import (
	"math"
	"slices"
	"testing"
)

func approxEq(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return true
}

var abcd = []string{"A", "B", "C", "D"}

func TestBordaPoints(t *testing.T) {
	tests := []struct {
		name    string
		options []string
		ranking []string
		want    []float64
	}{
		{"full ranking", abcd, []string{"B", "A", "D", "C"}, []float64{2, 3, 0, 1}},
		{"partial ranking", abcd, []string{"C"}, []float64{0, 0, 3, 0}},
		{"single answer yes/no/maybe scores K-1", []string{"A", "B", "C"}, []string{"B"}, []float64{0, 2, 0}},
		{"empty ranking", abcd, nil, []float64{0, 0, 0, 0}},
		{"unknown letter skipped, positions not consumed", abcd, []string{"E", "B", "A"}, []float64{2, 3, 0, 0}},
		{"duplicate keeps first", abcd, []string{"B", "B", "A"}, []float64{2, 3, 0, 0}},
		{"ten options", []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J"}, []string{"J", "A"}, []float64{8, 0, 0, 0, 0, 0, 0, 0, 0, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BordaPoints(tt.options, tt.ranking); !approxEq(got, tt.want) {
				t.Fatalf("BordaPoints = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPlainBorda(t *testing.T) {
	tests := []struct {
		name      string
		options   []string
		rankings  [][]string
		scores    []float64
		winner    string
		tied      []string
		abstained bool
	}{
		{
			name:     "clear winner",
			options:  abcd,
			rankings: [][]string{{"B", "A", "C", "D"}, {"B", "C", "A", "D"}, {"A", "B", "C", "D"}},
			scores:   []float64{2 + 1 + 3, 3 + 3 + 2, 1 + 2 + 1, 0},
			winner:   "B",
		},
		{
			name:     "exact tie between two",
			options:  abcd,
			rankings: [][]string{{"A", "B", "C", "D"}, {"B", "A", "C", "D"}},
			scores:   []float64{5, 5, 2, 0},
			tied:     []string{"A", "B"},
		},
		{
			name:     "yes/no/maybe single answers do not all tie",
			options:  []string{"A", "B", "C"},
			rankings: [][]string{{"A"}, {"A"}, {"C"}},
			scores:   []float64{4, 0, 2},
			winner:   "A",
		},
		{
			name:     "abstainers do not vote",
			options:  abcd,
			rankings: [][]string{nil, {"D"}, {}},
			scores:   []float64{0, 0, 0, 3},
			winner:   "D",
		},
		{
			name:      "all abstain: no winner, no tie",
			options:   abcd,
			rankings:  [][]string{nil, {}},
			scores:    []float64{0, 0, 0, 0},
			abstained: true,
		},
		{
			name:     "three-way tie",
			options:  []string{"A", "B", "C"},
			rankings: [][]string{{"A", "B", "C"}, {"B", "C", "A"}, {"C", "A", "B"}},
			scores:   []float64{3, 3, 3},
			tied:     []string{"A", "B", "C"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := PlainBorda(tt.options, tt.rankings)
			if !approxEq(d.Scores, tt.scores) {
				t.Errorf("scores = %v, want %v", d.Scores, tt.scores)
			}
			if d.Winner != tt.winner {
				t.Errorf("winner = %q, want %q", d.Winner, tt.winner)
			}
			if d.Tie != (len(tt.tied) > 0) || !slices.Equal(d.Tied, tt.tied) {
				t.Errorf("tie = %v %v, want %v", d.Tie, d.Tied, tt.tied)
			}
			if d.Abstained() != tt.abstained {
				t.Errorf("abstained = %v, want %v", d.Abstained(), tt.abstained)
			}
			if d.Rule != RulePlainBorda {
				t.Errorf("rule = %q", d.Rule)
			}
		})
	}
}

func TestWeightedBorda(t *testing.T) {
	// Hierarchical N=3: the senior agent's vote outweighs two juniors.
	r := [][]string{{"A", "B", "C", "D"}, {"B", "A", "C", "D"}, {"B", "A", "C", "D"}}
	d, err := WeightedBorda(abcd, r, HierarchicalWeights(3), RuleHierarchicalBorda)
	if err != nil {
		t.Fatal(err)
	}
	// A: 0.5*3 + 0.3*2 + 0.2*2 = 2.5; B: 0.5*2 + 0.3*3 + 0.2*3 = 2.5 → exact tie
	if !approxEq(d.Scores, []float64{2.5, 2.5, 1.0, 0}) || !d.Tie || !slices.Equal(d.Tied, []string{"A", "B"}) {
		t.Fatalf("hierarchical = %+v", d)
	}
	// Trust weights break it.
	d, err = WeightedBorda(abcd, r, []float64{0.9, 0.4, 0.4}, RuleTrustBorda)
	if err != nil {
		t.Fatal(err)
	}
	// A: 2.7+0.8+0.8 = 4.3; B: 1.8+1.2+1.2 = 4.2
	if !approxEq(d.Scores, []float64{4.3, 4.2, 1.7, 0}) || d.Winner != "A" || d.Tie || d.Rule != RuleTrustBorda {
		t.Fatalf("trust = %+v", d)
	}
	// A floating-point near-tie within epsilon counts as a tie.
	d, err = WeightedBorda([]string{"A", "B"}, [][]string{{"A", "B"}, {"B", "A"}}, []float64{0.1 + 0.2, 0.3}, RuleTrustBorda)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Tie {
		t.Fatalf("0.1+0.2 vs 0.3 should tie within epsilon: %+v", d)
	}
	for _, bad := range [][]float64{{1, 1}, {1, -1, 1}, {1, math.NaN(), 1}, {1, math.Inf(1), 1}} {
		if _, err := WeightedBorda(abcd, r, bad, RuleTrustBorda); err == nil {
			t.Errorf("weights %v: want error", bad)
		}
	}
}

func TestHierarchicalWeights(t *testing.T) {
	for n, want := range map[int][]float64{
		1: {1}, 2: {0.6, 0.4}, 3: {0.5, 0.3, 0.2}, 4: {0.4, 0.3, 0.2, 0.1}, 5: {0.2, 0.2, 0.2, 0.2, 0.2},
	} {
		if got := HierarchicalWeights(n); !approxEq(got, want) {
			t.Errorf("n=%d: %v, want %v", n, got, want)
		}
	}
}

func TestBreakTie(t *testing.T) {
	tied := []string{"A", "C", "D"}
	if BreakTie(nil, 1) != "" {
		t.Fatal("empty tied set must give \"\"")
	}
	counts := map[string]int{}
	for s := uint64(0); s < 3000; s++ {
		a, b := BreakTie(tied, s), BreakTie(tied, s)
		if a != b {
			t.Fatalf("seed %d: not deterministic", s)
		}
		if !slices.Contains(tied, a) {
			t.Fatalf("seed %d: %q not tied", s, a)
		}
		counts[a]++
	}
	for _, l := range tied {
		if counts[l] < 850 || counts[l] > 1150 {
			t.Errorf("draw not uniform: %v", counts)
		}
	}
}
