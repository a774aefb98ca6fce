package batchmode

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/batch"
)

// stage sends the calls of one barrier: those held by a batch already
// submitted (this invocation or a journaled one) are answered from it, the
// others are submitted; then every batch of the stage is polled and its
// results routed.
func (c *Collector) stage(ctx context.Context, calls []*call) {
	byBatch, fresh := c.partition(calls)
	var await []string
	resumed := map[string]bool{}
	for id, cls := range byBatch {
		c.mu.Lock()
		rb, read := c.results[id]
		c.mu.Unlock()
		if read {
			c.route(rb.res, rb.state, cls, true)
			continue
		}
		await = append(await, id)
		resumed[id] = true
		c.noteResumed(id, len(cls))
	}
	for id, cls := range c.submit(ctx, fresh) {
		byBatch[id] = cls
		await = append(await, id)
	}
	if len(await) > 0 {
		c.await(ctx, await, byBatch, resumed)
	}
}

// partition counts a try of each call and splits the calls into those a
// journaled batch holds (by batch) and the fresh ones.
func (c *Collector) partition(calls []*call) (map[string][]*call, []*call) {
	byBatch := map[string][]*call{}
	var fresh []*call
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cl := range calls {
		cl.tries++
		if id, ok := c.known[cl.hash]; ok {
			byBatch[id] = append(byBatch[id], cl)
			c.stats.FromBatch++
			continue
		}
		fresh = append(fresh, cl)
	}
	return byBatch, fresh
}

// await polls the batches ids until each ends and routes its results to
// its calls; a batch that cannot be polled or read fails its calls (or
// requeues them, when the error is retryable, or the batch was journaled by
// an earlier invocation and the provider no longer knows it). When ctx
// ends, the calls' own contexts end them.
func (c *Collector) await(ctx context.Context, ids []string, byBatch map[string][]*call, resumed map[string]bool) {
	routed := map[string]bool{}
	err := c.cfg.Poller.WaitAll(ctx, ids, func(st batch.Status) error {
		routed[st.ID] = true
		if st.State == batch.Failed { // no output: the provider's reasons are the lines' error
			for _, cl := range byBatch[st.ID] { // each line reached the provider: an attempt
				c.settle(cl, batch.Result{CustomID: cl.hash, Response: llm.Response{Attempts: 1}, Err: failedBatch(st)})
			}
			return nil
		}
		res, err := c.read(ctx, st)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			c.unreadable(st.ID, byBatch[st.ID], err)
			return nil
		}
		if resumed[st.ID] { // its lines may be asked for at later stages
			c.mu.Lock()
			c.results[st.ID] = readBatch{res: res, state: st.State}
			c.mu.Unlock()
		}
		c.route(res, st.State, byBatch[st.ID], resumed[st.ID])
		return nil
	})
	if err != nil && ctx.Err() == nil {
		for _, id := range ids {
			if !routed[id] {
				c.unreadable(id, byBatch[id], err)
			}
		}
	}
}

// read reads the results of the ended batch st, through up to MaxTries
// retryable failures in a row (a read timing out on a loaded machine),
// waiting between them as the poller does: within the stage, so that its
// calls are answered at their stage and their units do not fall one
// behind the others (which would cost a stage, and a batch, more).
func (c *Collector) read(ctx context.Context, st batch.Status) (map[string]batch.Result, error) {
	clock := c.cfg.Poller.Clock
	if clock == nil {
		clock = batch.SystemClock{}
	}
	for n := 0; ; n++ {
		res, err := c.cfg.Provider.Results(ctx, st)
		if err == nil || !llm.ClassOf(err).Retryable() || n+1 >= c.cfg.MaxTries || ctx.Err() != nil {
			return res, err
		}
		if serr := clock.Sleep(ctx, c.cfg.Poller.Backoff.Delay(n)); serr != nil {
			return res, err
		}
	}
}

// unreadable handles a batch that could not be polled or whose results
// could not be read. A batch the provider no longer knows (404: never
// submitted as journaled, or its files are gone) has its lines sent again.
// Any other error keeps the lines on the batch: the next stage polls the
// same batch again instead of submitting them twice (the batch may still be
// running, and is billed), up to MaxTries such rounds per line; then the
// lines fail with err.
func (c *Collector) unreadable(id string, calls []*call, err error) {
	if llm.ClassOf(err) == llm.ClassNotFound {
		// the batch's 404 is not the model's: never a fatal model error
		err = &llm.Error{Class: llm.ClassServer, Unsent: true, Err: fmt.Errorf("batch %s or its files are gone at the provider: %w", id, err)}
		for _, cl := range calls {
			c.settle(cl, batch.Result{CustomID: cl.hash, Err: err, Resubmit: true})
		}
		return
	}
	c.mu.Lock()
	var fail []*call
	for _, cl := range calls {
		cl.pollRounds++
		if cl.pollRounds >= c.cfg.MaxTries {
			fail = append(fail, cl)
			continue
		}
		cl.tries-- // polling the same batch again is not another send
		cl.queued = true
		c.known[cl.hash] = id
	}
	c.mu.Unlock()
	c.failAll(fail, err)
}

// failedBatch is the error of the lines of a batch the provider failed as a
// whole (validation, the queued-token limit), from its reasons: retryable
// (rate limited) when the provider was only out of capacity.
func failedBatch(st batch.Status) error {
	why := strings.Join(st.Errors, "; ")
	if why == "" {
		why = "no reason given"
	}
	class := llm.ClassBadRequest
	if strings.Contains(why, "token_limit") || strings.Contains(why, "rate_limit") {
		class = llm.ClassRateLimited
	}
	return &llm.Error{Class: class, Err: fmt.Errorf("batch %s failed: %s", st.ID, why)}
}

// noteResumed counts a journaled batch awaited instead of resubmitted.
func (c *Collector) noteResumed(id string, n int) {
	c.mu.Lock()
	c.stats.Resumed++
	c.mu.Unlock()
	if c.cfg.OnBatch != nil {
		c.cfg.OnBatch(id, n, true)
	}
}

// submit cuts the calls at the provider's limits, submits each chunk and
// journals it before anything polls it; it returns the calls of each batch
// submitted. A chunk that cannot be submitted fails (or requeues) its calls.
func (c *Collector) submit(ctx context.Context, calls []*call) map[string][]*call {
	out := map[string][]*call{}
	if len(calls) == 0 {
		return out
	}
	idx := make(map[string]*call, len(calls))
	for _, cl := range calls {
		idx[cl.hash] = cl
	}
	for _, chunk := range c.chunks(calls) {
		cls := make([]*call, len(chunk))
		ids := make([]string, len(chunk))
		for i, l := range chunk {
			cls[i], ids[i] = idx[l.CustomID], l.CustomID
		}
		ref, err := c.submitOne(ctx, chunk, ids)
		if err != nil {
			c.failAll(cls, err)
			continue
		}
		c.mu.Lock()
		c.stats.Batches++
		c.stats.Lines += len(chunk)
		c.stats.BatchLines = append(c.stats.BatchLines, len(chunk))
		c.mu.Unlock()
		if c.cfg.OnBatch != nil {
			c.cfg.OnBatch(ref.ID, len(chunk), false)
		}
		out[ref.ID] = cls
	}
	return out
}

// submitOne submits a chunk and journals the batch. Both run to the end
// even when ctx is canceled meanwhile (bounded by submitTimeout): a batch
// the provider accepted must be in the journal, or a rerun would send it
// again and it would be billed twice.
func (c *Collector) submitOne(ctx context.Context, chunk []batch.Line, ids []string) (batch.Ref, error) {
	if err := ctx.Err(); err != nil {
		return batch.Ref{}, &llm.Error{Class: llm.ClassCanceled, Unsent: true, Err: err}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), submitTimeout)
	defer cancel()
	tg, tagged := c.cfg.Provider.(batch.Tagger)
	pj, pending := c.cfg.Journal.(PendingJournal)
	if tagged && pending {
		return c.submitTagged(ctx, tg, pj, chunk, ids)
	}
	ref, err := c.cfg.Provider.Submit(ctx, chunk)
	if err == nil && c.cfg.Journal != nil {
		if jerr := c.cfg.Journal.SaveBatch(ref.ID, ref.InputFileID, ids); jerr != nil {
			_, _ = c.cfg.Provider.Cancel(ctx, ref.ID) // not journaled: it must not run unseen
			err = &llm.Error{Class: llm.ClassInternal, Err: fmt.Errorf("journaling batch %s (cancelled it): %w", ref.ID, jerr)}
		}
	}
	return ref, err
}

// submitTimeout bounds one upload and submission.
const submitTimeout = 10 * time.Minute

// chunks cuts the calls into batches: one model per batch (as OpenAI
// requires), each cut at the provider's limits. Calls that cannot be cut
// (a line larger than a batch) fail.
func (c *Collector) chunks(calls []*call) [][]batch.Line {
	byModel := map[string][]batch.Line{}
	var models []string
	for _, cl := range calls {
		m := cl.req.Model
		if _, ok := byModel[m]; !ok {
			models = append(models, m)
		}
		byModel[m] = append(byModel[m], batch.Line{CustomID: cl.hash, Request: cl.req})
	}
	slices.Sort(models)
	var out [][]batch.Line
	for _, m := range models {
		chunks, err := batch.Chunks(c.cfg.Provider, byModel[m])
		if err != nil {
			chunks, err = batch.Chunks(c.cfg.Provider, c.dropUnsendable(byModel[m]))
		}
		if err != nil { // not one line's fault after all: the model's lines fail
			for _, l := range byModel[m] {
				if cl := c.callOf(l.CustomID); cl != nil {
					c.settle(cl, batch.Result{CustomID: l.CustomID, Err: lineError(err)})
				}
			}
			continue
		}
		out = append(out, chunks...)
	}
	return out
}

// dropUnsendable fails the lines that cannot go into any batch (too large,
// or a request the provider's client refuses), each with its own error, as
// a synchronous call would fail alone, and returns the others.
func (c *Collector) dropUnsendable(lines []batch.Line) []batch.Line {
	var keep []batch.Line
	for _, l := range lines {
		if _, err := batch.Chunks(c.cfg.Provider, []batch.Line{l}); err != nil {
			if cl := c.callOf(l.CustomID); cl != nil {
				c.settle(cl, batch.Result{CustomID: l.CustomID, Err: lineError(err)})
			}
			continue
		}
		keep = append(keep, l)
	}
	return keep
}

// lineError keeps a classified error's class; anything else is a bad request.
func lineError(err error) error {
	var e *llm.Error
	if errors.As(err, &e) {
		return err
	}
	return &llm.Error{Class: llm.ClassBadRequest, Unsent: true, Err: err}
}

// callOf is the unresolved call of hash h.
func (c *Collector) callOf(h string) *call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[h]
}

// route settles each call with its result in res, from a batch that ended
// in state; a call without one is answered by unanswered. A line a
// cancelled batch did not run is resubmitted when an earlier invocation
// journaled the batch (the run was resumed after 'medteam batches
// cancel'); in this invocation a cancel stops its questions instead: they
// end canceled, uncommitted, for a later run to resume.
func (c *Collector) route(res map[string]batch.Result, state batch.State, calls []*call, resumed bool) {
	for _, cl := range calls {
		r, ok := res[cl.hash]
		if !ok {
			r = unanswered(cl.hash, state)
		}
		switch {
		case errors.Is(r.Err, batch.ErrCancelled) && resumed:
			r.Resubmit = true
		case errors.Is(r.Err, batch.ErrCancelled):
			r.Err = &llm.Error{Class: llm.ClassCanceled, Err: fmt.Errorf("%w: %w", batch.ErrCancelled, context.Canceled)}
		}
		c.settle(cl, r)
	}
}

// unanswered is the result of a line that the result files of its batch,
// ended in state, do not list. The provider received it (it is in the
// batch's input file) and answered nothing: an attempt without tokens —
// expired (sent again) when the batch expired, cancelled when it was
// cancelled, else malformed (a line of the files that could not be read;
// sent again).
func unanswered(id string, state batch.State) batch.Result {
	r := batch.Result{CustomID: id, Response: llm.Response{Attempts: 1}}
	switch state {
	case batch.Expired:
		r.Err = &llm.Error{Class: llm.ClassExpired, Err: batch.ErrExpired}
	case batch.Cancelled:
		r.Err = &llm.Error{Class: llm.ClassCanceled, Err: batch.ErrCancelled}
	default:
		r.Err = &llm.Error{Class: llm.ClassMalformed, Err: fmt.Errorf("the batch ended %s without a readable result for this line", state)}
	}
	return r
}

// failAll settles every call with err.
func (c *Collector) failAll(calls []*call, err error) {
	for _, cl := range calls {
		c.settle(cl, batch.Result{CustomID: cl.hash, Err: err})
	}
}

// settle ends a call with r, or queues it for the next stage when r's error
// is retryable (or the provider asks) and the call has tries left.
func (c *Collector) settle(cl *call, r batch.Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl.attempts += r.Response.Attempts
	u := c.stats.Usage[cl.req.Model]
	u.PromptTokens += r.Response.Usage.PromptTokens
	u.CompletionTokens += r.Response.Usage.CompletionTokens
	c.stats.Usage[cl.req.Model] = u
	if r.Err == nil {
		cl.resp = r.Response
		cl.resp.Attempts, cl.resp.AttemptErrors = cl.attempts, cl.errs
		c.resolve(cl)
		return
	}
	class := llm.ClassOf(r.Err)
	if r.Response.Attempts > 0 { // a line the provider received, run or not; not one never sent
		cl.errs = append(cl.errs, class)
	}
	if (r.Resubmit || class.Retryable()) && cl.tries < c.cfg.MaxTries {
		cl.queued = true
		delete(c.known, cl.hash)
		c.stats.Retried++
		return
	}
	cl.resp = llm.Response{Attempts: cl.attempts, AttemptErrors: cl.errs}
	cl.err = r.Err
	c.resolve(cl)
}

// resolve releases a call's waiters (under c.mu): their units run again
// from now, before the waiters wake, so that no barrier is taken on a
// unit that is about to make its next calls.
func (c *Collector) resolve(cl *call) {
	delete(c.calls, cl.hash)
	for _, u := range cl.units {
		u.step(1)
	}
	cl.units = nil
	close(cl.done)
}
