package stats

import (
	"math"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// TestCostListAndSpent: the list cost prices every call's tokens at the
// list rates; actual spend prices only the billed tokens (paid_*) at the
// rates paid — by hand: list = (1000·1 + 100·2 + 3000·1 + 300·2)/1e6 =
// 0.0048; spent at half the rates = (1000·0.5 + 100·1 + 0)/1e6 = 0.0006.
func TestCostListAndSpent(t *testing.T) {
	rows := []results.QuestionRow{
		{QuestionID: "q1", Model: "m", Arm: "a", PromptTokens: 1000, CompletionTokens: 100, PaidPromptTokens: 1000, PaidCompletionTokens: 100},
		{QuestionID: "q2", Model: "m", Arm: "a", PromptTokens: 3000, CompletionTokens: 300}, // every call shared or cached
	}
	rate := func(p, c float64) PriceFunc {
		return func(model string, pt, ct int64) (float64, bool) {
			return (float64(pt)*p + float64(ct)*c) / 1e6, model == "m"
		}
	}
	c := costOf(rows, []int{0, 1}, rate(1, 2), rate(0.5, 1), nil)
	if math.Abs(c.Total-0.0048) > 1e-12 || math.Abs(c.Spent-0.0006) > 1e-12 || !c.Priced || math.Abs(c.PerQuestion-0.0024) > 1e-12 {
		t.Fatalf("cost %+v, want total 0.0048, spent 0.0006, per question 0.0024", *c)
	}
	if c := costOf(rows, []int{0, 1}, rate(1, 2), nil, nil); math.Abs(c.Spent-0.0012) > 1e-12 {
		t.Fatalf("spent without paid rates %v, want the list rates' 0.0012", c.Spent)
	}
}

// TestCostCachedTokens: the paid prompt tokens served from the provider's
// prompt cache are billed at the cached-input rate — by hand, prompt rate
// 2.50, cached 1.25, completion 10 (USD per 1M): row 1 pays 1000 prompt
// tokens of which 800 cached and 100 completion tokens: 200·2.5 + 800·1.25
// + 100·10 = 2500 → 0.0025 (saved 800·1.25 = 0.001); the share is the
// cached part of the paid prompt tokens of the rows whose calls all
// reported a count (row 3, unreported, is left out and counted).
func TestCostCachedTokens(t *testing.T) {
	rows := []results.QuestionRow{
		{QuestionID: "q1", Model: "m", PromptTokens: 1000, CompletionTokens: 100, PaidPromptTokens: 1000, PaidCompletionTokens: 100, CachedPromptTokens: 800, PaidCachedPromptTokens: 800},
		{QuestionID: "q2", Model: "m", PromptTokens: 1000, PaidPromptTokens: 1000},
		{QuestionID: "q3", Model: "m", PromptTokens: 500, PaidPromptTokens: 500, CallsCachedUnreported: 2},
	}
	price := func(model string, pt, ct int64) (float64, bool) {
		return (float64(pt)*2.5 + float64(ct)*10) / 1e6, true
	}
	saving := func(model string, cached int64) float64 { return float64(cached) * (2.5 - 1.25) / 1e6 }
	c := costOf(rows[:1], []int{0}, price, nil, saving)
	if math.Abs(c.Spent-0.0025) > 1e-12 || math.Abs(c.CacheSaved-0.001) > 1e-12 || math.Abs(c.Total-0.0035) > 1e-12 {
		t.Errorf("cost %+v, want spent 0.0025, saved 0.001, list 0.0035", *c)
	}
	pc := promptCacheIdx(rows, []int{0, 1, 2})
	if pc.PromptTokens != 2000 || pc.CachedTokens != 800 || pc.Unreported != 2 || !pc.Reported || pc.Share() != 0.4 {
		t.Errorf("prompt cache %+v (share %v), want 800 of 2000 (0.4), 2 unreported", pc, pc.Share())
	}
	if pc := promptCacheIdx(rows, []int{2}); pc.Reported || pc.Share() != 0 {
		t.Errorf("only unreported rows: %+v, want not reported", pc)
	}
}
