package plan

import (
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/teamwork"
)

// Arms resolves the spec's --config entries into arms, each once.
func (s Spec) Arms() ([]runner.Arm, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	base := teamwork.Default()
	base.Turns, base.Agents = s.Turns, s.Agents
	base.Discussion = teamwork.DiscussionMode(s.Discussion)
	base.Structured = !s.Text
	base.AgentTemperature, base.LeaderTemperature = s.AgentTemp, s.LeaderTemp
	base.MaxTokens = s.MaxTokens
	var arms []runner.Arm
	seen := map[string]bool{}
	for _, spec := range s.Configs {
		c, err := teamwork.ParseComponents(spec, base)
		if err != nil {
			return nil, Inputf("--config %q: %v", spec, err)
		}
		label := c.Label()
		if seen[label] {
			return nil, Inputf("--config lists %q twice", label)
		}
		seen[label] = true
		arms = append(arms, runner.Arm{Label: label, Config: c})
	}
	if len(arms) == 0 {
		return nil, Inputf("--config is empty; give at least one configuration, e.g. --config full")
	}
	return arms, nil
}

// ArmRefs describes arms for the plan document and the manifest.
func ArmRefs(arms []runner.Arm) []results.ArmRef {
	var out []results.ArmRef
	for _, a := range arms {
		c := a.Config
		out = append(out, results.ArmRef{
			Label: a.Label, Protocol: "teamwork", SMM: c.SMM, Leadership: c.Leadership, Orientation: c.Orientation,
			Trust: c.Trust, Monitoring: c.Monitoring, Turns: c.Turns, Discussion: string(c.Discussion),
			AgentPolicy: c.AgentPolicy(), StructuredOutput: c.Structured,
			Temperatures: map[string]float64{"agent": c.AgentTemperature, "leader": c.LeaderTemperature},
		})
	}
	return out
}
