package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/medteam-bench/medteam/llm/batch"
	"github.com/medteam-bench/medteam/llm/openai"
	"github.com/medteam-bench/medteam/plan"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/runner/batchmode"
)

// batchTurnaround is the provider's completion window: the most a stage
// of a batch-mode run may take.
const batchTurnaround = 24 * time.Hour

// checkPrices checks the options and loads the price table, at batch
// rates with --batch.
func (o *RunOptions) checkPrices(s plan.Spec) (priceTable, error) {
	prices, err := o.check(s)
	if err != nil || !o.Batch {
		return prices, err
	}
	return o.checkBatch(s, prices)
}

// dryRun prints the dry run, with --batch its stages and batches too.
func (o *RunOptions) dryRun(ctx context.Context, w io.Writer, p runner.Plan, r *plan.Resolved, prices priceTable) error {
	if o.Batch {
		return batchDryRun(ctx, w, p, r, prices)
	}
	return dryRun(ctx, w, p, r, prices)
}

// checkBatch refuses --batch for models without a batch API and returns
// the price table at batch rates (so the budget, the dry run and the
// summary count batch prices).
func (o *RunOptions) checkBatch(s plan.Spec, prices priceTable) (priceTable, error) {
	if o.BatchPoll <= 0 {
		return nil, usagef("--batch-poll %s: give a positive duration (default %s)", o.BatchPoll, batch.DefaultBackoff.First)
	}
	for _, m := range s.Models {
		if provider, _, _ := strings.Cut(m, "/"); provider != "openai" {
			return nil, usagef("--batch runs through the OpenAI batch API: every --model must be openai/<model> (an OpenAI-compatible endpoint with /v1/batches), not %s", m)
		}
	}
	return prices.batchRates(), nil
}

// batcher is the batch API of the plan's OpenAI-compatible endpoint.
func batcher(baseURL, apiKey string, maxResponse int64, timeout time.Duration) (*openai.Batcher, error) {
	base := firstNonEmpty(baseURL, os.Getenv("OPENAI_BASE_URL"), defaultOpenAIBase)
	key := firstNonEmpty(apiKey, os.Getenv("OPENAI_API_KEY"))
	// timeout bounds the status polls and small calls (a dead connection
	// must not hang a run that waits for days)
	c, err := openai.New(openai.Config{BaseURL: base, APIKey: key, MaxResponseBytes: maxResponse, Timeout: timeout})
	if err != nil {
		return nil, usagef("--base-url: %v", err)
	}
	return c.Batcher(openai.BatchConfig{}), nil
}

// warnJournaledBatches says, on a synchronous (re)run of a run that sent
// provider batches, that their answers are not used: the requests go out
// again at full price while the batches may still run, and be billed.
func warnJournaledBatches(f *Factory, run *plan.Run) {
	if run == nil || run.Journal == nil {
		return
	}
	bs, err := run.Journal.Batches()
	if err != nil || len(bs) == 0 {
		return
	}
	fmt.Fprintf(f.Err, "medteam: this run sent %d provider batches (--batch); without --batch their answers are not used and the requests not yet answered are sent again at full price — stop and rerun with --batch to wait for them, or cancel them with 'medteam batches cancel'\n", len(bs))
}

// batchMode puts p's models in batch mode: one Collector for the run,
// journaled in the run's journal, behind each model's response cache. The
// returned stop ends it and prints what it sent. Without --batch it does
// nothing.
func (o *RunOptions) batchMode(ctx context.Context, f *Factory, r *plan.Resolved, run *plan.Run, p *runner.Plan, prices priceTable) (func(), error) {
	if !o.Batch {
		warnJournaledBatches(f, run)
		return func() {}, nil
	}
	if r.Spec.RetryTruncated {
		// A retry is a call the stage barrier does not see: it would be
		// sent alone, outside the stage's batch.
		return nil, usagef("--retry-truncated does not work with --batch: run the batch without it, or the run synchronously")
	}
	prov, err := batcher(r.Spec.BaseURL, o.Backend.apiKey, o.Backend.maxResponse, o.Backend.timeout)
	if err != nil {
		return nil, err
	}
	_, planHash, err := run.Journal.PlanBody()
	if err != nil {
		return nil, err
	}
	// the barrier is exact (see batchmode): no settle delay
	col, err := batchmode.New(ctx, batchmode.Config{Provider: prov, Journal: run.Journal, TagPrefix: batchmode.TagPrefix(planHash),
		Poller: batch.Poller{Backoff: batch.Backoff{First: o.BatchPoll}},
		OnBatch: func(id string, lines int, resumed bool) {
			verb := "submitted"
			if resumed {
				verb = "resuming (journaled by an earlier invocation)"
			}
			fmt.Fprintf(f.Err, "batch %s: %s, %d requests\n", id, verb, lines)
		}})
	if err != nil {
		return nil, err
	}
	closers := []func(){col.Close}
	for i, ep := range r.Endpoints {
		bep := *ep
		bep.Client, bep.Close = col, func() {}
		if err := o.Backend.wrapCache(&bep); err != nil {
			col.Close()
			return nil, err
		}
		closers = append(closers, bep.Close)
		p.Models[i].Client, p.Models[i].Spare = bep.Client, nil
	}
	p.Lockstep = col
	return func() {
		for _, c := range closers {
			c()
		}
		st := col.Stats()
		fmt.Fprintf(f.Err, "batch mode: %d stages, %d batches submitted (%d requests, %d of them retries), %d journaled batches resumed (%d adopted: created but not journaled before a kill)\n",
			st.Stages, st.Batches, st.Lines, st.Retried, st.Resumed, st.Adopted)
		writeBatchCost(f.Out, r, st, prices)
	}, nil
}

// writeBatchCost prints what the provider answered in this invocation, at
// batch rates when the price table has the model.
func writeBatchCost(w io.Writer, r *plan.Resolved, st batchmode.Stats, prices priceTable) {
	for _, ep := range r.Endpoints {
		u, ok := st.Usage[ep.Request]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "batch mode, %s: %d prompt + %d completion tokens answered by batches this invocation", ep.Ref.Name, u.PromptTokens, u.CompletionTokens)
		if price := prices.price(ep.Ref.Name); price != nil {
			fmt.Fprintf(w, ", $%.4f at batch rates", price(ep.Ref.Name, u))
		}
		fmt.Fprintln(w)
	}
}

// batchDryRun prints the dry run and the stages and batches of a
// batch-mode run, with the cost at batch rates and the turnaround bound.
func batchDryRun(ctx context.Context, w io.Writer, p runner.Plan, r *plan.Resolved, prices priceTable) error {
	if err := dryRun(ctx, w, p, r, prices); err != nil {
		return err
	}
	st, err := batchmode.DryRun(ctx, p, batchmode.Stubs(p.Arms, true))
	if err != nil {
		return err
	}
	writeBatchPlan(w, st)
	return nil
}

func writeBatchPlan(w io.Writer, st batchmode.Stats) {
	fmt.Fprintf(w, "batch mode: %d stages in lockstep, %d batches (%d distinct requests; one model per batch, at most %d requests each)\n",
		st.Stages, st.Batches, st.Lines, batch.DefaultMaxRequests)
	if st.MaxMoreStages > 0 {
		fmt.Fprintf(w, "  the stages are exact for the stub answers; answers that take every extra call the arms' formulas allow (a leader's tie-break) make at most %d stages\n", st.Stages+st.MaxMoreStages)
	}
	fmt.Fprintf(w, "  requests per stage: %v\n", st.StageLines)
	fmt.Fprintf(w, "  latency: stages × the provider's turnaround (minutes when it is idle, up to %.0f h each): at most %.0f days\n",
		batchTurnaround.Hours(), float64(st.Stages+st.MaxMoreStages)*batchTurnaround.Hours()/24)
	fmt.Fprintln(w, "  cost above at batch rates (batch_prompt / batch_completion in the price table; half the synchronous rates when not given)")
}

// batchRates is t with the batch rates as its prices: batch_prompt and
// batch_completion when given, else half the synchronous rates (OpenAI's
// batch discount). Cached prompt tokens cost the batch prompt rate (no
// cached_prompt discount on top).
func (t priceTable) batchRates() priceTable {
	if t == nil {
		return nil
	}
	out := make(priceTable, len(t))
	for m, p := range t {
		q := p
		q.CachedPrompt = nil
		q.Prompt, q.Completion = p.Prompt/2, p.Completion/2
		if p.BatchPrompt > 0 || p.BatchCompletion > 0 {
			q.Prompt, q.Completion = p.BatchPrompt, p.BatchCompletion
		}
		out[m] = q
	}
	return out
}
