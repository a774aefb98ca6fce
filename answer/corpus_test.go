package answer_test

import (
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/answer/answertest"
)

// corpus is the answer corpus: model outputs of real-world shapes, one per
// txtar file (see answertest.Case).
const corpus = "testdata/answers"

// TestAnswerCorpus reads every answer of the corpus (kind answer; package
// teamwork reads the cases of its own kinds) and fails on any mismatch. A
// misread — a letter returned where another letter or an abstention is
// wanted — must never happen; the test prints the number of cases, the
// misread rate and the abstention rate (see them with
// go test -run TestAnswerCorpus -v ./answer/).
func TestAnswerCorpus(t *testing.T) {
	answertest.Run(t, corpus, map[string]answertest.Reader{
		"answer": func(c answertest.Case) ([]string, string) {
			a := answer.Parse(c.Output, c.Options)
			return a.Ranking, a.Reason
		},
	})
}
