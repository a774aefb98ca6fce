package llmtest

import (
	"github.com/medteam-bench/medteam/llm/prefixcache"
)

// CacheRule is a provider's prompt-prefix caching rule (prefixcache.Rule).
type CacheRule = prefixcache.Rule

// Cache rules (see prefixcache).
const (
	CacheNone   = prefixcache.None
	CacheOpenAI = prefixcache.OpenAI
	CacheVLLM   = prefixcache.VLLM
)

// CacheRules are the rules by name.
var CacheRules = prefixcache.Rules

// ParseCacheRule reads a rule name: none, openai or vllm.
func ParseCacheRule(s string) (CacheRule, error) { return prefixcache.Parse(s) }

// PrefixCache is a fake server's prompt cache (prefixcache.Cache).
type PrefixCache = prefixcache.Cache

// CacheHit is one prompt as the cache served it.
type CacheHit = prefixcache.Hit

// NewPrefixCache returns an empty cache applying rule.
func NewPrefixCache(rule CacheRule) *PrefixCache { return prefixcache.New(rule) }

// CacheField is the form in which a fake OpenAI-compatible server reports
// the cached prompt tokens in "usage".
type CacheField int

// Cache field forms.
const (
	// FieldOpenAI reports usage.prompt_tokens_details.cached_tokens
	// (OpenAI, vLLM, SGLang, Anthropic's OpenAI-compatible endpoint).
	FieldOpenAI CacheField = iota
	// FieldDeepSeek reports usage.prompt_cache_hit_tokens and
	// usage.prompt_cache_miss_tokens (DeepSeek).
	FieldDeepSeek
	// FieldAnthropic reports usage.cache_read_input_tokens (Anthropic's
	// name, as proxies such as LiteLLM pass it on).
	FieldAnthropic
)

// usageFields adds the cached count to an OpenAI usage object in form f.
func (f CacheField) usageFields(u map[string]any, prompt, cached int) {
	switch f {
	case FieldDeepSeek:
		u["prompt_cache_hit_tokens"] = cached
		u["prompt_cache_miss_tokens"] = prompt - cached
	case FieldAnthropic:
		u["cache_read_input_tokens"] = cached
	default:
		u["prompt_tokens_details"] = map[string]int{"cached_tokens": cached}
	}
}
