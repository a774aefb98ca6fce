package batchmode_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/journal"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/batch"
	"github.com/medteam-bench/medteam/llm/llmtest"
	"github.com/medteam-bench/medteam/llm/openai"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/runner/batchmode"
	"github.com/medteam-bench/medteam/tasks"
	"github.com/medteam-bench/medteam/teamwork"
)

const testKey = "sk-test"

// questions are n four-option questions.
func questions(n int) []qa.Question {
	qs := make([]qa.Question, n)
	for i := range qs {
		opts := make([]qa.Option, 4)
		for k := range opts {
			l := string(rune('A' + k))
			opts[k] = qa.Option{Letter: l, Text: fmt.Sprintf("finding %s of case %d", l, i)}
		}
		qs[i] = qa.Question{ID: fmt.Sprintf("syn-%04d", i), Dataset: "synthetic", Split: "test",
			Stem: fmt.Sprintf("Case %d: which finding best explains it?", i), Options: opts,
			Gold: string(rune('A' + (i*7+3)%4))}
	}
	return qs
}

// plan is a plan of the presets on n questions against the fake server.
func plan(t *testing.T, s *llmtest.Server, n int, presets ...string) (runner.Plan, *openai.Client) {
	t.Helper()
	c, err := openai.New(openai.Config{BaseURL: s.BaseURL(), APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	var arms []runner.Arm
	for _, name := range presets {
		cfg, err := teamwork.ParseComponents(name, teamwork.Default())
		if err != nil {
			t.Fatal(err)
		}
		arms = append(arms, runner.Arm{Label: cfg.Label(), Protocol: teamwork.Arm{Config: cfg}})
	}
	return runner.Plan{RunID: "test", Sets: []runner.QuestionSet{{Name: "syn", Questions: questions(n)}}, Arms: arms,
		Tasks:   tasks.All(),
		Models:  []runner.Model{{Name: "openai/" + llmtest.DefaultModel, Request: llmtest.DefaultModel, Client: c}},
		Repeats: 1, Seed: 1, Parallel: 16}, c
}

type instant struct{}

func (instant) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// collector puts p's model in batch mode on c's batch endpoint.
func collector(t *testing.T, ctx context.Context, p *runner.Plan, c *openai.Client, j batchmode.Journal) *batchmode.Collector {
	t.Helper()
	col, err := batchmode.New(ctx, batchmode.Config{Provider: c.Batcher(openai.BatchConfig{}), Journal: j,
		Poller: batch.Poller{Clock: instant{}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(col.Close)
	p.Models[0].Client = col
	p.Lockstep = col
	return col
}

// untimed are rows without their timing columns.
func untimed(qs []results.QuestionRow, cs []results.CallRow) ([]results.QuestionRow, []results.CallRow) {
	qs = append([]results.QuestionRow(nil), qs...)
	cs = append([]results.CallRow(nil), cs...)
	for i := range qs {
		qs[i].WallMS, qs[i].CallLatencyMS = 0, 0
	}
	for i := range cs {
		cs[i].LatencyMS = 0
	}
	return qs, cs
}

func sameRows(t *testing.T, want, got *runner.Result) {
	t.Helper()
	wq, wc := untimed(want.Questions, want.Calls)
	gq, gc := untimed(got.Questions, got.Calls)
	if len(wq) != len(gq) || len(wc) != len(gc) {
		t.Fatalf("rows: %d questions %d calls in batch mode, %d %d synchronously", len(gq), len(gc), len(wq), len(wc))
	}
	for i := range wq {
		if !reflect.DeepEqual(wq[i], gq[i]) {
			t.Fatalf("question row %d differs:\nsync  %+v\nbatch %+v", i, wq[i], gq[i])
		}
	}
	for i := range wc {
		if !reflect.DeepEqual(wc[i], gc[i]) {
			t.Fatalf("call row %d differs:\nsync  %+v\nbatch %+v", i, wc[i], gc[i])
		}
	}
}

// stages is the sequential stages of the full preset's rows by the call
// accounting ('medteam calls'): recruitment 2, prediction N (+1 leader
// synthesis), discussion N·T (+T mediations, +3·(T−1) monitoring) and the
// leader's tie-break are one call after another but for the N predictions,
// made in parallel — so a unit's stages are its calls − (N − 1), and the
// plan's the most of any unit.
func stages(rows []results.QuestionRow) int {
	n := 0
	for _, q := range rows {
		n = max(n, int(q.Calls)-int(q.NAgents)+1)
	}
	return n
}

// TestBatchRowsEqualSync: a full run of 200 questions in batch mode has the
// rows of the synchronous run (timing aside), one batch per sequential
// stage of the protocol, and every distinct request sent once.
func TestBatchRowsEqualSync(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 40
	}
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{APIKey: testKey})
	sp, _ := plan(t, s, n, "full")
	want, err := runner.Run(context.Background(), sp, nil)
	if err != nil {
		t.Fatal(err)
	}
	syncChats := s.ChatRequests()

	bp, c := plan(t, s, n, "full")
	col := collector(t, context.Background(), &bp, c, nil)
	got, err := runner.Run(context.Background(), bp, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, want, got)
	st, bs, depth := col.Stats(), s.BatchStats(), stages(want.Questions)
	t.Logf("%d questions: %d synchronous requests; batch mode: %d stages (the protocol's sequential stages: %d), %d batches created, %d lines, lines per batch %v",
		n, syncChats, st.Stages, depth, bs.BatchesCreated, bs.LinesRun, bs.LinesPerBatch)
	if bs.BatchesCreated != depth || st.Stages != depth {
		t.Errorf("%d batches, %d stages; the protocol has %d sequential stages", bs.BatchesCreated, st.Stages, depth)
	}
	var calls int64
	for _, q := range got.Questions {
		calls += int64(q.Calls - q.CachedCalls)
	}
	if int64(bs.LinesRun) != calls {
		t.Errorf("%d lines run, %d requests that reached the endpoint synchronously", bs.LinesRun, calls)
	}
}

// journaled runs p with a collector on the journal of dir (resuming what
// it holds) until ctx ends; onBatch sees each batch submitted or resumed.
func journaled(t *testing.T, ctx context.Context, dir string, p runner.Plan, c *openai.Client, onBatch func(string, int, bool)) (runner.Stats, batchmode.Stats, error) {
	t.Helper()
	j, err := journal.Open(dir, "plan", []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	col, err := batchmode.New(ctx, batchmode.Config{Provider: c.Batcher(openai.BatchConfig{}), Journal: j,
		Poller: batch.Poller{Clock: instant{}}, OnBatch: onBatch})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	p.Models[0].Client, p.Lockstep = col, col
	done, err := j.Done(nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := runner.Execute(ctx, p, runner.Options{Sink: j, Done: done})
	return st, col.Stats(), err
}

// journalRows reads the rows committed in dir.
func journalRows(t *testing.T, dir string) *runner.Result {
	t.Helper()
	j, err := journal.OpenExisting(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	res := &runner.Result{}
	err = j.Each(func(q results.QuestionRow, calls []results.CallRow) error {
		res.Questions = append(res.Questions, q)
		res.Calls = append(res.Calls, calls...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestBatchResumeAfterKill: a run killed while it polls its fifth batch,
// rerun on the same journal, polls the batches it submitted instead of
// submitting them again, and ends with the synchronous run's rows.
func TestBatchResumeAfterKill(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 40
	}
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{APIKey: testKey})
	sp, _ := plan(t, s, n, "full")
	want, err := runner.Run(context.Background(), sp, nil)
	if err != nil {
		t.Fatal(err)
	}
	requests := s.ChatRequests() // each distinct request, once
	s.SetBatchMode(llmtest.BatchMode{PollsPerStage: 2})
	dir := t.TempDir()
	ctx, kill := context.WithCancel(context.Background())
	p, c := plan(t, s, n, "full")
	submitted := 0
	st1, _, err := journaled(t, ctx, dir, p, c, func(string, int, bool) {
		if submitted++; submitted == 5 {
			kill() // killed after the fifth batch was journaled, while polling it
		}
	})
	before := s.BatchStats()
	t.Logf("first invocation: %v; %d batches created, %d polls, %d units finished, %d abandoned", err, before.BatchesCreated, before.Polls, st1.Finished, st1.Abandoned)
	if before.BatchesCreated != 5 || st1.Finished != 0 {
		t.Fatalf("killed run: %d batches created, %d units finished; want 5 and 0", before.BatchesCreated, st1.Finished)
	}
	p, c = plan(t, s, n, "full")
	st2, bst, err := journaled(t, context.Background(), dir, p, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	after := s.BatchStats()
	t.Logf("rerun: %d units finished; batches created %d before, %d after (%d stages, %d journaled batches resumed, %d requests answered by them)",
		st2.Finished, before.BatchesCreated, after.BatchesCreated, bst.Stages, bst.Resumed, bst.FromBatch)
	// Nothing journaled is sent again: the rerun resumes the 5 journaled
	// batches, and over both invocations the provider ran each request
	// exactly once. The number of batches is 16 (the stages) unless a
	// starved machine let a barrier trip before a late call, which splits
	// a stage (costing one more batch, never a line sent twice).
	if bst.Resumed != 5 || int64(after.LinesRun) != requests || after.BatchesCreated != before.BatchesCreated+bst.Batches {
		t.Errorf("%d journaled batches resumed (want 5); %d lines run for %d distinct requests; %d batches created, %d before + %d new",
			bst.Resumed, after.LinesRun, requests, after.BatchesCreated, before.BatchesCreated, bst.Batches)
	}
	if after.BatchesCreated != 16 {
		t.Logf("note: %d batches for 16 stages (a split stage)", after.BatchesCreated)
	}
	sameRows(t, want, journalRows(t, dir))
}

// TestBatchExpiredAndPartial: the first batch expires after 10 of its
// lines, and 20% of the lines of every batch then fail with 500; every
// question still ends with a row (no error), the retried lines are
// counted, and every line the provider received is an attempt of a row:
// a line of the expired batch that never ran is one of class expired,
// without tokens (issue 35 item 8), so the rows' attempts are the lines
// submitted.
func TestBatchExpiredAndPartial(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 40
	}
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{APIKey: testKey})
	s.SetBatchMode(llmtest.BatchMode{Outcome: llmtest.BatchExpire, Prefix: 10})
	p, c := plan(t, s, n, "full")
	col, err := batchmode.New(context.Background(), batchmode.Config{Provider: c.Batcher(openai.BatchConfig{}),
		Poller: batch.Poller{Clock: instant{}}, MaxTries: 6,
		OnBatch: func(string, int, bool) { s.SetBatchMode(llmtest.BatchMode{ErrorFraction: 0.2, ErrorStatus: 500}) }})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	p.Models[0].Client, p.Lockstep = col, col
	res, err := runner.Run(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, bs := col.Stats(), s.BatchStats()
	expired := 0
	for _, c := range res.Calls {
		expired += strings.Count(strings.Join(c.AttemptErrors, " "), string(llm.ClassExpired))
		if len(c.AttemptErrors) > int(c.Attempts) || slices.Contains(c.AttemptErrors, string(llm.ClassTimeout)) {
			t.Fatalf("call of %s: attempts %d, attempt errors %v", c.QuestionID, c.Attempts, c.AttemptErrors)
		}
	}
	var attempts, calls, received int64
	failed := 0
	for _, q := range res.Questions {
		attempts += int64(q.Attempts)
		calls += int64(q.Calls)
		if q.Error != "" {
			failed++
		}
	}
	for _, l := range bs.LinesPerBatch {
		received += int64(l)
	}
	t.Logf("%d rows (%d failed), %d calls, %d attempts (%d expired); %d stages, %d batches %v, %d lines received, %d run, %d retried",
		len(res.Questions), failed, calls, attempts, expired, st.Stages, bs.BatchesCreated, bs.LinesPerBatch, received, bs.LinesRun, st.Retried)
	if len(res.Questions) != n || failed != 0 {
		t.Errorf("%d rows, %d failed; want %d rows, none failed", len(res.Questions), failed, n)
	}
	if st.Retried == 0 || attempts != received || expired != bs.LinesPerBatch[0]-10 {
		t.Errorf("%d retried; %d attempts in the rows (%d of class expired), %d lines received by the provider (%d of them expired unrun)",
			st.Retried, attempts, expired, received, bs.LinesPerBatch[0]-10)
	}
}

// TestDryRunStages: the lockstep dry run counts the stages and lines a
// batch-mode run makes (the fake server's run, same plan) exactly for the
// stubs' answers, and bounds the stages the leader's tie-breaks may add;
// its stage plan is the same every time.
func TestDryRunStages(t *testing.T) {
	const n = 40
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{APIKey: testKey})
	p, c := plan(t, s, n, "full", "base")
	dry, err := batchmode.DryRun(context.Background(), p, batchmode.Stubs(p.Arms, true))
	if err != nil {
		t.Fatal(err)
	}
	col := collector(t, context.Background(), &p, c, nil)
	if _, err := runner.Run(context.Background(), p, nil); err != nil {
		t.Fatal(err)
	}
	st := col.Stats()
	t.Logf("dry run: %d stages, lines %v; run: %d stages, lines %v", dry.Stages, dry.StageLines, st.Stages, st.StageLines)
	if st.Stages < dry.Stages || st.Stages > dry.Stages+dry.MaxMoreStages || !reflect.DeepEqual(dry.StageLines, st.StageLines[:dry.Stages]) {
		t.Errorf("dry run %d stages (≤%d more) %v, run %d stages %v", dry.Stages, dry.MaxMoreStages, dry.StageLines, st.Stages, st.StageLines)
	}
	if dry.MaxMoreStages != 1 {
		t.Errorf("dry run: at most %d more stages; want 1 (the leader's tie-break)", dry.MaxMoreStages)
	}
	again, err := batchmode.DryRun(context.Background(), p, batchmode.Stubs(p.Arms, true))
	if err != nil || !reflect.DeepEqual(again.StageLines, dry.StageLines) {
		t.Errorf("a second dry run: %v %v; the first %v (the stage plan must not vary)", err, again.StageLines, dry.StageLines)
	}
}

// TestOneModelPerBatch: two models advance in the same stages, each stage
// sending one batch per model.
func TestOneModelPerBatch(t *testing.T) {
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{APIKey: testKey})
	p, _ := plan(t, s, 10, "base")
	p.Models = append(p.Models, runner.Model{Name: "openai/other", Request: "other"})
	one, err := batchmode.DryRun(context.Background(), runner.Plan{RunID: p.RunID, Sets: p.Sets, Arms: p.Arms, Tasks: p.Tasks,
		Models: p.Models[:1], Repeats: 1, Seed: 1}, batchmode.Stubs(p.Arms, true))
	if err != nil {
		t.Fatal(err)
	}
	two, err := batchmode.DryRun(context.Background(), p, batchmode.Stubs(p.Arms, true))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("one model: %d stages, %d batches; two: %d stages, %d batches %v", one.Stages, one.Batches, two.Stages, two.Batches, two.BatchLines)
	if two.Stages != one.Stages || two.Batches != 2*one.Batches || two.Lines != 2*one.Lines {
		t.Errorf("two models: %d stages %d batches %d lines; one: %d %d %d", two.Stages, two.Batches, two.Lines, one.Stages, one.Batches, one.Lines)
	}
}

// forgetful is a journal of batches the provider never heard of.
type forgetful struct{ ids []string }

func (f *forgetful) SaveBatch(string, string, []string) error { return nil }
func (f *forgetful) LoadBatches(fn func(string, string, []string)) error {
	fn("batch_unknown", "file_unknown", f.ids)
	return nil
}

// TestJournaledBatchUnknown: a journaled batch the provider no longer
// knows (another account, deleted) is not fatal: its requests are sent
// again and every question ends without error.
func TestJournaledBatchUnknown(t *testing.T) {
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{APIKey: testKey})
	p, c := plan(t, s, 10, "full")
	// The first stage's requests (each unit's first call fails, so the
	// probe sees exactly them), hashed as the collector will.
	var ids []string
	probe := llm.ClientFunc(func(_ context.Context, req llm.Request) (llm.Response, error) {
		ids = append(ids, llm.HashOf(&req))
		return llm.Response{}, &llm.Error{Class: llm.ClassBadRequest, Err: context.Canceled}
	})
	pp := p
	pp.Models = []runner.Model{{Name: p.Models[0].Name, Request: p.Models[0].Request, Client: probe}}
	pp.Parallel = 1
	if _, err := runner.Run(context.Background(), pp, nil); err != nil {
		t.Fatal(err)
	}
	col, err := batchmode.New(context.Background(), batchmode.Config{Provider: c.Batcher(openai.BatchConfig{}), Journal: &forgetful{ids: ids},
		Poller: batch.Poller{Clock: instant{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	p.Models[0].Client, p.Lockstep = col, col
	res, err := runner.Run(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := col.Stats()
	t.Logf("%d requests awaited in an unknown batch; %d stages, %d batches, %d resumed, %d retried", len(ids), st.Stages, st.Batches, st.Resumed, st.Retried)
	for _, q := range res.Questions {
		if q.Error != "" {
			t.Fatalf("%s: %s", q.QuestionID, q.Error)
		}
	}
	if st.Resumed != 1 || st.Retried != len(ids) {
		t.Errorf("%d resumed, %d retried; want 1 and %d", st.Resumed, st.Retried, len(ids))
	}
}
