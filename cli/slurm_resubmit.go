package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/slurm"
)

// SlurmResubmitOptions are the settings of 'medteam slurm resubmit'.
type SlurmResubmitOptions struct {
	Dir   string
	Slurm slurm.Runner // nil = the Slurm commands on PATH
}

// NewCmdSlurmResubmit builds 'medteam slurm resubmit'; runF as for NewCmdRun.
func NewCmdSlurmResubmit(f *Factory, runF func(context.Context, *SlurmResubmitOptions) error) *cobra.Command {
	opts := &SlurmResubmitOptions{}
	return &cobra.Command{
		Use:   "resubmit RUN_DIR",
		Short: "Submit again only the unfinished shards (killed, preempted, timed out, node failure) and re-arm the merge job",
		Long: `Submits the array script again for the shards whose journals hold fewer units than
planned and whose task is not pending or running; each resumes from its journal, so finished units
never run again. The task ids stay the shard indices (the script takes the shard count from the
plan, not from SLURM_ARRAY_TASK_COUNT). The pending merge job is cancelled and a new one depends
(afterany) on the new array and on any array still running.`,
		Example: "  medteam slurm resubmit results/run-3f2a9c1b0d4e",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSlurmResubmit(cmd.Context(), f, opts)
		},
	}
}

// resubmitPlan decides, from the shards' progress and the job states,
// which task ids to submit again, which are still active (skipped), and
// which array jobs still have active tasks (the new merge waits for them).
func resubmitPlan(shards []shardProgress, states map[string]string) (tasks, active []int, activeArrays []string) {
	seen := map[string]bool{}
	for _, s := range shards {
		if s.Finished() {
			continue
		}
		if slurm.Active(s.State) {
			active = append(active, s.Shard-1)
			a, _, _ := strings.Cut(s.Job, "_")
			if !seen[a] {
				seen[a] = true
				activeArrays = append(activeArrays, a)
			}
			continue
		}
		tasks = append(tasks, s.Shard-1)
	}
	return tasks, active, activeArrays
}

func runSlurmResubmit(ctx context.Context, f *Factory, o *SlurmResubmitOptions) error {
	rec, err := slurm.Load(o.Dir)
	if err != nil {
		return usageError{err}
	}
	c := slurm.Client{R: runnerOr(o.Slurm)}
	shards, states, err := slurmProgress(ctx, c, o.Dir, rec)
	if err != nil {
		return err
	}
	tasks, active, activeArrays := resubmitPlan(shards, states)
	for _, t := range active {
		fmt.Fprintf(f.Err, "shard %d/%d: task %s is %s; not resubmitted (cancel it first to rerun it now)\n", t+1, rec.Shards, shards[t].Job, shards[t].State)
	}
	if len(tasks) == 0 {
		fmt.Fprintf(f.Out, "nothing to resubmit: %d shard(s) finished, %d still active\n", rec.Shards-len(active), len(active))
		return nil
	}
	if n := len(rec.Jobs); n > 0 {
		if m := rec.Jobs[n-1].Merge; m != "" && slurm.Active(states[m]) {
			if err := c.Cancel(ctx, m); err != nil {
				return fmt.Errorf("cancelling the pending merge job %s: %w", m, err)
			}
		}
	}
	sub, err := submitJobs(ctx, c, o.Dir, tasks, rec.Throttle, activeArrays)
	if sub.Array != "" {
		rec.Jobs = append(rec.Jobs, sub)
		if serr := rec.Save(o.Dir); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		return err
	}
	var names []string
	for _, t := range tasks {
		names = append(names, fmt.Sprintf("%d/%d (%d of %d units done)", t+1, rec.Shards, shards[t].Done, shards[t].Planned))
	}
	fmt.Fprintf(f.Out, "resubmitted shard(s) %s as array job %s; merge job %s (afterany)\n", strings.Join(names, ", "), sub.Array, sub.Merge)
	return nil
}
