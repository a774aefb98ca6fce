package plan

import (
	"os"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/configs"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/teamwork"
	"github.com/medteam-bench/medteam/triage/redflag"
)

// settings are the spec's settings every arm shares, with the red-flag
// rules of --red-flags loaded (nil: the arms' embedded default) and the
// training split of --fewshot-file (nil: none).
func (s Spec) settings() (protocol.Settings, error) {
	set := protocol.Settings{Turns: s.Turns, Agents: s.Agents, Discussion: s.Discussion, Structured: !s.Text,
		AgentTemp: s.AgentTemp, LeaderTemp: s.LeaderTemp, MaxTokens: s.MaxTokens, PeerChars: s.PeerChars, PromptLayout: s.PromptLayout}
	var err error
	if set.Fewshot, err = s.fewshot(); err != nil {
		return set, err
	}
	set.RedFlags, err = RedFlagRules(s.RedFlags)
	return set, err
}

// RedFlagRules loads the red-flag rules --red-flags names: "" is the
// embedded default (nil), the name of an embedded set (configs.RedFlagSet:
// seed003, semigran) is that set, anything else is a YAML file's path (a
// file called like a set is given as ./NAME).
func RedFlagRules(arg string) (*redflag.Rules, error) {
	if arg == "" {
		return nil, nil
	}
	if rs, ok := configs.RedFlagSet(arg); ok {
		return rs, nil
	}
	b, err := os.ReadFile(arg)
	if err != nil {
		return nil, Inputf("--red-flags %s: %v; give an embedded set's name (%s) or a red-flag YAML file (see configs/redflags.yaml)",
			arg, err, strings.Join(configs.RedFlagSetNames(), ", "))
	}
	rs, err := redflag.Parse(arg, b)
	if err != nil {
		return nil, Inputf("--red-flags: %v", err)
	}
	return rs, nil
}

// Arms resolves the spec's --config entries into arms of the registered
// protocols (protocols.All), each once.
func (s Spec) Arms() ([]runner.Arm, error) { return s.ArmsOf(protocols.All()) }

// ExpandConfigs replaces each --config entry "factorial" (any case) by the
// 24 valid teamwork component combinations (teamwork.Factorial), leaving
// out those the list names already; other entries are kept as they are.
func ExpandConfigs(configs []string) []string {
	out := make([]string, 0, len(configs))
	for _, c := range configs {
		if !strings.EqualFold(strings.TrimSpace(c), teamwork.FactorialName) {
			out = append(out, c)
			continue
		}
		for _, combo := range teamwork.Factorial() {
			if !slices.Contains(configs, combo) && !slices.Contains(out, combo) {
				out = append(out, combo)
			}
		}
	}
	return out
}

// ArmsOf resolves the spec's --config entries with the protocols of reg.
func (s Spec) ArmsOf(reg protocol.Registry) ([]runner.Arm, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	set, err := s.settings()
	if err != nil {
		return nil, err
	}
	var arms []runner.Arm
	seen := map[string]bool{}
	for _, spec := range ExpandConfigs(s.Configs) {
		a, err := reg.Parse(spec, set)
		if err != nil {
			return nil, Inputf("--config %q: %v", spec, err)
		}
		label := a.Info().Label
		if seen[label] {
			return nil, Inputf("--config lists %q twice", label)
		}
		seen[label] = true
		arms = append(arms, runner.Arm{Label: label, Protocol: a})
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
		c := a.Protocol.Info()
		out = append(out, results.ArmRef{
			Label: a.Label, Protocol: c.Protocol, SMM: c.SMM, Leadership: c.Leadership, Orientation: c.Orientation,
			Trust: c.Trust, Monitoring: c.Monitoring, Turns: c.Turns, Discussion: c.Discussion,
			AgentPolicy: c.AgentPolicy, StructuredOutput: c.Structured,
			Temperatures:   map[string]float64{"agent": c.AgentTemp, "leader": c.LeaderTemp},
			RedFlagsSHA256: c.RedFlagsSHA256, RedFlags: c.RedFlags, RedFlagsDevelopedOn: c.RedFlagsDevelopedOn,
		})
	}
	return out
}
