package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/plan"
	"github.com/medteam-bench/medteam/slurm"
)

// newSlurmCmd builds the 'medteam slurm' group.
func newSlurmCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "slurm",
		Short: "Run a plan as a Slurm job array: submit, status, resubmit (and the merge job's merge)",
		Long: `Runs one plan as a Slurm job array over a shared run directory: task i runs shard
i+1 of S into <run>/shards/shard-<i+1>-of-S (one journal per shard), and a merge job that
depends on the array (afterany) joins them into <run> (parquet, manifest, report). See
docs/slurm.md.`,
	}
	cmd.AddCommand(NewCmdSlurmSubmit(f, nil), NewCmdSlurmStatus(f, nil), NewCmdSlurmResubmit(f, nil), NewCmdSlurmMerge(f, nil))
	return cmd
}

// SlurmSubmitOptions are the settings of 'medteam slurm submit'.
type SlurmSubmitOptions struct {
	Run       RunOptions
	Shards    int
	Throttle  int           // at most this many tasks at once (--array=…%N); 0 = no limit
	Grace     time.Duration // SIGTERM this long before the kill
	SlurmOpts []string      // #SBATCH options of the array tasks
	MergeOpts []string      // #SBATCH options of the merge job
	Template  string        // script template replacing the array script
	Medteam   string        // the binary the tasks run ("" = this one)
	DryRun    bool
	Args      []string     // the plan flags as given, passed to every task
	Slurm     slurm.Runner // nil = the Slurm commands on PATH
}

// slurmNotPassed are the run flags submit does not pass to the tasks: it
// sets the shard, run directory and report itself.
var slurmNotPassed = map[string]bool{"out": true, "run-name": true, "html": true, "no-report": true}

// NewCmdSlurmSubmit builds 'medteam slurm submit'; runF as for NewCmdRun.
func NewCmdSlurmSubmit(f *Factory, runF func(context.Context, *SlurmSubmitOptions) error) *cobra.Command {
	opts := &SlurmSubmitOptions{}
	cmd := &cobra.Command{
		Use:   "submit --shards S [run flags…]",
		Short: "Plan a run, write its run directory and submit it as one job array plus a merge job",
		Long: `Resolves the plan as 'medteam run' would, writes the run directory (<out>/<run-name>,
default run-<plan hash>) with slurm.json (shards, planned units per shard, jobs) and the scripts
under slurm/, then submits one job array (--array=0-(S-1)[%throttle]) whose task i runs
  medteam run <plan flags> --shard $((SLURM_ARRAY_TASK_ID+1))/S --out <run>/shards --run-name shard-<i>-of-S
and a merge job (--dependency=afterany:<array>) running 'medteam slurm merge <run>'.
The shard count comes from the plan, never from SLURM_ARRAY_TASK_COUNT.

The array script asks for SIGTERM --grace before the kill (--signal=B:TERM@grace) and sets
--requeue: on SIGTERM a task stops taking questions, finishes those in flight (20 s), commits
and exits; a requeued or resubmitted task resumes from its journal.

--template FILE replaces the array script (Go text/template; placeholders in docs/slurm.md#templates).`,
		Example: `  medteam slurm submit --shards 8 --throttle 4 --dataset medqa --config base,full --model openai/gpt-4o-mini
  medteam slurm submit --shards 4 --slurm-opt=--partition=gpu --slurm-opt=--gres=gpu:1 --template gpu.sh.tmpl --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Run.DataDirGiven = cmd.Flags().Changed("data-dir")
			opts.Args = changedRunFlags(cmd.Flags())
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runSlurmSubmit(cmd.Context(), f, opts)
		},
	}
	run := pflag.NewFlagSet("run", pflag.ContinueOnError)
	opts.Run.register(run)
	run.VisitAll(func(fl *pflag.Flag) {
		switch fl.Name {
		case "shard", "resume", "dry-run", "check":
			return // submit sets the shard; a Slurm run is resumed with resubmit; checks run on the merged run
		}
		fl.Annotations = map[string][]string{"medteam-run": {"1"}}
		cmd.Flags().AddFlag(fl)
	})
	fl := cmd.Flags()
	fl.IntVar(&opts.Shards, "shards", 0, "number of shards (array tasks) S; required")
	fl.IntVar(&opts.Throttle, "throttle", 0, "run at most this many tasks at once (--array=0-(S-1)%N); 0 = no limit")
	fl.DurationVar(&opts.Grace, "grace", 90*time.Second, "Slurm sends SIGTERM this long before the kill (--signal=B:TERM@grace); at least 30s, as questions in flight get 20s")
	fl.StringArrayVar(&opts.SlurmOpts, "slurm-opt", nil, "sbatch option of the array tasks, e.g. --slurm-opt=--partition=gpu (repeatable; written as #SBATCH lines)")
	fl.StringArrayVar(&opts.MergeOpts, "merge-opt", nil, "sbatch option of the merge job (repeatable)")
	fl.StringVar(&opts.Template, "template", "", "script template replacing the generated array script (placeholders in docs/slurm.md#templates)")
	fl.StringVar(&opts.Medteam, "medteam", "", "path of the medteam binary on the nodes (default: this binary)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the scripts and sbatch commands; submit nothing and write nothing")
	return cmd
}

// changedRunFlags renders the run flags given on the command line as
// arguments for the tasks' 'medteam run', repeated flags repeated.
func changedRunFlags(fs *pflag.FlagSet) []string {
	var args []string
	fs.Visit(func(fl *pflag.Flag) {
		if fl.Annotations["medteam-run"] == nil || slurmNotPassed[fl.Name] {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+fl.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+fl.Name+"="+fl.Value.String())
	})
	return args
}

func runSlurmSubmit(ctx context.Context, f *Factory, o *SlurmSubmitOptions) error {
	if err := o.validate(); err != nil {
		return err
	}
	if _, err := o.Run.checkPrices(o.Run.Spec); err != nil {
		return err
	}
	r, err := plan.Resolve(ctx, o.Run.Spec, o.Run.Backend.opener())
	if err != nil {
		return err
	}
	defer r.Close()
	rec, job, err := o.prepare(r)
	if err != nil {
		return err
	}
	if err := job.Check(); err != nil {
		return usageError{err}
	}
	dir := job.RunDir
	array, merge, err := slurmScripts(job, o.Template)
	if err != nil {
		return err
	}
	if o.DryRun {
		arrayOpt := arraySpec(allTasks(o.Shards), o.Throttle)
		fmt.Fprintf(f.Out, "# plan %.12s: %d units in %d shards (%v); run directory %s\n", r.Hash, rec.Total(), o.Shards, rec.Units, dir)
		fmt.Fprintf(f.Out, "# sbatch --parsable %s %s\n%s\n", arrayOpt, filepath.Join(slurm.LogDir(dir), "array.sh"), array)
		fmt.Fprintf(f.Out, "# sbatch --parsable --dependency=afterany:<array> %s\n%s", filepath.Join(slurm.LogDir(dir), "merge.sh"), merge)
		return nil
	}
	if err := notSubmitted(dir); err != nil {
		return err
	}
	if err := writeSlurmDir(dir, array, merge); err != nil {
		return err
	}
	if err := rec.Save(dir); err != nil {
		return err
	}
	sub, err := submitJobs(ctx, slurm.Client{R: o.runner()}, dir, allTasks(o.Shards), o.Throttle, nil)
	if sub.Array != "" {
		rec.Jobs = append(rec.Jobs, sub)
		if serr := rec.Save(dir); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Out, "submitted array job %s (%d tasks: shards 1–%d of %d, %d units) and merge job %s (afterany:%s)\nrun directory %s\n  medteam slurm status %s\n",
		sub.Array, o.Shards, o.Shards, o.Shards, rec.Total(), sub.Merge, sub.Array, dir, dir)
	return nil
}

// validate checks the submit flags that need no plan.
func (o *SlurmSubmitOptions) validate() error {
	if o.Shards < 1 {
		return usagef("--shards %d: give the number of array tasks, ≥ 1", o.Shards)
	}
	if o.Throttle < 0 {
		return usagef("--throttle %d: give the tasks run at once, ≥ 1, or 0 for no limit", o.Throttle)
	}
	if o.Grace < 30*time.Second {
		return usagef("--grace %s: give at least 30s (questions in flight get %s after SIGTERM, then the journal commits)", o.Grace, graceDefault)
	}
	if err := (slurm.Job{Options: o.SlurmOpts, Merge: o.MergeOpts}).Check(); err != nil {
		return usageError{err}
	}
	return noSecretsInScripts(o.Args)
}

// prepare is the record and the job of a resolved plan: its run directory,
// the medteam binary the tasks run, the unsharded plan document.
func (o *SlurmSubmitOptions) prepare(r *plan.Resolved) (slurm.Record, slurm.Job, error) {
	dir, err := filepath.Abs(o.Run.runDir("", r))
	if err != nil {
		return slurm.Record{}, slurm.Job{}, err
	}
	bin := o.Medteam
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return slurm.Record{}, slurm.Job{}, fmt.Errorf("locating the medteam binary: %w (give --medteam PATH)", err)
		}
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return slurm.Record{}, slurm.Job{}, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return slurm.Record{}, slurm.Job{}, err
	}
	body, _, err := r.Document().Encode()
	if err != nil {
		return slurm.Record{}, slurm.Job{}, err
	}
	doc, hash, _, err := plan.Unshard(body)
	if err != nil {
		return slurm.Record{}, slurm.Job{}, err
	}
	rec := slurm.Record{Plan: hash, Document: doc, Shards: o.Shards, Units: shardUnits(r, o.Shards), Throttle: o.Throttle, HTML: o.Run.HTML, Prices: o.Run.Prices}
	job := slurm.Job{Name: "medteam-" + filepath.Base(dir), RunDir: dir, Workdir: wd, Shards: o.Shards, Medteam: bin, Args: o.Args,
		Grace: int(o.Grace / time.Second), Options: o.SlurmOpts, Merge: o.MergeOpts}
	return rec, job, nil
}

// notSubmitted refuses a run directory that already holds a submission.
func notSubmitted(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, slurm.RecordFile)); err == nil {
		return usagef("%s was already submitted: see 'medteam slurm status %s', or 'medteam slurm resubmit %s' for its unfinished shards", dir, dir, dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (o *SlurmSubmitOptions) runner() slurm.Runner {
	if o.Slurm != nil {
		return o.Slurm
	}
	return slurm.Exec{}
}

// shardUnits are the planned units of each shard of r (r unsharded): its
// questions in the shard (by the hash --shard uses) × models × arms × repeats.
func shardUnits(r *plan.Resolved, n int) []int {
	units := make([]int, n)
	per := len(r.Endpoints) * len(r.Arms) * max(1, r.Spec.Repeats)
	for _, s := range r.Sets {
		for _, q := range s.Questions {
			for i := 1; i <= n; i++ {
				if datasets.InShard(q.ID, i, n) {
					units[i-1] += per
					break
				}
			}
		}
	}
	return units
}

// slurmScripts renders the array script (from the template file, when
// given) and the merge script of job.
func slurmScripts(job slurm.Job, templateFile string) (array, merge string, err error) {
	text, name := slurm.ArrayTemplate, "array"
	if templateFile != "" {
		b, err := os.ReadFile(templateFile)
		if err != nil {
			return "", "", usagef("--template: %v", err)
		}
		text, name = string(b), templateFile
	}
	if array, err = slurm.Render(name, text, slurm.ArrayFields(job)); err != nil {
		return "", "", usageError{err}
	}
	merge, err = slurm.Render("merge", slurm.MergeTemplate, slurm.MergeFields(job))
	return array, merge, err
}

// writeSlurmDir creates the run directory with its scripts.
func writeSlurmDir(dir, array, merge string) error {
	for _, d := range []string{slurm.LogDir(dir), filepath.Join(dir, "shards")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("creating the run directory: %w", err)
		}
	}
	for name, body := range map[string]string{"array.sh": array, "merge.sh": merge} {
		if err := os.WriteFile(filepath.Join(slurm.LogDir(dir), name), []byte(body), 0o755); err != nil {
			return fmt.Errorf("writing the Slurm scripts: %w", err)
		}
	}
	return nil
}

func allTasks(n int) []int {
	t := make([]int, n)
	for i := range t {
		t[i] = i
	}
	return t
}

// arraySpec is sbatch's --array option for task ids tasks (ascending).
func arraySpec(tasks []int, throttle int) string {
	s := ""
	for i := 0; i < len(tasks); {
		j := i
		for j+1 < len(tasks) && tasks[j+1] == tasks[j]+1 {
			j++
		}
		if s != "" {
			s += ","
		}
		s += strconv.Itoa(tasks[i])
		if j > i {
			s += "-" + strconv.Itoa(tasks[j])
		}
		i = j + 1
	}
	if throttle > 0 {
		s += "%" + strconv.Itoa(throttle)
	}
	return "--array=" + s
}

// submitJobs submits the array tasks of dir's array.sh and a merge job
// that runs after them and after the still-active arrays also (afterany).
func submitJobs(ctx context.Context, c slurm.Client, dir string, tasks []int, throttle int, alsoAfter []string) (slurm.Submission, error) {
	scripts := slurm.LogDir(dir)
	sub := slurm.Submission{Tasks: tasks, At: time.Now().UTC()}
	var err error
	if sub.Array, err = c.Submit(ctx, filepath.Join(scripts, "array.sh"), arraySpec(tasks, throttle)); err != nil {
		return sub, fmt.Errorf("submitting the array: %w", err)
	}
	dep := "afterany:" + sub.Array
	for _, a := range alsoAfter {
		dep += ":" + a
	}
	if sub.Merge, err = c.Submit(ctx, filepath.Join(scripts, "merge.sh"), "--dependency="+dep); err != nil {
		return sub, fmt.Errorf("array job %s was submitted, its merge job was not: %w; submit it with 'sbatch --dependency=%s %s'", sub.Array, err, dep, filepath.Join(scripts, "merge.sh"))
	}
	return sub, nil
}

// noSecretsInScripts refuses task flags that would write a credential into
// the scripts: the key goes to the tasks through the environment, which
// sbatch passes on (--export=ALL, its default).
func noSecretsInScripts(args []string) error {
	for _, a := range args {
		if strings.HasPrefix(a, "--api-key=") {
			return usagef("--api-key would be written into the Slurm scripts: set OPENAI_API_KEY in the environment instead (sbatch passes it to the tasks)")
		}
		if v, ok := strings.CutPrefix(a, "--base-url="); ok {
			if u, err := url.Parse(v); err == nil && u.User != nil {
				return usagef("--base-url carries credentials, which would be written into the Slurm scripts: give the URL without them and the key as OPENAI_API_KEY in the environment")
			}
		}
	}
	return nil
}
