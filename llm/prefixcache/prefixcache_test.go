package prefixcache

import (
	"fmt"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

const model = "m"

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

func TestPrefixRules(t *testing.T) {
	// A message of c content tokens is c+4 prompt tokens (PromptTokens).
	long := words("sys", 1500)  // 1504 tokens
	other := words("oth", 1500) // same length, other bytes
	cases := []struct {
		name   string
		rule   Rule
		model  []string // model of each prompt ("" = model)
		prompt [][]llm.Message
		want   []int
	}{
		{"openai repeat", OpenAI, nil,
			[][]llm.Message{msgs(long), msgs(long)}, []int{0, 1408}}, // 1504 → 11 blocks of 128
		{"openai short prompt never cached", OpenAI, nil,
			[][]llm.Message{msgs(words("a", 1000)), msgs(words("a", 1000))}, []int{0, 0}},
		{"openai shared prefix below 1024", OpenAI, nil,
			[][]llm.Message{msgs(words("a", 1000), words("b", 600)), msgs(words("a", 1000), words("c", 600))}, []int{0, 0}},
		{"openai shared prefix rounded down", OpenAI, nil,
			// shared: 1204 + 4 header tokens of the second message = 1208 → 1152
			[][]llm.Message{msgs(words("a", 1200), "xxxx"+words("b", 600)), msgs(words("a", 1200), "yyyy"+words("c", 600))}, []int{0, 1152}},
		{"openai other model", OpenAI, []string{"m1", "m2"},
			[][]llm.Message{msgs(long), msgs(long)}, []int{0, 0}},
		{"openai other content", OpenAI, nil,
			[][]llm.Message{msgs(long), msgs(other)}, []int{0, 0}},
		{"vllm repeat keeps the last token", VLLM, nil,
			// 100 content + 4 = 104 tokens: 103 cacheable → 6 blocks
			[][]llm.Message{msgs(words("a", 100)), msgs(words("a", 100))}, []int{0, 96}},
		{"vllm appended conversation", VLLM, nil,
			// first: 104 tokens, 6 whole blocks stored; second shares 104 → 96
			[][]llm.Message{msgs(words("a", 100)), msgs(words("a", 100), words("r", 50), words("q", 20))}, []int{0, 96}},
		{"vllm role counts", VLLM, nil,
			[][]llm.Message{{{Role: "system", Content: words("a", 100)}}, {{Role: "user", Content: words("a", 100)}}}, []int{0, 0}},
		{"vllm partial token differs", VLLM, nil,
			// 4 header + 12 content tokens shared, the 13th ("abzz" vs "aczz") differs: 1 block
			[][]llm.Message{msgs(words("a", 12) + "ab" + words("z", 40)), msgs(words("a", 12) + "ac" + words("z", 40))}, []int{0, 16}},
		{"none", None, nil,
			[][]llm.Message{msgs(long), msgs(long)}, []int{0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := New(c.rule)
			var got []int
			for i, msg := range c.prompt {
				m := model
				if c.model != nil {
					m = c.model[i]
				}
				got = append(got, p.Serve(m, msg, ""))
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("cached %v, want %v", got, c.want)
			}
			prompt, cached := p.Totals()
			if want := int64(PromptTokens(c.prompt[0]) + PromptTokens(c.prompt[1])); prompt != want || cached != int64(c.want[1]) {
				t.Errorf("Totals %d, %d; want %d, %d", prompt, cached, want, c.want[1])
			}
		})
	}
}

func TestParse(t *testing.T) {
	for name, want := range Rules {
		if r, err := Parse(strings.ToUpper(name)); err != nil || r != want || r.String() != name {
			t.Errorf("%s: %v %v %v", name, r, err, r.String())
		}
	}
	if _, err := Parse("anthropic"); err == nil || !strings.Contains(err.Error(), "want none, openai or vllm") {
		t.Errorf("unknown rule: %v", err)
	}
}

// TestPrefixCacheReplies: vLLM keeps the reply's blocks, so a conversation
// carrying the reply on finds the prompt and the reply cached; OpenAI
// caches prompts only.
func TestPrefixCacheReplies(t *testing.T) {
	first := msgs(words("sys", 1200)) // 1204 tokens
	reply := words("rep", 400)        // + 404 as an assistant message
	next := append(msgs(words("sys", 1200)), llm.Message{Role: llm.RoleAssistant, Content: reply},
		llm.Message{Role: llm.RoleUser, Content: words("q", 100)}) // 1204 + 404 + 104 = 1712
	for _, c := range []struct {
		rule Rule
		want int
	}{
		{VLLM, 1600},   // 1608 shared → 100 blocks of 16
		{OpenAI, 1152}, // the 1204-token prompt → 9 blocks of 128
	} {
		p := New(c.rule)
		p.Serve(model, first, reply)
		if got := p.Serve(model, next, ""); got != c.want {
			t.Errorf("%s: %d cached, want %d", c.rule, got, c.want)
		}
	}
}

// FuzzServe: whatever two prompts, the cached count of the second is a
// whole number of blocks, not above its prompt, and at least the rule's
// least when not 0.
func FuzzServe(f *testing.F) {
	f.Add(strings.Repeat("a", 5000), strings.Repeat("a", 4000)+"b", "reply")
	f.Add("x", "x", "")
	f.Fuzz(func(t *testing.T, a, b, reply string) {
		for _, rule := range []Rule{OpenAI, VLLM} {
			p := New(rule)
			p.Serve(model, []llm.Message{{Role: "user", Content: a}}, reply)
			second := []llm.Message{{Role: "user", Content: a}, {Role: "assistant", Content: reply}, {Role: "user", Content: b}}
			n := p.Serve(model, second, "")
			size, least := rule.block()
			if n < 0 || n > PromptTokens(second) || n%size != 0 || n != 0 && n < least {
				t.Errorf("%s: %d cached of %d", rule, n, PromptTokens(second))
			}
		}
	})
}
