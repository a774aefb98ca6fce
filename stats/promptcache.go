package stats

import "github.com/medteam-bench/medteam/results"

// CacheSavingFunc is what a model's cached-input rate saved on cachedTok
// prompt tokens served from the provider's prompt cache, in USD, against
// its prompt rate (0 when it has no cached rate).
type CacheSavingFunc func(model string, cachedTok int64) float64

// PromptCache is a group's provider prompt caching, over its paid calls
// (those that reached the model).
type PromptCache struct {
	// PromptTokens are the paid prompt tokens of the rows whose calls all
	// reported a cached count, and CachedTokens the part of them served
	// from the provider's prompt cache.
	PromptTokens, CachedTokens int64
	// Unreported counts the paid calls that reported no cached count
	// (Ollama, sim, a server without the field); their rows are left out
	// of PromptTokens. Reported is true when some row's calls reported.
	Unreported int
	Reported   bool
}

// Share is CachedTokens / PromptTokens (0 without prompt tokens).
func (c PromptCache) Share() float64 {
	if c.PromptTokens == 0 {
		return 0
	}
	return float64(c.CachedTokens) / float64(c.PromptTokens)
}

// promptCacheIdx sums the prompt caching of rows idx. A row counts when
// its paid calls all reported a cached count; one of whose calls reported
// none counts in Unreported only, so the share is never diluted by
// unknowns read as 0.
func promptCacheIdx(rows []results.QuestionRow, idx []int) PromptCache {
	var c PromptCache
	for _, i := range idx {
		r := &rows[i]
		if r.CallsCachedUnreported > 0 {
			c.Unreported += int(r.CallsCachedUnreported)
			continue
		}
		if r.PaidPromptTokens == 0 {
			continue // nothing paid: no call reached the model
		}
		c.PromptTokens += r.PaidPromptTokens
		c.CachedTokens += r.PaidCachedPromptTokens
		c.Reported = true
	}
	return c
}

// cacheSaving takes what the cached-input rate saved on row r's paid
// cached tokens off c.Spent and adds it to c.CacheSaved.
func cacheSaving(c *Cost, r *results.QuestionRow, saving CacheSavingFunc) {
	if saving == nil || r.PaidCachedPromptTokens == 0 {
		return
	}
	v := saving(r.Model, r.PaidCachedPromptTokens)
	c.Spent -= v
	c.CacheSaved += v
}
