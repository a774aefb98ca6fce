package cli

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/medteam-bench/medteam/plan"
)

// SweepOptions are the settings of 'medteam sweep': a sweep file and the run
// options its plan runs with.
type SweepOptions struct {
	File string
	Run  RunOptions
	// Given lists the plan flags given on the command line: they win over
	// the file.
	Given map[string]bool
}

// NewCmdSweep builds 'medteam sweep'; runF as for NewCmdRun.
func NewCmdSweep(f *Factory, runF func(context.Context, *SweepOptions) error) *cobra.Command {
	opts := &SweepOptions{}
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
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			opts.Given = map[string]bool{}
			cmd.Flags().Visit(func(fl *pflag.Flag) { opts.Given[fl.Name] = true })
			opts.Run.DataDirGiven = opts.Given["data-dir"]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSweep(cmd.Context(), f, opts)
		},
	}
	opts.Run.register(cmd.Flags())
	return cmd
}

// sweepFlags maps each plan flag a sweep file can also set to how its
// command-line value is put back over the file's.
var sweepFlags = map[string]func(dst, flagged *plan.Spec){
	"dataset":            func(d, f *plan.Spec) { d.Datasets = f.Datasets },
	"model":              func(d, f *plan.Spec) { d.Models = f.Models },
	"config":             func(d, f *plan.Spec) { d.Configs = f.Configs },
	"turns":              func(d, f *plan.Spec) { d.Turns = f.Turns },
	"agents":             func(d, f *plan.Spec) { d.Agents = f.Agents },
	"discussion":         func(d, f *plan.Spec) { d.Discussion = f.Discussion },
	"text":               func(d, f *plan.Spec) { d.Text = f.Text },
	"limit":              func(d, f *plan.Spec) { d.Limit = f.Limit },
	"seed":               func(d, f *plan.Spec) { d.Seed = f.Seed },
	"sample-seed":        func(d, f *plan.Spec) { d.SampleSeed = f.SampleSeed },
	"repeats":            func(d, f *plan.Spec) { d.Repeats = f.Repeats },
	"transcripts":        func(d, f *plan.Spec) { d.Transcripts = f.Transcripts },
	"diagnosis-judge":    func(d, f *plan.Spec) { d.DiagnosisJudge = f.DiagnosisJudge },
	"max-tokens":         func(d, f *plan.Spec) { d.MaxTokens = f.MaxTokens },
	"retry-truncated":    func(d, f *plan.Spec) { d.RetryTruncated = f.RetryTruncated },
	"peer-chars":         func(d, f *plan.Spec) { d.PeerChars = f.PeerChars },
	"prompt-layout":      func(d, f *plan.Spec) { d.PromptLayout = f.PromptLayout },
	"fewshot-file":       func(d, f *plan.Spec) { d.FewshotFile = f.FewshotFile },
	"fewshot-any":        func(d, f *plan.Spec) { d.FewshotAny = f.FewshotAny },
	"agent-temperature":  func(d, f *plan.Spec) { d.AgentTemp = f.AgentTemp },
	"leader-temperature": func(d, f *plan.Spec) { d.LeaderTemp = f.LeaderTemp },
	"base-url":           func(d, f *plan.Spec) { d.BaseURL = f.BaseURL },
	"num-ctx":            func(d, f *plan.Spec) { d.NumCtx = f.NumCtx },
}

func runSweep(ctx context.Context, f *Factory, o *SweepOptions) error {
	flagged := o.Run.Spec
	if err := plan.LoadSweep(o.File, &o.Run.Spec); err != nil {
		return err
	}
	for name, restore := range sweepFlags {
		if o.Given[name] {
			restore(&o.Run.Spec, &flagged)
		}
	}
	if o.Run.Resume != "" {
		return usagef("sweep: use 'medteam run --resume DIR' to resume by directory, or rerun the sweep command")
	}
	return runRun(ctx, f, &o.Run)
}
