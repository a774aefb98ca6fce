package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
)

// words is n tokens of content (4 bytes each) starting with tag.
func words(tag string, n int) string {
	s := strings.Repeat(fmt.Sprintf("%-4.4s", tag), n)
	return s[:4*n]
}

func msgs(parts ...string) []llm.Message {
	var m []llm.Message
	for i, p := range parts {
		role := llm.RoleUser
		if i%2 == 1 {
			role = llm.RoleAssistant
		}
		if i == 0 {
			role = llm.RoleSystem
		}
		m = append(m, llm.Message{Role: role, Content: p})
	}
	return m
}

// TestServerReportsCachedTokens: the OpenAI flavour reports the cached
// tokens in each field form; without a rule it reports none (no field).
func TestServerReportsCachedTokens(t *testing.T) {
	body, _ := json.Marshal(map[string]any{"model": DefaultModel, "messages": msgs(words("a", 1500), words("q", 10))})
	cases := []struct {
		name  string
		opts  ServerOptions
		field string // JSON path under usage; "" = no cached field at all
	}{
		{"openai", ServerOptions{CacheRule: CacheOpenAI}, "prompt_tokens_details.cached_tokens"},
		{"deepseek", ServerOptions{CacheRule: CacheOpenAI, CacheField: FieldDeepSeek}, "prompt_cache_hit_tokens"},
		{"anthropic", ServerOptions{CacheRule: CacheOpenAI, CacheField: FieldAnthropic}, "cache_read_input_tokens"},
		{"no rule", ServerOptions{}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewOpenAIServer(t, c.opts)
			var got []string
			for range 2 {
				code, _, b, err := post(t, s.BaseURL()+"/chat/completions", string(body))
				if err != nil || code != 200 {
					t.Fatalf("%d %s %v", code, b, err)
				}
				var r struct{ Usage map[string]any }
				json.Unmarshal(b, &r)
				got = append(got, cachedField(r.Usage))
			}
			want := "[ ]"
			if c.field != "" {
				want = fmt.Sprintf("[%s=0 %s=1408]", c.field, c.field)
			}
			if fmt.Sprint(got) != want {
				t.Errorf("usage cached fields %v, want %v", got, want)
			}
			if c.field == "" && s.PrefixCache() != nil {
				t.Error("a server without a rule has a prefix cache")
			}
			if c.field != "" {
				if _, cached := s.PrefixCache().Totals(); cached != 1408 {
					t.Errorf("Totals cached %d, want 1408", cached)
				}
			}
		})
	}
}

// cachedField names the cached-token field of a usage object and its value.
func cachedField(u map[string]any) string {
	if d, ok := u["prompt_tokens_details"].(map[string]any); ok {
		return fmt.Sprintf("prompt_tokens_details.cached_tokens=%v", d["cached_tokens"])
	}
	for _, k := range []string{"prompt_cache_hit_tokens", "cache_read_input_tokens"} {
		if v, ok := u[k]; ok {
			return fmt.Sprintf("%s=%v", k, v)
		}
	}
	return ""
}

// TestLatencyServerCacheAndPad: the latency server caches under its rule,
// charges prefill per uncached token and pads the free-text fields.
func TestLatencyServerCacheAndPad(t *testing.T) {
	s := NewLatencyServerWith(1, 0, false, LatencyOptions{Cache: CacheVLLM, Prefill: 20 * time.Microsecond, PadWords: 300})
	srv := newLoopback(t, s)
	body, _ := json.Marshal(map[string]any{"model": "bench", "messages": msgs(words("a", 3000))})
	var took []time.Duration
	for range 2 {
		start := time.Now()
		code, _, b, err := post(t, srv+"/v1/chat/completions", string(body))
		took = append(took, time.Since(start))
		if err != nil || code != 200 {
			t.Fatalf("%d %s %v", code, b, err)
		}
		var r struct {
			Choices []struct{ Message struct{ Content string } }
		}
		json.Unmarshal(b, &r)
		var a struct{ Reasoning string }
		if err := json.Unmarshal([]byte(r.Choices[0].Message.Content), &a); err != nil || len(strings.Fields(a.Reasoning)) != 300 {
			t.Errorf("padded answer %q: %v", r.Choices[0].Message.Content, err)
		}
	}
	if st := s.Stats(); st.PromptTokens != 2*3004 || st.CachedTokens != 2992 {
		t.Errorf("stats prompt %d cached %d, want %d, 2992", st.PromptTokens, st.CachedTokens, 2*3004)
	}
	// 3004 uncached tokens × 20 µs = 60 ms; the second prefills 12 (3004 − 2992 cached).
	if took[0] < 60*time.Millisecond || took[1] > took[0]/2 {
		t.Errorf("service times %v: want the first ≥ 60ms and the second under half of it", took)
	}
}

// newLoopback serves h on loopback until the test ends and returns its URL.
func newLoopback(t *testing.T, h *LatencyServer) string {
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestLatencyStoreOnAnswer: with StoreOnAnswer two identical requests in
// flight together both miss; stored on arrival, the second finds the first.
func TestLatencyStoreOnAnswer(t *testing.T) {
	body, _ := json.Marshal(map[string]any{"model": "bench", "messages": msgs(words("a", 300))})
	for _, onAnswer := range []bool{false, true} {
		s := NewLatencyServerWith(2, 100*time.Millisecond, false, LatencyOptions{Cache: CacheVLLM, StoreOnAnswer: onAnswer})
		url := newLoopback(t, s) + "/v1/chat/completions"
		done := make(chan error, 2)
		for range 2 {
			go func() {
				code, _, b, err := post(t, url, string(body))
				if err == nil && code != 200 {
					err = fmt.Errorf("%d %s", code, b)
				}
				done <- err
			}()
		}
		for range 2 {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		want := int64(288) // 303 cacheable tokens → 18 blocks
		if onAnswer {
			want = 0
		}
		if got := s.Stats().CachedTokens; got != want {
			t.Errorf("StoreOnAnswer %v: %d cached, want %d", onAnswer, got, want)
		}
	}
}
