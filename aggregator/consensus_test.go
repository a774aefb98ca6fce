package aggregator

import (
	"math"
	"slices"
	"testing"
)

func TestPlurality(t *testing.T) {
	tests := []struct {
		name   string
		votes  []string
		scores []float64
		winner string
		tied   []string
		voters int
	}{
		{"clear winner", []string{"B", "B", "A"}, []float64{1, 2, 0, 0}, "B", nil, 3},
		{"two-way tie", []string{"A", "C", "A", "C"}, []float64{2, 0, 2, 0}, "", []string{"A", "C"}, 4},
		{"three-way tie", []string{"D", "B", "A"}, []float64{1, 1, 0, 1}, "", []string{"A", "B", "D"}, 3},
		{"abstainers and unknown letters do not vote", []string{"", "E", "C"}, []float64{0, 0, 1, 0}, "C", nil, 1},
		{"nobody votes", []string{"", ""}, []float64{0, 0, 0, 0}, "", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Plurality(abcd, tt.votes)
			if !approxEq(d.Scores, tt.scores) || d.Winner != tt.winner || !slices.Equal(d.Tied, tt.tied) ||
				d.Tie != (len(tt.tied) > 0) || d.Voters != tt.voters || d.Rule != RulePlurality {
				t.Fatalf("Plurality = %+v", d)
			}
		})
	}
}

func TestWeightedPlurality(t *testing.T) {
	// One confident vote outweighs two hesitant ones.
	d, err := WeightedPlurality(abcd, []string{"A", "B", "B"}, []float64{0.9, 0.4, 0.4})
	if err != nil || d.Winner != "A" || !approxEq(d.Scores, []float64{0.9, 0.8, 0, 0}) || d.Rule != RuleWeightedPlurality {
		t.Fatalf("weighted = %+v, %v", d, err)
	}
	// Voters of weight 0 name the options in contention; unvoted options never tie.
	d, _ = WeightedPlurality(abcd, []string{"A", "C"}, []float64{0, 0})
	if !d.Tie || !slices.Equal(d.Tied, []string{"A", "C"}) {
		t.Fatalf("zero weights = %+v", d)
	}
	for _, bad := range [][]float64{{1}, {1, -0.1, 1}, {1, math.NaN(), 1}, {math.Inf(1), 1, 1}} {
		if _, err := WeightedPlurality(abcd, []string{"A", "B", "C"}, bad); err == nil {
			t.Errorf("weights %v: want error", bad)
		}
	}
}

func TestPluralityWithDraw(t *testing.T) {
	d, drawn := PluralityWithDraw(abcd, []string{"B", "B", "C"}, 7)
	if drawn || d.Winner != "B" {
		t.Fatalf("no tie: %+v drawn=%v", d, drawn)
	}
	seen := map[string]bool{}
	for s := uint64(0); s < 64; s++ {
		d, drawn := PluralityWithDraw(abcd, []string{"A", "C", "", "D"}, s)
		if !drawn || !d.Tie || !slices.Contains([]string{"A", "C", "D"}, d.Winner) {
			t.Fatalf("seed %d: %+v drawn=%v", s, d, drawn)
		}
		if again, _ := PluralityWithDraw(abcd, []string{"A", "C", "", "D"}, s); again.Winner != d.Winner {
			t.Fatalf("seed %d: draw not reproducible", s)
		}
		seen[d.Winner] = true
	}
	if len(seen) != 3 {
		t.Fatalf("a seeded draw reaches every tied option over seeds, got %v", seen)
	}
}

// TestVoteRule is seed 000's consensus, case by case.
func TestVoteRule(t *testing.T) {
	tests := []struct {
		name     string
		votes    []string
		conf     []float64
		weighted bool
		branch   string
		winner   string
		mean     float64
	}{
		{"majority, confident", []string{"B", "B", "A"}, []float64{0.8, 0.7, 0.9}, false, BranchPlurality, "B", 0.8},
		{"exactly 0.70 commits", []string{"B", "B", "A"}, []float64{0.7, 0.7, 0.7}, false, BranchPlurality, "B", 0.7},
		{"mean under 0.70 falls back", []string{"B", "B", "A"}, []float64{0.7, 0.6, 0.7}, false, BranchLowConfidence, "", 2.0 / 3},
		{"a tie falls back", []string{"A", "B", "C"}, []float64{0.9, 0.9, 0.9}, false, BranchTie, "", 0.9},
		{"tie and low confidence: the tie is named (seed order)", []string{"A", "B"}, []float64{0.1, 0.1}, false, BranchTie, "", 0.1},
		{"a missing confidence counts 0 in the mean", []string{"B", "B", "B"}, []float64{0.9, 0.9, -1}, false, BranchLowConfidence, "", 0.6},
		{"an abstainer counts in the mean", []string{"B", "B", ""}, []float64{0.95, 0.95, 0.3}, false, BranchPlurality, "B", 2.2 / 3},
		{"nobody votes", []string{"", ""}, []float64{0.9, 0.9}, false, BranchNoVotes, "", 0.9},
		// Weighted: ReConcile's weights (1.0 → 1, 0.7 → 0.3, 0.95 → 0.8, 0.85 → 0.5, 0.45 → 0.1).
		{"weighted: one confident vote beats two", []string{"A", "B", "B"}, []float64{1, 0.7, 0.7}, true, BranchWeightedPlurality, "A", 0.8},
		{"weighted: one 0.95 vote beats two 0.7 votes", []string{"A", "B", "B"}, []float64{0.95, 0.7, 0.7}, true, BranchWeightedPlurality, "A", 2.35 / 3},
		{"weighted: the 0.70 gate still applies to a confident minority", []string{"A", "B", "B"}, []float64{0.99, 0.45, 0.45}, true, BranchLowConfidence, "", 1.89 / 3},
		{"weighted: two votes beat one", []string{"A", "B", "B"}, []float64{0.9, 0.85, 0.85}, true, BranchWeightedPlurality, "B", 2.6 / 3},
		{"weighted winner", []string{"A", "A", "B"}, []float64{0.85, 0.8, 0.9}, true, BranchWeightedPlurality, "A", 0.85},
		{"weighted: equal weights tie and fall back", []string{"A", "B", "B"}, []float64{0.95, 0.85, 0.7}, true, BranchTie, "", 2.5 / 3},
		{"weighted tie falls back", []string{"A", "B", "C"}, []float64{0.8, 0.8, 0.8}, true, BranchTie, "", 0.8},
		{"weighted: a missing confidence weighs 0.1 (1 + 0.1 > 1)", []string{"A", "B", "B", "C"}, []float64{1, 1, -1, 0.95}, true, BranchWeightedPlurality, "B", 2.95 / 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := VoteRule(abcd, tt.votes, tt.conf, tt.weighted)
			if err != nil {
				t.Fatal(err)
			}
			if c.Branch != tt.branch || c.Decision.Winner != tt.winner || c.Fallback != (tt.winner == "") || math.Abs(c.MeanConfidence-tt.mean) > 1e-9 {
				t.Fatalf("VoteRule = branch %q winner %q fallback %v mean %v; want %q %q %v", c.Branch, c.Decision.Winner, c.Fallback, c.MeanConfidence, tt.branch, tt.winner, tt.mean)
			}
		})
	}
}

func TestMeanRanks(t *testing.T) {
	// Three candidates, three reviewers, each ranking only the others.
	s := MeanRanks(3, [][]int{{1, 2}, {2, 0}, {1, 0}})
	want := []RankStanding{{0, 2, 2}, {1, 1, 2}, {2, 1.5, 2}}
	if !slices.Equal(s, want) {
		t.Fatalf("MeanRanks = %+v, want %+v", s, want)
	}
	order := OrderStandings(s)
	if got := []int{order[0].Candidate, order[1].Candidate, order[2].Candidate}; !slices.Equal(got, []int{1, 2, 0}) {
		t.Fatalf("order = %v", got)
	}
	// Out-of-range and repeated entries are ignored; unranked candidates come last.
	s = MeanRanks(4, [][]int{{2, 2, 9, -1, 0}, {}, nil})
	if s[2] != (RankStanding{2, 1, 1}) || s[0] != (RankStanding{0, 2, 1}) || s[1].Count != 0 || s[3].Count != 0 {
		t.Fatalf("ignored entries: %+v", s)
	}
	order = OrderStandings(s)
	if got := []int{order[0].Candidate, order[1].Candidate, order[2].Candidate, order[3].Candidate}; !slices.Equal(got, []int{2, 0, 1, 3}) {
		t.Fatalf("order = %v", got)
	}
	// Equal mean ranks: the candidate placed by more rankings first.
	order = OrderStandings(MeanRanks(3, [][]int{{0}, {1}, {1}}))
	if order[0].Candidate != 1 {
		t.Fatalf("tie on mean rank: %+v", order)
	}
}
