package runner

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/teamwork"
)

// TestTeamColumnsIssue36 (issue 36 items 2 and 5): a row records, with trust
// but no leader, each agent's automated quality score and its parts (so the
// conformity it rewards is visible: quality = 0.5·agree + 0.25·complete +
// 0.25·alignment, and it is the trust observation), and with SMM the facts
// stated and verified; other arms leave them empty (null counts). The
// columns survive a parquet round trip.
func TestTeamColumnsIssue36(t *testing.T) {
	qs, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	qs = qs[:12]
	plan, _ := simPlanFor(t, qs, "default", []string{"base", "c1", "c4", "c6", "full"}, 2)
	res, err := Run(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "questions.parquet")
	if err := results.WriteQuestions(path, res.Questions); err != nil {
		t.Fatal(err)
	}
	rows, err := results.ReadQuestions(path)
	if err != nil {
		t.Fatal(err)
	}
	dissent := false
	for _, r := range rows {
		n := int(r.NAgents)
		heur := len(r.HeuristicQuality) > 0
		if heur != (r.Trust && !r.Leadership) {
			t.Fatalf("%s %s: heuristic quality %v", r.Arm, r.QuestionID, r.HeuristicQuality)
		}
		if heur {
			if len(r.HeuristicAgree) != n || len(r.HeuristicComplete) != n || len(r.HeuristicAlignment) != n || len(r.HeuristicQuality) != n {
				t.Fatalf("%s %s: parts for %d agents: %v %v %v %v", r.Arm, r.QuestionID, n, r.HeuristicAgree, r.HeuristicComplete, r.HeuristicAlignment, r.HeuristicQuality)
			}
			for i := range n {
				q := 0.5*r.HeuristicAgree[i] + 0.25*r.HeuristicComplete[i] + 0.25*r.HeuristicAlignment[i]
				// c4 has no later observation: final trust = 0.7·0.8 + 0.3·Q
				trust := math.Max(teamwork.TrustMin, math.Min(teamwork.TrustMax, teamwork.TrustAlpha*teamwork.TrustStart+(1-teamwork.TrustAlpha)*q))
				if math.Abs(q-r.HeuristicQuality[i]) > 1e-12 || math.Abs(trust-r.TrustFinal[i]) > 1e-12 {
					t.Fatalf("%s %s agent %d: quality %v (parts give %v), trust %v (want %v)", r.Arm, r.QuestionID, i, r.HeuristicQuality[i], q, r.TrustFinal[i], trust)
				}
				dissent = dissent || r.HeuristicAgree[i] == 0
			}
		}
		if (r.FactsVerified != nil) != r.SMM || (r.FactsStated != nil) != r.SMM {
			t.Fatalf("%s %s: facts stated %v verified %v with smm %v", r.Arm, r.QuestionID, r.FactsStated, r.FactsVerified, r.SMM)
		}
		if r.SMM && (int(*r.FactsVerified) != len(r.Facts) || r.FactsMethod == "intersection" && *r.FactsVerified > *r.FactsStated) {
			t.Fatalf("%s %s: verified %d of %d stated, facts %q", r.Arm, r.QuestionID, *r.FactsVerified, *r.FactsStated, r.Facts)
		}
	}
	if !dissent {
		t.Fatal("no dissenting agent in the sample: the test does not see the conformity term")
	}
}
