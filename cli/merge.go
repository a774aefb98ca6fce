package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/plan"
)

// MergeOptions are the settings of 'medteam merge'.
type MergeOptions struct {
	Out    string   // merged run directory ("" = run-<plan hash> beside the first shard)
	Shards []string // the shards' run directories
}

// NewCmdMerge builds 'medteam merge'; runF as for NewCmdRun.
func NewCmdMerge(f *Factory, runF func(context.Context, *MergeOptions) error) *cobra.Command {
	opts := &MergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge SHARD_DIR...",
		Short: "Join the run directories of the shards of one plan (--shard i/n) into one run directory",
		Long: `Joins the journals of shard runs into one run directory and writes its parquet files
and manifest, in the order of the whole plan. Directories of different plans, shards of
different splits (--shard 1/2 with 2/3), a shard given twice and a directory without a journal
(a shard that wrote nothing) are refused, naming the shard. With a shard missing the merge is
written as incomplete (planned: the whole plan's units; 'medteam check' exits 9) and names it.

Sharding a plan over machines, e.g. a Kubernetes Indexed Job with 8 completions: each pod runs
  medteam run <plan flags> --shard $((JOB_COMPLETION_INDEX+1))/8 --out /results
and writes its own run directory; then one step runs
  medteam merge --out /results/merged /results/run-*`,
		Example: "  medteam merge --out results/merged results/run-aaa results/run-bbb",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Shards = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMerge(f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Out, "out", "", "merged run directory (default: run-<plan hash> beside the first shard)")
	return cmd
}

func runMerge(f *Factory, o *MergeOptions) error {
	argv := scrubArgs(append([]string{"medteam", "merge"}, o.Shards...))
	m, err := plan.Merge(o.Out, o.Shards, argv)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Out, "merged %d shard(s) into %s: %d units (%d duplicates skipped), %d question rows, %d call rows\n", m.Shards, m.Dir, m.Units, m.Dups, m.QuestionRows, m.CallRows)
	if len(m.Missing) > 0 {
		fmt.Fprintf(f.Err, "medteam: merge: incomplete, %d of %d planned units: shard %s not among the directories given (run it with --shard and merge again); the manifest says incomplete\n",
			m.Units, m.Planned, strings.Join(m.Missing, ", "))
	}
	return nil
}
