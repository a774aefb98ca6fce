package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

// TestByKind: each kind's calls, prompt tokens (sum, smallest, largest),
// tokens shared with an earlier prompt and cached tokens per rule, in the
// order the kinds were first sent; the sums over kinds are Measure's.
func TestByKind(t *testing.T) {
	x := func(tokens int) string { return strings.Repeat("abcd", tokens-1) } // with "user": tokens tokens
	req := func(kind, text string) llm.Request {
		return llm.Request{Messages: user(text), Meta: llm.Meta{Kind: kind}}
	}
	reqs := []llm.Request{req("first", x(500)), req("revise", x(2000)), req("revise", x(2000)), req("first", x(500)), req("revise", x(1500)+"z")}
	got := ByKind(reqs)
	want := []KindRow{
		{Kind: "first", Calls: 2, Prompt: 1000, MinTok: 500, MaxTok: 500, Shared: 500, OpenAI: 0, VLLM: 496},
		{Kind: "revise", Calls: 3, Prompt: 5500, MinTok: 1500, MaxTok: 2000, Shared: 500 + 2000 + 1500, OpenAI: 0 + 1920 + 1408, VLLM: 496 + 2000 + 1488, first: 1}, // the first revise shares the first answer's 500
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ByKind =\n%+v\nwant\n%+v", got, want)
	}
	var sum Tally
	for _, r := range got {
		sum = sum.Add(Tally{Prompt: r.Prompt, OpenAI: r.OpenAI, VLLM: r.VLLM})
	}
	if m := Measure(messages(reqs)); sum != m {
		t.Fatalf("the kinds sum to %+v, Measure is %+v", sum, m)
	}
}
