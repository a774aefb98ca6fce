package openai

import (
	"context"
	"fmt"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/llmtest"
)

// TestCachedTokens: the client reads the cached prompt tokens in every
// form a provider reports them, and reports none — not 0 — when the server
// sends no cached field.
func TestCachedTokens(t *testing.T) {
	req := llm.Request{Model: llmtest.DefaultModel, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: strings.Repeat("shared instructions ", 400)},
		{Role: llm.RoleUser, Content: "Which option is correct? A) one B) two"}}}
	prompt := llmtest.PromptTokens(req.Messages)
	full := prompt / 128 * 128 // the OpenAI rule on a repeated prompt
	cases := []struct {
		name string
		opts llmtest.ServerOptions
		want []llm.Usage // first and second call
	}{
		{"openai field", llmtest.ServerOptions{CacheRule: llmtest.CacheOpenAI},
			[]llm.Usage{{CachedReported: true}, {CachedTokens: full, CachedReported: true}}},
		{"deepseek field", llmtest.ServerOptions{CacheRule: llmtest.CacheOpenAI, CacheField: llmtest.FieldDeepSeek},
			[]llm.Usage{{CachedReported: true}, {CachedTokens: full, CachedReported: true}}},
		{"anthropic field", llmtest.ServerOptions{CacheRule: llmtest.CacheOpenAI, CacheField: llmtest.FieldAnthropic},
			[]llm.Usage{{CachedReported: true}, {CachedTokens: full, CachedReported: true}}},
		{"vllm rule", llmtest.ServerOptions{CacheRule: llmtest.CacheVLLM},
			[]llm.Usage{{CachedReported: true}, {CachedTokens: (prompt - 1) / 16 * 16, CachedReported: true}}},
		{"no field", llmtest.ServerOptions{}, []llm.Usage{{}, {}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl := newClient(t, llmtest.NewOpenAIServer(t, c.opts), nil)
			for i, want := range c.want {
				resp, err := cl.Chat(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				got := resp.Usage
				want.PromptTokens, want.CompletionTokens = prompt, llmtest.Tokens(resp.Text)
				if got != want {
					t.Errorf("call %d: usage %+v, want %+v", i+1, got, want)
				}
			}
		})
	}
}

// TestUsageCachedForms: usage() on answer bodies of each form, and counts
// that cannot be a part of the prompt read as unreported.
func TestUsageCachedForms(t *testing.T) {
	cases := []struct {
		body       string
		details    *int
		cached     int
		reported   bool
		promptToks int
	}{
		{`{"usage":{"prompt_tokens":100,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}}`, nil, 64, true, 100},
		{`{"usage":{"prompt_tokens":100,"cache_read_input_tokens":32}}`, nil, 32, true, 100},
		{`{"usage":{"prompt_tokens":100,"prompt_tokens_details":{"cached_tokens":0}}}`, ptr(0), 0, true, 100},
		{`{"usage":{"prompt_tokens":100,"prompt_tokens_details":null}}`, nil, 0, false, 100},
		// details without cached_tokens: go-openai decodes 0, which is unknown, not none cached
		{`{"usage":{"prompt_tokens":100,"prompt_tokens_details":{}}}`, ptr(0), 0, false, 100},
		{`{"usage":{"prompt_tokens":100,"prompt_tokens_details":{"audio_tokens":0}}}`, ptr(0), 0, false, 100},
		{`{"usage":{"prompt_tokens":100,"prompt_cache_hit_tokens":101}}`, nil, 0, false, 100},
		{`{"usage":{"prompt_tokens":100}}`, nil, 0, false, 100},
		{`not json, cache`, nil, 0, false, 100},
	}
	for _, c := range cases {
		u := goopenai.Usage{PromptTokens: c.promptToks}
		if c.details != nil {
			u.PromptTokensDetails = &goopenai.PromptTokensDetails{CachedTokens: *c.details}
		}
		got := usage(u, []byte(c.body))
		if got.CachedTokens != c.cached || got.CachedReported != c.reported {
			t.Errorf("%s: cached %d reported %v, want %d %v", c.body, got.CachedTokens, got.CachedReported, c.cached, c.reported)
		}
	}
}

// FuzzOtherCached: cachedCount on any body; a count read is one the body holds.
func FuzzOtherCached(f *testing.F) {
	f.Add([]byte(`{"usage":{"prompt_cache_hit_tokens":64}}`))
	f.Add([]byte(`{"usage":{"cache_read_input_tokens":-3}}`))
	f.Add([]byte(`{"usage":null,"cache":1}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		n, ok := cachedCount(body)
		if ok && !strings.Contains(string(body), fmt.Sprint(n)) && n != 0 {
			t.Errorf("read %d from %q", n, body)
		}
		if !ok && n != 0 {
			t.Errorf("unreported with count %d", n)
		}
	})
}
