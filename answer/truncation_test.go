package answer_test

import (
	"slices"
	"testing"

	"github.com/medteam-bench/medteam/answer"
)

func TestCutReplies(t *testing.T) {
	opts := []answer.Option{{Letter: "A", Text: "Tetracycline"}, {Letter: "B", Text: "Doxycycline"}, {Letter: "C", Text: "Ceftriaxone"}}
	for _, tc := range []struct {
		name, text, finish string
		want               []string
		reason             string
	}{
		{"finished reply read as usual", "Doxycycline (B) fits the rash.", "stop", []string{"B"}, ""},
		{"cut at the token limit: a mark in the reasoning is not the answer", "Doxycycline (B) fits the rash, but ceftriaxone", answer.FinishLength, nil, answer.ReasonTruncated},
		{"cut at the token limit after its answer statement", "The answer is (B). Doxycycline covers rickettsiae and", answer.FinishLength, []string{"B"}, ""},
		{"cut at the token limit: an option text as subject is not the answer", "Ceftriaxone is the best choice for meningitis. But this rash", answer.FinishLength, nil, answer.ReasonTruncated},
		{"cut mid-sentence without a finish reason: no mid-reasoning letter", "We compare the drugs. Doxycycline (B) covers rickettsiae, while ceftriaxone (C) covers the", "", nil, answer.ReasonNoAnswer},
		{"a terse last line is not a cut sentence", "Final answer: B", "", []string{"B"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := answer.Parse(answer.MarkCut(tc.text, tc.finish), opts)
			if !slices.Equal(a.Ranking, tc.want) && !(len(tc.want) > 0 && a.First() == tc.want[0]) || a.Reason != tc.reason {
				t.Fatalf("ranking %v reason %q (%s), want %v %q", a.Ranking, a.Reason, a.Err, tc.want, tc.reason)
			}
		})
	}
	// The mark is removed before any parser reads the text.
	if norm, _ := answer.Prepare(answer.MarkCut("abc", answer.FinishLength)); norm != "abc" {
		t.Fatalf("Prepare kept the mark: %q", norm)
	}
	if answer.MarkCut("abc", "stop") != "abc" || !answer.IsMarkedCut(answer.MarkCut("abc", answer.FinishLength)) {
		t.Fatal("MarkCut marks only finish reason length")
	}
}

// TestWithheldReplies: a refusal and a reply stopped by the content filter
// are abstentions with their own reasons, never read as an answer even when
// their text names one; the marks are removed before any parser reads the
// text (an empty reply to them), and other finish reasons mark as MarkCut.
func TestWithheldReplies(t *testing.T) {
	opts := []answer.Option{{Letter: "A", Text: "Tetracycline"}, {Letter: "B", Text: "Doxycycline"}}
	for _, tc := range []struct {
		name, text, finish, refusal, reason string
		want                                string
	}{
		{"refusal", "", "stop", "I can't help with that.", answer.ReasonRefusal, ""},
		{"refusal with an answer in its text", "The answer is B.", "stop", "I can't help.", answer.ReasonRefusal, ""},
		{"content filter with a partial answer", "The answer is B.", answer.FinishContentFilter, "", answer.ReasonContentFilter, ""},
		{"cut", "Doxycycline (B) fits the rash, but ceftriaxone", answer.FinishLength, "", answer.ReasonTruncated, ""},
		{"finished", "The answer is B.", "stop", "", "", "B"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := answer.MarkReply(tc.text, tc.finish, tc.refusal)
			a := answer.Parse(text, opts)
			if a.First() != tc.want || a.Reason != tc.reason {
				t.Fatalf("read %q reason %q (%s), want %q %q", a.First(), a.Reason, a.Err, tc.want, tc.reason)
			}
			if got := answer.Withheld(text); (got != "") != (tc.reason == answer.ReasonRefusal || tc.reason == answer.ReasonContentFilter) {
				t.Fatalf("Withheld = %q", got)
			}
			if norm, _ := answer.Prepare(text); tc.reason != "" && tc.reason != answer.ReasonTruncated && norm != "" {
				t.Fatalf("Prepare left %q of a withheld reply", norm)
			}
		})
	}
}
