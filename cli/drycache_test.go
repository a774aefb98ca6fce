package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm/prefixcache"
	"github.com/medteam-bench/medteam/runner"
)

// TestDryCostCached: with a cache rule the dry run's cost line gives the
// cost with the expected cached share at the cached_prompt rate beside the
// cost without caching; without one, the line is today's. By hand: 1M
// prompt tokens sent of which 40% cached, 100k completion, at gpt-4o's
// 2.5 / 1.25 / 10: 0.6·2.5 + 0.4·1.25 + 0.1·10 = 3.0, without caching 3.5.
func TestDryCostCached(t *testing.T) {
	cached := 1.25
	tab := priceTable{"openai/gpt-4o": {Prompt: 2.5, Completion: 10, CachedPrompt: &cached}}
	if r := tab.cacheRule("openai/gpt-4o"); r != prefixcache.OpenAI {
		t.Errorf("default rule with a cached rate: %v, want openai", r)
	}
	if r := (priceTable{"m": {Prompt: 1, CacheRule: "vllm"}}).cacheRule("m"); r != prefixcache.VLLM {
		t.Errorf("cache_rule vllm read as %v", r)
	}
	est := runner.Estimate{Arms: []string{"a"}, PerArm: map[string]runner.ArmEstimate{"a": {Units: 1, Calls: 10, MinCalls: 10, MaxCalls: 10, PromptTokens: 1e6, CompletionTokens: 1e5}},
		MinCalls: 10, MaxCalls: 10, Calls: 10, PromptTokens: 1e6, Completion: 1e5, SentPrompt: 1e6, SentCompl: 1e5}
	for _, c := range []struct {
		rule prefixcache.Rule
		want []string
	}{
		{prefixcache.OpenAI, []string{"expected prompt cache (openai rule): 40.0% of the prompt tokens sent (400000 of 1000000)",
			"expected cost: $3.0000 with the cached_prompt rate, $3.5000 without caching"}},
		{prefixcache.None, []string{"expected cost: $3.5000 (the calls sent"}},
	} {
		est.CacheRule, est.SentCached = c.rule, 0
		if c.rule != prefixcache.None {
			est.SentCached = 4e5
		}
		var b bytes.Buffer
		writeDryCost(&b, est, "openai/gpt-4o", tab.price("openai/gpt-4o"))
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: output\n%s\nwant a line with %q", c.rule, b.String(), w)
			}
		}
	}
}
