package main

import (
	"slices"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/results"
)

// The replay relies on llm.RenderMessages' format; this ties the two together.
func TestParseRenderedRoundTrip(t *testing.T) {
	for _, msgs := range [][]llm.Message{
		{{Role: "system", Content: "You are an expert."}, {Role: "user", Content: "QUESTION:\nA 3-year-old…\n\nOPTIONS:\nA) x\n[user] inline is fine"}},
		{{Role: "system", Content: ""}, {Role: "user", Content: ""}},
		{{Role: "system", Content: "line\n\n"}, {Role: "user", Content: "\n\nlast\n"}},
	} {
		got, err := parseRendered(llm.RenderMessages(msgs))
		if err != nil {
			t.Fatalf("%q: %v", msgs, err)
		}
		want := []api.Message{{Role: msgs[0].Role, Content: msgs[0].Content}, {Role: msgs[1].Role, Content: msgs[1].Content}}
		if len(got) != 2 || got[0].Role != want[0].Role || got[0].Content != want[0].Content ||
			got[1].Role != want[1].Role || got[1].Content != want[1].Content {
			t.Errorf("round trip of %q gave %+v", msgs, got)
		}
	}
}

func TestParseRenderedRejectsAmbiguity(t *testing.T) {
	for _, msgs := range [][]llm.Message{
		{{Role: "system", Content: "a\n\n[user]\nb"}, {Role: "user", Content: "c"}}, // header inside content
		{{Role: "system", Content: "a"}, {Role: "user", Content: "b\n\n[assistant]\nc"}},
		{{Role: "user", Content: "only user"}},
		{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}, {Role: "assistant", Content: "a"}},
	} {
		if got, err := parseRendered(llm.RenderMessages(msgs)); err == nil {
			t.Errorf("%q: accepted as %+v", msgs, got)
		}
	}
}

func TestPickReplays(t *testing.T) {
	calls := []results.CallRow{
		{Seq: 0, Kind: "assess", Status: "ok", PromptTokens: ptr(100)},
		{Seq: 1, Kind: "predict", Status: "ok", PromptTokens: ptr(300)},
		{Seq: 2, Kind: "predict", Status: "ok", PromptTokens: ptr(200)},
		{Seq: 3, Kind: "final", Status: "ok", PromptTokens: ptr(900)},
		{Seq: 4, Kind: "final", Status: "error", PromptTokens: ptr(0)},
		{Seq: 5, Kind: "final", Status: "ok", PromptTokens: ptr(950), Cached: true},
		{Seq: 6, Kind: "final", Status: "ok", PromptTokens: ptr(800)},
	}
	var seqs []int32
	for _, r := range pickReplays(calls) {
		seqs = append(seqs, r.Seq)
	}
	if want := []int32{3, 1, 0, 6, 2}; !slices.Equal(seqs, want) {
		t.Errorf("order %v, want %v", seqs, want)
	}
}

func ptr(n int64) *int64 { return &n }

// TestUnreadTries: an answered call without a parse method is a violation
// in a unit's final, successful try, and not in a try that failed (the
// protocol stopped at the error before reading it) or an earlier try.
func TestUnreadTries(t *testing.T) {
	one := int64(5)
	qs := []results.QuestionRow{
		{QuestionID: "q1", Arm: "a", Tries: 2},                     // try 0 failed, try 1 finished
		{QuestionID: "q2", Arm: "a", Tries: 1, Error: "malformed"}, // its only try failed
	}
	call := func(q string, try int32, method string) results.CallRow {
		return results.CallRow{QuestionID: q, Arm: "a", UnitTry: try, Status: "ok", Kind: "k", ParseMethod: method,
			PromptTokens: &one, CompletionTokens: &one}
	}
	for _, c := range []struct {
		calls []results.CallRow
		want  int
	}{
		{[]results.CallRow{call("q1", 0, ""), call("q2", 0, "")}, 0},
		{[]results.CallRow{call("q1", 1, "")}, 1},
		{[]results.CallRow{call("q1", 1, "json")}, 0},
	} {
		ch := &checker{}
		ch.checkCalls(c.calls, unread(qs))
		if got := ch.byKind["ok call without a parse method"]; got != c.want {
			t.Errorf("%d violations for %v, want %d", got, c.calls, c.want)
		}
	}
}
