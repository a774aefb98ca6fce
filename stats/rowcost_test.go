package stats

import (
	"math"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// TestCostOfOwnCost: a rescored row's own cost (protocol_json cost_usd)
// counts as it is, priced or not, in place of its tokens; other rows are
// priced by their tokens; a cost_usd of another protocol is ignored.
func TestCostOfOwnCost(t *testing.T) {
	price := func(model string, p, c int64) (float64, bool) {
		if model != "gpt-4o" {
			return 0, false
		}
		return (float64(p)*2.5 + float64(c)*10) / 1e6, true
	}
	for _, tc := range []struct {
		name        string
		rows        []results.QuestionRow
		total, perQ float64
		unpriced    int
	}{
		{"own cost wins over tokens", []results.QuestionRow{{Model: "gpt-4o", Protocol: "rescore", ProtocolJSON: `{"cost_usd":0.05}`, PromptTokens: 1e6}}, 0.05, 0.05, 0},
		{"own cost of an unpriced model", []results.QuestionRow{{Model: "x", Protocol: "rescore", ProtocolJSON: `{"cost_usd":0.07}`}}, 0.07, 0.07, 0},
		{"tokens and own cost", []results.QuestionRow{{Model: "gpt-4o", PromptTokens: 10000, CompletionTokens: 1500}, {Model: "gpt-4o", Protocol: "rescore", ProtocolJSON: `{"cost_usd":0.01}`}}, 0.05, 0.025, 0},
		{"another protocol's field is not a cost", []results.QuestionRow{{Model: "x", Protocol: "vote", ProtocolJSON: `{"cost_usd":1}`}}, 0, 0, 1},
	} {
		c := costOf(tc.rows, seq(len(tc.rows)), price, nil, nil)
		if math.Abs(c.Total-tc.total) > 1e-12 || math.Abs(c.PerQuestion-tc.perQ) > 1e-12 || c.Unpriced != tc.unpriced {
			t.Errorf("%s: %+v, want total %g, per question %g, unpriced %d", tc.name, c, tc.total, tc.perQ, tc.unpriced)
		}
	}
}
