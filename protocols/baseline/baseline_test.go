package baseline

import (
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
)

func TestSingle(t *testing.T) {
	for _, tt := range []struct {
		p         string
		kind      string
		reply     string
		predicted string
		reason    string
	}{
		{"zeroshot", kit.KindZeroShot, `{"answer":"C"}`, "C", ""},
		{"zeroshot", kit.KindZeroShot, "ANSWER: B", "B", ""},
		{"cot", kit.KindFirst, "REASONING: The timing fits B better than C.\nRANKING: B, C, A, D\nCONFIDENCE: 0.6", "B", ""},
		{"cot", kit.KindFirst, `{"reasoning":"r","ranking":["D","A"],"confidence":0.6}`, "D", ""},
		{"cot", kit.KindFirst, "Either could be right.", "", "no_answer: "},
		{"cot", kit.KindFirst, "ANSWER: A\nANSWER: D", "", "ambiguous: "},
	} {
		proto := ZeroShot
		if tt.p == "cot" {
			proto = CoT
		}
		s := &kittest.Script{Answers: map[string]string{kittest.Key(tt.kind, 0, 0): tt.reply}}
		out := kittest.Run(t, proto, tt.p, kittest.Settings(3), s)
		req := s.Reqs[kittest.Key(tt.kind, 0, 0)]
		if out.Predicted != tt.predicted || !strings.HasPrefix(out.AbstainReason, tt.reason) || out.Decision.Rule != RuleSingle || req.Temperature != 0 || len(s.Keys()) != 1 {
			t.Fatalf("%s %q: predicted %q reason %q rule %q temp %v calls %v", tt.p, tt.reply, out.Predicted, out.AbstainReason, out.Decision.Rule, req.Temperature, s.Keys())
		}
	}
	if _, _, err := ZeroShot.Parse("zeroshot:3", kittest.Settings(3)); err == nil {
		t.Fatal("zeroshot takes no options")
	}
}

// TestCoTIsTheGreedyFirstAnswer: cot's one request is the shared first
// answer of agent 0 (firstanswer.Call) at temperature 0, and sc's sample 0 is
// that request at the sampling temperature — nothing else differs (Wang et
// al. 2023: self-consistency samples the chain-of-thought prompt), so
// sc − cot measures sampling and voting, not a prompt change.
func TestCoTIsTheGreedyFirstAnswer(t *testing.T) {
	for _, structured := range []bool{true, false} {
		set := kittest.Settings(3)
		set.Structured, set.AgentTemp = structured, 0.7
		stub := func(llm.Request) string { return kittest.First("B", 0.7, 0.3, false) }
		cs, ss := &kittest.Script{Default: stub}, &kittest.Script{Default: stub}
		kittest.Run(t, CoT, "cot", set, cs)
		kittest.Run(t, SC, "sc:k=3", set, ss)
		cot, sample0 := cs.Reqs[kittest.Key(kit.KindFirst, 0, 0)], ss.Reqs[kittest.Key(kit.KindFirst, 0, 0)]
		s := kit.NewSession(nil, kittest.Item, kittest.Unit("cot"), structured, set.MaxTokens)
		c, _ := firstanswer.Call(s, 0, 0)
		if want := s.Request(c); llm.RequestHash(cot) != llm.RequestHash(want) {
			t.Fatalf("structured=%v: cot's request is not firstanswer.Call(agent 0, temperature 0)", structured)
		}
		if cot.Temperature != 0 || sample0.Temperature != 0.7 {
			t.Fatalf("temperatures: cot %v, sc %v", cot.Temperature, sample0.Temperature)
		}
		sample0.Temperature = cot.Temperature
		if llm.RequestHash(sample0) != llm.RequestHash(cot) {
			t.Fatalf("structured=%v: sc's sample differs from cot's request beyond the temperature", structured)
		}
		for i := 1; i < 3; i++ {
			si := ss.Reqs[kittest.Key(kit.KindFirst, 0, i)]
			si.Temperature, si.Seed = cot.Temperature, cot.Seed
			if llm.RequestHash(si) != llm.RequestHash(cot) {
				t.Fatalf("structured=%v: sample %d differs from cot's request beyond the temperature and seed", structured, i)
			}
		}
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
