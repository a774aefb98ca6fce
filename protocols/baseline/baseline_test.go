package baseline

import (
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
)

func TestSingle(t *testing.T) {
	for _, tt := range []struct {
		p         string
		reply     string
		predicted string
		reason    string
	}{
		{kit.KindZeroShot, `{"answer":"C"}`, "C", ""},
		{kit.KindZeroShot, "ANSWER: B", "B", ""},
		{kit.KindCoT, "REASONING: The timing fits B better than C.\nANSWER: B", "B", ""},
		{kit.KindCoT, "Either could be right.", "", "no_answer: "},
		{kit.KindCoT, "ANSWER: A\nANSWER: D", "", "ambiguous: "},
	} {
		proto := ZeroShot
		if tt.p == kit.KindCoT {
			proto = CoT
		}
		s := &kittest.Script{Answers: map[string]string{kittest.Key(tt.p, 0, 0): tt.reply}}
		out := kittest.Run(t, proto, tt.p, kittest.Settings(3), s)
		req := s.Reqs[kittest.Key(tt.p, 0, 0)]
		if out.Predicted != tt.predicted || !strings.HasPrefix(out.AbstainReason, tt.reason) || out.Decision.Rule != RuleSingle || req.Temperature != 0 || len(s.Keys()) != 1 {
			t.Fatalf("%s %q: predicted %q reason %q rule %q temp %v", tt.p, tt.reply, out.Predicted, out.AbstainReason, out.Decision.Rule, req.Temperature)
		}
	}
	if _, _, err := ZeroShot.Parse("zeroshot:3", kittest.Settings(3)); err == nil {
		t.Fatal("zeroshot takes no options")
	}
}

// TestSCTieIsASeededDraw: a tie of the samples is broken by a draw seeded by
// the question and run seed, recorded as such, never the first letter.
func TestSCTieIsASeededDraw(t *testing.T) {
	tied := func(req llm.Request) string {
		return kittest.First([]string{"C", "A", "C", "A"}[req.Meta.Agent], 0.7, 0.3, false)
	}
	out := kittest.Run(t, SC, "sc:4", kittest.Settings(3), &kittest.Script{Default: tied})
	det := out.Details.(SCDetails)
	if !out.Decision.Tie || out.TieBrokenBy != "seeded_draw" || det.Drawn != out.Predicted || det.K != 4 || det.Votes["A"] != 2 || det.Votes["C"] != 2 {
		t.Fatalf("tie: %q %q %+v", out.Predicted, out.TieBrokenBy, det)
	}
	// Reproducible, and over run seeds both tied options are drawn.
	drawn := map[string]bool{}
	for seed := int64(1); seed <= 16; seed++ {
		a, _, _ := SC.Parse("sc:4", kittest.Settings(3))
		u := kittest.Unit("sc:k=4")
		u.RunSeed = seed
		o1, _ := a.Run(t.Context(), &kittest.Script{Default: tied}, kittest.Item, u)
		o2, _ := a.Run(t.Context(), &kittest.Script{Default: tied}, kittest.Item, u)
		if o1.Predicted != o2.Predicted {
			t.Fatal("the draw is not reproducible")
		}
		drawn[o1.Predicted] = true
	}
	if !drawn["A"] || !drawn["C"] {
		t.Fatalf("draws over seeds: %v", drawn)
	}
	// No tie: the plurality, no draw.
	out = kittest.Run(t, SC, "sc:k=3", kittest.Settings(3), &kittest.Script{Default: tied})
	if out.Predicted != "C" || out.TieBrokenBy != "" || out.Decision.Rule != RuleSC {
		t.Fatalf("2-1: %q %q", out.Predicted, out.TieBrokenBy)
	}
}

// TestSCSamplesAreFirstAnswers: sample i is agent i's first answer, at the
// agent temperature; a temperature of 0 is refused.
func TestSCSamplesAreFirstAnswers(t *testing.T) {
	s := &kittest.Script{Default: func(llm.Request) string { return kittest.First("B", 0.7, 0.3, false) }}
	set := kittest.Settings(3)
	set.AgentTemp = 0.9
	kittest.Run(t, SC, "sc:k=5", set, s)
	if len(s.Keys()) != 5 {
		t.Fatalf("calls %v", s.Keys())
	}
	for i := range 5 {
		req := s.Reqs[kittest.Key(kit.KindFirst, 0, i)]
		if req.Temperature != 0.9 || req.Meta.Phase != kit.PhaseAnswer {
			t.Fatalf("sample %d: %+v", i, req.Meta)
		}
	}
	set.AgentTemp = 0
	if _, _, err := SC.Parse("sc:5", set); err == nil || !strings.Contains(err.Error(), "temperature") {
		t.Fatalf("temperature 0: %v", err)
	}
	for _, bad := range []string{"sc:0", "sc:k=65", "sc:5,3", "sc:n=3"} {
		if _, _, err := SC.Parse(bad, kittest.Settings(3)); err == nil {
			t.Fatalf("%s accepted", bad)
		}
	}
}
