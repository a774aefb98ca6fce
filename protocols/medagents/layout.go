package medagents

import "github.com/medteam-bench/medteam/protocols/kit"

// sharedLayout lays a domain expert's call out shared-prefix-first
// (--prompt-layout shared): the expert's system prompt — the only text
// naming its domain before the request — goes after its user prompt, in one
// user message. The experts of a stage then share their prompt up to their
// domain: the five question analysts the whole scenario request, the two
// option analysts the scenario, the five analyses and the options, the
// voters and advisers the report. The calls whose system prompt is the same
// for every call (the domain classifiers, the synthesiser) keep the paper's
// order.
func sharedLayout(c kit.Call) kit.Call {
	switch c.Kind {
	case KindQuestionAnalysis, KindOptionAnalysis, KindVote, KindAdvice:
		c.User += "\n\n" + c.System
		c.System, c.NoSystem = "", true
	}
	return c
}
