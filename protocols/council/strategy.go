package council

import (
	"fmt"
	"strings"
)

// Strategies are seed 001's swappable consensus prompts (§5.2, §6.2): the
// directive the chairman decides under; everything before the chairman is
// the same in every strategy (stage 1 and 2 requests are shared).
var Strategies = []struct{ Name, Directive string }{
	{"balanced", "Your goal is a balanced consensus: find the middle ground where most experts agree, weighing the peer evaluations."},
	{"risk-averse", "Prioritize safety and stability: reject any high-risk proposal. Parse the inputs for any risks identified by the council; if a proposal has a significant weakness, it MUST be discarded. Choose the safest, most robust answer."},
	{"goal-seeking", "Prioritize the best possible outcome, accepting higher risk: back the strongest proposal as the peer evaluations judge it, even when few experts hold it."},
	{"novelty", "Ignore safe, conventional answers: build the decision from the most novel components of the proposals."},
}

// DefaultStrategy is the seed's system default.
const DefaultStrategy = "balanced"

// StrategyNames lists the strategies.
func StrategyNames() []string {
	out := make([]string, len(Strategies))
	for i, s := range Strategies {
		out[i] = s.Name
	}
	return out
}

// directive returns the directive of strategy name.
func directive(name string) (string, error) {
	for _, s := range Strategies {
		if s.Name == name {
			return s.Directive, nil
		}
	}
	return "", fmt.Errorf("council: unknown strategy %q (strategies: %s)", name, strings.Join(StrategyNames(), ", "))
}
