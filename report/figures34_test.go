package report

import (
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

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

// TestSummaryParquetSpend: summary.parquet carries the actual spend (billed
// tokens at the rates paid) beside the list cost, the billed tokens, the
// debiased ECE and the design effect, so that a notebook reads the money
// paid. By hand: every row lists 1000 prompt + 100 completion tokens and
// bills half its rows (cache hits and shared calls bill nothing); list
// rates 1 and 2 USD per million, paid (batch) rates half that.
func TestSummaryParquetSpend(t *testing.T) {
	rows := synthRows(presetArms()[:2], 40, 1, 9, "m")
	for i := range rows {
		rows[i].PromptTokens, rows[i].CompletionTokens = 1000, 100
		rows[i].PaidPromptTokens, rows[i].PaidCompletionTokens = 0, 0
		if i%2 == 0 {
			rows[i].PaidPromptTokens, rows[i].PaidCompletionTokens = 1000, 100
		}
	}
	r, err := Build(rows, Options{Reps: 50, Prices: Prices{"m": {Prompt: 1, Completion: 2}}, PaidPrices: Prices{"m": {Prompt: 0.5, Completion: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	_, path, err := WriteFiles(t.TempDir(), r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parquet.ReadFile[SummaryRow](path)
	if err != nil {
		t.Fatal(err)
	}
	groups := 0
	for _, s := range got {
		if s.Kind != KindGroup {
			continue
		}
		groups++
		list := float64(*s.N) * 1200 / 1e6
		spent := float64(*s.N/2) * 600 / 1e6
		switch {
		case s.CostTotal == nil || !near(*s.CostTotal, list, 1e-12):
			t.Errorf("%s: cost_total %v, want %v", s.Arm, s.CostTotal, list)
		case s.CostSpent == nil || !near(*s.CostSpent, spent, 1e-12) || s.CostSpentPerQuestion == nil || !near(*s.CostSpentPerQuestion, spent/float64(*s.N), 1e-12):
			t.Errorf("%s: cost_spent %v (per question %v), want %v", s.Arm, s.CostSpent, s.CostSpentPerQuestion, spent)
		case s.PaidTokens == nil || *s.PaidTokens != *s.N/2*1100:
			t.Errorf("%s: paid_tokens %v, want %d", s.Arm, s.PaidTokens, *s.N/2*1100)
		case s.DesignEffect == nil || *s.DesignEffect != 1 || s.DesignEffectBound:
			t.Errorf("%s: design_effect %v bound %v, want 1 false (one row per question)", s.Arm, s.DesignEffect, s.DesignEffectBound)
		}
	}
	if groups != 2 {
		t.Errorf("%d group rows, want 2", groups)
	}
}

// TestFactorialTableCellDiffs: the factorial table says what 2β is and
// prints each component's mean on − off cell difference beside it (— for
// the intercept and the interactions); its interval is labelled unadjusted.
func TestFactorialTableCellDiffs(t *testing.T) {
	r, err := Build(synthRows(factorialArms(), 40, 1, 9, "sim/default"), Options{Reps: 20})
	if err != nil {
		t.Fatal(err)
	}
	s := r.factorialSection()
	if s == nil || len(s.Tables) != 1 {
		t.Fatalf("no factorial table: %+v", s)
	}
	tb := s.Tables[0]
	if got := tb.Header[len(tb.Header)-1]; got != "mean on − off cell diff. (pp)" || tb.Header[3] != "95% CI (unadjusted)" {
		t.Errorf("header %q", tb.Header)
	}
	for _, row := range tb.Rows {
		last := row[len(row)-1]
		component := !strings.Contains(row[0], ":") && row[0] != "(intercept)"
		if component == (last == dash) {
			t.Errorf("%s: cell difference %q", row[0], last)
		}
	}
	if !strings.Contains(s.Text, "2β is a component's effect at the design centre") {
		t.Errorf("the text does not say what 2β is: %s", s.Text)
	}
}
