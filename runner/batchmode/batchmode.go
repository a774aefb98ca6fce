// Package batchmode runs a plan's model calls through a provider batch API
// (llm/batch) in lockstep: every unit runs its protocol as usual, in its own
// goroutine, calling llm.Client.Chat; the model's client is a Collector,
// whose Chat enqueues the request and blocks. When every active unit is
// blocked in its calls (or finished) — a barrier — the Collector sends all the
// requests waiting as one stage: identical requests once (custom id = the
// request hash), cut at the provider's limits, each batch journaled before
// it is polled; then it routes each answer back to its waiters. A request
// whose hash belongs to a batch journaled by an earlier invocation waits for
// that batch instead of being sent again, so a killed run resumes by polling.
// Per-request errors that are retryable (and lines the provider did not run
// before its batch expired) go into the next stage's batch, up to MaxTries
// sends. Every line of a batch is an attempt of its request — the provider
// received it —, also one it never ran (class expired or canceled, no
// tokens, not billed), so a row's attempts are the requests the provider
// received for it.
//
// The runner tells the Collector about its units through runner.Lockstep
// (Admit, Leave, Seal, Wrap), and a unit's concurrent branches through
// llm.Parallel (the unit's client is the llm.Brancher of its context). The
// barrier is exact, not timed: a unit is parked when each of its branches
// has queued its call here or ended, so a stage never splits because a
// sibling call was slow to start (a starved CPU), and the stages of a plan
// are the same on every machine.
package batchmode

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/batch"
)

// Journal keeps the batches a run submitted (the run's journal does).
type Journal interface {
	// SaveBatch records a submitted batch and the custom ids of its lines.
	SaveBatch(id, inputFileID string, customIDs []string) error
	// LoadBatches calls fn for every recorded batch, oldest first.
	LoadBatches(fn func(id, inputFileID string, customIDs []string)) error
}

// PendingJournal is a Journal that also keeps the batches being created
// (batch.Tagger): the uploaded file and a client tag, journaled before the
// batch exists, so that a run killed before it journaled the batch adopts
// it from the provider's list on resume instead of submitting it again.
type PendingJournal interface {
	SavePending(tag, inputFileID string, customIDs []string) error
	DropPending(tag string) error
	LoadPending(fn func(tag, inputFileID string, customIDs []string)) error
}

// Defaults.
const DefaultMaxTries = 4

// Config is what a Collector needs.
type Config struct {
	Provider batch.Provider
	// Journal records every batch before it is polled; nil: none (no resume).
	Journal Journal
	// Poller waits for batches (its Provider is set to Provider).
	Poller batch.Poller
	// MaxTries bounds how many times a request is put in a batch; 0 is
	// DefaultMaxTries.
	MaxTries int
	// TagPrefix starts the client tag of every batch (batch.Tagger), so
	// that the run's batches can be told at the provider (TagPrefix
	// followed by a random part): 'batches list' finds those of the run
	// the journal lacks. TagPrefix(planHash) makes it.
	TagPrefix string
	// OnBatch, when set, sees every batch submitted or resumed.
	OnBatch func(id string, lines int, resumed bool)
}

// Stats say what the Collector sent.
type Stats struct {
	Stages    int // barriers at which requests were waiting
	Batches   int // batches submitted
	Lines     int // lines submitted (retries included)
	Resumed   int // journaled batches awaited instead of resubmitted
	Adopted   int // batches created but not journaled (a kill) found by their tag at the provider
	Retried   int // lines sent again after a retryable error or an unfinished batch
	FromBatch int // requests answered by a batch submitted at an earlier stage or invocation
	// StageLines are the distinct requests of each stage; BatchLines the
	// lines of each batch submitted.
	StageLines, BatchLines []int
	// Usage is the tokens of the lines the provider answered, by the
	// request's model name: what the provider bills.
	Usage map[string]llm.Usage
	// MaxMoreStages (DryRun only) is the most stages a model's answers may
	// add to Stages: the most calls a unit's accounting formula allows
	// beyond those the stubs' answers made.
	MaxMoreStages int
}

// call is one distinct request (by hash) and its waiters.
type call struct {
	hash    string
	req     llm.Request
	done    chan struct{}
	waiters int
	units   []*unitClient // the units waiting (a unit once per branch), running again when it resolves
	lead    int64         // order of the first unit (in plan order) waiting
	claimed bool          // the lead unit has taken the answer
	queued  bool
	tries   int // times put in a batch
	// pollRounds counts the stages whose batch holding the call could not
	// be polled or read (the call then waits on the same batch again).
	pollRounds int
	attempts   int // lines the provider ran
	errs       []llm.ErrorClass
	resp       llm.Response
	err        error
}

// readBatch is a journaled batch's results, read once, and how it ended.
type readBatch struct {
	res   map[string]batch.Result
	state batch.State
}

// Collector is the batch-mode client of one model and the barrier of the
// run's units. Create it with New and Close it when the run ends.
type Collector struct {
	cfg    Config
	cancel context.CancelFunc
	ended  chan struct{}
	wake   chan struct{} // a unit parked or left, or a unit was sealed

	mu      sync.Mutex
	active  int
	parked  int
	sealed  bool
	calls   map[string]*call     // unresolved requests by hash
	known   map[string]string    // custom id → the latest batch holding it
	results map[string]readBatch // batch id → its results, once read
	stats   Stats
}

// New starts a Collector; its stages run under ctx. The journal's batches
// are loaded so that their requests are awaited, not resubmitted.
func New(ctx context.Context, cfg Config) (*Collector, error) {
	if cfg.MaxTries <= 0 {
		cfg.MaxTries = DefaultMaxTries
	}
	cfg.Poller.Provider = cfg.Provider
	c := &Collector{cfg: cfg, ended: make(chan struct{}), wake: make(chan struct{}, 1), calls: map[string]*call{},
		known: map[string]string{}, stats: Stats{Usage: map[string]llm.Usage{}}, results: map[string]readBatch{}}
	if cfg.Journal != nil {
		err := cfg.Journal.LoadBatches(func(id, _ string, ids []string) {
			for _, h := range ids {
				c.known[h] = id
			}
		})
		if err != nil {
			return nil, fmt.Errorf("batch mode: reading the journaled batches: %w", err)
		}
		if err := c.adoptPending(ctx); err != nil {
			return nil, err
		}
	}
	ctx, c.cancel = context.WithCancel(ctx)
	go c.loop(ctx)
	return c, nil
}

// Close stops the Collector; calls still waiting end with ctx errors.
func (c *Collector) Close() {
	c.cancel()
	<-c.ended
}

// Stats reports what was sent so far.
func (c *Collector) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.stats
	st.StageLines, st.BatchLines = slices.Clone(st.StageLines), slices.Clone(st.BatchLines)
	st.Usage = maps.Clone(st.Usage)
	return st
}

// Admit counts a unit that will run.
func (c *Collector) Admit() { c.event(func() { c.active++ }) }

// Leave counts a unit that ended.
func (c *Collector) Leave() { c.event(func() { c.active-- }) }

// Seal says no more units will be admitted: barriers may be reached.
func (c *Collector) Seal() { c.event(func() { c.sealed = true }) }

func (c *Collector) event(f func()) {
	c.mu.Lock()
	f()
	c.mu.Unlock()
	c.poke()
}

// poke wakes the loop to look at the barrier.
func (c *Collector) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Wrap returns the client of one try of the unit of order ord: it tells
// Chat the unit (its order, and that it is parked while its call waits)
// and, as an llm.Brancher, counts the unit's concurrent branches.
func (c *Collector) Wrap(next llm.Client, ord int64) llm.Client {
	return &unitClient{c: c, next: next, ord: ord, running: 1}
}

// unitClient is one try of a unit: running counts its branches (the
// unit's goroutine, or the branches it waits for) that are neither queued
// in a call of the Collector nor ended, under c.mu; at 0 the unit is
// parked.
type unitClient struct {
	c       *Collector
	next    llm.Client
	ord     int64
	running int
}

var _ llm.Brancher = (*unitClient)(nil)

// unitKey carries the unit making a call in the call's context.
type unitKey struct{}

// unitOf is the unit making a call, nil outside any unit.
func unitOf(ctx context.Context) *unitClient {
	u, _ := ctx.Value(unitKey{}).(*unitClient)
	return u
}

// ordOf is the order of the unit u; calls from outside any unit come last.
func ordOf(u *unitClient) int64 {
	if u != nil {
		return u.ord
	}
	return 1<<63 - 1
}

func (u *unitClient) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	return u.next.Chat(context.WithValue(ctx, unitKey{}, u), req)
}

// Branch counts n branches that start while the caller waits for them:
// the caller is not running until the last one ends.
func (u *unitClient) Branch(n int) func() {
	c := u.c
	c.mu.Lock()
	u.running += n - 1
	c.mu.Unlock()
	left := n
	return func() {
		c.mu.Lock()
		left--
		if left > 0 { // the last one's end resumes the caller: no change
			u.step(-1)
		}
		c.mu.Unlock()
		c.poke()
	}
}

// step changes u's running branches by d and the parked units with it
// (under c.mu).
func (u *unitClient) step(d int) {
	was := u.running == 0
	u.running += d
	switch now := u.running == 0; {
	case now && !was:
		u.c.parked++
	case was && !now:
		u.c.parked--
	}
}

// Chat enqueues req for the next stage and waits for its answer. Identical
// requests (same hash) wait for one line: the unit first in plan order gets
// the answer as made for it, the others as a shared one (Cached, 0
// attempts), as the runner's memo marks it in a sequential run.
func (c *Collector) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	h, u := llm.HashOf(&req), unitOf(ctx)
	ord := ordOf(u)
	c.mu.Lock()
	cl := c.calls[h]
	if cl == nil {
		cl = &call{hash: h, req: req, done: make(chan struct{}), queued: true, lead: ord}
		c.calls[h] = cl
	}
	cl.waiters++
	cl.lead = min(cl.lead, ord)
	if u != nil {
		u.step(-1)
		cl.units = append(cl.units, u)
	}
	c.mu.Unlock()
	c.poke()
	select {
	case <-cl.done:
	case <-ctx.Done():
		c.mu.Lock()
		cl.waiters--
		if cl.waiters == 0 && cl.queued && c.calls[h] == cl { // nobody waits: never send it
			delete(c.calls, h)
		}
		if i := slices.Index(cl.units, u); u != nil && i >= 0 && !closed(cl.done) { // else resolve ran it
			cl.units = slices.Delete(cl.units, i, i+1)
			u.step(1)
		}
		c.mu.Unlock()
		return llm.Response{}, &llm.Error{Class: llm.ClassCanceled, Err: ctx.Err()}
	}
	c.mu.Lock()
	lead := ord == cl.lead && !cl.claimed
	cl.claimed = cl.claimed || lead
	c.mu.Unlock()
	resp := cl.resp
	resp.AttemptErrors = slices.Clone(resp.AttemptErrors)
	if !lead && cl.err == nil {
		resp.Cached, resp.Attempts, resp.Latency, resp.AttemptErrors = true, 0, 0, nil
	}
	return resp, cl.err
}

// SharesIdenticalRequests says that the Collector shares identical
// requests itself (one line, answered to the unit first in plan order): a
// response cache in front of it must send every miss on, never make a
// caller wait for another's identical call outside the Collector, where
// the barrier cannot see it parked.
func (c *Collector) SharesIdenticalRequests() {}

// closed says whether ch is closed.
func closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// loop takes a stage whenever the barrier is reached. It waits for no
// time: every change that may complete a stage (a call parked, a branch or
// a unit ended, the units sealed) wakes it, and after a stage it looks at
// once again (calls requeued by the stage may be all there is to send).
func (c *Collector) loop(ctx context.Context) {
	defer close(c.ended)
	for {
		if calls := c.take(); len(calls) > 0 {
			c.stage(ctx, calls)
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
	}
}

// take returns the queued calls when the barrier is reached: no more units
// to come and every active unit parked (each of its branches waits in a
// call of the Collector, or has ended). The rule has no timing in it.
func (c *Collector) take() []*call {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.sealed || c.parked < c.active {
		return nil
	}
	var out []*call
	for _, cl := range c.calls {
		if cl.queued {
			cl.queued = false
			out = append(out, cl)
		}
	}
	slices.SortFunc(out, func(a, b *call) int { return cmp.Compare(a.hash, b.hash) })
	if len(out) > 0 {
		c.stats.Stages++
		c.stats.StageLines = append(c.stats.StageLines, len(out))
	}
	return out
}
