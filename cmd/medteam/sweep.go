package main

import (
	"bytes"
	"os"

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

// loadSweep reads a sweep file over the defaults in p. Unknown keys and
// invalid arms are errors naming the file and line.
func loadSweep(path string, p *planFlags, f *runFlags) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return usagef("sweep file: %v", err)
	}
	var s sweepFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return usagef("%s: %v", path, err)
	}
	if s.Arms.Kind != yaml.SequenceNode || len(s.Arms.Content) == 0 {
		line := s.Arms.Line
		if line == 0 {
			line = 1
		}
		return usagef("%s:%d: arms must be a non-empty list of presets (%v) or component lists such as smm+l+to", path, line, teamwork.PresetNames())
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
