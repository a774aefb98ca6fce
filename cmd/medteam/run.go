package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/journal"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/cache"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/rundir"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/teamwork"
)

// planFlags are the settings that determine a run's results. They are
// stored in the journal (the plan), so --resume can rebuild the run; no
// secret is among them.
type planFlags struct {
	Datasets    []string `json:"datasets"`
	Models      []string `json:"models"`
	BaseURL     string   `json:"base_url,omitempty"`
	NumCtx      int      `json:"num_ctx"`
	Configs     []string `json:"configs"`
	Turns       int      `json:"turns"`
	Agents      int      `json:"agents"`
	Discussion  string   `json:"discussion"`
	Text        bool     `json:"text"`
	Limit       int      `json:"limit"`
	Seed        int64    `json:"seed"`
	SampleSeed  int64    `json:"sample_seed"`
	Repeats     int      `json:"repeats"`
	Transcripts bool     `json:"transcripts"`
	AgentTemp   float64  `json:"agent_temperature"`
	LeaderTemp  float64  `json:"leader_temperature"`
	MaxTokens   int      `json:"max_tokens"`

	Format         string `json:"format,omitempty"`
	Map            string `json:"map,omitempty"`
	DataDir        string `json:"data_dir,omitempty"`
	SkipInvalid    bool   `json:"skip_invalid,omitempty"`
	Stratify       string `json:"stratify,omitempty"`
	Shard          string `json:"shard,omitempty"`
	ShuffleOptions bool   `json:"shuffle_options,omitempty"`
}

type runFlags struct {
	backendFlags
	plan         planFlags
	out          string
	runName      string
	resume       string
	parallel     int
	dryRun       bool
	budgetTokens int64
	budgetUSD    float64
	prices       string
	retryErrors  bool
	maxErrorRate float64
	maxOutage    time.Duration
	outageProbe  time.Duration
}

func newRunCmd(stop <-chan struct{}) *cobra.Command {
	cmd, _ := runCommand(stop)
	return cmd
}

// runCommand builds the run command and returns the flag values it binds.
func runCommand(stop <-chan struct{}) (*cobra.Command, *runFlags) {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run teamwork arms over a dataset and write parquet results (resumable)",
		Long: `Runs every question of a dataset through each teamwork configuration (arm) and
writes results/<run-name>/{journal.db,questions.parquet,calls.parquet,manifest.json}.

Each finished question is committed to the journal as it completes. Rerunning the same
command (or run --resume DIR) continues where an interrupted run stopped; a different plan
is refused in the same directory. Ctrl-C stops taking new questions, lets those in flight
finish for 20 s, saves, and exits with 130; a second Ctrl-C exits at once (still resumable).

With no flags it runs the embedded 50-question MedQA sample with the full preset on the
simulated model (sim/default) — a simulation for demos and tests, not a model result.`,
		Example: `  medteam run
  medteam run --dataset ../shared/datasets/medqa/phrases_no_exclude_test.jsonl --config full --limit 200
  medteam run --config base,c1,c6,full --turns 3 --agents 3 --model sim/weak
  medteam run --model ollama/llama3.1:8b --config base,full --limit 100 --dry-run
  medteam run --model openai/gpt-4o-mini --config full --budget-usd 5 --prices configs/prices.yaml
  medteam run --resume results/run-3f2a9c1b0d4e`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRun(cmd.Context(), cmd, f, stop, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	f.backendFlags.register(fl)
	p := &f.plan
	fl.StringArrayVar(&p.Datasets, "dataset", []string{datasets.SampleName}, "dataset: a registry name ("+strings.Join(datasets.Names(), ", ")+"), a file or a folder in any supported format; repeat for several")
	fl.StringVar(&p.Format, "format", "", "dataset format instead of detection from content (see 'medteam datasets list')")
	fl.StringVar(&p.Map, "map", "", "field mapping for generic JSONL/CSV/parquet, e.g. question=stem,answer=label,options=choices")
	fl.StringVar(&p.DataDir, "data-dir", "", "folder holding registry datasets (default $MEDTEAM_DATA)")
	fl.BoolVar(&p.SkipInvalid, "skip-invalid", false, "run the valid items of a file with invalid ones (the skipped count and reasons go into the manifest) instead of refusing it")
	fl.StringVar(&p.Stratify, "stratify", "", "with --limit, sample proportionally to this metadata field (e.g. step, subject)")
	fl.StringVar(&p.Shard, "shard", "", "run shard i/n of the plan (1 ≤ i ≤ n, by question-id hash); join shards with 'medteam merge'")
	fl.BoolVar(&p.ShuffleOptions, "shuffle-options", false, "permute each question's options with a seeded permutation (gold remapped; the order is kept in option_order) to measure position bias")
	fl.StringArrayVar(&p.Models, "model", []string{"sim/default"}, "model as provider/name: sim/<profile> ("+strings.Join(sim.Profiles(), ", ")+"), ollama/<model>, openai/<model> (any OpenAI-compatible endpoint); repeat for several")
	fl.StringSliceVar(&p.Configs, "config", []string{"full"}, "teamwork configurations, comma-separated: presets "+strings.Join(teamwork.PresetNames(), ", ")+" or components joined by '+' (smm, l, to, t, mm)")
	fl.IntVar(&p.Turns, "turns", 2, "discussion turns (2 or 3)")
	fl.IntVar(&p.Agents, "agents", 0, "team size 2–4; 0 lets the recruiter decide (dynamic)")
	fl.StringVar(&p.Discussion, "discussion", string(teamwork.RoundRobin), "discussion order: round_robin or parallel")
	fl.BoolVar(&p.Text, "text", false, "ask for labelled plain-text answers instead of JSON structured output")
	fl.IntVar(&p.Limit, "limit", 0, "run a deterministic sample of N questions (0 = all)")
	fl.Int64Var(&p.Seed, "seed", 1, "run seed: per-call seeds derive from it")
	fl.Int64Var(&p.SampleSeed, "sample-seed", 1, "seed of the --limit sample")
	fl.IntVar(&p.Repeats, "repeats", 1, "repeats of every question × arm")
	fl.BoolVar(&p.Transcripts, "transcripts", false, "keep every prompt and response text in calls.parquet")
	fl.Float64Var(&p.AgentTemp, "agent-temperature", 0.7, "sampling temperature of the agents")
	fl.Float64Var(&p.LeaderTemp, "leader-temperature", 0.5, "sampling temperature of the recruiter and leader")
	fl.IntVar(&p.MaxTokens, "max-tokens", 0, "completion token cap per call (0 = backend default)")
	fl.StringVar(&f.out, "out", "results", "directory that receives the run directory")
	fl.StringVar(&f.runName, "run-name", "", "run directory name (default run-<plan hash>, so the same command resumes the same run)")
	fl.StringVar(&f.resume, "resume", "", "resume the run in this directory with its recorded plan (other plan flags are ignored)")
	fl.IntVar(&f.parallel, "parallel", 8, "questions in flight (the endpoint's limiter bounds model calls separately)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the plan and its expected calls, tokens (and cost with --prices) without calling any model")
	fl.Int64Var(&f.budgetTokens, "budget-tokens", 0, "stop cleanly (resumable) before this invocation exceeds this many prompt+completion tokens")
	fl.Float64Var(&f.budgetUSD, "budget-usd", 0, "stop cleanly (resumable) before this invocation exceeds this cost (needs --prices)")
	fl.StringVar(&f.prices, "prices", "", "price table (YAML, see configs/prices.yaml) for cost estimates and --budget-usd")
	fl.BoolVar(&f.retryErrors, "retry-errors", true, "on resume, run again the units that ended in a retryable error (5xx, 429, timeout, network, malformed); their earlier calls stay in calls.parquet")
	fl.Float64Var(&f.maxErrorRate, "max-error-rate", 0, "share of units (0–1) that may end in error before the run exits "+fmt.Sprint(exitUnitErrors))
	fl.DurationVar(&f.maxOutage, "max-outage", runner.DefaultBreakerPolicy().MaxOutage, "how long an unreachable endpoint is waited for before the run stops (resumable, exit "+fmt.Sprint(exitUnavailable)+"); 0 = the default, negative = forever")
	fl.DurationVar(&f.outageProbe, "outage-probe", runner.DefaultBreakerPolicy().Backoff, "first wait before probing an endpoint that keeps failing; doubles up to 15s")
	return cmd, f
}

// resolved is a run's plan with its inputs loaded.
type resolved struct {
	arms  []runner.Arm
	sets  []runner.QuestionSet
	drefs []results.DatasetRef
	eps   []*endpoint
	doc   []byte // the plan document (JSON)
	hash  string
	flags planFlags
}

func (r *resolved) close() {
	for _, ep := range r.eps {
		ep.close()
	}
}

// simulated reports whether any model is the simulator.
func (r *resolved) simulated() bool {
	for _, ep := range r.eps {
		if ep.sim {
			return true
		}
	}
	return false
}

func (r *resolved) questions() int {
	n := 0
	for _, s := range r.sets {
		n += len(s.Questions)
	}
	return n
}

// protocolVersion changes whenever the protocol's behaviour changes in a way
// the prompts do not show (parsing, aggregation, the simulator), so that a
// rerun does not resume a plan started under other rules.
const protocolVersion = 2

// planDoc is what identifies a plan: its settings, the datasets' content
// hashes, the models' digests, the prompts and the protocol version.
type planDoc struct {
	Flags           planFlags            `json:"flags"`
	Datasets        []results.DatasetRef `json:"datasets"`
	Models          []results.ModelRef   `json:"models"`
	PromptSetHash   string               `json:"prompt_set_hash"`
	ProtocolVersion int                  `json:"protocol_version"`
	Arms            []results.ArmRef     `json:"arms"`
}

func (p planFlags) arms() ([]runner.Arm, error) {
	if err := p.checkTeamFlags(); err != nil {
		return nil, err
	}
	base := teamwork.Default()
	base.Turns, base.Agents = p.Turns, p.Agents
	base.Discussion = teamwork.DiscussionMode(p.Discussion)
	base.Structured = !p.Text
	base.AgentTemperature, base.LeaderTemperature = p.AgentTemp, p.LeaderTemp
	base.MaxTokens = p.MaxTokens
	var arms []runner.Arm
	seen := map[string]bool{}
	for _, spec := range p.Configs {
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

// loadDataset reads a dataset (registry name, file or folder) and returns
// its questions and reference.
func loadDataset(spec string, p planFlags) ([]qa.Question, results.DatasetRef, error) {
	src, err := resolveSource(spec, p.Format, p.Map, p.DataDir)
	if err != nil {
		return nil, results.DatasetRef{}, err
	}
	res, err := datasets.Load(src, datasets.LoadOptions{SkipInvalid: p.SkipInvalid})
	if err != nil {
		return nil, results.DatasetRef{}, usageError{fmt.Errorf("%w\n(fix the file, or pass --skip-invalid to run the valid items and record the rest)", err)}
	}
	qs := res.Questions
	if len(qs) == 0 {
		return nil, results.DatasetRef{}, noQuestions(spec, res) // before any run directory exists
	}
	ref := results.DatasetRef{Name: spec, Path: src.Path, Questions: len(qs), Format: string(res.Format), Files: res.Files,
		Records: res.Valid, Skipped: res.Skipped, Notes: res.Notes, DuplicatesCollapsed: res.DuplicatesCollapsed}
	if res.Skipped > 0 {
		ref.SkipReasons = res.Reasons
	}
	if len(qs) > 0 && qs[0].Dataset != "" && spec != datasets.SampleName {
		ref.Name = qs[0].Dataset
	}
	if src.Embedded() {
		ref.Embedded, ref.SHA256 = true, datasets.SampleSHA256() // sha256sum of the embedded file
	} else if ref.SHA256, ref.FileSHA256, err = results.DatasetSHA256(src.Path, res.Files); err != nil {
		return nil, ref, err
	}
	return qs, ref, nil
}

// selectQuestions applies the plan's sampling, option shuffling and shard to
// a loaded set.
func selectQuestions(name string, qs []qa.Question, p planFlags) (runner.QuestionSet, error) {
	if p.Stratify != "" && p.Limit > 0 {
		qs = datasets.StratifiedLimit(qs, p.Limit, p.SampleSeed, p.Stratify)
	} else {
		qs = datasets.Limit(qs, p.Limit, p.SampleSeed)
	}
	if p.ShuffleOptions {
		for i := range qs {
			qs[i], _ = datasets.ShuffleOptions(qs[i], p.SampleSeed)
		}
	}
	set := runner.QuestionSet{Name: name, Questions: qs}
	if p.Shard != "" {
		i, n, err := datasets.ParseShard(p.Shard)
		if err != nil {
			return set, usagef("--shard: %v", err)
		}
		set.Total = len(qs)
		set.Questions = nil
		for k, q := range qs {
			if datasets.InShard(q.ID, i, n) {
				set.Questions = append(set.Questions, q)
				set.Index = append(set.Index, k)
			}
		}
	}
	return set, nil
}

func resolve(ctx context.Context, p planFlags, b *backendFlags) (*resolved, error) {
	arms, err := p.arms()
	if err != nil {
		return nil, err
	}
	if p.Repeats < 1 || p.Limit < 0 {
		return nil, usagef("--repeats must be ≥ 1 and --limit ≥ 0")
	}
	if len(p.Datasets) == 0 || len(p.Models) == 0 {
		return nil, usagef("give at least one --dataset and one --model")
	}
	r := &resolved{arms: arms, flags: p}
	var all []qa.Question
	seen := map[string]bool{}
	for _, spec := range p.Datasets {
		qs, dref, err := loadDataset(spec, p)
		if err != nil {
			return nil, err
		}
		if seen[dref.Name] {
			dref.Name += "#" + strconv.Itoa(len(r.sets)+1)
		}
		seen[dref.Name] = true
		set, err := selectQuestions(dref.Name, qs, p)
		if err != nil {
			return nil, err
		}
		dref.Questions, dref.Shard = len(set.Questions), p.Shard
		r.sets = append(r.sets, set)
		r.drefs = append(r.drefs, dref)
		all = append(all, set.Questions...)
	}
	bb := *b
	bb.baseURL, bb.numCtx = p.BaseURL, p.NumCtx
	var mrefs []results.ModelRef
	for _, m := range p.Models {
		ep, err := openEndpoint(ctx, m, &bb, all)
		if err != nil {
			r.close()
			return nil, err
		}
		r.eps = append(r.eps, ep)
		mrefs = append(mrefs, ep.ref)
	}
	// The plan document identifies the plan: it carries no credentials (a
	// base URL's userinfo is dropped) and nothing machine-specific (dataset
	// files are identified by content, not by where they are mounted), so
	// shards on different machines and reruns after unrelated commits match.
	docFlags := p
	docFlags.BaseURL = cache.CleanBaseURL(p.BaseURL)
	docFlags.DataDir = ""
	docSets := make([]results.DatasetRef, len(r.drefs))
	for i, d := range r.drefs {
		d.Path, d.Files, d.FileSHA256 = "", nil, nil
		docSets[i] = d
	}
	doc := planDoc{Flags: docFlags, Datasets: docSets, Models: mrefs,
		PromptSetHash: teamwork.PromptSetHash(), ProtocolVersion: protocolVersion, Arms: armRefs(arms)}
	if r.doc, err = json.MarshalIndent(doc, "", "  "); err != nil {
		r.close()
		return nil, err
	}
	sum := sha256.Sum256(r.doc)
	r.hash = hex.EncodeToString(sum[:])
	return r, nil
}

func armRefs(arms []runner.Arm) []results.ArmRef {
	var out []results.ArmRef
	for _, a := range arms {
		c := a.Config
		out = append(out, results.ArmRef{
			Label: a.Label, Protocol: "teamwork", SMM: c.SMM, Leadership: c.Leadership, Orientation: c.Orientation,
			Trust: c.Trust, Monitoring: c.Monitoring, Turns: c.Turns, Discussion: string(c.Discussion),
			AgentPolicy: c.AgentPolicy(), StructuredOutput: c.Structured,
			Temperatures: map[string]float64{"agent": c.AgentTemperature, "leader": c.LeaderTemperature},
		})
	}
	return out
}

// recordedPlan reads the plan flags of an existing run directory.
func recordedPlan(dir string) (planFlags, error) {
	if _, err := os.Stat(filepath.Join(dir, journal.FileName)); err != nil {
		return planFlags{}, usagef("--resume %s: no %s there (%v)", dir, journal.FileName, err)
	}
	j, err := journal.OpenExisting(dir)
	if err != nil {
		return planFlags{}, err
	}
	defer j.Close()
	body, _, err := j.PlanBody()
	if err != nil {
		return planFlags{}, err
	}
	var doc planDoc
	if err := json.Unmarshal(body, &doc); err != nil {
		return planFlags{}, fmt.Errorf("--resume %s: the recorded plan does not decode: %w", dir, err)
	}
	return doc.Flags, nil
}

func runRun(ctx context.Context, cmd *cobra.Command, f *runFlags, stop <-chan struct{}, stdout, stderr io.Writer) error {
	p := f.plan
	p.BaseURL, p.NumCtx = f.baseURL, f.numCtx
	dir := ""
	if f.resume != "" {
		rp, err := recordedPlan(f.resume)
		if err != nil {
			return err
		}
		if f.baseURL != "" && cache.CleanBaseURL(f.baseURL) == rp.BaseURL {
			rp.BaseURL = f.baseURL // the recorded plan has no credentials; take them from the flag
		}
		if cmd.Flags().Changed("data-dir") {
			rp.DataDir = f.plan.DataDir
		}
		p, dir = rp, f.resume
	}
	if f.parallel < 1 {
		return usagef("--parallel must be ≥ 1")
	}
	if f.maxErrorRate < 0 || f.maxErrorRate > 1 {
		return usagef("--max-error-rate %g: give a share between 0 and 1 (0.02 tolerates 2%% of units in error)", f.maxErrorRate)
	}
	var prices priceTable
	if f.prices != "" {
		var err error
		if prices, err = loadPrices(f.prices); err != nil {
			return err
		}
	}
	for _, m := range p.Models {
		if f.budgetUSD > 0 && prices.price(m) == nil {
			return usagef("--budget-usd needs a price for %s: give --prices FILE with an entry for it (see configs/prices.yaml)", m)
		}
	}
	r, err := resolve(ctx, p, &f.backendFlags)
	if err != nil {
		return err
	}
	defer r.close()
	if dir == "" {
		name := f.runName
		if name == "" {
			name = "run-" + r.hash[:12]
		}
		dir = filepath.Join(f.out, name)
	}
	runID := filepath.Base(dir)
	plan := runner.Plan{
		RunID: runID, Sets: r.sets, Arms: r.arms,
		Repeats: p.Repeats, Seed: p.Seed, Parallel: f.parallel, Transcripts: p.Transcripts,
		Breaker: runner.BreakerPolicy{MaxOutage: f.maxOutage, Backoff: f.outageProbe},
	}
	for _, ep := range r.eps {
		plan.Models = append(plan.Models, runner.Model{Name: ep.ref.Name, Request: ep.name, Client: ep.client, Probe: ep.probe})
		if ep.sim {
			fmt.Fprintf(stderr, "SIMULATION: model %s is medteam's simulated team, not a language model; its accuracy is not a model result.\n", ep.ref.Name)
		}
	}
	if f.dryRun {
		return dryRun(ctx, stdout, plan, r, prices)
	}

	_, statErr := os.Stat(dir)
	created := os.IsNotExist(statErr)
	lock, err := rundir.Acquire(dir, scrubArgs(os.Args))
	if err != nil {
		return err
	}
	defer lock.Release()
	j, err := journal.Open(dir, r.hash, r.doc)
	var mismatch *journal.PlanMismatchError
	if errors.As(err, &mismatch) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	defer j.Close()
	var retry func(string) bool
	if f.retryErrors {
		retry = func(class string) bool { return llm.ErrorClass(class).Retryable() }
	}
	done, err := j.Done(retry)
	if err != nil {
		return err
	}
	if all, err := j.Totals(); err == nil && int(all.Units) > len(done) {
		fmt.Fprintf(stderr, "retrying %d unit(s) that ended in a retryable error (--retry-errors=false keeps them)\n", int(all.Units)-len(done))
	}
	start := time.Now().UTC()
	verb := "run"
	if len(done) > 0 {
		verb = fmt.Sprintf("resuming run (%d of %d units already done)", len(done), plan.Units())
	}
	fmt.Fprintf(stderr, "%s %s: %d questions × %d arm(s) × %d model(s) × %d repeat(s) → %s\n", verb, runID, r.questions(), len(r.arms), len(r.eps), p.Repeats, dir)

	budget := runner.Budget{Tokens: f.budgetTokens, USD: f.budgetUSD}
	if f.budgetTokens > 0 || f.budgetUSD > 0 {
		est, err := runner.DryRun(ctx, plan)
		if err != nil {
			return err
		}
		budget.Estimate = func(arm string) int64 {
			e := est.PerArm[arm].TokensPerUnit()
			return e + e/2 // the first units of an arm are reserved generously
		}
		budget.Price = func(model string, u llm.Usage) float64 {
			if f := prices.price(model); f != nil {
				return f(model, u)
			}
			return 0
		}
	}
	prog := newProgress(stderr, plan.Units(), "questions")
	prog.skip(len(done))
	st, runErr := runner.Execute(ctx, plan, runner.Options{Sink: j, Done: done, Progress: prog.add, Stop: stop, Budget: budget})
	prog.finish()
	var fatal *runner.FatalError
	var outage *runner.OutageError
	if errors.As(runErr, &outage) {
		if len(done)+st.Finished > 0 {
			if _, err := exportRun(j, dir); err != nil {
				return errors.Join(runErr, err)
			}
		}
		return unavailableError{err: runErr, done: len(done) + st.Finished, of: plan.Units(), dir: dir}
	}
	if errors.As(runErr, &fatal) {
		if created && st.Finished == 0 {
			// This invocation made the directory and did nothing in it: leave
			// no empty run directory (journal files only; never anything else).
			j.Close()
			for _, f := range []string{journal.FileName, journal.FileName + "-wal", journal.FileName + "-shm", rundir.LockFile} {
				os.Remove(filepath.Join(dir, f))
			}
			os.Remove(dir) // fails, harmlessly, unless empty
		} else if len(done)+st.Finished > 0 {
			if _, err := exportRun(j, dir); err != nil {
				return errors.Join(runErr, err)
			}
		}
		return fmt.Errorf("%w\n%s", runErr, fatalHint(fatal.Err))
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr
	}

	rows, err := exportRun(j, dir)
	if err != nil {
		return err
	}
	if err := writeManifest(dir, scrubArgs(os.Args), runID, start, r, f.parallel, rows); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	if r.simulated() {
		fmt.Fprintln(stdout, "SIMULATED results (sim backend; not a model result):")
	}
	if err := report.WriteTable(stdout, report.Summarize(rows)); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nthis invocation: %d units, %d logical calls (the sum over arms), %d served by an identical earlier request or the cache, %d sent to the model endpoints; %d tokens\n",
		st.Finished, st.Calls, st.Shared, st.Calls-st.Shared, st.Tokens)
	if budget.Price != nil {
		fmt.Fprintf(stdout, "cost this invocation: $%.4f\n", st.SpentUSD)
	}
	printUsageMissing(stdout, rows, st, budget)
	fmt.Fprintf(stdout, "wrote %s (%d question rows)\n", dir, len(rows))
	if st.Outages > 0 {
		fmt.Fprintf(stdout, "the endpoint failed repeatedly %d time(s); the run waited for it and ran the affected questions again (%d extra tries, their calls kept in calls.parquet)\n", st.Outages, st.Retried)
	}
	if st.StoppedBy != "" || runErr != nil || st.Abandoned > 0 {
		why := st.StoppedBy
		if why == "" {
			why = "signal"
		}
		return stoppedError{why: why, done: len(done) + st.Finished, of: plan.Units(), dir: dir}
	}
	return checkErrorRate(rows, f.maxErrorRate, dir)
}

// checkErrorRate fails a finished run whose share of units in error exceeds
// the tolerated one, saying which classes and how to retry them.
func checkErrorRate(rows []results.QuestionRow, tolerated float64, dir string) error {
	classes := map[string]int{}
	n, retryable := 0, 0
	for _, q := range rows {
		if q.Error == "" {
			continue
		}
		n++
		classes[q.ErrorClass]++
		if llm.ErrorClass(q.ErrorClass).Retryable() {
			retryable++
		}
	}
	if n == 0 || float64(n) <= tolerated*float64(len(rows)) {
		return nil
	}
	return unitErrorsError{errors: n, of: len(rows), classes: classes, retryable: retryable, tolerated: tolerated, dir: dir}
}

// exportRun writes the parquet files from the journal and returns the
// question rows (for the summary).
func exportRun(j *journal.Journal, dir string) ([]results.QuestionRow, error) {
	if _, _, err := j.Export(dir); err != nil {
		return nil, err
	}
	return results.ReadQuestions(filepath.Join(dir, results.QuestionsFile))
}

func writeManifest(dir string, argv []string, runID string, start time.Time, r *resolved, parallel int, rows []results.QuestionRow) error {
	version, rev, gover := results.ToolInfo()
	p := r.flags
	m := results.Manifest{
		SchemaVersion: results.SchemaVersion, RunID: runID, Command: argv,
		StartedAt: start, FinishedAt: time.Now().UTC(),
		Seed: p.Seed, SampleSeed: p.SampleSeed, Limit: p.Limit, Parallel: parallel,
		Datasets: r.drefs, Repeats: p.Repeats, PromptSetHash: teamwork.PromptSetHash(), Simulated: r.simulated(),
		Arms: armRefs(r.arms),
	}
	for _, ep := range r.eps {
		m.Models = append(m.Models, ep.ref)
	}
	m.Tool.Name, m.Tool.Version, m.Tool.GitRevision, m.Tool.GoVersion = "medteam", version, rev, gover
	m.Counts.Questions = len(rows)
	for _, q := range rows {
		m.Counts.Calls += int(q.Calls)
		if q.Error != "" {
			m.Counts.Errors++
		}
	}
	var err error
	if m.Files, err = results.FileHashes(dir, results.QuestionsFile, results.CallsFile); err != nil {
		return err
	}
	return results.WriteManifest(filepath.Join(dir, results.ManifestFile), m)
}

func dryRun(ctx context.Context, w io.Writer, plan runner.Plan, r *resolved, prices priceTable) error {
	est, err := runner.DryRun(ctx, plan)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "plan %.12s: %d questions × %d arm(s) × %d model(s) × %d repeat(s) = %d units\n",
		r.hash, r.questions(), len(r.arms), len(plan.Models), plan.Repeats, plan.Units())
	if r.flags.Agents == 0 {
		fmt.Fprintln(w, "team size is dynamic: the estimate assumes 3 agents (set --agents for exact call counts)")
	}
	fmt.Fprint(w, est.String())
	if len(plan.Models) == 1 {
		if price := prices.price(plan.Models[0].Name); price != nil {
			fmt.Fprintf(w, "expected cost: $%.4f (prices from the price table)\n", price(plan.Models[0].Name, usageOf(est.PromptTokens, est.Completion)))
		}
	}
	fmt.Fprintln(w, "tokens are estimated as characters / 4 with typical answers; nothing was sent to any model")
	return nil
}
