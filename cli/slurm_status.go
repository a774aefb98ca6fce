package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/journal"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/slurm"
)

// SlurmStatusOptions are the settings of 'medteam slurm status'.
type SlurmStatusOptions struct {
	Dir   string
	Slurm slurm.Runner // nil = the Slurm commands on PATH
}

// NewCmdSlurmStatus builds 'medteam slurm status'; runF as for NewCmdRun.
func NewCmdSlurmStatus(f *Factory, runF func(context.Context, *SlurmStatusOptions) error) *cobra.Command {
	opts := &SlurmStatusOptions{}
	return &cobra.Command{
		Use:   "status RUN_DIR",
		Short: "Per shard: units done of planned (from its journal) and its job's state; and the merge",
		Long: `Prints per shard the units done of planned, read from the shard's journal, and the state
of the array task that last ran it (squeue for active jobs; sacct when accounting is there, else
scontrol for ended ones; "-" when Slurm no longer knows the job), then the merge job's state and
whether the merged results are written.`,
		Example: "  medteam slurm status results/run-3f2a9c1b0d4e",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSlurmStatus(cmd.Context(), f, opts)
		},
	}
}

// shardProgress is one shard's state.
type shardProgress struct {
	Shard, Done, Planned int
	Job, State           string
	Unreadable           error // the journal could not be read (e.g. a task is creating it)
}

// Finished reports whether every planned unit of the shard is journaled.
func (p shardProgress) Finished() bool { return p.Done >= p.Planned }

// slurmProgress reads the progress of every shard of the run in dir and
// the states of its jobs.
// A journal that cannot be read counts as no units done, with the error
// kept: a task may be creating it this moment.
func slurmProgress(ctx context.Context, c slurm.Client, dir string, rec slurm.Record) ([]shardProgress, map[string]string, error) {
	last := rec.Last()
	var ids []string
	for _, s := range rec.Jobs {
		ids = append(ids, s.Array, s.Merge)
	}
	states := c.States(ctx, ids)
	out := make([]shardProgress, rec.Shards)
	for i := range out {
		done, err := shardDone(slurm.ShardDir(dir, i+1, rec.Shards))
		p := shardProgress{Shard: i + 1, Done: done, Planned: rec.Units[i], State: "-", Unreadable: err}
		if a, ok := last[i]; ok {
			p.Job = fmt.Sprintf("%s_%d", a, i)
			if s := states[p.Job]; s != "" {
				p.State = s
			}
		}
		out[i] = p
	}
	return out, states, nil
}

// shardDone counts the units in the journal of the shard run directory
// dir (0 when the task has not started).
func shardDone(dir string) (int, error) {
	if _, err := os.Stat(filepath.Join(dir, "journal.db")); os.IsNotExist(err) {
		return 0, nil
	}
	j, err := journal.OpenExisting(dir)
	if err != nil {
		return 0, fmt.Errorf("shard %s: %w", dir, err)
	}
	defer j.Close()
	t, err := j.Totals()
	if err != nil {
		return 0, fmt.Errorf("shard %s: %w", dir, err)
	}
	return int(t.Units), nil
}

func runSlurmStatus(ctx context.Context, f *Factory, o *SlurmStatusOptions) error {
	rec, err := slurm.Load(o.Dir)
	if err != nil {
		return usageError{err}
	}
	c := slurm.Client{R: runnerOr(o.Slurm)}
	shards, states, err := slurmProgress(ctx, c, o.Dir, rec)
	if err != nil {
		return err
	}
	done, finished := 0, 0
	tw := tabwriter.NewWriter(f.Out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "shard\tdone/planned\tjob\tstate")
	for _, s := range shards {
		d := fmt.Sprint(s.Done)
		if s.Unreadable != nil {
			d = "?"
			defer fmt.Fprintf(f.Err, "shard %d/%d: journal not readable now: %v\n", s.Shard, rec.Shards, s.Unreadable)
		}
		fmt.Fprintf(tw, "%d/%d\t%s/%d\t%s\t%s\n", s.Shard, rec.Shards, d, s.Planned, s.Job, s.State)
		done += s.Done
		if s.Finished() {
			finished++
		}
	}
	tw.Flush()
	fmt.Fprintf(f.Out, "%d of %d units done; %d of %d shards finished\n", done, rec.Total(), finished, rec.Shards)
	if n := len(rec.Jobs); n > 0 {
		m := rec.Jobs[n-1].Merge
		st := states[m]
		if st == "" {
			st = "-"
		}
		fmt.Fprintf(f.Out, "merge job %s: %s\n", m, st)
	}
	if _, err := os.Stat(filepath.Join(o.Dir, results.QuestionsFile)); err == nil && finished == rec.Shards {
		fmt.Fprintf(f.Out, "merged: %s\n", filepath.Join(o.Dir, results.QuestionsFile))
	} else if finished < rec.Shards {
		fmt.Fprintf(f.Out, "not complete: once no task of it runs, 'medteam slurm resubmit %s' reruns the unfinished shards\n", o.Dir)
	}
	return nil
}

func runnerOr(r slurm.Runner) slurm.Runner {
	if r != nil {
		return r
	}
	return slurm.Exec{}
}
