package report

import (
	"maps"
	"slices"

	"github.com/medteam-bench/medteam/stats"
)

// Price is what one model's tokens cost, in USD per million tokens (the unit
// of configs/prices.yaml). Cached is the rate of prompt tokens served from
// the provider's prompt cache; with HasCached false they cost Prompt.
type Price struct {
	Prompt, Completion float64
	Cached             float64
	HasCached          bool
}

// Prices maps a model (provider/model, as in the model column) to its price.
type Prices map[string]Price

// Func is the table as a stats.PriceFunc; nil for an empty table.
func (p Prices) Func() stats.PriceFunc {
	if len(p) == 0 {
		return nil
	}
	return func(model string, prompt, completion int64) (float64, bool) {
		pr, ok := p[model]
		if !ok {
			return 0, false
		}
		return (float64(prompt)*pr.Prompt + float64(completion)*pr.Completion) / 1e6, true
	}
}

// models lists the priced models in name order.
func (p Prices) models() []string { return slices.Sorted(maps.Keys(p)) }

// saving is what the table's cached-input rates save on cached prompt
// tokens against the prompt rates; nil for an empty table.
func (p Prices) saving() stats.CacheSavingFunc {
	if len(p) == 0 {
		return nil
	}
	return func(model string, cached int64) float64 {
		pr, ok := p[model]
		if !ok || !pr.HasCached {
			return 0
		}
		return float64(cached) * (pr.Prompt - pr.Cached) / 1e6
	}
}
