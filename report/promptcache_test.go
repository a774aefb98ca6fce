package report

import (
	"math"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// TestCostSectionPromptCache: the cost table shows each arm's share of
// billed prompt tokens served from the provider's prompt cache and what the
// cached-input rate saved, and says "not reported" for an arm whose calls
// reported none (never 0%). By hand: arm 1 bills 1000 prompt tokens per
// row of which 400 cached; at prompt 2.5, cached 1.25 USD per 1M each row
// saves 400·1.25/1e6 = 0.0005; 20 rows save 0.01. Without any reported
// count the columns are absent.
func TestCostSectionPromptCache(t *testing.T) {
	arms, rows, prices, r := promptCacheReport(t)
	tab := r.costSection().Tables[0]
	col := func(name string) int {
		for i, h := range tab.Header {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %q in %v", name, tab.Header)
		return -1
	}
	share, saved, spent := col("prompt cached"), col("cache saved"), col("actual spend")
	got := map[string][]string{}
	for _, row := range tab.Rows {
		got[row[col("arm")]] = []string{row[share], row[saved], row[spent]}
	}
	if g := got[arms[0].name]; g[0] != "40.0%" || g[1] != usd(0.01) || g[2] != usd(20*(600*2.5+400*1.25+100*10)/1e6) {
		t.Errorf("%s: share, saved, spent %v", arms[0].name, g)
	}
	if g := got[arms[1].name]; g[0] != "not reported" || g[1] != usd(0) {
		t.Errorf("%s: share, saved %v, want not reported, $0", arms[1].name, g)
	}
	if !strings.Contains(r.costSection().Text, "unknown, not 0") {
		t.Error("the section does not say an unreported count is unknown")
	}
	for i := range rows {
		rows[i].CachedPromptTokens, rows[i].PaidCachedPromptTokens, rows[i].CallsCachedUnreported = 0, 0, 5
	}
	r, err := Build(rows, Options{Reps: 20, Prices: prices})
	if err != nil {
		t.Fatal(err)
	}
	if h := strings.Join(r.costSection().Tables[0].Header, "|"); strings.Contains(h, "cached") {
		t.Errorf("no count reported, yet the header has %s", h)
	}
}

// TestSummaryPromptCache: summary.parquet's group rows carry the report's
// "prompt cached" and "cache saved" — billed prompt tokens of the reporting
// rows, the cached part, its share and the saving — and null where no call
// reported a count (unknown, not 0).
func TestSummaryPromptCache(t *testing.T) {
	arms, _, _, r := promptCacheReport(t)
	seen := 0
	for _, s := range SummaryRows(r) {
		if s.Kind != "group" {
			continue
		}
		seen++
		switch s.Arm {
		case arms[0].name:
			if s.PromptCacheTokens == nil || *s.PromptCacheTokens != 20*1000 || *s.PromptCachedTokens != 20*400 ||
				*s.PromptCachedShare != 0.4 || math.Abs(*s.CostCacheSaved-0.01) > 1e-12 {
				t.Errorf("%s: billed %v cached %v share %v saved %v, want 20000, 8000, 0.4, $0.01", s.Arm,
					deref(s.PromptCacheTokens), deref(s.PromptCachedTokens), deref(s.PromptCachedShare), deref(s.CostCacheSaved))
			}
		default:
			if s.PromptCacheTokens != nil || s.PromptCachedShare != nil || s.CostCacheSaved != nil {
				t.Errorf("%s: no call reported a count, yet the row has share %v saved %v", s.Arm, deref(s.PromptCachedShare), deref(s.CostCacheSaved))
			}
		}
	}
	if seen != 2 {
		t.Fatalf("%d group rows, want 2", seen)
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// promptCacheReport is the report of two arms' 20 rows each billing 1000
// prompt tokens: the first arm's rows 400 of them cached, the second's
// calls reporting no count; priced at prompt 2.5, completion 10, cached
// 1.25 USD per 1M.
func promptCacheReport(t *testing.T) ([]armSpec, []results.QuestionRow, Prices, *Report) {
	t.Helper()
	arms := presetArms()[:2]
	rows := synthRows(arms, 20, 1, 9, "m")
	for i := range rows {
		rows[i].PromptTokens, rows[i].PaidPromptTokens, rows[i].CompletionTokens, rows[i].PaidCompletionTokens = 1000, 1000, 100, 100
		if rows[i].Arm == arms[0].name {
			rows[i].CachedPromptTokens, rows[i].PaidCachedPromptTokens = 400, 400
		} else {
			rows[i].CallsCachedUnreported = 3
		}
	}
	prices := Prices{"m": {Prompt: 2.5, Completion: 10, Cached: 1.25, HasCached: true}}
	r, err := Build(rows, Options{Reps: 20, Prices: prices})
	if err != nil {
		t.Fatal(err)
	}
	return arms, rows, prices, r
}
