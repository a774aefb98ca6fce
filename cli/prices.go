package cli

import (
	"bytes"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/prefixcache"
)

// priceTable maps model names (provider/model) to USD per million tokens.
type priceTable map[string]struct {
	Prompt     float64 `yaml:"prompt"`
	Completion float64 `yaml:"completion"`
	// Batch rates (--batch); 0 for both: half the rates above.
	BatchPrompt     float64 `yaml:"batch_prompt"`
	BatchCompletion float64 `yaml:"batch_completion"`
	// CachedPrompt is the rate of prompt tokens the provider served from
	// its prompt cache (its cached-input price); absent: the prompt rate.
	CachedPrompt *float64 `yaml:"cached_prompt"`
	// CacheRule is the provider's prompt-cache rule a dry run estimates
	// the cached share under: openai (≥ 1,024 tokens, 128-token steps),
	// vllm (16-token blocks) or none; "" = openai when CachedPrompt is
	// set, else none.
	CacheRule string `yaml:"cache_rule"`
}

// loadPrices reads a price table: a "models" mapping of provider/model to
// {prompt, completion[, cached_prompt, batch_prompt, batch_completion]} USD
// per million tokens. Unknown keys are errors with their line.
func loadPrices(path string) (priceTable, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("--prices: %v", err)
	}
	var doc struct {
		Models priceTable `yaml:"models"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, usagef("--prices %s: %v (expected: models: {provider/model: {prompt: USD per 1M, completion: USD per 1M[, cached_prompt, batch_prompt, batch_completion]}})", path, err)
	}
	for m, p := range doc.Models {
		if p.Prompt < 0 || p.Completion < 0 || p.BatchPrompt < 0 || p.BatchCompletion < 0 || p.CachedPrompt != nil && *p.CachedPrompt < 0 {
			return nil, usagef("--prices %s: model %s has a negative price", path, m)
		}
		if _, err := prefixcache.Parse(p.CacheRule); err != nil && p.CacheRule != "" {
			return nil, usagef("--prices %s: model %s: cache_rule: %v", path, m, err)
		}
		if p.CachedPrompt != nil && *p.CachedPrompt > p.Prompt {
			return nil, usagef("--prices %s: model %s: cached_prompt %g is above its prompt rate %g (it is the discounted rate of cached prompt tokens)", path, m, *p.CachedPrompt, p.Prompt)
		}
	}
	return doc.Models, nil
}

// price returns the pricing function of model, nil when the table has none.
func (t priceTable) price(model string) func(string, llm.Usage) float64 {
	p, ok := t[model]
	if !ok {
		return nil
	}
	return func(_ string, u llm.Usage) float64 {
		usd := (float64(u.PromptTokens)*p.Prompt + float64(u.CompletionTokens)*p.Completion) / 1e6
		if u.CachedReported && p.CachedPrompt != nil {
			usd -= float64(u.CachedTokens) * (p.Prompt - *p.CachedPrompt) / 1e6
		}
		return usd
	}
}

func usageOf(prompt, completion int64) llm.Usage {
	return llm.Usage{PromptTokens: int(prompt), CompletionTokens: int(completion)}
}

// cacheRule is the prompt-cache rule of model's provider: its cache_rule,
// else openai when it has a cached_prompt rate, else none.
func (t priceTable) cacheRule(model string) prefixcache.Rule {
	p, ok := t[model]
	if !ok {
		return prefixcache.None
	}
	if r, err := prefixcache.Parse(p.CacheRule); err == nil && p.CacheRule != "" {
		return r
	}
	if p.CachedPrompt != nil {
		return prefixcache.OpenAI
	}
	return prefixcache.None
}
