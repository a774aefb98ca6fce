package cli

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/medteam-bench/medteam/teamwork"
)

// sweepFile is the schema of a sweep file (see configs/ablation.yaml).
type sweepFile struct {
	Datasets    []string  `yaml:"datasets"`
	Models      []string  `yaml:"models"`
	Arms        yaml.Node `yaml:"arms"`
	Turns       *int      `yaml:"turns"`
	Agents      *int      `yaml:"agents"`
	Discussion  *string   `yaml:"discussion"`
	Text        *bool     `yaml:"text"`
	Limit       *int      `yaml:"limit"`
	Seed        *int64    `yaml:"seed"`
	SampleSeed  *int64    `yaml:"sample_seed"`
	Repeats     *int      `yaml:"repeats"`
	Transcripts *bool     `yaml:"transcripts"`
	MaxTokens   *int      `yaml:"max_tokens"`
	BaseURL     *string   `yaml:"base_url"`
	NumCtx      *int      `yaml:"num_ctx"`
	Temperature *struct {
		Agent  *float64 `yaml:"agent"`
		Leader *float64 `yaml:"leader"`
	} `yaml:"temperature"`
}

// sweepKeys are the keys of a sweep file, in the order messages list them,
// with what the value must be.
var sweepKeys = []struct{ key, want string }{
	{"datasets", "a list of dataset names or paths, e.g. [medqa]"},
	{"models", "a list of models, e.g. [sim/default]"},
	{"arms", "a list of presets or component lists, e.g. [base, smm+l+to]"},
	{"turns", "an integer, 2 or 3"},
	{"agents", "an integer, 0 (dynamic) or 2 to 4"},
	{"discussion", "round_robin or parallel"},
	{"text", "true or false"},
	{"limit", "an integer"},
	{"seed", "an integer"},
	{"sample_seed", "an integer"},
	{"repeats", "an integer"},
	{"transcripts", "true or false"},
	{"max_tokens", "an integer"},
	{"base_url", "a URL"},
	{"num_ctx", "an integer"},
	{"temperature", "a mapping with agent and/or leader, e.g. {agent: 0.7, leader: 0.5}"},
}

// field returns where the value of a top-level key goes.
func (s *sweepFile) field(key string) any {
	switch key {
	case "datasets":
		return &s.Datasets
	case "models":
		return &s.Models
	case "arms":
		return &s.Arms
	case "turns":
		return &s.Turns
	case "agents":
		return &s.Agents
	case "discussion":
		return &s.Discussion
	case "text":
		return &s.Text
	case "limit":
		return &s.Limit
	case "seed":
		return &s.Seed
	case "sample_seed":
		return &s.SampleSeed
	case "repeats":
		return &s.Repeats
	case "transcripts":
		return &s.Transcripts
	case "max_tokens":
		return &s.MaxTokens
	case "base_url":
		return &s.BaseURL
	case "num_ctx":
		return &s.NumCtx
	}
	return nil
}

var yamlLineErr = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// nodeText describes a YAML value for a message: the scalar, or its kind.
func nodeText(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return "nothing"
}

// decodeSweep reads a sweep file key by key, so that every problem is
// reported as file:line with the key as written in the file. It returns the
// line of each key's value.
func decodeSweep(path string, b []byte) (sweepFile, map[string]int, error) {
	var s sweepFile
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		if m := yamlLineErr.FindStringSubmatch(err.Error()); m != nil {
			return s, nil, usagef("%s:%s: not valid YAML: %s", path, m[1], m[2])
		}
		return s, nil, usagef("%s: not valid YAML: %v", path, err)
	}
	if len(root.Content) == 0 {
		return s, nil, usagef("%s: the file is empty; a sweep file is a YAML mapping with at least arms: [...] (see configs/ablation.yaml)", path)
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return s, nil, usagef("%s:%d: a sweep file is a mapping of keys (arms, datasets, models, …), not %s; see configs/ablation.yaml", path, doc.Line, nodeText(doc))
	}
	known := make([]string, len(sweepKeys))
	want := map[string]string{}
	for i, k := range sweepKeys {
		known[i], want[k.key] = k.key, k.want
	}
	lines := map[string]int{}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		if first, dup := lines[k.Value]; dup {
			return s, nil, usagef("%s:%d: key %q given twice (first at line %d); keep one", path, k.Line, k.Value, first)
		}
		lines[k.Value] = v.Line
		switch k.Value {
		case "arms":
			s.Arms = *v
			continue
		case "temperature":
			if err := decodeTemperature(path, v, &s); err != nil {
				return s, nil, err
			}
			continue
		}
		dst := s.field(k.Value)
		if dst == nil {
			return s, nil, usagef("%s:%d: unknown key %q; the keys of a sweep file are %s", path, k.Line, k.Value, strings.Join(known, ", "))
		}
		if err := v.Decode(dst); err != nil {
			return s, nil, usagef("%s:%d: %s must be %s; got %s", path, v.Line, k.Value, want[k.Value], nodeText(v))
		}
	}
	return s, lines, nil
}

// decodeTemperature reads temperature: {agent: …, leader: …}.
func decodeTemperature(path string, v *yaml.Node, s *sweepFile) error {
	if v.Kind != yaml.MappingNode {
		return usagef("%s:%d: temperature must be a mapping with agent and/or leader, e.g. temperature: {agent: 0.7, leader: 0.5}; got %s", path, v.Line, nodeText(v))
	}
	s.Temperature = &struct {
		Agent  *float64 `yaml:"agent"`
		Leader *float64 `yaml:"leader"`
	}{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		var dst **float64
		switch k.Value {
		case "agent":
			dst = &s.Temperature.Agent
		case "leader":
			dst = &s.Temperature.Leader
		default:
			return usagef("%s:%d: unknown key %q under temperature; the keys there are agent, leader", path, k.Line, k.Value)
		}
		if err := val.Decode(dst); err != nil || *dst == nil {
			return usagef("%s:%d: temperature.%s must be a number from 0 to 2; got %s", path, val.Line, k.Value, nodeText(val))
		}
		if t := **dst; t < 0 || t > 2 {
			return usagef("%s:%d: temperature.%s: %g; use a temperature from 0 to 2", path, val.Line, k.Value, t)
		}
	}
	return nil
}

// loadSweep reads a sweep file over the defaults in p. Unknown keys, values
// of the wrong type or out of range, and invalid arms are errors naming the
// file, the line and the key.
func loadSweep(path string, p *planFlags, f *runFlags) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return usagef("sweep file: %v", err)
	}
	s, lines, err := decodeSweep(path, b)
	if err != nil {
		return err
	}
	if s.Turns != nil && *s.Turns != 2 && *s.Turns != 3 {
		return usagef("%s:%d: turns: %d; the protocol defines 2 or 3 discussion turns", path, lines["turns"], *s.Turns)
	}
	if s.Agents != nil && *s.Agents != 0 && (*s.Agents < 2 || *s.Agents > 4) {
		return usagef("%s:%d: agents: %d; use 0 for a dynamic team (the recruiter decides) or a fixed size from 2 to 4", path, lines["agents"], *s.Agents)
	}
	if d := s.Discussion; d != nil && *d != string(teamwork.RoundRobin) && *d != string(teamwork.Parallel) {
		return usagef("%s:%d: discussion: %q; use %s or %s", path, lines["discussion"], *d, teamwork.RoundRobin, teamwork.Parallel)
	}
	if s.Arms.Kind != yaml.SequenceNode || len(s.Arms.Content) == 0 {
		line := s.Arms.Line
		if line == 0 {
			line = 1
		}
		return usagef("%s:%d: arms must be a non-empty list of presets (%s) or component lists such as smm+l+to", path, line, strings.Join(teamwork.PresetNames(), ", "))
	}
	p.Configs = nil
	for _, n := range s.Arms.Content {
		if n.Kind != yaml.ScalarNode {
			return usagef("%s:%d: each arm is a preset name or a component list such as smm+l+to", path, n.Line)
		}
		if _, err := teamwork.ParseComponents(n.Value, teamwork.Default()); err != nil {
			return usagef("%s:%d: arm %q: %v", path, n.Line, n.Value, err)
		}
		p.Configs = append(p.Configs, n.Value)
	}
	if len(s.Datasets) > 0 {
		p.Datasets = s.Datasets
	}
	if len(s.Models) > 0 {
		p.Models = s.Models
	}
	set := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	set(&p.Turns, s.Turns)
	set(&p.Agents, s.Agents)
	set(&p.Limit, s.Limit)
	set(&p.Repeats, s.Repeats)
	set(&p.MaxTokens, s.MaxTokens)
	set(&f.numCtx, s.NumCtx)
	if s.Discussion != nil {
		p.Discussion = *s.Discussion
	}
	if s.Text != nil {
		p.Text = *s.Text
	}
	if s.Seed != nil {
		p.Seed = *s.Seed
	}
	if s.SampleSeed != nil {
		p.SampleSeed = *s.SampleSeed
	}
	if s.Transcripts != nil {
		p.Transcripts = *s.Transcripts
	}
	if s.BaseURL != nil {
		f.baseURL = *s.BaseURL
	}
	if s.Temperature != nil {
		if s.Temperature.Agent != nil {
			p.AgentTemp = *s.Temperature.Agent
		}
		if s.Temperature.Leader != nil {
			p.LeaderTemp = *s.Temperature.Leader
		}
	}
	// Validate the shared settings against every arm now, with the file named.
	if _, err := p.arms(); err != nil {
		return usagef("%s: %v", path, err)
	}
	return nil
}

func newSweepCmd(stop <-chan struct{}) *cobra.Command {
	run, f := runCommand(stop)
	cmd := &cobra.Command{
		Use:   "sweep FILE",
		Short: "Run the plan of a sweep file (datasets × models × arms × repeats); resumable like run",
		Long: `Reads a sweep file (YAML; see configs/ablation.yaml for the schema, every key but arms is
optional and defaults as for run), then runs it exactly like 'medteam run'. Flags given on
the command line apply where the file is silent about execution (--out, --parallel, --cache,
budgets, --dry-run); a plan flag given on the command line (e.g. --repeats) wins over the file.`,
		Example: `  medteam sweep configs/ablation.yaml
  medteam sweep configs/ablation.yaml --dry-run
  medteam sweep configs/ablation.yaml --budget-tokens 2000000`,
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().AddFlagSet(run.Flags())
	cmd.RunE = func(c *cobra.Command, args []string) error {
		flagged, baseURL, numCtx := f.plan, f.baseURL, f.numCtx
		if err := loadSweep(args[0], &f.plan, f); err != nil {
			return err
		}
		// A flag given on the command line wins over the file.
		p := &f.plan
		for name, restore := range map[string]func(){
			"dataset": func() { p.Datasets = flagged.Datasets }, "model": func() { p.Models = flagged.Models },
			"config": func() { p.Configs = flagged.Configs }, "turns": func() { p.Turns = flagged.Turns },
			"agents": func() { p.Agents = flagged.Agents }, "discussion": func() { p.Discussion = flagged.Discussion },
			"text": func() { p.Text = flagged.Text }, "limit": func() { p.Limit = flagged.Limit },
			"seed": func() { p.Seed = flagged.Seed }, "sample-seed": func() { p.SampleSeed = flagged.SampleSeed },
			"repeats": func() { p.Repeats = flagged.Repeats }, "transcripts": func() { p.Transcripts = flagged.Transcripts },
			"max-tokens": func() { p.MaxTokens = flagged.MaxTokens }, "agent-temperature": func() { p.AgentTemp = flagged.AgentTemp },
			"leader-temperature": func() { p.LeaderTemp = flagged.LeaderTemp },
			"base-url":           func() { f.baseURL = baseURL }, "num-ctx": func() { f.numCtx = numCtx },
		} {
			if c.Flags().Changed(name) {
				restore()
			}
		}
		if f.resume != "" {
			return usagef("sweep: use 'medteam run --resume DIR' to resume by directory, or rerun the sweep command")
		}
		return runRun(c.Context(), c, f, stop, c.OutOrStdout(), c.ErrOrStderr())
	}
	return cmd
}
