package council

import (
	"fmt"
	"strings"
)

// Strategies are seed 001's swappable consensus prompts (§5.2, §6.2): the
// directive the chairman decides under; everything before the chairman is
// the same in every strategy (stage 1 and 2 requests are shared).
// risk-averse is the seed's own words: §5.2's use case, then §6.2's example
// directive verbatim (its "high-reward option" qualifier included, issue 36).
var Strategies = []struct{ Name, Directive string }{
	{"balanced", "Your goal is a balanced consensus: find the middle ground where most experts agree, weighing the peer evaluations."},
	{"risk-averse", RiskAverseUseCase + " " + RiskAverseDirective},
	{"goal-seeking", "Prioritize the best possible outcome, accepting higher risk: back the strongest proposal as the peer evaluations judge it, even when few experts hold it."},
	{"novelty", "Ignore safe, conventional answers: build the decision from the most novel components of the proposals."},
}

// Seed 001's risk-averse text, verbatim: §5.2's use case and §6.2's example
// directive ("Example: Risk-Averse Strategy").
const (
	RiskAverseUseCase   = "Prioritize safety and stability. Reject any high-risk proposals."
	RiskAverseDirective = "Your goal is to parse the inputs for any risks identified by the Council. If a high-reward option has a significant weakness, it MUST be discarded. Synthesize the safest, most robust path forward."
)

// directivesHash names the strategies' directives, so a changed directive is
// a changed prompt set (Protocol.Prompts): a plan started under the old
// words does not resume under the new.
func directivesHash() string {
	var b strings.Builder
	for _, s := range Strategies {
		fmt.Fprintf(&b, "%d\x00%s%d\x00%s", len(s.Name), s.Name, len(s.Directive), s.Directive)
	}
	return b.String()
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
