package vote

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
)

// TestRule: seed 000's rule on scripted first answers.
func TestRule(t *testing.T) {
	first := func(l string, c float64) string { return kittest.First(l, c, 1-c, false) }
	tests := []struct {
		name      string
		spec      string
		answers   []string
		predicted string
		rule      string
		reason    string // prefix of abstain_reason
	}{
		{"plurality", "vote", []string{first("B", 0.8), first("B", 0.7), first("A", 0.9)}, "B", "plurality", ""},
		{"exactly 0.70 commits", "vote", []string{first("B", 0.7), first("B", 0.7), first("A", 0.7)}, "B", "plurality", ""},
		{"mean 0.69 abstains", "vote", []string{first("B", 0.7), first("B", 0.67), first("A", 0.7)}, "", "low_confidence", "low_confidence: mean confidence 0.69 < 0.70"},
		{"three-way tie abstains", "vote", []string{first("A", 0.9), first("B", 0.9), first("C", 0.9)}, "", "tie", "tie: A, B and C share the top vote"},
		{"an unreadable answer does not vote and counts 0", "vote", []string{first("D", 0.95), first("D", 0.95), "no idea"}, "", "low_confidence", "low_confidence: mean confidence 0.63"},
		{"an unreadable answer breaks a 2-1 into a 1-1 tie", "vote", []string{first("D", 0.95), first("C", 0.95), "no idea"}, "", "tie", "tie: C and D"},
		{"nobody answers", "vote", []string{"", "?", "hmm"}, "", "no_votes", "no_votes"},
		// vote:weighted: ReConcile's weights (1.0 → 1, 0.95 → 0.8, 0.85 → 0.5, 0.7 → 0.3, ≤ 0.6 → 0.1).
		{"weighted: one confident vote beats two at N = 3", "vote:weighted", []string{first("A", 1), first("B", 0.7), first("B", 0.7)}, "A", "weighted_plurality", ""},
		{"unweighted: the same votes go to B", "vote", []string{first("A", 1), first("B", 0.7), first("B", 0.7)}, "B", "plurality", ""},
		{"weighted, n=4: one confident vote beats two", "vote:weighted,n=4", []string{first("A", 1), first("B", 0.7), first("B", 0.7), first("C", 0.95)}, "A", "weighted_plurality", ""},
		{"weighted: the 0.70 rule still applies", "vote:weighted", []string{first("A", 0.9), first("B", 0.3), first("B", 0.3)}, "", "low_confidence", "low_confidence"},
		{"weighted tie abstains", "vote:weighted", []string{first("A", 0.95), first("B", 0.85), first("B", 0.7)}, "", "tie", "tie: A and B"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &kittest.Script{Answers: map[string]string{}}
			for i, a := range tt.answers {
				s.Answers[kittest.Key(kit.KindFirst, 0, i)] = a
			}
			out := kittest.Run(t, Protocol, tt.spec, kittest.Settings(3), s)
			if out.Predicted != tt.predicted || out.Decision.Rule != tt.rule || !strings.HasPrefix(out.AbstainReason, tt.reason) {
				t.Fatalf("predicted %q rule %q reason %q; want %q %q %q", out.Predicted, out.Decision.Rule, out.AbstainReason, tt.predicted, tt.rule, tt.reason)
			}
			if tt.predicted == "" && out.AbstainReason == "" {
				t.Fatal("an abstention without a reason")
			}
			var det Details
			b, _ := json.Marshal(out.Details)
			if err := json.Unmarshal(b, &det); err != nil || det.Rule != tt.rule || det.N != len(tt.answers) || det.Threshold != 0.7 {
				t.Fatalf("details %s (%v)", b, err)
			}
			if det.Weighted != (len(det.Weights) == len(tt.answers)) {
				t.Fatalf("weights %v recorded for weighted=%v", det.Weights, det.Weighted)
			}
		})
	}
}

func TestArms(t *testing.T) {
	for _, tt := range []struct {
		spec   string
		agents int
		label  string
		n      int
		err    string
	}{
		{"vote", 0, "vote", 3, ""},
		{"vote", 4, "vote/n4", 4, ""},
		{"vote/n4", 4, "vote/n4", 4, ""}, // a label reads back as its arm
		{"vote:n=3", 3, "vote/n3", 3, ""},
		{"vote:n=5", 3, "vote:n=5", 5, ""},
		{"VOTE:Weighted", 3, "vote:weighted/n3", 3, ""},
		{"vote:weighted,n=5", 0, "vote:weighted,n=5", 5, ""},
		{"vote:n=1", 3, "", 0, "from 2 to 16"},
		{"vote:loud", 3, "", 0, "unknown option"},
		{"vote:k=3", 3, "", 0, "unknown option"},
		{"vote:weighted,weighted", 3, "", 0, "unknown option"},
	} {
		a, ok, err := Protocol.Parse(tt.spec, kittest.Settings(tt.agents))
		if !ok || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Fatalf("%s: ok %v err %v, want %q", tt.spec, ok, err, tt.err)
		}
		if err != nil {
			continue
		}
		if c, _ := a.Calls(0); a.Info().Label != tt.label || c != tt.n || a.Info().AgentPolicy != "fixed:"+string(rune('0'+tt.n)) {
			t.Fatalf("%s: label %q calls %d info %+v", tt.spec, a.Info().Label, c, a.Info())
		}
	}
	if _, ok, _ := Protocol.Parse("veto", kittest.Settings(3)); ok {
		t.Fatal("vote claims veto's spec")
	}
}
