package cli

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/batch"
	"github.com/medteam-bench/medteam/llm/cache"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/plan"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/tasks"
	"github.com/medteam-bench/medteam/teamwork"
)

// RunOptions are the settings of 'medteam run' (and of 'medteam sweep').
type RunOptions struct {
	Spec    plan.Spec // what to run: the settings that determine results
	Backend backendFlags

	Out, RunName, Resume string
	Parallel             int
	DryRun               bool
	BudgetTokens         int64
	BudgetUSD            float64
	Prices               string
	RetryErrors          bool
	NoReport             bool // skip summary.parquet and report.md at the end
	HTML                 bool // also write report.html at the end
	MaxErrorRate         float64
	Check                string // thresholds file: run 'medteam check' on the run at its end
	MaxOutage            time.Duration
	OutageProbe          time.Duration
	// Batch runs the model calls through the provider's batch API, all
	// questions in lockstep (openai/ models; see cli/batch.go); BatchPoll
	// is the first wait between polls of a batch.
	Batch     bool
	BatchPoll time.Duration
	// DataDirGiven is true when --data-dir was given: a resume takes it
	// over the recorded one (data may move between machines).
	DataDirGiven bool
}

// NewCmdRun builds 'medteam run'. runF runs the parsed options (tests pass
// a hook that records them; nil runs them).
func NewCmdRun(f *Factory, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run teamwork arms over a dataset and write parquet results (resumable)",
		Long: `Runs every question of a dataset through each teamwork configuration (arm) and
writes results/<run-name>/{journal.db,questions.parquet,calls.parquet,manifest.json} and, once
every unit is done, summary.parquet and report.md (see 'medteam report'; --no-report skips them).

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
			opts.DataDirGiven = cmd.Flags().Changed("data-dir")
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRun(cmd.Context(), f, opts)
		},
	}
	opts.register(cmd.Flags())
	return cmd
}

// register binds the run flags to o.
func (o *RunOptions) register(fl *pflag.FlagSet) {
	o.Backend.register(fl)
	fl.StringVar(&o.Spec.BaseURL, "base-url", "", "endpoint: Ollama host (default $OLLAMA_HOST or http://127.0.0.1:11434) or OpenAI-compatible base URL ending in /v1 (default $OPENAI_BASE_URL or the OpenAI API)")
	fl.IntVar(&o.Spec.NumCtx, "num-ctx", 8192, "Ollama context length (num_ctx); prompts longer than it fail with class context_length instead of being truncated")
	registerSpec(fl, &o.Spec)
	fl.StringVar(&o.Out, "out", "results", "directory that receives the run directory")
	fl.StringVar(&o.RunName, "run-name", "", "run directory name (default run-<plan hash>, so the same command resumes the same run)")
	fl.StringVar(&o.Resume, "resume", "", "resume the run in this directory with its recorded plan (other plan flags are ignored)")
	fl.IntVar(&o.Parallel, "parallel", 0, "questions in flight, fixed; 0 = follow the endpoint's capacity (at least 8, more while its limiter has free slots, at most 1024; 8 on sim)")
	fl.BoolVar(&o.DryRun, "dry-run", false, "print the plan and its expected calls, tokens (and cost with --prices) without calling any model")
	fl.Int64Var(&o.BudgetTokens, "budget-tokens", 0, "stop cleanly (resumable) before this invocation exceeds this many prompt+completion tokens")
	fl.Float64Var(&o.BudgetUSD, "budget-usd", 0, "stop cleanly (resumable) before this invocation exceeds this cost (needs --prices)")
	fl.StringVar(&o.Prices, "prices", "", "price table (YAML, see configs/prices.yaml) for cost estimates and --budget-usd")
	fl.BoolVar(&o.HTML, "html", false, "also write report.html (a self-contained offline page with plots) at the end of the run")
	fl.StringVar(&o.Check, "check", "", "thresholds file (see configs/thresholds.yaml): checked against the plan before anything is sent (one that cannot apply exits "+fmt.Sprint(exitUsage)+" at its file:line), then gates the finished run as 'medteam check' does; a failed check exits "+fmt.Sprint(exitGateFailed))
	fl.BoolVar(&o.NoReport, "no-report", false, "do not write summary.parquet and report.md at the end of the run ('medteam report DIR' writes them at any time)")
	fl.BoolVar(&o.RetryErrors, "retry-errors", true, "on resume, run again the units that ended in a retryable error (5xx, 429, timeout, network, malformed); their earlier calls stay in calls.parquet")
	fl.Float64Var(&o.MaxErrorRate, "max-error-rate", 0, "share of units (0–1) that may end in error before the run exits "+fmt.Sprint(exitUnitErrors))
	fl.DurationVar(&o.MaxOutage, "max-outage", runner.DefaultBreakerPolicy().MaxOutage, "how long an endpoint is waited for from its first failed attempt (none answered since) before the run stops (resumable, exit "+fmt.Sprint(exitUnavailable)+"); attempts in flight then get one more --timeout; 0 = the default, negative = forever")
	fl.BoolVar(&o.Batch, "batch", false, "openai/ models: send the calls as provider batches (half price, each stage of all questions within 24 h), journaled: rerun the same command to resume polling; see 'medteam batches'")
	fl.DurationVar(&o.BatchPoll, "batch-poll", batch.DefaultBackoff.First, "with --batch: first wait between polls of a batch (growing 1.5× per poll, at most 5m)")
	fl.DurationVar(&o.OutageProbe, "outage-probe", runner.DefaultBreakerPolicy().Backoff, "first wait before probing an endpoint that keeps failing; doubles up to 15s")
}

// registerSpec binds the plan flags to s.
func registerSpec(fl *pflag.FlagSet, p *plan.Spec) {
	fl.StringArrayVar(&p.Datasets, "dataset", []string{datasets.SampleName}, "dataset: a registry name ("+strings.Join(datasets.Names(), ", ")+"), a file or a folder in any supported format; repeat for several")
	fl.StringVar(&p.Format, "format", "", "dataset format instead of detection from content (see 'medteam datasets list')")
	fl.StringVar(&p.Map, "map", "", "field mapping for generic JSONL/CSV/parquet, e.g. question=stem,answer=label,options=choices")
	fl.StringVar(&p.DataDir, "data-dir", "", dataDirUsage)
	fl.IntVar(&p.MaxItemBytes, "max-item-bytes", datasets.DefaultMaxItemBytes, "cap in bytes on one item's text (stem, context, options); a longer item is a problem at its file:line (refused, or skipped with --skip-invalid). Raise it for long items")
	fl.BoolVar(&p.SkipInvalid, "skip-invalid", false, "run the valid items of a file with invalid ones (the skipped count and reasons go into the manifest) instead of refusing it")
	fl.StringVar(&p.DatasetName, "dataset-name", "", "the dataset a standardised or mapped file is a copy of (medqa, medmcqa, mmlu-pro, …): its questions then get that dataset's ids and pair with runs on the official file; question ids never come from a file's name")
	fl.StringVar(&p.Split, "split", "", "the split to read (test, dev, train, validation; '*' = all): a folder holding several splits is refused without it; for a registry name it replaces the entry's split (pubmedqa --split '*' reads all 1000)")
	fl.BoolVar(&p.Dedupe, "dedupe", false, "merge content duplicates the dataset gives distinct ids (MMLU-Pro health: 818 → 724); by default they are kept, as the published dataset counts them, and the manifest counts them")
	fl.StringVar(&p.Stratify, "stratify", "", "with --limit, sample proportionally to this metadata field (e.g. step, subject)")
	fl.StringVar(&p.Shard, "shard", "", "run shard i/n of the plan (1 ≤ i ≤ n, by question-id hash); join shards with 'medteam merge'")
	fl.BoolVar(&p.ShuffleOptions, "shuffle-options", false, "permute each question's options with a seeded permutation (gold remapped; the order is kept in option_order) to measure position bias")
	fl.StringArrayVar(&p.Models, "model", []string{"sim/default"}, "model as provider/name: sim/<profile> ("+strings.Join(sim.Profiles(), ", ")+"), ollama/<model>, openai/<model> (any OpenAI-compatible endpoint); repeat for several")
	fl.StringSliceVar(&p.Configs, "config", []string{"full"}, "arms, comma-separated: teamwork presets "+strings.Join(teamwork.PresetNames(), ", ")+" or components joined by '+' (smm, l, to, t, mm), factorial (all 24 valid teamwork combinations), or the other protocols' arms ("+otherArms()+"; options such as n=5 follow their arm)")
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
	fl.IntVar(&p.MaxTokens, "max-tokens", 0, "completion token cap per call (0 = backend default); the only bound on an answer's reasoning")
	fl.BoolVar(&p.RetryTruncated, "retry-truncated", false, "ask again, once with twice --max-tokens, for a reply cut off at its token limit (finish reason length), as an attempt of the same call; no effect with --max-tokens 0; not with --batch")
	fl.IntVar(&p.PeerChars, "peer-chars", 0, "bound in bytes on each other agent's text a prompt shows (a peer's reasoning to the leader, discussion history, debate replies); 0 = the full text")
	fl.StringVar(&p.PromptLayout, "prompt-layout", protocol.LayoutShared, "how requests are laid out: shared (what every call of a question shares — instructions, the item, the shared analysis, the first answers — first, in the same bytes, so a provider's prefix cache serves it) or source (the seeds' and papers' own order; rows as before the switch)")
	fl.BoolVar(&p.DiagnosisJudge, "diagnosis-judge", false, "on triage items, also ask the model whether the team's stated diagnosis matches the dataset's (one extra call per question, kind diagnosis_judge; diagnosis_method llm_judge)")
	fl.StringVar(&p.RedFlags, "red-flags", "", "red-flag rules the judge arm applies to triage items before any call: an embedded set's name (seed003, the default: seed 003's literal keywords; semigran: developed on the Semigran vignettes, in-sample there) or a YAML file; give it again on --resume")
	fl.StringVar(&p.FewshotFile, "fewshot-file", "", "training split (any dataset format) the mdagents arms draw their few-shot exemplars from, on MedQA datasets only as MDAgents' code does (another dataset is refused without --fewshot-any); a file sharing a question with an evaluated dataset is refused; without it they run zero-shot; give it again on --resume")
	fl.BoolVar(&p.FewshotAny, "fewshot-any", false, "with --fewshot-file: show the mdagents exemplars on datasets other than MedQA too (MDAgents' code shows them on MedQA only; recorded in the plan)")
}

// otherArms lists the named arms of the protocols besides teamwork.
func otherArms() string {
	var out []string
	for _, p := range protocols.All() {
		if p != teamwork.Protocol {
			out = append(out, p.Presets...)
		}
	}
	return strings.Join(out, ", ")
}

// spec returns the plan to run and, for a resume, its directory.
func (o *RunOptions) spec() (plan.Spec, string, error) {
	if o.Resume == "" {
		return o.Spec, "", nil
	}
	rp, err := plan.Recorded(o.Resume)
	if err != nil {
		return rp, "", err
	}
	if o.Spec.BaseURL != "" && cache.CleanBaseURL(o.Spec.BaseURL) == rp.BaseURL {
		rp.BaseURL = o.Spec.BaseURL // the recorded plan has no credentials; take them from the flag
	}
	if o.DataDirGiven {
		rp.DataDir = o.Spec.DataDir
	}
	// Not recorded in the plan (see Spec.MaxItemBytes): give it again on --resume.
	rp.MaxItemBytes = o.Spec.MaxItemBytes

	rp.RedFlags = o.Spec.RedFlags       // recorded by its hash only; a different file is a different plan
	rp.FewshotFile = o.Spec.FewshotFile // likewise
	return rp, o.Resume, nil
}

// check checks the execution settings and loads the price table.
func (o *RunOptions) check(s plan.Spec) (priceTable, error) {
	if err := checkRunName(o.RunName); err != nil {
		return nil, err
	}
	if o.Parallel < 0 {
		return nil, usagef("--parallel %d: give a number of questions in flight ≥ 1, or 0 to follow the endpoint's capacity", o.Parallel)
	}
	if o.BudgetTokens < 0 {
		return nil, usagef("--budget-tokens %d: give a number of tokens ≥ 1, or 0 for no budget", o.BudgetTokens)
	}
	if !(o.BudgetUSD >= 0 && o.BudgetUSD <= math.MaxFloat64) { // negative, NaN or infinite
		return nil, usagef("--budget-usd %g: give an amount in dollars > 0, or 0 for no budget", o.BudgetUSD)
	}
	if !(o.MaxErrorRate >= 0 && o.MaxErrorRate <= 1) { // NaN too
		return nil, usagef("--max-error-rate %g: give a share between 0 and 1 (0.02 tolerates 2%% of units in error)", o.MaxErrorRate)
	}
	var prices priceTable
	if o.Prices != "" {
		var err error
		if prices, err = loadPrices(o.Prices); err != nil {
			return nil, err
		}
	}
	for _, m := range s.Models {
		if o.BudgetUSD > 0 && prices.price(m) == nil {
			return nil, usagef("--budget-usd needs a price for %s: give --prices FILE with an entry for it (see configs/prices.yaml)", m)
		}
	}
	return prices, nil
}

// DefaultParallel is the questions in flight at least when --parallel is 0
// (the runner adds more while an endpoint's limiter has free slots).
const DefaultParallel = 8

// runnerPlan is what the runner executes of r under run id runID.
func (o *RunOptions) runnerPlan(r *plan.Resolved, runID string) runner.Plan {
	p := runner.Plan{
		RunID: runID, Sets: r.Sets, Arms: r.Arms,
		Repeats: r.Spec.Repeats, Seed: r.Spec.Seed, Parallel: o.Parallel, Transcripts: r.Spec.Transcripts,
		Tasks: tasks.All(), Judge: r.Spec.DiagnosisJudge,
		Breaker: runner.BreakerPolicy{MaxOutage: o.MaxOutage, Backoff: o.OutageProbe, Grace: o.Backend.timeout},
	}
	for _, ep := range r.Endpoints {
		p.Models = append(p.Models, runner.Model{Name: ep.Ref.Name, Request: ep.Request, Client: ep.Client, Probe: ep.Probe, Spare: ep.Spare, Attempts: ep.Gate})
	}
	if o.Parallel == 0 { // follow the endpoints' capacity
		p.Parallel, p.MaxParallel = DefaultParallel, -1
	}
	return p
}

// budget is the runner's budget for the options (zero: none).
func (o *RunOptions) budget(ctx context.Context, p runner.Plan, prices priceTable) (runner.Budget, error) {
	b := runner.Budget{Tokens: o.BudgetTokens, USD: o.BudgetUSD}
	if o.BudgetTokens <= 0 && o.BudgetUSD <= 0 {
		return b, nil
	}
	est, err := runner.DryRun(ctx, p)
	if err != nil {
		return b, err
	}
	b.Estimate = func(arm string) int64 {
		e := est.PerArm[arm].TokensPerUnit()
		return e + e/2 // the first units of an arm are reserved generously
	}
	b.Price = func(model string, u llm.Usage) float64 {
		if f := prices.price(model); f != nil {
			return f(model, u)
		}
		return 0
	}
	return b, nil
}

// runDir is the run directory: the resumed one, or out/name.
func (o *RunOptions) runDir(resumed string, r *plan.Resolved) string {
	if resumed != "" {
		return resumed
	}
	name := o.RunName
	if name == "" {
		name = "run-" + r.Hash[:12]
	}
	return filepath.Join(o.Out, name)
}
