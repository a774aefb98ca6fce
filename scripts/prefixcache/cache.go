package main

import "github.com/medteam-bench/medteam/llm"

// The two provider rules the measurement applies (issue 37): a prompt's
// tokens are estimated as its bytes / 4, the bytes being each message's role
// and content concatenated in order.
const (
	bytesPerToken = 4
	openAIMin     = 1024 // OpenAI caches prompts of at least this many tokens …
	openAIStep    = 128  // … in steps of this many beyond the minimum
	vllmBlock     = 16   // vLLM's KV-cache block, in tokens
)

// Tally is what one rule caches of a sequence of prompts.
type Tally struct {
	Prompt, OpenAI, VLLM int // prompt tokens; cached under each rule
	Ceiling              int // the most OpenAI's rule could cache under any layout (Ceiling)
}

// Add sums two tallies.
func (t Tally) Add(u Tally) Tally {
	return Tally{t.Prompt + u.Prompt, t.OpenAI + u.OpenAI, t.VLLM + u.VLLM, t.Ceiling + u.Ceiling}
}

// flatten is the text a prompt's tokens are counted and matched on.
func flatten(msgs []llm.Message) string {
	n := 0
	for _, m := range msgs {
		n += len(m.Role) + len(m.Content)
	}
	b := make([]byte, 0, n)
	for _, m := range msgs {
		b = append(b, m.Role...)
		b = append(b, m.Content...)
	}
	return string(b)
}

// commonPrefix is the length in bytes of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// openAICached is what OpenAI's rule caches of a prompt of tokens tokens
// whose longest prefix shared with an earlier prompt is shared tokens: none
// below 1,024 tokens, else the shared prefix rounded down to 1,024 + 128·k.
func openAICached(tokens, shared int) int {
	if tokens < openAIMin || shared < openAIMin {
		return 0
	}
	return openAIMin + (shared-openAIMin)/openAIStep*openAIStep
}

// vllmCached is what vLLM's rule caches: the shared prefix in whole blocks.
func vllmCached(shared int) int { return shared / vllmBlock * vllmBlock }

// Measure applies both rules to the prompts one model is sent, in the
// order sent: each prompt's cached tokens are those of its longest prefix
// shared with any earlier prompt of the sequence.
func Measure(prompts [][]llm.Message) Tally {
	var t Tally
	for _, c := range costs(prompts) {
		t = t.Add(c.tally())
	}
	return t
}

// cost is one prompt's size and its longest prefix shared with an earlier
// prompt of the sequence, in tokens.
type cost struct{ tokens, shared int }

func (c cost) tally() Tally {
	return Tally{Prompt: c.tokens, OpenAI: openAICached(c.tokens, c.shared), VLLM: vllmCached(c.shared)}
}

// costs is every prompt's cost, in the order sent.
func costs(prompts [][]llm.Message) []cost {
	out := make([]cost, 0, len(prompts))
	seen := make([]string, 0, len(prompts))
	for _, p := range prompts {
		s := flatten(p)
		longest := 0
		for _, e := range seen {
			longest = max(longest, commonPrefix(s, e))
		}
		seen = append(seen, s)
		out = append(out, cost{tokens: len(s) / bytesPerToken, shared: longest / bytesPerToken})
	}
	return out
}

// Ceiling is the most OpenAI's rule could cache of the prompts, in the
// order sent, under ANY layout that keeps each prompt's length: a prompt can
// share with an earlier one at most the shorter of the two, so each is
// credited min(its tokens, the longest earlier prompt of its group) under
// the rule. Groups are questions: prompts of two questions share only what
// precedes the item (instructions); when any two prompts of different
// questions share 1,024 tokens or more, that assumption fails and every
// prompt is credited against the longest earlier prompt of all.
// An arm whose Ceiling is under a target cannot reach it by reordering.
func Ceiling(prompts [][]llm.Message, groups []string) int {
	if crossShared(prompts, groups) >= openAIMin {
		groups = make([]string, len(prompts))
	}
	longest := map[string]int{}
	c := 0
	for i, p := range prompts {
		tokens := len(flatten(p)) / bytesPerToken
		c += openAICached(tokens, min(tokens, longest[groups[i]]))
		longest[groups[i]] = max(longest[groups[i]], tokens)
	}
	return c
}

// crossShared is the longest prefix, in tokens, that two prompts of
// different groups share.
func crossShared(prompts [][]llm.Message, groups []string) int {
	flat := make([]string, len(prompts))
	longest := 0
	for i, p := range prompts {
		flat[i] = flatten(p)
		for j := range i {
			if groups[j] != groups[i] {
				longest = max(longest, commonPrefix(flat[i], flat[j]))
			}
		}
	}
	return longest / bytesPerToken
}
