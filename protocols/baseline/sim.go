package baseline

import (
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// kindCoT is the kind cot once sent (it now sends the shared first answer,
// kit.KindFirst); the simulator still answers it, so that older transcripts
// replay.
const kindCoT = "cot"

// ZeroShotSim is zeroshot's simulated behaviour (llm/sim's Behaviour): an
// independent answer (as the core's predict) written as the letter alone.
// The code seeds every draw of a call: it never changes.
var ZeroShotSim = sim.Behaviour{Protocol: "zeroshot", Kinds: map[string]uint64{kit.KindZeroShot: 13}, Answer: simAnswer}

// CoTSim is the behaviour of the cot kind: an independent answer written
// as its reasoning sentence and the letter.
var CoTSim = sim.Behaviour{Protocol: "cot", Kinds: map[string]uint64{kindCoT: 14}, Answer: simAnswer}

// simAnswer answers as the core answers an agent's kind: the prompt read as
// the agent's own, an independent answer, its format, the diagnosis it
// states on a triage item, the malformed and fence draws.
func simAnswer(c *sim.Call) string {
	self := 0
	if c.Request().Meta.Agent >= 0 {
		self = c.Request().Meta.Agent + 1
	}
	c.ReadPrompt(self, false)
	a := c.NewAnswer()
	c.Independent(&a)
	asJSON := c.Request().Schema != nil
	letter := c.Letter(a.Ranking().First())
	var arr [1024]byte
	b := arr[:0]
	cot := c.Request().Meta.Kind == kindCoT
	switch {
	case asJSON && cot:
		b = append(b, `{"reasoning":`...)
		b = c.AppendSentence(b, &a, true)
		b = append(b, `,"answer":`...)
		b = sim.AppendQuoted(b, letter)
		b = append(b, '}')
	case asJSON:
		b = append(b, `{"answer":`...)
		b = sim.AppendQuoted(b, letter)
		b = append(b, '}')
	case cot:
		b = append(b, "REASONING: "...)
		b = c.AppendSentence(b, &a, false)
		b = append(b, "\nANSWER: "...)
		b = append(b, letter...)
	default:
		b = append(b, "ANSWER: "...)
		b = append(b, letter...)
	}
	b = c.AppendDiagnosis(b, &a, asJSON)
	return c.Finish(b, a.Ranking().First(), asJSON)
}
