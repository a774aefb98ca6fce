package llm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

// TestTruncationRetry: a reply cut at its token limit is asked again once
// with twice the tokens, as one logical call (attempts and usage summed,
// the retry's own request hash); a finished reply, a refusal and a request
// without a limit are not; a failed retry keeps the cut reply.
func TestTruncationRetry(t *testing.T) {
	type sent struct {
		max  int
		hash string
	}
	for _, tc := range []struct {
		name       string
		max        int
		finish     []string // finish reason of each request's reply
		refusal    string
		failRetry  bool
		wantMax    []int
		wantText   string
		wantAtt    int
		wantFinish string
	}{
		{"finished: no retry", 100, []string{"stop"}, "", false, []int{100}, "r100", 1, "stop"},
		{"cut: one retry with twice the tokens", 100, []string{"length", "stop"}, "", false, []int{100, 200}, "r200", 2, "stop"},
		{"cut twice: still one retry", 100, []string{"length", "length"}, "", false, []int{100, 200}, "r200", 2, "length"},
		{"no limit: nothing to double", 0, []string{"length"}, "", false, []int{0}, "r0", 1, "length"},
		{"a refusal is not retried", 100, []string{"length"}, "no", false, []int{100}, "r100", 1, "length"},
		{"failed retry keeps the cut reply", 100, []string{"length", ""}, "", true, []int{100, 200}, "r100", 2, "length"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []sent
			be := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
				i := len(got)
				got = append(got, sent{req.MaxTokens, llm.HashOf(&req)})
				if tc.failRetry && i == 1 {
					return llm.Response{Attempts: 1}, &llm.Error{Class: llm.ClassContextLength, Err: errors.New("too long")}
				}
				return llm.Response{Text: "r" + itoa(req.MaxTokens), FinishReason: tc.finish[i], Refusal: tc.refusal,
					Usage: llm.Usage{PromptTokens: 10, CompletionTokens: req.MaxTokens}, Attempts: 1}, nil
			})
			m := llm.NewMeter(llm.NewTruncationRetry(be), false)
			resp, err := m.Chat(context.Background(), llm.Request{Model: "m", MaxTokens: tc.max,
				Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.wantMax) {
				t.Fatalf("sent %v, want max_tokens %v", got, tc.wantMax)
			}
			for i, s := range got {
				if s.max != tc.wantMax[i] {
					t.Fatalf("request %d: max_tokens %d, want %d", i, s.max, tc.wantMax[i])
				}
			}
			if len(got) == 2 && got[0].hash == got[1].hash {
				t.Fatal("the retry reused the first request's hash (its cache key)")
			}
			calls := m.Calls()
			if len(calls) != 1 || resp.Text != tc.wantText || calls[0].Attempts != tc.wantAtt || calls[0].FinishReason != tc.wantFinish {
				t.Fatalf("resp %q, records %+v", resp.Text, calls)
			}
			if len(got) == 2 && !tc.failRetry && resp.Usage.CompletionTokens != 300 {
				t.Fatalf("usage %+v, want both requests' summed", resp.Usage)
			}
			if calls[0].RequestHash != got[0].hash {
				t.Fatal("the call's request hash is not its first request's")
			}
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
