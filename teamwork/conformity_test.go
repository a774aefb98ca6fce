package teamwork

import (
	"math"
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocol"
)

// TestLeaderlessTrustIsConformity (issue 36 item 2) pins the numbers
// docs/protocols.md gives for trust without a leader: with three agents and
// full rankings, two agreeing at confidence 0.9 score 0.975 and the lone
// dissenter at 0.7 scores 0.325, so after the one observation their Borda
// weights are 0.8525 and 0.6575 — whoever is right.
func TestLeaderlessTrustIsConformity(t *testing.T) {
	full := func(first string, conf float64) answer.Answer {
		r := []string{"A", "B", "C", "D"}
		for i, l := range r {
			if l == first {
				r[0], r[i] = r[i], r[0]
			}
		}
		return answer.Answer{Ranking: r, Confidence: conf}
	}
	ans := []answer.Answer{full("A", 0.9), full("A", 0.9), full("B", 0.7)}
	got := heuristicQualityParts(ans, 4)
	want := []protocol.QualityParts{
		{Agree: 1, Complete: 1, Alignment: 0.9, Quality: 0.975},
		{Agree: 1, Complete: 1, Alignment: 0.9, Quality: 0.975},
		{Agree: 0, Complete: 1, Alignment: 0.3, Quality: 0.325},
	}
	wantTrust := []float64{0.8525, 0.8525, 0.6575}
	for i := range want {
		g, w := got[i], want[i]
		if math.Abs(g.Agree-w.Agree)+math.Abs(g.Complete-w.Complete)+math.Abs(g.Alignment-w.Alignment)+math.Abs(g.Quality-w.Quality) > 1e-12 {
			t.Errorf("agent %d: %+v, want %+v", i+1, g, w)
		}
		if tr := updateTrust(TrustStart, g.Quality); math.Abs(tr-wantTrust[i]) > 1e-12 {
			t.Errorf("agent %d: trust %v, want %v", i+1, tr, wantTrust[i])
		}
	}
	// An abstention scores 0 on every part.
	if p := heuristicQualityParts([]answer.Answer{{}, full("A", 0.5)}, 4)[0]; p != (protocol.QualityParts{}) {
		t.Errorf("abstention %+v", p)
	}
}
