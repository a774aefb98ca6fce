package main

import (
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

func user(s string) []llm.Message { return []llm.Message{{Role: llm.RoleUser, Content: s}} }

// TestMeasure: the two rules on known prefixes (tokens = bytes / 4 of role +
// content; "user" is 4 bytes, one token).
func TestMeasure(t *testing.T) {
	x := func(tokens int) string { return strings.Repeat("abcd", tokens-1) } // with "user": tokens tokens
	tests := []struct {
		name    string
		prompts [][]llm.Message
		want    Tally
	}{
		{"one prompt caches nothing", [][]llm.Message{user(x(2000))}, Tally{Prompt: 2000, OpenAI: 0, VLLM: 0}},
		{"a repeat below 1024 tokens: vLLM only", [][]llm.Message{user(x(1000)), user(x(1000))}, Tally{Prompt: 2000, OpenAI: 0, VLLM: 992}},
		{"a repeat of 2000 tokens: 1024+7·128 and 125 blocks", [][]llm.Message{user(x(2000)), user(x(2000))}, Tally{Prompt: 4000, OpenAI: 1920, VLLM: 2000}},
		{"a long prompt sharing 1000 tokens: under the minimum", [][]llm.Message{user(x(1000)), user(x(1000) + "z" + x(3000))}, Tally{Prompt: 1000 + 3999, OpenAI: 0, VLLM: 992}},
		{"the longest of several earlier prefixes",
			[][]llm.Message{user(x(1100)), user(x(1500) + "q"), user(x(1600))},
			Tally{Prompt: 1100 + 1500 + 1600, OpenAI: 1024 + 1408, VLLM: 1088 + 1488}},
		{"roles count: a system message first is another prefix",
			[][]llm.Message{user(x(1500)), {{Role: llm.RoleSystem, Content: x(1500)}}}, Tally{Prompt: 1500 + 1500, OpenAI: 0, VLLM: 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Measure(tc.prompts); got != tc.want {
				t.Errorf("Measure = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestOpenAICached(t *testing.T) {
	for _, tc := range []struct{ tokens, shared, want int }{
		{1023, 1023, 0}, {1024, 1024, 1024}, {5000, 1151, 1024}, {5000, 1152, 1152}, {5000, 1000, 0}, {900, 2000, 0},
	} {
		if got := openAICached(tc.tokens, tc.shared); got != tc.want {
			t.Errorf("openAICached(%d, %d) = %d, want %d", tc.tokens, tc.shared, got, tc.want)
		}
	}
}

// TestPadText: padding goes into the first prose field, keeping the reply
// readable; an assessment and a reply without prose stay as they are.
func TestPadText(t *testing.T) {
	for _, tc := range []struct{ kind, text, want string }{
		{"first", `{"reasoning":"A fits.","ranking":["A"]}`, `{"reasoning":"PAD A fits.","ranking":["A"]}`},
		{"discuss", "REASONING: A fits.\nRANKING: A, B", "REASONING: PAD A fits.\nRANKING: A, B"},
		{"peer_review", `{"reviews":[{"response":"Response Alpha","strengths":"ok"}]}`, `{"reviews":[{"response":"Response Alpha","strengths":"PAD ok"}]}`},
		{"assess", `{"analysis":"tricky","agents":3}`, `{"analysis":"tricky","agents":3}`},
		{"consensus_vote", `{"vote":"YES"}`, `{"vote":"YES"}`},
	} {
		if got := padText(tc.kind, tc.text, "PAD "); got != tc.want {
			t.Errorf("padText(%s, %q) = %q, want %q", tc.kind, tc.text, got, tc.want)
		}
	}
}

// TestCeiling: each prompt is credited the shorter of itself and the longest
// earlier prompt of its question, under OpenAI's rule; other questions'
// prompts do not count.
func TestCeiling(t *testing.T) {
	x := func(tokens int) []llm.Message { return user(strings.Repeat("abcd", tokens-1)) }
	tests := []struct {
		name    string
		prompts [][]llm.Message
		groups  []string
		want    int
	}{
		{"all under 1,024 tokens: none", [][]llm.Message{x(900), x(900), x(1000)}, []string{"q", "q", "q"}, 0},
		{"one long prompt after short ones: none", [][]llm.Message{x(400), x(400), x(2000)}, []string{"q", "q", "q"}, 0},
		{"two long prompts: the second, bounded by the first", [][]llm.Message{x(1500), x(2000)}, []string{"q", "q"}, 1408},
		{"a shorter prompt after a longer: all of it", [][]llm.Message{x(2000), x(1300)}, []string{"q", "q"}, 1280},
		{"another question's prompt does not count", [][]llm.Message{user("q1" + strings.Repeat("abcd", 2000)), user("q2" + strings.Repeat("abcd", 2000))}, []string{"q1", "q2"}, 0},
		{"… unless prompts of two questions share 1,024 tokens: then it does", [][]llm.Message{x(2000), x(2000)}, []string{"q1", "q2"}, 1920},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Ceiling(tc.prompts, tc.groups); got != tc.want {
				t.Errorf("Ceiling = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestCeilingBoundsMeasure: whatever the prompts, what the rule cached of
// them in the order sent is at most the Ceiling (review of issue 37: two
// questions' prompts sharing 5,000 bytes were measured above it).
func TestCeilingBoundsMeasure(t *testing.T) {
	shared := strings.Repeat("instructions ", 400)
	for _, tc := range []struct {
		prompts [][]llm.Message
		groups  []string
	}{
		{[][]llm.Message{user(shared + "q1 one"), user(shared + "q2 two")}, []string{"q1", "q2"}},
		{[][]llm.Message{user(shared + "q1 one"), user(shared + "q1 one more"), user("other")}, []string{"q1", "q1", "q2"}},
		{[][]llm.Message{user("short"), user(shared)}, []string{"q1", "q1"}},
	} {
		if m, c := Measure(tc.prompts).OpenAI, Ceiling(tc.prompts, tc.groups); m > c {
			t.Errorf("measured %d > Ceiling %d for groups %v", m, c, tc.groups)
		}
	}
}
