package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/teamwork"
)

type runFlags struct {
	backendFlags
	dataset     string
	configs     []string
	turns       int
	agents      int
	discussion  string
	text        bool
	limit       int
	seed        int64
	sampleSeed  int64
	repeats     int
	out         string
	parallel    int
	transcripts bool
	agentTemp   float64
	leaderTemp  float64
	maxTokens   int
}

func newRunCmd() *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run teamwork arms over a dataset and write parquet results",
		Long: `Runs every question of a dataset through each teamwork configuration (arm) and
writes results/<run-id>/{questions.parquet,calls.parquet,manifest.json}.

With no flags it runs the embedded 50-question MedQA sample with the full preset on the
simulated model (sim/default) — a simulation for demos and tests, not a model result.`,
		Example: `  medteam run
  medteam run --dataset ../shared/datasets/medqa/phrases_no_exclude_test.jsonl --config full --limit 200
  medteam run --config base,c1,c6,full --turns 3 --agents 3 --model sim/weak`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRun(cmd.Context(), f, os.Args, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dataset, "dataset", datasets.SampleName, "dataset file (MedQA JSONL) or "+datasets.SampleName+" for the embedded sample")
	f.backendFlags.register(fl)
	fl.StringSliceVar(&f.configs, "config", []string{"full"}, "teamwork configurations, comma-separated: presets "+strings.Join(teamwork.PresetNames(), ", ")+" or components joined by '+' (smm, l, to, t, mm)")
	fl.IntVar(&f.turns, "turns", 2, "discussion turns (2 or 3)")
	fl.IntVar(&f.agents, "agents", 0, "team size 2–4; 0 lets the recruiter decide (dynamic)")
	fl.StringVar(&f.discussion, "discussion", string(teamwork.RoundRobin), "discussion order: round_robin or parallel")
	fl.BoolVar(&f.text, "text", false, "ask for labelled plain-text answers instead of JSON structured output")
	fl.IntVar(&f.limit, "limit", 0, "run a deterministic sample of N questions (0 = all)")
	fl.Int64Var(&f.seed, "seed", 1, "run seed: per-call seeds derive from it")
	fl.Int64Var(&f.sampleSeed, "sample-seed", 1, "seed of the --limit sample")
	fl.IntVar(&f.repeats, "repeats", 1, "repeats of every question × arm")
	fl.StringVar(&f.out, "out", "results", "directory that receives the run directory")
	fl.IntVar(&f.parallel, "parallel", 8, "questions in flight")
	fl.BoolVar(&f.transcripts, "transcripts", false, "keep every prompt and response text in calls.parquet")
	fl.Float64Var(&f.agentTemp, "agent-temperature", 0.7, "sampling temperature of the agents")
	fl.Float64Var(&f.leaderTemp, "leader-temperature", 0.5, "sampling temperature of the recruiter and leader")
	fl.IntVar(&f.maxTokens, "max-tokens", 0, "completion token cap per call (0 = backend default)")
	return cmd
}

// arms resolves the --config list with the shared settings.
func (f *runFlags) arms() ([]runner.Arm, error) {
	base := teamwork.Default()
	base.Turns, base.Agents = f.turns, f.agents
	base.Discussion = teamwork.DiscussionMode(f.discussion)
	base.Structured = !f.text
	base.AgentTemperature, base.LeaderTemperature = f.agentTemp, f.leaderTemp
	base.MaxTokens = f.maxTokens
	var arms []runner.Arm
	seen := map[string]bool{}
	for _, spec := range f.configs {
		c, err := teamwork.ParseComponents(spec, base)
		if err != nil {
			return nil, usagef("--config %q: %v", spec, err)
		}
		label := c.Label()
		if seen[label] {
			return nil, usagef("--config lists %q twice", label)
		}
		seen[label] = true
		arms = append(arms, runner.Arm{Label: label, Config: c})
	}
	if len(arms) == 0 {
		return nil, usagef("--config is empty; give at least one configuration, e.g. --config full")
	}
	return arms, nil
}

// loadDataset returns the questions, the dataset's name and its reference.
func loadDataset(spec string) ([]datasets.Question, results.DatasetRef, error) {
	if spec == datasets.SampleName {
		qs, err := datasets.Sample()
		return qs, results.DatasetRef{Name: datasets.SampleName, Questions: len(qs), Embedded: true}, err
	}
	qs, err := datasets.LoadFile(spec)
	if err != nil {
		return nil, results.DatasetRef{}, usageError{err}
	}
	sum, err := results.FileSHA256(spec)
	if err != nil {
		return nil, results.DatasetRef{}, err
	}
	name := "medqa"
	if len(qs) > 0 && qs[0].Dataset != "" {
		name = qs[0].Dataset
	}
	return qs, results.DatasetRef{Name: name, Path: spec, SHA256: sum, Questions: len(qs)}, nil
}

func runRun(ctx context.Context, f *runFlags, argv []string, stdout, stderr io.Writer) error {
	arms, err := f.arms()
	if err != nil {
		return err
	}
	if f.parallel < 1 || f.repeats < 1 || f.limit < 0 {
		return usagef("--parallel and --repeats must be ≥ 1 and --limit ≥ 0")
	}
	qs, dref, err := loadDataset(f.dataset)
	if err != nil {
		return err
	}
	qs = datasets.Limit(qs, f.limit, f.sampleSeed)
	ep, err := openEndpoint(ctx, &f.backendFlags, qs)
	if err != nil {
		return err
	}
	defer ep.close()
	mref, simulated := ep.ref, ep.sim
	start := time.Now().UTC()
	runID := results.NewRunID(start, f.seed)
	dir := filepath.Join(f.out, runID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating run directory: %w", err)
	}
	if simulated {
		fmt.Fprintf(stderr, "SIMULATION: model %s is medteam's simulated team, not a language model; its accuracy is not a model result.\n", f.model)
	}
	fmt.Fprintf(stderr, "run %s: %d questions × %d arm(s) × %d repeat(s) on %s → %s\n", runID, len(qs), len(arms), f.repeats, f.model, dir)

	plan := runner.Plan{
		RunID: runID, Dataset: dref.Name, Questions: qs, Arms: arms, Model: f.model,
		ModelName: ep.name, Repeats: f.repeats, Seed: f.seed,
		Parallel: f.parallel, Transcripts: f.transcripts,
	}
	prog := newProgress(stderr, len(qs)*len(arms)*f.repeats, "questions")
	res, err := runner.Run(ctx, plan, ep.client, func(_, _ int, r *results.QuestionRow) { prog.add(r) })
	prog.finish()
	var fatal *runner.FatalError
	if errors.As(err, &fatal) {
		os.Remove(dir) // nothing was written; leave no empty run directory
		return fmt.Errorf("%w\n%s", err, fatalHint(fatal.Err))
	}
	if err != nil {
		return err
	}
	if err := results.WriteQuestions(filepath.Join(dir, results.QuestionsFile), res.Questions); err != nil {
		return err
	}
	if err := results.WriteCalls(filepath.Join(dir, results.CallsFile), res.Calls); err != nil {
		return err
	}
	m := manifest(f, scrubArgs(argv), runID, start, dref, mref, arms, simulated, res)
	m.Files = map[string]string{}
	for _, name := range []string{results.QuestionsFile, results.CallsFile} {
		if m.Files[name], err = results.FileSHA256(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	if err := results.WriteManifest(filepath.Join(dir, results.ManifestFile), m); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	if simulated {
		fmt.Fprintln(stdout, "SIMULATED results (sim backend; not a model result):")
	}
	if err := report.WriteTable(stdout, report.Summarize(res.Questions)); err != nil {
		return err
	}
	if ep.cache != nil {
		st := ep.cache.Stats()
		fmt.Fprintf(stdout, "\nresponse cache: %d hits, %d misses, %d writes\n", st.Hits+st.Shared, st.Misses, st.Writes)
	}
	fmt.Fprintf(stdout, "\nwrote %s (%d question rows, %d call rows)\n", dir, len(res.Questions), len(res.Calls))
	return nil
}

func manifest(f *runFlags, argv []string, runID string, start time.Time, dref results.DatasetRef, mref results.ModelRef, arms []runner.Arm, simulated bool, res *runner.Result) results.Manifest {
	version, rev, gover := results.ToolInfo()
	m := results.Manifest{
		SchemaVersion: results.SchemaVersion, RunID: runID,
		Command:   argv,
		StartedAt: start, FinishedAt: time.Now().UTC(),
		Seed: f.seed, SampleSeed: f.sampleSeed, Limit: f.limit, Parallel: f.parallel,
		Datasets: []results.DatasetRef{dref}, Models: []results.ModelRef{mref},
		Repeats: f.repeats, PromptSetHash: teamwork.PromptSetHash(), Simulated: simulated,
	}
	m.Tool.Name, m.Tool.Version, m.Tool.GitRevision, m.Tool.GoVersion = "medteam", version, rev, gover
	for _, a := range arms {
		c := a.Config
		m.Arms = append(m.Arms, results.ArmRef{
			Label: a.Label, Protocol: "teamwork", SMM: c.SMM, Leadership: c.Leadership, Orientation: c.Orientation,
			Trust: c.Trust, Monitoring: c.Monitoring, Turns: c.Turns, Discussion: string(c.Discussion),
			AgentPolicy: c.AgentPolicy(), StructuredOutput: c.Structured,
			Temperatures: map[string]float64{"agent": c.AgentTemperature, "leader": c.LeaderTemperature},
		})
	}
	m.Counts.Questions = len(res.Questions)
	m.Counts.Calls = len(res.Calls)
	for _, r := range res.Questions {
		if r.Error != "" {
			m.Counts.Errors++
		}
	}
	return m
}
