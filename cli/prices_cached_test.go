package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/report"
)

// TestPricesCachedPrompt: cached_prompt is the rate of prompt tokens the
// provider served from its cache — the spend of a call prices them at it
// (only when the call reported a count) and the report gets it; a rate
// above the prompt rate or negative is refused with the model named.
func TestPricesCachedPrompt(t *testing.T) {
	dir := t.TempDir()
	write := func(name, table string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(table), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tab, err := loadPrices(write("ok.yaml", "models:\n  openai/gpt-4o: {prompt: 2.5, completion: 10, cached_prompt: 1.25}\n  openai/b: {prompt: 1, completion: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	price := tab.price("openai/gpt-4o")
	// 1000 prompt tokens of which 800 cached, 100 completion: 200·2.5 + 800·1.25 + 100·10 = 2500 per 1M.
	if got := price("openai/gpt-4o", llm.Usage{PromptTokens: 1000, CachedTokens: 800, CachedReported: true, CompletionTokens: 100}); math.Abs(got-0.0025) > 1e-12 {
		t.Errorf("spend with 800 cached = %v, want 0.0025", got)
	}
	if got := price("openai/gpt-4o", llm.Usage{PromptTokens: 1000, CompletionTokens: 100}); math.Abs(got-0.0035) > 1e-12 {
		t.Errorf("spend without a cached count = %v, want the prompt rate's 0.0035", got)
	}
	if got := tab.price("openai/b")("openai/b", llm.Usage{PromptTokens: 1000, CachedTokens: 800, CachedReported: true}); math.Abs(got-0.001) > 1e-12 {
		t.Errorf("no cached rate: %v, want the prompt rate's 0.001", got)
	}
	p := pricesOf(tab, false)
	if p["openai/gpt-4o"] != (report.Price{Prompt: 2.5, Completion: 10, Cached: 1.25, HasCached: true}) || p["openai/b"].HasCached {
		t.Errorf("report prices %+v", p)
	}
	if b := pricesOf(tab, true); b["openai/gpt-4o"].HasCached {
		t.Errorf("batch rates keep a cached rate: %+v", b["openai/gpt-4o"])
	}
	for name, table := range map[string]string{
		"above.yaml":    "models:\n  openai/x: {prompt: 1, completion: 2, cached_prompt: 1.5}\n",
		"negative.yaml": "models:\n  openai/x: {prompt: 1, completion: 2, cached_prompt: -1}\n",
		"rule.yaml":     "models:\n  openai/x: {prompt: 1, completion: 2, cache_rule: anthropic}\n",
	} {
		if _, err := loadPrices(write(name, table)); err == nil || !strings.Contains(err.Error(), "openai/x") {
			t.Errorf("%s: %v, want an error naming openai/x", name, err)
		}
	}
}
