package kit_test

import (
	"slices"
	"testing"

	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
	"github.com/medteam-bench/medteam/qa"
)

// letterOf is the letter of level code on item.
func letterOf(item qa.Item, code string) string {
	for _, o := range item.Options {
		if item.Code(o.Letter) == code {
			return o.Letter
		}
	}
	return ""
}

// TestBreakTieTriage: a tie on a triage item escalates to the most urgent
// tied level, by rank, in both option orders, whatever the seed.
func TestBreakTieTriage(t *testing.T) {
	for _, tc := range []struct {
		tied []string // level codes
		want string
	}{
		{[]string{"sc", "em"}, "em"},
		{[]string{"em", "sc"}, "em"},
		{[]string{"sc", "ne"}, "ne"},
		{[]string{"ne", "em"}, "em"},
		{[]string{"sc", "ne", "em"}, "em"},
	} {
		for _, item := range []qa.Item{kittest.TriageItem, kittest.TriageShuffled} {
			var tied []string
			for _, c := range tc.tied {
				tied = append(tied, letterOf(item, c))
			}
			for seed := range uint64(20) {
				w, how := kit.BreakTie(item, tied, seed)
				if item.Code(w) != tc.want || how != kit.TieEscalated {
					t.Fatalf("%s tied %v seed %d: %s (%s) by %q; want %s escalated", item.ID, tc.tied, seed, w, item.Code(w), how, tc.want)
				}
			}
		}
	}
}

// TestBreakTieMultipleChoice: on a multiple-choice item the tie is a seeded
// draw: the same seed gives the same option, and over seeds every tied
// option wins (never "the first letter").
func TestBreakTieMultipleChoice(t *testing.T) {
	tied := []string{"A", "C"}
	won := map[string]int{}
	for seed := range uint64(60) {
		w, how := kit.BreakTie(kittest.Item, tied, seed)
		w2, _ := kit.BreakTie(kittest.Item, tied, seed)
		if how != kit.TieSeededDraw || w != w2 || !slices.Contains(tied, w) {
			t.Fatalf("seed %d: %q %q by %q", seed, w, w2, how)
		}
		won[w]++
	}
	if won["A"] == 0 || won["C"] == 0 {
		t.Fatalf("the draw always picks the same option: %v", won)
	}
	if w, how := kit.BreakTie(kittest.Item, nil, 1); w != "" || how != "" {
		t.Fatalf("empty tie: %q %q", w, how)
	}
}

// TestSessionPlurality: the session's plurality applies the rule only on a
// tie, with the session's tie-draw seed.
func TestSessionPlurality(t *testing.T) {
	s := kit.NewSession(nil, kittest.TriageShuffled, protocol.Unit{RunSeed: 3}, false, 0)
	em, sc := letterOf(s.Item, "em"), letterOf(s.Item, "sc")
	if d, how := s.Plurality([]string{sc, em}); d.Winner != em || how != kit.TieEscalated || !d.Tie {
		t.Fatalf("triage tie: %+v by %q", d, how)
	}
	if d, how := s.Plurality([]string{sc, sc, em}); d.Winner != sc || how != "" || d.Tie {
		t.Fatalf("no tie: %+v by %q", d, how)
	}
	m := kit.NewSession(nil, kittest.Item, protocol.Unit{RunSeed: 3}, false, 0)
	d, how := m.Plurality([]string{"B", "D"})
	want, _ := kit.BreakTie(kittest.Item, []string{"B", "D"}, m.DrawSeed(kit.KindTieDraw, -1))
	if d.Winner != want || how != kit.TieSeededDraw {
		t.Fatalf("multiple-choice tie: %+v by %q, want %s", d, how, want)
	}
}
