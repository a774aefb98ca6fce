package firstanswer

import (
	"github.com/medteam-bench/medteam/answer"
)

// Answer is one agent's first answer as package answer reads it: ranking,
// confidence, reasoning, method, abstention reason, notes (and the facts,
// when a protocol asked for them).
type Answer struct {
	answer.Answer
}

// Parse reads a first answer (answer.Parse): a JSON object or the labelled
// lines, whatever was asked.
func Parse(text string, options []answer.Option) Answer {
	return Answer{Answer: answer.Parse(text, options)}
}
