package report

import (
	"math"
	"testing"

	"github.com/medteam-bench/medteam/stats"
)

// TestPowerAtNullDiscordance: the Power section plans at the gate's
// convention, the null discordance 2·min(b, c)/pairs, not the observed
// (b + c)/pairs that a real difference inflates (issue 34 item 4): a
// candidate right on 20 of 21 discordant pairs of 50 plans at 4%, not 42%.
func TestPowerAtNullDiscordance(t *testing.T) {
	pb := stats.PairedBinary{N: 50, Clusters: 50, B: 1, C: 20, Discordance: 21.0 / 50}
	pb.Delta = stats.Estimate{Value: 19.0 / 50, SE: math.NaN()}
	rows := PowerFor([]stats.Comparison{{Dataset: "d", Model: "m", Reference: "base", Candidate: "full", Accuracy: pb}}, []float64{0.05}, 0.05, 0.8)
	p := rows[0]
	if p.Discordance != pb.NullDiscordance() || math.Abs(p.Discordance-0.04) > 1e-12 {
		t.Fatalf("discordance %v, want the null discordance 0.04", p.Discordance)
	}
	want, ok := stats.PairsNeededNull(0.05, 0.04, 0.05, 0.8)
	if !ok || !p.Needed[0].OK || p.Needed[0].Pairs != want {
		t.Errorf("needed %+v, want %d pairs", p.Needed[0], want)
	}
	if d := stats.MinDetectableDiffNull(50, 0.04, 0.05, 0.8); p.MDE != d {
		t.Errorf("MDE %v, want %v", p.MDE, d)
	}
}
