package kit

import (
	"context"
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
)

// TestDoMarksCutReplies: a reply the backend cut at its token limit reaches
// the protocol marked, so that its parse never commits from a letter in the
// middle of its reasoning (reason truncated); a reply the content filter
// stopped and a refusal abstain with their own reasons, whatever their text;
// a finished reply is unchanged.
func TestDoMarksCutReplies(t *testing.T) {
	item := qa.Item{ID: "m", Options: []qa.Option{{Letter: "A", Text: "Tetracycline"}, {Letter: "B", Text: "Doxycycline"}}}
	for _, tc := range []struct {
		finish, refusal string
		want            string // the first choice read
		reason          string
	}{
		{"stop", "", "B", ""},
		{"length", "", "", answer.ReasonTruncated},
		{"content_filter", "", "", answer.ReasonContentFilter},
		{"stop", "I can't help with that.", "", answer.ReasonRefusal},
		{"length", "I can't help with that.", "", answer.ReasonRefusal},
	} {
		c := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
			return llm.Response{Text: "Doxycycline (B) covers rickettsiae, unlike tetracycline.", FinishReason: tc.finish, Refusal: tc.refusal}, nil
		})
		s := NewSession(c, item, protocol.Unit{}, false, 0)
		text, err := s.Do(context.Background(), Call{Phase: PhaseAnswer, Kind: "answer"})
		if err != nil {
			t.Fatal(err)
		}
		a := answer.Parse(text, s.Options)
		if a.First() != tc.want || a.Reason != tc.reason {
			t.Errorf("finish %q refusal %q: read %q (%s), want %q %q", tc.finish, tc.refusal, a.First(), a.Reason, tc.want, tc.reason)
		}
	}
}
