package sim

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// The core's own quality mechanisms; the tests that exercise them through
// teamwork's kinds are teamwork/simcore_*_test.go.

func TestQualityFormula(t *testing.T) {
	items := map[string]Item{"q": {Letters: letters(4), Gold: "B"}}
	m := New(Profile{}, items)
	it := m.items["q"]
	other := int8(0)
	for other == it.gold || other == it.distractor {
		other++
	}
	cases := []struct {
		name              string
		qs, signal, fluen float64
		delta             float64 // skill − d
		first             int8
		want              float64
	}{
		{"correct, skilled", 3, 0.5, 0, 0.2, it.gold, 1 / (1 + math.Exp(-1.1))},
		{"wrong, at difficulty", 3, 0.5, 0, 0, other, 1 / (1 + math.Exp(0.5))},
		{"distractor, fluent", 3, 0.5, 2, -0.1, it.distractor, 1 / (1 + math.Exp(-1.2))},
		{"correct, no signal", 1, 0, 2, -0.5, it.gold, 1 / (1 + math.Exp(0.5))},
		{"flat", 0, 0, 0, 0.7, other, 0.5},
	}
	for _, tc := range cases {
		p := Profile{QualitySkill: tc.qs, QualitySignal: tc.signal, DistractorFluency: tc.fluen}
		c := call{m: m, p: &p, it: it, n: 4}
		if got := c.latentQuality(it.difficulty+tc.delta, tc.first, 0); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: q = %.6f, want %.6f", tc.name, got, tc.want)
		}
	}

	for _, tc := range []struct {
		q    float64
		tier int8
	}{{0, 0}, {0.19, 0}, {0.2, 1}, {0.39, 1}, {0.5, 2}, {0.79, 3}, {0.8, 4}, {1, 4}} {
		if got := tierOf(tc.q); got != tc.tier {
			t.Errorf("tierOf(%v) = %d, want %d", tc.q, got, tc.tier)
		}
	}
	for tier, want := range []float64{0.1, 0.3, 0.5, 0.7, 0.9} {
		if got := tierMid(int8(tier)); math.Abs(got-want) > 1e-12 {
			t.Errorf("tierMid(%d) = %v, want %v", tier, got, want)
		}
		for _, cue := range qualityCues[tier] {
			for _, s := range []string{cue, "The findings point to B. " + cue, "Agent 2, turn 1: The findings point to B. " + cue + " [ranking B > A]"} {
				if got := decodeTier(s); got != int8(tier) {
					t.Errorf("decodeTier(%q) = %d, want %d", s, got, tier)
				}
			}
		}
	}
	for _, s := range []string{"", "I keep B first.", "The key findings point to B; A is the closest alternative."} {
		if got := decodeTier(s); got != -1 {
			t.Errorf("decodeTier(%q) = %d, want -1", s, got)
		}
	}

	for _, tc := range []struct{ r, q, want float64 }{
		{1, 0, 2}, {1, 0.5, 1}, {1, 1, 0}, {1, 0.25, 1.5}, {1.5, 0.9, 0}, {0, 0.1, 1}, {0, 0.9, 1},
	} {
		p := Profile{QualityResistance: tc.r}
		c := call{p: &p}
		if got := c.susceptibility(tc.q); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("susceptibility(R=%v, q=%v) = %v, want %v", tc.r, tc.q, got, tc.want)
		}
	}
}

// TestCuesAreUnambiguous: a cue is recognised only as itself, and no other
// sentence of the core reads as one (teamwork's own sentences are checked
// in teamwork/sim_test.go).
func TestCuesAreUnambiguous(t *testing.T) {
	var others []string
	for _, set := range [][][3]string{rankSentences[:], roleSentences[:], switchSentences[:], holdSentences[:]} {
		for _, s := range set {
			others = append(others, s[0]+"B"+s[1]+"C"+s[2])
		}
	}
	others = append(others, proseAnswers[:]...)
	others = append(others, factBank[:]...)
	for tier, set := range qualityCues {
		for _, cue := range set {
			if strings.ContainsAny(cue, ";\"\\") {
				t.Errorf("cue %q has a semicolon or a quote", cue)
			}
			for _, w := range strings.Fields(cue) {
				if w = strings.Trim(w, ".,"); len(w) == 1 {
					t.Errorf("cue %q has the single-letter word %q", cue, w)
				}
			}
			if got := decodeTier(cue); got != int8(tier) {
				t.Errorf("cue %q decodes as tier %d, want %d", cue, got, tier)
			}
			for t2, set2 := range qualityCues {
				for _, c2 := range set2 {
					if c2 != cue && strings.Contains(c2, cue) {
						t.Errorf("cue %q (tier %d) contains cue %q (tier %d)", c2, t2, cue, tier)
					}
				}
			}
		}
	}
	for _, s := range others {
		if got := decodeTier(s); got != -1 {
			t.Errorf("%q reads as a tier-%d cue", s, got)
		}
	}
}

func TestProfiles(t *testing.T) {
	names := Profiles()
	want := []string{"default", "flaky", "misled", "noisy", "overconfident", "slow", "strong", "weak"}
	if !slices.Equal(names, want) {
		t.Fatalf("Profiles() = %v, want %v", names, want)
	}
	for _, n := range names {
		p, err := LookupProfile(n)
		if err != nil {
			t.Fatalf("LookupProfile(%q): %v", n, err)
		}
		if p.Name != n {
			t.Errorf("profile %q has Name %q", n, p.Name)
		}
		if n != "flaky" && p.ErrorRate != 0 {
			t.Errorf("profile %q has ErrorRate %v; only flaky injects faults", n, p.ErrorRate)
		}
	}
	_, err := LookupProfile("gpt-9")
	if err == nil || !strings.Contains(err.Error(), "gpt-9") || !strings.Contains(err.Error(), "default, flaky") {
		t.Fatalf("LookupProfile(unknown) error = %v; want one naming it and listing the known profiles", err)
	}
}
