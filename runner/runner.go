// Package runner executes a plan — question sets × models × arms × repeats —
// with bounded concurrency, commits each finished unit to a sink (the
// journal) as it completes, skips units an earlier invocation finished, and
// turns each protocol outcome into result rows, scored by the task of the
// question's kind (Plan.Tasks, package task): the runner knows no task.
package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/task"
)

// Arm is one arm of the plan: a configured protocol under its label (the
// arm column of every row).
type Arm struct {
	Label    string
	Protocol protocol.Arm
}

// QuestionSet is one dataset's questions, in their canonical order. A shard
// of a plan holds a subset: Index gives each question's position in the
// unsharded set and Total that set's size, so unit order (and merged
// journals) follow the whole plan. Nil Index means positions 0…n−1.
type QuestionSet struct {
	Name      string
	Questions []qa.Question
	Index     []int
	Total     int
}

func (s QuestionSet) total() int { return max(s.Total, len(s.Questions)) }

func (s QuestionSet) position(i int) int {
	if s.Index != nil {
		return s.Index[i]
	}
	return i
}

// Model is one model of the plan with its client stack.
type Model struct {
	Name    string // full name, e.g. "sim/default" or "ollama/llama3.1:8b"
	Request string // name sent to the backend (without the provider)
	Client  llm.Client
	// Probe checks cheaply that the endpoint answers (nil: while the
	// endpoint is down, one unit at a time is the probe).
	Probe Probe
	// Attempts is the socket of the retry loop beneath Client (nil: none):
	// the run plugs the model's circuit breaker in, so that it sees every
	// attempt as it ends and refuses attempts while the endpoint is down.
	// Without one (or in batch mode, where Client is the batch collector)
	// the breaker sees each call of Client as one attempt.
	Attempts *llm.GateSocket
	// Spare reports the calls the endpoint's limiter would let through now
	// beyond those in flight and waiting (nil: unknown). Units in flight
	// follow it between Plan.Parallel and Plan.MaxParallel.
	Spare func() int
}

// Plan is what to run.
type Plan struct {
	RunID   string
	Sets    []QuestionSet
	Models  []Model
	Arms    []Arm
	Repeats int
	Seed    int64
	// Parallel is the units (question × arm × model × repeat) in flight at
	// least; MaxParallel at most, more being started while the unit's model
	// has spare capacity (Model.Spare). MaxParallel 0 fixes the units in
	// flight at Parallel; < 0 is DefaultMaxParallel.
	Parallel    int
	MaxParallel int
	Transcripts bool // keep prompt and response texts in calls.parquet
	// Unhashed runs without request hashes and without sharing identical
	// requests among arms: for a dry run, whose stub answers cost less than
	// hashing the prompt, and whose rows are not kept (their request_hash is
	// empty). Calls and tokens are the same either way.
	Unhashed bool
	// Tasks score the rows, by the item kind of each question (tasks.All);
	// Execute refuses a plan with a question no task scores.
	Tasks task.Registry
	// Judge runs, after each question, its task's Judge where it has one
	// (--diagnosis-judge: triage's diagnosis judge, one extra call).
	Judge bool
	// Breaker is the per-endpoint circuit breaker (zero: the defaults).
	Breaker BreakerPolicy
	// Lockstep, when set, runs the plan in batch mode: every unit is
	// admitted at once and told to it, so that the model calls of all units
	// advance one stage at a time (see runner/batchmode).
	Lockstep Lockstep
}

// Lockstep is the barrier of a batch-mode run: Admit counts a unit that
// will run, Leave one that ended, Seal says no more will be admitted, and
// Wrap wraps the client of one try of the unit of order ord (so the barrier
// knows when the unit waits for a call). In batch mode the memo shares
// nothing: the Lockstep shares identical requests itself, the answer going
// to the unit first in plan order as in a sequential run.
type Lockstep interface {
	Admit()
	Leave()
	Seal()
	Wrap(next llm.Client, ord int64) llm.Client
}

// checkTasks refuses a broken task registry and a question no task scores.
func (p Plan) checkTasks() error {
	if err := p.Tasks.Check(); err != nil {
		return fmt.Errorf("runner: %w", err)
	}
	for _, s := range p.Sets {
		for _, q := range s.Questions {
			if _, err := p.Tasks.Lookup(s.Name, q); err != nil {
				return fmt.Errorf("runner: %w", err)
			}
		}
	}
	return nil
}

// Units is the number of units of the plan.
func (p Plan) Units() int {
	n := 0
	for _, s := range p.Sets {
		n += len(s.Questions)
	}
	return n * len(p.Models) * len(p.Arms) * max(1, p.Repeats)
}

// UnitKey identifies a unit in the journal.
func UnitKey(set, questionID, model, arm string, repeat int) string {
	return set + "\x1f" + questionID + "\x1f" + model + "\x1f" + arm + "\x1f" + strconv.Itoa(repeat)
}

// Sink receives finished units. Put must be safe for concurrent use.
type Sink interface {
	Put(key string, ord int64, q results.QuestionRow, calls []results.CallRow) error
}

// Progress receives every finished unit (from any goroutine).
type Progress func(row *results.QuestionRow)

// Budget stops a run before it spends more than allowed. Zero fields are no
// limit. Estimate gives a first guess of the tokens of one unit of an arm,
// used until units of that arm have finished.
type Budget struct {
	Tokens   int64
	USD      float64
	Price    func(model string, u llm.Usage) float64 // USD of a usage; nil = no price known
	Estimate func(arm string) int64
}

// Options are the run's collaborators.
type Options struct {
	Sink     Sink
	Done     map[string]bool // keys already committed (resume)
	Progress Progress
	// Stop, when closed, stops the run from taking new units; units in flight
	// finish under ctx (cancel ctx to abandon them).
	Stop   <-chan struct{}
	Budget Budget
}

// Stats says how a run went.
type Stats struct {
	Units     int    // units in the plan
	Skipped   int    // finished by an earlier invocation
	Finished  int    // finished and committed now
	Failed    int    // of those, with an error row
	Abandoned int    // in flight when the run was stopped or canceled
	StoppedBy string // "", "signal", "budget" or "outage"
	// Retried counts extra tries of units that ended in a retryable error
	// (their calls stay in calls.parquet under earlier unit_try numbers);
	// Outages counts how often an endpoint's breaker opened.
	Retried, Outages int
	// Probes counts the requests the breakers' probes sent (chats the
	// endpoint received besides the calls' attempts), ProbeTokens their
	// tokens (prompt + completion).
	Probes      int
	ProbeTokens int64
	// AbandonedAttempts counts the requests sent by units that were not
	// committed (an outage, a stop, a fatal error: their questions run
	// again on resume), AbandonedTokens the tokens those requests reported
	// (prompt + completion): the endpoint received and may bill them, so
	// they are on record (manifest counts.abandoned_*), though no row holds
	// them.
	AbandonedAttempts int
	AbandonedTokens   int64
	// PeakUnits is the most units that were in flight at once.
	PeakUnits int
	// Calls is the logical calls of the finished units (the sum over arms);
	// Shared is how many of them an identical request of another arm or an
	// earlier call served (same prompt, same seed), so Calls − Shared reached
	// the endpoint stack.
	Calls, Shared int64
	Tokens        int64
	SpentUSD      float64
	// UsageMissing counts the answered calls whose usage the API did not
	// report. The budget is charged an estimate for each that reached the
	// endpoint (the mean of the calls that did report, else the unit's
	// reserved estimate spread over its calls): EstimatedTokens of Tokens
	// (and their price, at the dearer rate, in SpentUSD) are such estimates.
	UsageMissing    int64
	EstimatedTokens int64
}

// FatalError stops a run: the backend will refuse every request (bad key,
// unknown model), so failing each question separately would only hide it.
type FatalError struct{ Err error }

func (e *FatalError) Error() string {
	return fmt.Sprintf("run stopped: %v (every request would fail the same way; check the model name, endpoint and credentials)", e.Err)
}
func (e *FatalError) Unwrap() error { return e.Err }

type unit struct {
	ord    int64
	key    string
	set    string
	q      *qa.Question
	model  *Model
	mi     int // index of model in Plan.Models
	arm    Arm
	repeat int
	memo   *memo
}

// units yields the plan's units in canonical order (set, question, model,
// arm, repeat). The units of one question and model share a memo, so an
// identical request made by several arms reaches the backend once.
func (p Plan) units(yield func(unit) bool) {
	nm, na, nr := int64(len(p.Models)), int64(len(p.Arms)), int64(p.Repeats)
	var base int64 // position of the current set's first question in the plan
	for si := range p.Sets {
		set := &p.Sets[si]
		for qi := range set.Questions {
			q := &set.Questions[qi]
			gq := base + int64(set.position(qi))
			for mi := range p.Models {
				m := &p.Models[mi]
				var shared *memo
				if !p.Unhashed {
					shared = newMemo(m.Client)
					shared.through = p.Lockstep != nil
				}
				for ai, arm := range p.Arms {
					for rep := range p.Repeats {
						u := unit{ord: ((gq*nm+int64(mi))*na+int64(ai))*nr + int64(rep),
							set: set.Name, q: q, model: m, mi: mi, arm: arm, repeat: rep, memo: shared}
						u.key = UnitKey(u.set, q.ID, m.Name, arm.Label, rep)
						if !yield(u) {
							return
						}
					}
				}
			}
		}
		base += int64(set.total())
	}
}

// execution is the state of one Execute: the stats, the budget's spending
// and the first fatal error or outage, all guarded by mu.
type execution struct {
	p        Plan
	opt      Options
	ctx      context.Context
	cancel   context.CancelCauseFunc
	breakers []*breaker

	mu     sync.Mutex
	st     Stats
	spend  spending
	fatal  error
	outage *OutageError
}

// Execute runs every unit of the plan not in opt.Done, in canonical order
// (set, question, model, arm, repeat), p.Parallel at a time or, with
// p.MaxParallel, as many as the endpoints have capacity for (admission), and
// commits each finished one to opt.Sink. Units of one question and model
// share a memo, so an identical request made by several arms reaches the
// backend once. Question-level failures are committed as rows with their
// error; a fatal backend error stops the run with a *FatalError; a canceled
// unit is not committed (a rerun does it again).
func Execute(ctx context.Context, p Plan, opt Options) (Stats, error) {
	if err := p.checkTasks(); err != nil {
		return Stats{Units: p.Units()}, err
	}
	p.Repeats = max(1, p.Repeats)
	p.Parallel = max(1, p.Parallel)
	if p.Lockstep != nil { // batch mode: the whole plan advances together
		p.Parallel, p.MaxParallel = max(p.Parallel, p.Units()), 0
	}
	var breakers []*breaker
	p.Models = slices.Clone(p.Models)
	for i, m := range p.Models {
		br := newBreaker(p.Breaker, m.Name, m.Probe)
		br.parked = p.Lockstep != nil
		defer br.close()
		hooked := m.Attempts != nil && p.Lockstep == nil // batch mode replaces the client above the retry loop
		if hooked {
			defer m.Attempts.Plug(br)()
		}
		breakers = append(breakers, br)
		p.Models[i].Client = &gate{b: br, next: m.Client, attempts: !hooked}
	}
	e := &execution{p: p, opt: opt, st: Stats{Units: p.Units()}, spend: newSpending(opt.Budget), breakers: breakers}
	e.ctx, e.cancel = context.WithCancelCause(ctx)
	defer e.cancel(nil)
	g, adm := new(errgroup.Group), newAdmission(p)
	for u := range p.units {
		if !e.schedule(g, adm, u) {
			break
		}
	}
	if p.Lockstep != nil {
		p.Lockstep.Seal()
	}
	err := g.Wait()
	e.st.PeakUnits = adm.peak
	return e.finish(ctx, err)
}

// schedule starts u, once admitted, unless it is done already; it reports
// false when the run is to take no more units (canceled, stopped, or over
// budget).
func (e *execution) schedule(g *errgroup.Group, adm *admission, u unit) bool {
	if e.opt.Done[u.key] {
		e.st.Skipped++
		return true
	}
	if !adm.wait(e.ctx, e.opt.Stop, u.model.Spare) {
		if why := e.stopped(); why != "" {
			e.st.StoppedBy = why
		}
		return false
	}
	if e.ctx.Err() != nil {
		adm.done()
		return false
	}
	if why := e.stopped(); why != "" {
		e.st.StoppedBy = why
		adm.done()
		return false
	}
	e.mu.Lock()
	est, ok := e.spend.reserve(u.arm.Label, u.model.Name, &e.st)
	if !ok {
		e.st.StoppedBy = "budget"
	}
	e.mu.Unlock()
	if !ok {
		adm.done()
		return false
	}
	if e.p.Lockstep != nil {
		e.p.Lockstep.Admit()
	}
	g.Go(func() error {
		defer adm.done()
		if e.p.Lockstep != nil {
			defer e.p.Lockstep.Leave()
		}
		return e.work(u, est)
	})
	return true
}

// stopped says why the run takes no new units: "signal", "outage" or "".
func (e *execution) stopped() string {
	select {
	case <-e.opt.Stop:
		return "signal"
	default:
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.outage != nil {
		return "outage"
	}
	return ""
}

// work runs one unit (under its reservation est) and commits it.
func (e *execution) work(u unit, est int64) error {
	// g.Go may have waited for a slot: look again before spending.
	if e.ctx.Err() != nil || e.stopped() != "" {
		e.mu.Lock()
		e.spend.release(u.model.Name, est)
		e.mu.Unlock()
		return nil
	}
	qr, cr, tries, err := runTries(e.ctx, e.p, u, e.breakers[u.mi], e.texts())
	e.mu.Lock()
	e.spend.release(u.model.Name, est)
	e.st.Retried += max(0, tries-1)
	e.mu.Unlock()
	if e.uncommitted(err) {
		e.mu.Lock()
		e.st.abandon(cr)
		e.mu.Unlock()
		return nil
	}
	if err := e.opt.Sink.Put(u.key, u.ord, qr, cr); err != nil {
		e.cancel(err)
		return err
	}
	e.mu.Lock()
	e.spend.charge(u.arm.Label, u.model.Name, est, &qr, cr, &e.st)
	e.mu.Unlock()
	if e.opt.Progress != nil {
		e.opt.Progress(&qr)
	}
	return nil
}

// uncommitted reports whether a unit that ended in err is not to be
// committed — an outage, a fatal error (which stops the run) or a
// cancellation — and records why.
func (e *execution) uncommitted(err error) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if oe := errOutageOf(err); oe != nil {
		if e.outage == nil {
			e.outage = oe
		}
		e.st.Abandoned++
		return true
	}
	if llm.ClassOf(err).Fatal() {
		if e.fatal == nil {
			e.fatal = err
		}
		e.cancel(err)
		return true
	}
	if errors.Is(err, context.Canceled) || e.ctx.Err() != nil && err != nil {
		e.st.Abandoned++
		return true
	}
	return false
}

// abandon accounts for the calls of a unit that is not committed.
func (st *Stats) abandon(calls []results.CallRow) {
	for _, c := range calls {
		st.AbandonedAttempts += int(c.Attempts)
		if p, q, ok := c.Tokens(); ok && !c.Cached {
			st.AbandonedTokens += p + q
		}
	}
}

// finish turns the end of the run into its Stats and error.
func (e *execution) finish(ctx context.Context, err error) (Stats, error) {
	st := e.st
	for _, b := range e.breakers {
		st.Outages += b.opened
		n, tok := b.stats()
		st.Probes += n
		st.ProbeTokens += tok
	}
	if e.fatal != nil {
		return st, &FatalError{Err: e.fatal}
	}
	if e.outage != nil {
		st.StoppedBy = "outage"
		return st, e.outage
	}
	if err != nil {
		return st, err
	}
	if st.StoppedBy == "" && st.Skipped+st.Finished < st.Units && ctx.Err() != nil {
		return st, ctx.Err()
	}
	return st, nil
}

// runTries runs a unit until it ends in something other than a retryable
// error, its tries are used up, or its endpoint's outage outlasts the bound
// (then the *OutageError is returned and nothing is to be committed). A try
// that fails while the breaker opens or is open is the outage's, not the
// unit's, and does not count against BreakerPolicy.UnitTries. The calls of
// failed tries are kept before the final try's, numbered by unit_try, so
// every request that reached the endpoint stays in calls.parquet; the
// question row is the final try's, with Tries saying how many there were.
func runTries(ctx context.Context, p Plan, u unit, br *breaker, texts llm.TranscriptSink) (results.QuestionRow, []results.CallRow, int, error) {
	ctx, release := br.bind(ctx) // the final outage cancels the unit's calls
	defer release()
	var earlier []results.CallRow
	counted := 0
	seen := br.answers() // the endpoint's answers (attempts, probes) before this try's window
	for try := 0; ; try++ {
		if err := br.wait(ctx); err != nil {
			if oe := br.final(); oe != nil {
				return results.QuestionRow{}, earlier, try, oe
			}
			return results.QuestionRow{}, earlier, try, err
		}
		qr, cr, err := runOne(ctx, p, u, texts)
		if oe := br.final(); oe != nil && err != nil {
			return results.QuestionRow{}, append(earlier, cr...), try + 1, oe
		}
		for i := range cr {
			cr[i].UnitTry = int32(try)
		}
		class := llm.ClassOf(err)
		if err == nil || !class.Retryable() || ctx.Err() != nil {
			br.done(err == nil, nil)
			qr.Tries = int32(try + 1)
			return qr, append(earlier, cr...), try + 1, err
		}
		// A try counts when the endpoint was seen answering since the
		// previous try ended (an attempt of any unit, or a probe while this
		// unit waited): a question whose every attempt fails while the
		// endpoint answers probes is the question's fault and is committed
		// as an error row after UnitTries such tries. A try that failed with
		// nothing answered since is the outage's.
		if !br.done(false, err) && br.answers() > seen {
			counted++
		}
		seen = br.answers()
		if counted >= br.p.UnitTries {
			qr.Tries = int32(try + 1)
			return qr, append(earlier, cr...), try + 1, err
		}
		earlier = append(earlier, cr...)
	}
}

// texts is where the run's transcripts go as each call ends: the sink, when
// it can take them (the journal), else nil (they stay in the call rows).
func (e *execution) texts() llm.TranscriptSink {
	if ts, ok := e.opt.Sink.(llm.TranscriptSink); ok && e.p.Transcripts {
		return ts
	}
	return nil
}

// runOne deliberates on one question and builds its rows. With transcripts
// and texts not nil, each call's texts go to texts as the call ends and the
// call rows carry only their ids.
func runOne(ctx context.Context, p Plan, u unit, texts llm.TranscriptSink) (results.QuestionRow, []results.CallRow, error) {
	var meter *llm.Meter
	switch {
	case u.memo == nil:
		meter = llm.NewUnhashedMeter(u.model.Client)
	case p.Transcripts && texts != nil:
		meter = llm.NewStreamingMeter(u.memo, texts)
	default:
		meter = llm.NewMeter(u.memo, p.Transcripts)
	}
	start := time.Now()
	pu := protocol.Unit{Model: u.model.Request, Arm: u.arm.Label, RunSeed: p.Seed, Repeat: u.repeat}
	var client llm.Client = meter
	if p.Lockstep != nil {
		client = p.Lockstep.Wrap(meter, u.ord) // an llm.Brancher: kit.Session.Parallel tells it of the unit's branches
	}
	out, err := u.arm.Protocol.Run(ctx, client, u.q.Item(), pu)
	meta := RowMeta{RunID: p.RunID, Set: u.set, Model: u.model.Name, Arm: u.arm, Repeat: u.repeat, Seed: p.Seed}
	row := QuestionRow(meta, p.Tasks, *u.q, out, err)
	var notes []protocol.ParseNote
	if out != nil {
		notes = out.Parses
	}
	if t, ok := p.Tasks.For(u.q.Kind); ok && p.Judge && t.Judge != nil && err == nil {
		note, asked, jerr := t.Judge(ctx, client, pu, *u.q, &row)
		if jerr != nil {
			err = jerr
			row = QuestionRow(meta, p.Tasks, *u.q, out, err)
		} else if asked {
			notes = append(slices.Clone(notes), note)
		}
	}
	wall := time.Since(start)
	calls := meter.Calls()
	row.WallMS = float64(wall.Microseconds()) / 1000
	crs := CallRows(meta, u.q.ID, calls, notes)
	var t llm.Totals
	for _, c := range calls {
		t.Add(c)
	}
	row.Calls = int32(t.Calls)
	row.Attempts = int32(t.Attempts)
	row.CachedCalls = int32(t.CachedCalls)
	row.PromptTokens = int64(t.Usage.PromptTokens)
	row.CompletionTokens = int64(t.Usage.CompletionTokens)
	row.PaidPromptTokens = int64(t.Paid.PromptTokens)
	row.PaidCompletionTokens = int64(t.Paid.CompletionTokens)
	row.CallsUsageMissing = int32(t.UsageMissing)
	row.CachedPromptTokens, row.PaidCachedPromptTokens = int64(t.Usage.CachedTokens), int64(t.Paid.CachedTokens)
	row.CallsCachedUnreported = int32(t.CachedUnreported)
	row.CallsTruncated, row.CallsFiltered, row.CallsRefused = int32(t.Truncated), int32(t.Filtered), int32(t.Refused)
	row.CallLatencyMS = float64(t.Latency.Microseconds()) / 1000
	return row, crs, err
}

// Result holds a run's rows in canonical order.
type Result struct {
	Questions []results.QuestionRow
	Calls     []results.CallRow
	Stats     Stats
}

// memorySink keeps rows in memory, indexed by unit order.
type memorySink struct {
	mu   sync.Mutex
	rows map[int64]struct {
		q     results.QuestionRow
		calls []results.CallRow
	}
}

func (m *memorySink) Put(_ string, ord int64, q results.QuestionRow, calls []results.CallRow) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rows[ord] = struct {
		q     results.QuestionRow
		calls []results.CallRow
	}{q, calls}
	return nil
}

// Run executes the whole plan in memory and returns its rows in canonical
// order (tests, small runs).
func Run(ctx context.Context, p Plan, progress Progress) (*Result, error) {
	sink := &memorySink{rows: map[int64]struct {
		q     results.QuestionRow
		calls []results.CallRow
	}{}}
	st, err := Execute(ctx, p, Options{Sink: sink, Progress: progress})
	if err != nil {
		return nil, err
	}
	res := &Result{Stats: st}
	ords := make([]int64, 0, len(sink.rows))
	for o := range sink.rows {
		ords = append(ords, o)
	}
	slices.Sort(ords)
	for _, o := range ords {
		r := sink.rows[o]
		res.Questions = append(res.Questions, r.q)
		res.Calls = append(res.Calls, r.calls...)
	}
	return res, nil
}
