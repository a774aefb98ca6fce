package teamwork

import (
	"math"
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocol"
)

// TestLeaderlessTrustIsConformity (issue 36 item 2) pins the numbers
// docs/protocols.md gives for trust without a leader, three agents with
// full rankings: in a unanimous team each agent at confidence 0.9 scores
// 0.975 (trust 0.8525); in a 2–1 split the two at 0.9 score 0.65 (trust
// 0.755) and the lone dissenter at 0.7 scores 0.325 (trust 0.6575) — the
// weights of their final rankings, whoever is right.
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
	unanimous := protocol.QualityParts{Agree: 1, Complete: 1, Alignment: 0.9, Quality: 0.975}
	majority := protocol.QualityParts{Agree: 0.5, Complete: 1, Alignment: 0.6, Quality: 0.65}
	dissenter := protocol.QualityParts{Agree: 0, Complete: 1, Alignment: 0.3, Quality: 0.325}
	for _, tc := range []struct {
		team      []answer.Answer
		want      []protocol.QualityParts
		wantTrust []float64
	}{
		{[]answer.Answer{full("A", 0.9), full("A", 0.9), full("A", 0.9)}, []protocol.QualityParts{unanimous, unanimous, unanimous}, []float64{0.8525, 0.8525, 0.8525}},
		{[]answer.Answer{full("A", 0.9), full("A", 0.9), full("B", 0.7)}, []protocol.QualityParts{majority, majority, dissenter}, []float64{0.755, 0.755, 0.6575}},
	} {
		got := heuristicQualityParts(tc.team, 4)
		for i, w := range tc.want {
			g := got[i]
			if math.Abs(g.Agree-w.Agree)+math.Abs(g.Complete-w.Complete)+math.Abs(g.Alignment-w.Alignment)+math.Abs(g.Quality-w.Quality) > 1e-12 {
				t.Errorf("agent %d: %+v, want %+v", i+1, g, w)
			}
			if tr := updateTrust(TrustStart, g.Quality); math.Abs(tr-tc.wantTrust[i]) > 1e-12 {
				t.Errorf("agent %d: trust %v, want %v", i+1, tr, tc.wantTrust[i])
			}
		}
	}
	// An abstention scores 0 on every part.
	if p := heuristicQualityParts([]answer.Answer{{}, full("A", 0.5)}, 4)[0]; p != (protocol.QualityParts{}) {
		t.Errorf("abstention %+v", p)
	}
}
