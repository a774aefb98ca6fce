// Package prefixcache models a provider's prompt-prefix cache: which part
// of a prompt a provider serves from its cache under its rule (OpenAI's:
// prompts of at least 1,024 tokens, in 128-token steps; vLLM's: 16-token
// blocks), with tokens counted as a quarter of the bytes. The fake servers
// of llm/llmtest report what it serves, and a dry run estimates the cached
// share of a plan's prompts with it.
package prefixcache

import (
	"fmt"
	"hash/fnv"
	"strings"
	"sync"

	"github.com/medteam-bench/medteam/llm"
)

// Rule is a provider's prompt-prefix caching rule (see Cache).
type Rule int

// Cache rules.
const (
	// None caches nothing and reports no cached tokens.
	None Rule = iota
	// OpenAI is OpenAI's rule: a prompt of at least 1,024 tokens is
	// served from the cache for its longest previously seen prefix, in
	// steps of 128 tokens from 1,024 (1,024, 1,152, 1,280, …); a shorter
	// prompt or a shorter match caches nothing.
	OpenAI
	// VLLM is vLLM's automatic prefix caching: the longest previously
	// seen prefix in whole 16-token blocks, leaving the prompt's last
	// token uncached (vLLM always computes it).
	VLLM
)

// Rules are the rules by name, as Parse reads them.
var Rules = map[string]Rule{"none": None, "openai": OpenAI, "vllm": VLLM}

// Parse reads a rule name: none, openai or vllm.
func Parse(s string) (Rule, error) {
	if r, ok := Rules[strings.ToLower(strings.TrimSpace(s))]; ok {
		return r, nil
	}
	return None, fmt.Errorf("unknown cache rule %q: want none, openai or vllm", s)
}

// String is the rule's name.
func (r Rule) String() string {
	switch r {
	case None:
		return "none"
	case OpenAI:
		return "openai"
	case VLLM:
		return "vllm"
	}
	return fmt.Sprintf("Rule(%d)", int(r))
}

// block is the rule's block size in tokens and the least cached prefix.
func (r Rule) block() (size, least int) {
	switch r {
	case OpenAI:
		return 128, 1024
	case VLLM:
		return 16, 16
	}
	return 0, 0
}

// Cache is a provider's prompt cache: per model, the prefixes of
// the prompts it has seen, and the cached tokens of each prompt it serves
// under its Rule.
//
// A prompt is a sequence of tokens consistent with PromptTokens: each
// message in order contributes four header tokens (standing for its role)
// and then its content cut in 4-byte pieces (the last one shorter), one
// token each. Two prompts share a prefix of n tokens when their first n
// tokens are equal (same role headers, same bytes). Under VLLM a
// reply enters the cache after its prompt, as an assistant message (vLLM
// caches the generated tokens' blocks); under OpenAI only prompts do.
// Serve looks
// a prompt up and stores its prefixes in one step, in arrival order, so
// that identical requests sent together share (the second finds the
// first's prefix) and the counts do not depend on timing; Lookup stores
// them later, when the caller says (llmtest.LatencyOptions.StoreOnAnswer).
type Cache struct {
	rule Rule
	mu   sync.Mutex
	seen map[string]map[prefixKey]struct{} // model → prefixes at block boundaries
	log  []Hit
}

// prefixKey is a prefix at a block boundary: its length in blocks and the
// hash of its tokens.
type prefixKey struct {
	blocks int
	hash   uint64
}

// Hit is one prompt as the cache served it.
type Hit struct {
	Model  string
	Prompt int // tokens (PromptTokens)
	Cached int // tokens served from the cache
}

// New returns an empty cache applying rule.
func New(rule Rule) *Cache {
	return &Cache{rule: rule, seen: map[string]map[prefixKey]struct{}{}}
}

// Rule is the cache's rule.
func (p *Cache) Rule() Rule { return p.rule }

// Serve returns the tokens of msgs served from the cache for model and
// stores the prompt's prefixes (and under VLLM those of the prompt
// followed by reply) for the prompts after it, in one step: of two
// requests that arrive together, one finds what the other stored.
func (p *Cache) Serve(model string, msgs []llm.Message, reply string) int {
	size, _ := p.rule.block()
	var replyKeys []prefixKey
	if size > 0 && p.rule == VLLM {
		replyKeys = blockHashes(append(msgs[:len(msgs):len(msgs)], llm.Message{Role: llm.RoleAssistant, Content: reply}), size)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	cached, keys, set := p.lookupLocked(model, msgs)
	if replyKeys != nil {
		keys = replyKeys
	}
	for _, k := range keys {
		set[k] = struct{}{}
	}
	return cached
}

// Lookup returns the tokens of msgs served from the cache for model, and
// the function that stores the prompt's prefixes given its reply: under
// VLLM the prompt followed by the reply as an assistant message (vLLM
// keeps the generated tokens' blocks too, so a conversation that carries
// the reply on finds it), under OpenAI the prompt alone. Stored when
// called: a request in flight before does not find them (as on a provider
// that caches a sequence once it has been processed).
func (p *Cache) Lookup(model string, msgs []llm.Message) (int, func(reply string)) {
	p.mu.Lock()
	cached, keys, set := p.lookupLocked(model, msgs)
	p.mu.Unlock()
	return cached, func(reply string) {
		size, _ := p.rule.block()
		if size > 0 && p.rule == VLLM {
			keys = blockHashes(append(msgs[:len(msgs):len(msgs)], llm.Message{Role: llm.RoleAssistant, Content: reply}), size)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, k := range keys {
			set[k] = struct{}{}
		}
	}
}

// lookupLocked is Lookup's reading, called with p.mu held: the cached
// tokens, the prompt's block keys and the model's set of stored keys (nil
// set and keys when the rule caches nothing).
func (p *Cache) lookupLocked(model string, msgs []llm.Message) (int, []prefixKey, map[prefixKey]struct{}) {
	size, least := p.rule.block()
	total := PromptTokens(msgs)
	if size == 0 {
		p.log = append(p.log, Hit{Model: model, Prompt: total})
		return 0, nil, map[prefixKey]struct{}{}
	}
	keys := blockHashes(msgs, size)
	set := p.seen[model]
	if set == nil {
		set = map[prefixKey]struct{}{}
		p.seen[model] = set
	}
	limit := len(keys) // whole blocks of the prompt
	if p.rule == VLLM {
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
	p.log = append(p.log, Hit{Model: model, Prompt: total, Cached: cached})
	return cached, keys, set
}

// Hits lists every prompt served so far, in arrival order.
func (p *Cache) Hits() []Hit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Hit(nil), p.log...)
}

// Totals sums the prompt and cached tokens served so far.
func (p *Cache) Totals() (prompt, cached int64) {
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

// Tokens is the token count of a text: one token per four bytes, rounded
// up.
func Tokens(s string) int { return (len(s) + 3) / 4 }

// PromptTokens is the token count of a prompt: Tokens of each message's
// content plus four per message (its role header).
func PromptTokens(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += Tokens(m.Content) + 4
	}
	return n
}
