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
	c := costOf(rows, []int{0, 1}, rate(1, 2), rate(0.5, 1))
	if math.Abs(c.Total-0.0048) > 1e-12 || math.Abs(c.Spent-0.0006) > 1e-12 || !c.Priced || math.Abs(c.PerQuestion-0.0024) > 1e-12 {
		t.Fatalf("cost %+v, want total 0.0048, spent 0.0006, per question 0.0024", *c)
	}
	if c := costOf(rows, []int{0, 1}, rate(1, 2), nil); math.Abs(c.Spent-0.0012) > 1e-12 {
		t.Fatalf("spent without paid rates %v, want the list rates' 0.0012", c.Spent)
	}
}
