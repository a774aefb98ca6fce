package report

import (
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/stats"
)

// TestIntervalCellsSayWhatTheyAre: a paired interval without a discordant
// pair says so (it is Newcombe's, not the bootstrap's [0, 0]), and a design
// effect that is the few-questions bound is marked, not shown as an
// estimate.
func TestIntervalCellsSayWhatTheyAre(t *testing.T) {
	y := []bool{true, true, false, true, true, false, true, true, true, false, true, true}
	cl := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	same := stats.ComparePaired(y, y, cl, stats.Bootstrap{Seed: 1, Reps: 100})
	if got, want := deltaCI(same), ivPP(same.Delta.Boot)+" no discordant pairs (Newcombe)"; got != want || same.Delta.Boot.Hi <= 0 {
		t.Errorf("no discordant pair: %q, want %q with a positive upper end", got, want)
	}
	flip := append([]bool(nil), y...)
	flip[2] = true
	if got := deltaCI(stats.ComparePaired(y, flip, cl, stats.Bootstrap{Seed: 1, Reps: 100})); got == "" || strings.Contains(got, "no discordant") {
		t.Errorf("one discordant pair: %q", got)
	}
	for _, tc := range []struct {
		g    stats.Group
		want string
	}{
		{stats.Group{DesignEffect: 5, DeffBound: true}, "5.00 (bound)"},
		{stats.Group{DesignEffect: 1.23}, "1.23"},
	} {
		if got := deffCell(tc.g); got != tc.want {
			t.Errorf("deffCell(%+v) = %q, want %q", tc.g.DesignEffect, got, tc.want)
		}
	}
}
