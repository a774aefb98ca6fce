package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/journal"
	"github.com/medteam-bench/medteam/plan"
	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/slurm"
)

// SlurmMergeOptions are the settings of 'medteam slurm merge'.
type SlurmMergeOptions struct {
	Dir string
}

// NewCmdSlurmMerge builds 'medteam slurm merge' (what the merge job runs);
// runF as for NewCmdRun.
func NewCmdSlurmMerge(f *Factory, runF func(context.Context, *SlurmMergeOptions) error) *cobra.Command {
	opts := &SlurmMergeOptions{}
	return &cobra.Command{
		Use:   "merge RUN_DIR",
		Short: "Join the shards of a Slurm run into its run directory (the merge job runs this)",
		Long: `Checks that every shard's journal holds all its planned units, then merges the shards into
RUN_DIR as 'medteam merge' does (questions.parquet, calls.parquet, manifest.json) and writes the
report. With a shard unfinished it writes nothing and exits 1 naming the shards: a run with missing
shards is never reported as complete ('medteam slurm resubmit' reruns them).`,
		Example: "  medteam slurm merge results/run-3f2a9c1b0d4e",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSlurmMerge(f, opts)
		},
	}
}

// missingShards lists the unfinished shards of a run.
func missingShards(rec slurm.Record, done []int) []string {
	var out []string
	for i, d := range done {
		if d < rec.Units[i] {
			out = append(out, fmt.Sprintf("shard %d/%d has %d of %d units", i+1, rec.Shards, d, rec.Units[i]))
		}
	}
	return out
}

func runSlurmMerge(f *Factory, o *SlurmMergeOptions) error {
	rec, err := slurm.Load(o.Dir)
	if err != nil {
		return usageError{err}
	}
	done := make([]int, rec.Shards)
	dirs := make([]string, rec.Shards)
	for i := range done {
		dirs[i] = slurm.ShardDir(o.Dir, i+1, rec.Shards)
		if done[i], err = shardDone(dirs[i]); err != nil {
			return err
		}
	}
	if miss := missingShards(rec, done); len(miss) > 0 {
		return fmt.Errorf("not merged, the run is incomplete: %s; run 'medteam slurm resubmit %s'", strings.Join(miss, "; "), o.Dir)
	}
	for i, d := range dirs {
		if err := samePlan(d, rec.Plan); err != nil {
			return fmt.Errorf("not merged: shard %d/%d: %w", i+1, rec.Shards, err)
		}
	}
	argv := scrubArgs([]string{"medteam", "slurm", "merge", o.Dir})
	m, err := plan.Merge(o.Dir, dirs, argv)
	if err != nil {
		return err
	}
	if m.Units+m.Dups < rec.Total() {
		return fmt.Errorf("merged %d units, %d planned", m.Units, rec.Total())
	}
	fmt.Fprintf(f.Out, "merged %d shard(s) into %s: %d units (%d already there), %d question rows, %d call rows\n", m.Shards, m.Dir, m.Units, m.Dups, m.QuestionRows, m.CallRows)
	rows, err := results.ReadQuestions(filepath.Join(o.Dir, results.QuestionsFile))
	if err != nil {
		return err
	}
	endOfRunReport(f, o.Dir, rows, rec.Prices, rec.HTML || fileExists(o.Dir, report.HTMLFile)) // an earlier report.html is rewritten too
	return nil
}

// samePlan checks that the shard run directory dir ran the submitted plan
// (hash: of the unsharded document): a dataset file changed between submit
// and the task, for one, makes another plan.
func samePlan(dir, hash string) error {
	j, err := journal.OpenExisting(dir)
	if err != nil {
		return err
	}
	defer j.Close()
	body, _, err := j.PlanBody()
	if err != nil {
		return err
	}
	_, h, _, err := plan.Unshard(body)
	if err != nil {
		return err
	}
	if h != hash {
		return fmt.Errorf("%s ran plan %.12s, not the submitted plan %.12s (did a dataset or flag change since submit?); submit the run again", dir, h, hash)
	}
	return nil
}
