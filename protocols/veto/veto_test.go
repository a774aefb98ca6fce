package veto

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
)

// TestRuleTable: seed 004's decision matrix on scripted first answers.
func TestRuleTable(t *testing.T) {
	ok := func(l string) string { return kittest.First(l, 0.8, 0.2, false) }
	vetoed := func(l string) string { return kittest.First(l, 0.3, 0.85, true) }
	tests := []struct {
		name      string
		spec      string
		answers   []string
		predicted string
		rule      string
		reason    string
		agreement float64
	}{
		{"3/0/0 unanimous", "veto", []string{ok("A"), ok("A"), ok("A")}, "A", "unanimous", "", 100},
		{"2/1 strong majority", "veto", []string{ok("A"), ok("B"), ok("A")}, "A", "strong_majority", "", 200.0 / 3},
		{"1/1/1 split", "veto", []string{ok("A"), ok("B"), ok("C")}, "", "split", "split: agreement 33% < 2/3", 100.0 / 3},
		{"a veto overrides unanimity", "veto", []string{ok("A"), ok("A"), vetoed("A")}, "", "veto", "veto: vetoed by agent 3", 100},
		{"two vetoes", "veto", []string{vetoed("B"), ok("A"), vetoed("A")}, "", "veto", "veto: vetoed by agents 1 and 3", 200.0 / 3},
		{"an unreadable answer", "veto", []string{ok("A"), "I cannot say.", ok("A")}, "", "parse_failure", "parse_failure: the answer or veto flag of agent 2", 200.0 / 3},
		{"an unreadable veto flag", "veto", []string{ok("A"), `{"ranking":["A","B","C","D"],"confidence":0.9,"risk":0.1,"veto":"maybe"}`, ok("A")}, "", "parse_failure", "parse_failure", 100},
		{"a missing veto flag", "veto", []string{ok("A"), `{"ranking":["A","B","C","D"],"confidence":0.9,"risk":0.1}`, ok("A")}, "", "parse_failure", "parse_failure", 100},
		{"veto precedes parse failure", "veto", []string{vetoed("A"), "", ok("A")}, "", "veto", "veto", 200.0 / 3},
		{"N=5 4/5 strong majority", "veto:n=5", []string{ok("C"), ok("C"), ok("C"), ok("C"), ok("D")}, "C", "strong_majority", "", 80},
		{"N=5 3/5 split", "veto:n=5", []string{ok("C"), ok("C"), ok("C"), ok("B"), ok("D")}, "", "split", "split: agreement 60%", 60},
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
			var det Details
			b, _ := json.Marshal(out.Details)
			if err := json.Unmarshal(b, &det); err != nil || det.Rule != tt.rule || det.AgreementPct < tt.agreement-1e-9 || det.AgreementPct > tt.agreement+1e-9 {
				t.Fatalf("details %s (%v)", b, err)
			}
		})
	}
}

// TestRecord: every row records agreement, max risk, mean confidence, the
// breakdown, the vetoes and the rule.
func TestRecord(t *testing.T) {
	s := &kittest.Script{Answers: map[string]string{
		kittest.Key(kit.KindFirst, 0, 0): kittest.First("A", 0.9, 0.1, false),
		kittest.Key(kit.KindFirst, 0, 1): kittest.First("B", 0.4, 0.8, false), // high risk, outvoted, no veto
		kittest.Key(kit.KindFirst, 0, 2): kittest.First("A", 0.8, 0.2, false),
	}}
	out := kittest.Run(t, Protocol, "veto", kittest.Settings(3), s)
	det := out.Details.(Details)
	if out.Predicted != "A" || det.MaxRisk != 0.8 || !det.HighRisk || math.Abs(det.MeanConfidence-0.7) > 1e-9 ||
		det.Votes["A"] != 2 || det.Votes["B"] != 1 || len(det.Vetoes) != 0 || !slices.Equal(det.Risks, []float64{0.1, 0.8, 0.2}) {
		t.Fatalf("record %+v (predicted %q)", det, out.Predicted)
	}
	b, _ := json.Marshal(det)
	for _, k := range []string{`"agreement_pct":66.66`, `"max_risk":0.8`, `"mean_confidence":0.7`, `"votes":{"A":2,"B":1}`, `"vetoes":[]`, `"rule":"strong_majority"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("protocol_json %s lacks %s", b, k)
		}
	}
}
