package llmtest

import (
	"fmt"
	"hash/fnv"
	"strings"
	"sync"

	"github.com/medteam-bench/medteam/llm"
)

// CacheRule is a provider's prompt-prefix caching rule, as a fake server
// applies it (see PrefixCache).
type CacheRule int

// Cache rules.
const (
	// CacheNone caches nothing and reports no cached tokens.
	CacheNone CacheRule = iota
	// CacheOpenAI is OpenAI's rule: a prompt of at least 1,024 tokens is
	// served from the cache for its longest previously seen prefix, in
	// steps of 128 tokens from 1,024 (1,024, 1,152, 1,280, …); a shorter
	// prompt or a shorter match caches nothing.
	CacheOpenAI
	// CacheVLLM is vLLM's automatic prefix caching: the longest previously
	// seen prefix in whole 16-token blocks, leaving the prompt's last
	// token uncached (vLLM always computes it).
	CacheVLLM
)

// CacheRules are the rules by name, as ParseCacheRule reads them.
var CacheRules = map[string]CacheRule{"none": CacheNone, "openai": CacheOpenAI, "vllm": CacheVLLM}

// ParseCacheRule reads a rule name: none, openai or vllm.
func ParseCacheRule(s string) (CacheRule, error) {
	if r, ok := CacheRules[strings.ToLower(strings.TrimSpace(s))]; ok {
		return r, nil
	}
	return CacheNone, fmt.Errorf("unknown cache rule %q: want none, openai or vllm", s)
}

// String is the rule's name.
func (r CacheRule) String() string {
	switch r {
	case CacheNone:
		return "none"
	case CacheOpenAI:
		return "openai"
	case CacheVLLM:
		return "vllm"
	}
	return fmt.Sprintf("CacheRule(%d)", int(r))
}

// block is the rule's block size in tokens and the least cached prefix.
func (r CacheRule) block() (size, least int) {
	switch r {
	case CacheOpenAI:
		return 128, 1024
	case CacheVLLM:
		return 16, 16
	}
	return 0, 0
}

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

// PrefixCache is a fake server's prompt cache: per model, the prefixes of
// the prompts it has seen, and the cached tokens of each prompt it serves
// under its CacheRule.
//
// A prompt is a sequence of tokens consistent with PromptTokens: each
// message in order contributes four header tokens (standing for its role)
// and then its content cut in 4-byte pieces (the last one shorter), one
// token each. Two prompts share a prefix of n tokens when their first n
// tokens are equal (same role headers, same bytes). Under CacheVLLM a
// reply enters the cache after its prompt, as an assistant message (vLLM
// caches the generated tokens' blocks); under CacheOpenAI only prompts do.
// Serve looks
// a prompt up and stores its prefixes in one step, in arrival order, so
// that identical requests sent together share (the second finds the
// first's prefix) and the counts do not depend on timing; Lookup stores
// them later, when the caller says (LatencyOptions.StoreOnAnswer).
type PrefixCache struct {
	rule CacheRule
	mu   sync.Mutex
	seen map[string]map[prefixKey]struct{} // model → prefixes at block boundaries
	log  []CacheHit
}

// prefixKey is a prefix at a block boundary: its length in blocks and the
// hash of its tokens.
type prefixKey struct {
	blocks int
	hash   uint64
}

// CacheHit is one prompt as the cache served it.
type CacheHit struct {
	Model  string
	Prompt int // tokens (PromptTokens)
	Cached int // tokens served from the cache
}

// NewPrefixCache returns an empty cache applying rule.
func NewPrefixCache(rule CacheRule) *PrefixCache {
	return &PrefixCache{rule: rule, seen: map[string]map[prefixKey]struct{}{}}
}

// Rule is the cache's rule.
func (p *PrefixCache) Rule() CacheRule { return p.rule }

// Serve returns the tokens of msgs served from the cache for model and
// stores the prompt's prefixes (and under CacheVLLM those of the prompt
// followed by reply) for the prompts after it: Lookup, then its store at
// once.
func (p *PrefixCache) Serve(model string, msgs []llm.Message, reply string) int {
	cached, store := p.Lookup(model, msgs)
	store(reply)
	return cached
}

// Lookup returns the tokens of msgs served from the cache for model, and
// the function that stores the prompt's prefixes given its reply: under
// CacheVLLM the prompt followed by the reply as an assistant message (vLLM
// keeps the generated tokens' blocks too, so a conversation that carries
// the reply on finds it), under CacheOpenAI the prompt alone. Stored when
// called: a request in flight before does not find them (as on a provider
// that caches a sequence once it has been processed).
func (p *PrefixCache) Lookup(model string, msgs []llm.Message) (int, func(reply string)) {
	size, least := p.rule.block()
	total := PromptTokens(msgs)
	if size == 0 {
		p.mu.Lock()
		p.log = append(p.log, CacheHit{Model: model, Prompt: total})
		p.mu.Unlock()
		return 0, func(string) {}
	}
	keys := blockHashes(msgs, size)
	p.mu.Lock()
	defer p.mu.Unlock()
	set := p.seen[model]
	if set == nil {
		set = map[prefixKey]struct{}{}
		p.seen[model] = set
	}
	limit := len(keys) // whole blocks of the prompt
	if p.rule == CacheVLLM {
		limit = (total - 1) / size // the last token is always computed
	}
	hit := 0
	for hit < limit {
		if _, ok := set[keys[hit]]; !ok {
			break
		}
		hit++
	}
	cached := hit * size
	if cached < least || total < least {
		cached = 0
	}
	p.log = append(p.log, CacheHit{Model: model, Prompt: total, Cached: cached})
	return cached, func(reply string) {
		if p.rule == CacheVLLM {
			keys = blockHashes(append(msgs[:len(msgs):len(msgs)], llm.Message{Role: llm.RoleAssistant, Content: reply}), size)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, k := range keys {
			set[k] = struct{}{}
		}
	}
}

// Hits lists every prompt served so far, in arrival order.
func (p *PrefixCache) Hits() []CacheHit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]CacheHit(nil), p.log...)
}

// Totals sums the prompt and cached tokens served so far.
func (p *PrefixCache) Totals() (prompt, cached int64) {
	for _, h := range p.Hits() {
		prompt += int64(h.Prompt)
		cached += int64(h.Cached)
	}
	return prompt, cached
}

// blockHashes is the key of each whole block-aligned prefix of the prompt's
// tokens: the i-th is the prefix of (i+1)·size tokens.
func blockHashes(msgs []llm.Message, size int) []prefixKey {
	h := fnv.New64a()
	var keys []prefixKey
	n := 0
	tok := func(kind byte, b string) {
		h.Write([]byte{kind, byte(len(b))})
		h.Write([]byte(b))
		if n++; n%size == 0 {
			keys = append(keys, prefixKey{blocks: n / size, hash: h.Sum64()})
		}
	}
	for _, m := range msgs {
		for i := range 4 {
			tok(0, m.Role+string(rune('0'+i)))
		}
		for c := m.Content; c != ""; {
			k := min(4, len(c))
			tok(1, c[:k])
			c = c[k:]
		}
	}
	return keys
}
