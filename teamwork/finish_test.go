package teamwork

import (
	"context"
	"sync"
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/llm"
)

// withheld answers the recruiter as scripted and every other call with a
// text that names A, refused, stopped by the content filter or cut off.
type withheld struct {
	mu             sync.Mutex
	finish, refuse string
}

func (w *withheld) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch req.Meta.Kind {
	case KindAssess:
		return llm.Response{Text: "AGENTS: 3", FinishReason: "stop"}, nil
	case KindRecruit:
		return llm.Response{Text: "ROLE 1: Cardiologist - heart", FinishReason: "stop"}, nil
	}
	return llm.Response{Text: "Aspirin (A) would be my first thought, but heparin", FinishReason: w.finish, Refusal: w.refuse}, nil
}

// TestWithheldRepliesAbstain: teamwork makes its own calls; a refusal, a
// reply stopped by the content filter and a reply cut at its token limit
// are read through the same marking as kit.Session.Do (kit.Reply): every
// agent abstains with that reason and the team never answers A from them.
func TestWithheldRepliesAbstain(t *testing.T) {
	for _, tc := range []struct{ finish, refuse, reason string }{
		{"stop", "I can't help with that.", answer.ReasonRefusal},
		{answer.FinishContentFilter, "", answer.ReasonContentFilter},
		{answer.FinishLength, "", answer.ReasonTruncated},
	} {
		c, _ := ParseComponents("c4", Default())
		out, err := (&Team{Config: c}).Run(context.Background(), &withheld{finish: tc.finish, refuse: tc.refuse}, fourOptions)
		if err != nil {
			t.Fatal(err)
		}
		if out.Predicted != "" || !out.Decision.Abstained() {
			t.Fatalf("%s: want a team abstention, got %q", tc.reason, out.Predicted)
		}
		n := 0
		for _, p := range out.Parses {
			if p.Reason == tc.reason {
				n++
			}
		}
		if n == 0 {
			t.Fatalf("%s: no call abstained with reason %s: %+v", tc.reason, tc.reason, out.Parses)
		}
	}
}
