package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/medteam-bench/medteam/llm/prefixcache"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/plan"
	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/runner"
)

// runRun resolves the plan, opens its run directory and executes it.
func runRun(ctx context.Context, f *Factory, o *RunOptions) error {
	s, resumed, err := o.spec()
	if err != nil {
		return err
	}
	prices, err := o.checkPrices(s)
	if err != nil {
		return err
	}
	th, err := o.thresholds()
	if err != nil {
		return err
	}
	o.Backend.offline = o.DryRun // a dry run never needs the network
	r, err := plan.Load(s)
	if err != nil {
		return err
	}
	// Before any model is opened, the run directory made or a call sent.
	if err := o.checkPlan(f.Out, th, r, prices); err != nil {
		return err
	}
	if err := r.Open(ctx, o.Backend.opener()); err != nil {
		return err
	}
	defer r.Close()
	dir := o.runDir(resumed, r)
	p := o.runnerPlan(r, filepath.Base(dir))
	for _, ep := range r.Endpoints {
		if ep.Sim {
			fmt.Fprintf(f.Err, "SIMULATION: model %s is medteam's simulated team, not a language model; its accuracy is not a model result.\n", ep.Ref.Name)
		}
	}
	if o.DryRun {
		return o.dryRun(ctx, f.Out, p, r, prices)
	}
	var retry func(string) bool
	if o.RetryErrors {
		retry = func(class string) bool { return llm.ErrorClass(class).Retryable() }
	}
	run, err := plan.Open(dir, r, scrubArgs(f.Argv), retry)
	if err != nil {
		return err
	}
	defer run.Close()
	budget, err := o.budget(ctx, p, prices)
	if err != nil {
		return err
	}
	stop, err := o.batchMode(ctx, f, r, run, &p, prices) // after the budget's estimate, which runs the plan on stubs
	if err != nil {
		return err
	}
	defer stop()
	return executePlan(ctx, f, o, r, run, p, budget)
}

// executePlan executes the plan in the open run directory and reports.
func executePlan(ctx context.Context, f *Factory, o *RunOptions, r *plan.Resolved, run *plan.Run, p runner.Plan, budget runner.Budget) error {
	if run.Retrying > 0 {
		fmt.Fprintf(f.Err, "retrying %d unit(s) that ended in a retryable error (--retry-errors=false keeps them)\n", run.Retrying)
	}
	m := plan.Manifest{Argv: scrubArgs(f.Argv), Start: time.Now().UTC(), Doc: r.Document(), Datasets: r.Datasets, Parallel: o.Parallel, Batch: o.Batch, Planned: p.Units()}
	verb := "run"
	if len(run.Done) > 0 {
		verb = fmt.Sprintf("resuming run (%d of %d units already done)", len(run.Done), p.Units())
	}
	warnLimits(f.Err, r.Datasets)
	fmt.Fprintf(f.Err, "%s %s: %d questions × %d arm(s) × %d model(s) × %d repeat(s) → %s\n", verb, run.ID, r.Questions(), len(r.Arms), len(r.Endpoints), p.Repeats, run.Dir)
	prog := newProgress(f.Err, p.Units(), "questions")
	if err := run.EachDone(prog.committed); err != nil {
		return err
	}
	prog.resumed()
	o.Backend.cacheNotes.setOut(prog.note)
	load := startLoad(r.Endpoints)
	st, runErr := runner.Execute(ctx, p, runner.Options{Sink: run.Journal, Done: run.Done, Progress: prog.add, Stop: f.Stop, Budget: budget})
	prog.finish()
	m = withEarlierCounts(m, run.Dir, st)
	defer load.report(f.Out, o.Parallel)
	exported := func(rows []results.QuestionRow) { reportAfterRun(f, o, run.Dir, rows, false) }
	if ended, err := endEarly(run, m, st, runErr, p.Units(), exported); ended {
		return err
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr
	}
	rows, calls, err := run.Export()
	if err != nil {
		return err
	}
	if err := m.Write(run.Dir, rows, calls); err != nil {
		return err
	}
	if err := summarize(f.Out, r, rows, st, budget, run.Dir); err != nil {
		return err
	}
	o.Backend.cacheNotes.summary(f.Out)
	if st.StoppedBy != "" || runErr != nil || st.Abandoned > 0 {
		why := st.StoppedBy
		if why == "" {
			why = "signal"
		}
		reportAfterRun(f, o, run.Dir, rows, false)
		return stoppedError{why: why, done: len(run.Done) + st.Finished, of: p.Units(), dir: run.Dir}
	}
	return finishRun(f, o, run.Dir, rows)
}

// finishRun ends a run that did every unit: the report, the error-rate
// check and the gate of --check (a failed gate wins over success, not over
// a failed run).
func finishRun(f *Factory, o *RunOptions, dir string, rows []results.QuestionRow) error {
	reportAfterRun(f, o, dir, rows, true)
	if err := checkErrorRate(rows, o.MaxErrorRate, dir); err != nil {
		return err
	}
	if o.Check != "" {
		return runGate(f, dir, o.Check, o.Prices)
	}
	return nil
}

// endEarly handles a run the runner stopped for good: an endpoint outage
// (what is done is exported; exit 5) or a fatal backend error (exported, or
// the directory discarded when this invocation made it and did nothing). It
// reports whether the run ended so, and the error to return. The manifest
// m records the run as incomplete (outage) or failed (fatal error);
// exported sees the rows of an export.
func endEarly(run *plan.Run, m plan.Manifest, st runner.Stats, runErr error, units int, exported func([]results.QuestionRow)) (bool, error) {
	var fatal *runner.FatalError
	var outage *runner.OutageError
	done := len(run.Done) + st.Finished
	switch {
	case errors.As(runErr, &outage):
		if err := exportIf(run, m, done > 0, exported); err != nil {
			return true, errors.Join(runErr, err)
		}
		return true, unavailableError{err: runErr, done: done, of: units, dir: run.Dir, st: st}
	case errors.As(runErr, &fatal):
		if run.Created() && st.Finished == 0 {
			run.Discard()
		} else if err := exportIf(run, m.AsFailed(), done > 0, exported); err != nil {
			return true, errors.Join(runErr, err)
		}
		return true, fmt.Errorf("%w\n%s", runErr, fatalHint(fatal.Err))
	}
	return false, nil
}

// exportIf writes the run's parquet files and its manifest m when do is
// true, and hands exported the rows.
func exportIf(run *plan.Run, m plan.Manifest, do bool, exported func([]results.QuestionRow)) error {
	if !do {
		return nil
	}
	rows, calls, err := run.Export()
	if err != nil {
		return err
	}
	if err := m.Write(run.Dir, rows, calls); err != nil {
		return err
	}
	exported(rows)
	return nil
}

// summarize prints the run's summary table and what this invocation spent.
func summarize(w io.Writer, r *plan.Resolved, rows []results.QuestionRow, st runner.Stats, budget runner.Budget, dir string) error {
	fmt.Fprintln(w)
	if r.Simulated() {
		fmt.Fprintln(w, "SIMULATED results (sim backend; not a model result):")
	}
	if err := report.WriteTable(w, report.Summarize(rows)); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nthis invocation: %d units, %d logical calls (the sum over arms), %d served by an identical earlier request or the cache, %d sent to the model endpoints; %d tokens sent (prompt + completion of the calls sent)\n",
		st.Finished, st.Calls, st.Shared, st.Calls-st.Shared, st.Tokens)
	if budget.Price != nil {
		fmt.Fprintf(w, "cost this invocation: $%.4f\n", st.SpentUSD)
	}
	printUsageMissing(w, rows, st, budget)
	fmt.Fprintf(w, "wrote %s (%d question rows)\n", dir, len(rows))
	if st.Outages > 0 {
		fmt.Fprintf(w, "the endpoint failed repeatedly %d time(s); the run waited for it and ran the affected questions again (%d extra tries, their calls kept in calls.parquet)\n", st.Outages, st.Retried)
	}
	if st.Probes > 0 {
		fmt.Fprintf(w, "%d probe request(s) of the circuit breaker reached the endpoint this invocation (%d tokens; not calls, counted in manifest.json counts.probes)\n", st.Probes, st.ProbeTokens)
	}
	if st.AbandonedAttempts > 0 {
		fmt.Fprintf(w, "%d request(s) of questions stopped before they were written reached the endpoint this invocation (%d tokens; those questions run again on resume; counted in manifest.json counts.abandoned_attempts)\n", st.AbandonedAttempts, st.AbandonedTokens)
	}
	return nil
}

// withEarlierCounts is m with the requests no row holds — the breaker's
// probes and the attempts of abandoned units, with their tokens — of this
// invocation (st) added to those the run's manifest records of earlier
// invocations (none without a manifest).
func withEarlierCounts(m plan.Manifest, dir string, st runner.Stats) plan.Manifest {
	if old, err := results.ReadManifest(filepath.Join(dir, results.ManifestFile)); err == nil {
		m.Probes, m.ProbeTokens = old.Counts.Probes, old.Counts.ProbeTokens
		m.AbandonedAttempts, m.AbandonedTokens = old.Counts.AbandonedAttempts, old.Counts.AbandonedTokens
	}
	m.Probes, m.ProbeTokens = m.Probes+st.Probes, m.ProbeTokens+st.ProbeTokens
	m.AbandonedAttempts, m.AbandonedTokens = m.AbandonedAttempts+st.AbandonedAttempts, m.AbandonedTokens+st.AbandonedTokens
	return m
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

// dryRun prints the plan's expected calls, tokens and cost.
func dryRun(ctx context.Context, w io.Writer, p runner.Plan, r *plan.Resolved, prices priceTable) error {
	var rule prefixcache.Rule
	if len(p.Models) == 1 {
		rule = prices.cacheRule(p.Models[0].Name)
	}
	est, err := runner.DryRunWith(ctx, p, runner.DryRunOptions{CacheRule: rule})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "plan %.12s: %d questions × %d arm(s) × %d model(s) × %d repeat(s) = %d units\n",
		r.Hash, r.Questions(), len(r.Arms), len(p.Models), p.Repeats, p.Units())
	if r.Spec.Agents == 0 {
		fmt.Fprintln(w, "team size is dynamic: the estimate assumes 3 agents (set --agents for exact call counts)")
	}
	fmt.Fprint(w, est.String())
	if len(p.Models) == 1 {
		if price := prices.price(p.Models[0].Name); price != nil {
			writeDryCost(w, est, p.Models[0].Name, price)
		}
	}
	fmt.Fprintln(w, "tokens are estimated as characters / 4 with typical answers; nothing was sent to any model")
	return nil
}

// warnLimits prints the datasets' notes on a --limit beyond their size.
func warnLimits(w io.Writer, ds []results.DatasetRef) {
	for _, d := range ds {
		for _, n := range d.Notes {
			if strings.HasPrefix(n, "--limit ") {
				fmt.Fprintln(w, "warning:", n)
			}
		}
	}
}

// writeDryCost prints the expected cost of the calls sent at price, with
// the expected prompt-cache discount when the estimate has a cache rule.
func writeDryCost(w io.Writer, est runner.Estimate, model string, price func(string, llm.Usage) float64) {
	lo, hi := est.Sent()
	share := est.CachedShare()
	cost := func(a runner.ArmEstimate, cached bool) float64 {
		u := usageOf(a.PromptTokens, a.CompletionTokens)
		if cached {
			u.CachedTokens, u.CachedReported = int(share*float64(a.PromptTokens)), true
		}
		return price(model, u)
	}
	span := func(cached bool) string {
		clo, chi := cost(lo, cached), cost(hi, cached)
		s := fmt.Sprintf("$%.4f", clo)
		if chi != clo {
			s += fmt.Sprintf("–$%.4f", chi)
		}
		return s
	}
	if est.CacheRule == prefixcache.None {
		fmt.Fprintf(w, "expected cost: %s (the calls sent; prices from the price table)\n", span(false))
		return
	}
	fmt.Fprintf(w, "expected prompt cache (%s rule): %.1f%% of the prompt tokens sent (%d of %d), from the prompts' layout within each question\n",
		est.CacheRule, 100*share, est.SentCached, est.SentPrompt)
	fmt.Fprintf(w, "expected cost: %s with the cached_prompt rate, %s without caching (the calls sent; prices from the price table)\n", span(true), span(false))
}
