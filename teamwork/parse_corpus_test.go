package teamwork

import (
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/answer/answertest"
)

// corpus is the answer corpus of package answer, whose cases of the kinds
// concern_reply, tiebreak and mediate target the parsers here.
const corpus = "../answer/testdata/answers"

// TestAnswerCorpus reads every case of the answer corpus with the parser
// its kind targets, as the protocol reads each call, and fails on any
// mismatch. A misread — a letter returned where another letter or an
// abstention is wanted — must never happen; the test prints the number of
// cases, the misread rate and the abstention rate (see them with
// go test -run TestAnswerCorpus -v ./teamwork/).
func TestAnswerCorpus(t *testing.T) {
	answertest.Run(t, corpus, map[string]answertest.Reader{
		"answer": func(c answertest.Case) ([]string, string) {
			a := answer.Parse(c.Output, c.Options)
			return a.Ranking, a.Reason
		},
		"concern_reply": func(c answertest.Case) ([]string, string) {
			a := ParseConcernReply(c.Output, c.Options).Answer
			return a.Ranking, a.Reason
		},
		"tiebreak": func(c answertest.Case) ([]string, string) {
			tb := ParseTieBreak(c.Output, c.Tied)
			if tb.Answer == "" {
				return nil, tb.Reason
			}
			return []string{tb.Answer}, ""
		},
		"mediate": func(c answertest.Case) ([]string, string) {
			md := ParseMediation(c.Output, c.Options)
			if md.Leaning == "" {
				return nil, md.Reason
			}
			return []string{md.Leaning}, ""
		},
	})
}
