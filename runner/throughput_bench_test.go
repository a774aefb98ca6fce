package runner_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/llmtest"
	"github.com/medteam-bench/medteam/llm/openai"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/tasks"
	"github.com/medteam-bench/medteam/teamwork"
)

// Throughput benchmark settings.
const (
	tpQuestions  = 240                   // questions per run (one benchmark iteration)
	tpDelay      = 20 * time.Millisecond // fixed service time of the fake server
	tpRunTimeout = 2 * time.Minute       // a run that takes longer fails the benchmark
)

// BenchmarkThroughputHTTP measures how close a run with the CLI's default
// settings gets to the throughput an OpenAI-compatible endpoint allows. One
// iteration is one whole run: max(240, 20·C) questions — 800 against the
// 429 server — (the 50 of datasets.Sample, repeated under new IDs), so that
// a run lasts about 5 s at the bound, × the full preset with a fixed team of 3 agents
// (17 calls per question, 15 of them in sequence), through the CLI's default
// client stack (limiter ▸ retry ▸ openai client, llm.DefaultLimitPolicy
// ("openai"): the adaptive cap starting at 8) with the runner following the
// limiter's spare capacity (at least 8 questions in flight, at most 1024) —
// nothing tuned to the server — to a loopback server that answers every chat
// completion after a fixed 20 ms and serves at most C requests at once. The
// server's capacity is C/20 ms, the bound.
//
// Sub-benchmarks C=4 … C=256 use a server that queues the requests beyond C
// (as vLLM or Ollama do); 429/C=16 one that answers them 429 with
// Retry-After: 1 (as hosted APIs do). They report:
//
//   - req/s: requests the server answered per second of run wall time;
//   - bound-req/s: C / 20 ms;
//   - of-bound: req/s ÷ bound-req/s (target ≥ 0.9; ≥ 0.8 at C=256, ≥ 0.85
//     against the 429 server). What is lost is the ramp-up from the
//     limiter's cold start, the run's tail (fewer than C calls ready),
//     the time a call holds a slot without being served, the server's
//     timer lateness and CPU contention (the server runs on the same two
//     cores);
//   - served-ms/req: the server's mean service time (20 ms plus its timer's
//     lateness, which lowers of-bound without being the harness's doing);
//   - server-util: Σ service time ÷ (C × wall);
//   - peak-conc: the most requests the server had at once, queued or served;
//   - cap: the limiter's cap at the end of the run; peak-units: the most
//     questions in flight;
//   - new-conns/1000req: TCP connections the server accepted per 1,000
//     requests (connection reuse by the client's HTTP transport);
//   - 429-share-after-1s (429 server): 429 answers after the run's first
//     second ÷ all requests after it (target < 0.05); with any 429, also
//     429-share (over the whole run), cuts and pauses (the limiter's), and
//     mean-in-flight (the limiter's slot time ÷ wall).
//
// Sub-benchmark overhead reports overhead-µs/call: the wall time of the same
// run at Parallel 1, against a zero-delay in-process llm.ClientFunc behind
// the same limiter ▸ retry, divided by its calls. It is what the harness
// itself spends per call on a question's critical path — prompt rendering,
// seeds and request hashing, meter, memo, limiter, retry, answer parsing,
// aggregation and result rows, amortized over the calls — without the HTTP
// transport.
func BenchmarkThroughputHTTP(b *testing.B) {
	arm := tpFullArm(b)
	for _, c := range []int{4, 16, 64, 256} {
		qs := tpQuestionsFor(b, max(tpQuestions, 20*c))
		b.Run(fmt.Sprintf("C=%d", c), func(b *testing.B) { tpBenchHTTP(b, qs, arm, llmtest.NewLatencyServer(c, tpDelay, false)) })
	}
	qs := tpQuestionsFor(b, 800)
	b.Run("429/C=16", func(b *testing.B) { tpBenchHTTP(b, qs, arm, llmtest.NewLatencyServer(16, tpDelay, true)) })
	b.Run("overhead", func(b *testing.B) { tpBenchOverhead(b, tpQuestionsFor(b, tpQuestions), arm) })
}

func tpBenchHTTP(b *testing.B, qs []qa.Question, arm runner.Arm, srv *llmtest.LatencyServer) {
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ConnState = srv.ConnState
	ts.Start()
	b.Cleanup(ts.Close) // handlers return as soon as their client goes away

	var wall, busy time.Duration
	var calls, rejected, late, lateRejected int64
	runs, limit, units := 0, 0, 0
	var ls llm.LimiterStats
	for b.Loop() {
		backend, err := openai.New(openai.Config{BaseURL: ts.URL + "/v1"})
		if err != nil {
			b.Fatal(err)
		}
		client, lim := tpStack(backend, llm.DefaultLimitPolicy("openai"))
		before, busy0, rej0 := srv.Requests.Load(), srv.Busy.Load(), srv.Rejected.Load()
		lateRej0, lateAll0 := srv.LateRejected.Load(), srv.LateAll.Load()
		start := time.Now()
		srv.Start()
		st := tpRun(b, qs, arm, client, lim.Spare)
		wall += time.Since(start)
		busy += time.Duration(srv.Busy.Load() - busy0)
		got := srv.Requests.Load() - before
		if sent := st.Calls - st.Shared; got != sent {
			b.Fatalf("server answered %d requests, the run sent %d logical calls", got, sent)
		}
		calls += got
		rejected += srv.Rejected.Load() - rej0
		late += srv.LateAll.Load() - lateAll0
		lateRejected += srv.LateRejected.Load() - lateRej0
		limit, units, ls = lim.Limit(), st.PeakUnits, lim.Stats()
		runs++
	}
	c := srv.Cap()
	rate := float64(calls) / wall.Seconds()
	bound := float64(c) / srv.Delay().Seconds()
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(bound, "bound-req/s")
	b.ReportMetric(rate/bound, "of-bound")
	b.ReportMetric(busy.Seconds()*1000/float64(calls), "served-ms/req")
	b.ReportMetric(busy.Seconds()/(float64(c)*wall.Seconds()), "server-util")
	b.ReportMetric(float64(srv.Peak.Load()), "peak-conc")
	b.ReportMetric(float64(limit), "cap")
	b.ReportMetric(float64(units), "peak-units")
	b.ReportMetric(1000*float64(srv.Conns.Load())/float64(calls+rejected), "new-conns/1000req")
	b.ReportMetric(float64(calls)/float64(runs*len(qs)), "calls/question")
	if rejected > 0 {
		b.ReportMetric(float64(ls.Cuts), "cuts")
		b.ReportMetric(float64(ls.Pauses), "pauses")
		b.ReportMetric(ls.SlotTime.Seconds()/wall.Seconds()*float64(runs), "mean-in-flight")
		b.ReportMetric(float64(rejected)/float64(calls+rejected), "429-share")
	}
	if late > 0 {
		b.ReportMetric(float64(lateRejected)/float64(late), "429-share-after-1s")
	}
}

func tpBenchOverhead(b *testing.B, qs []qa.Question, arm runner.Arm) {
	stub := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if err := ctx.Err(); err != nil {
			return llm.Response{}, &llm.Error{Class: llm.ClassCanceled, Err: err}
		}
		text := llmtest.LatencyAnswer
		if req.Schema != nil {
			if a, ok := llmtest.LatencyAnswers[req.Schema.Name]; ok {
				text = a
			}
		}
		return llm.Response{Text: text, Usage: llm.Usage{PromptTokens: 1000, CompletionTokens: len(text) / 4}, Attempts: 1}, nil
	})
	var wall time.Duration
	var calls int64
	for b.Loop() {
		client, _ := tpStack(stub, llm.DefaultLimitPolicy("openai"))
		start := time.Now()
		st := tpRun(b, qs, arm, client, nil)
		wall += time.Since(start)
		calls += st.Calls
	}
	b.ReportMetric(float64(wall.Microseconds())/float64(calls), "overhead-µs/call")
}

// tpStack is the CLI's stack (cli openEndpoint) without the response
// cache: limiter ▸ retry ▸ backend, the retry holding a slot per attempt.
func tpStack(backend llm.Client, lp llm.LimitPolicy) (llm.Client, *llm.Limiter) {
	rp := llm.DefaultRetryPolicy()
	lim := llm.NewLimiter(nil, lp)
	return llm.NewLimitedRetry(backend, rp, lim), lim
}

// tpRun runs every question once through client and fails the benchmark on
// any error, failed question or timeout: with spare, as the CLI does by
// default (8 questions in flight at least, more while the limiter has free
// slots); without, one question at a time.
func tpRun(b *testing.B, qs []qa.Question, arm runner.Arm, client llm.Client, spare func() int) runner.Stats {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), tpRunTimeout)
	defer cancel()
	plan := runner.Plan{
		Tasks:    tasks.All(),
		RunID:    "throughput",
		Sets:     []runner.QuestionSet{{Name: "medqa-sample", Questions: qs}},
		Models:   []runner.Model{{Name: "openai/bench", Request: "bench", Client: client, Spare: spare}},
		Arms:     []runner.Arm{arm},
		Repeats:  1,
		Seed:     1,
		Parallel: 1,
	}
	if spare != nil {
		plan.Parallel, plan.MaxParallel = 8, -1
	}
	sink := &tpSink{}
	st, err := runner.Execute(ctx, plan, runner.Options{Sink: sink})
	if err != nil {
		b.Fatalf("run: %v", err)
	}
	if st.Finished != len(qs) || st.Failed > 0 {
		b.Fatalf("run finished %d of %d questions, %d failed (first error: %s)", st.Finished, len(qs), st.Failed, sink.firstErr.Load())
	}
	if bad := sink.parseFailures.Load(); bad > 0 {
		b.Fatalf("%d answers were not parsed; the fake answer should be well formed for every call kind", bad)
	}
	return st
}

// tpSink discards rows, keeping the first error and the parse failures.
type tpSink struct {
	firstErr      atomic.Value // string
	parseFailures atomic.Int64
}

func (s *tpSink) Put(_ string, _ int64, q results.QuestionRow, _ []results.CallRow) error {
	if q.Error != "" {
		s.firstErr.CompareAndSwap(nil, q.Error)
	}
	s.parseFailures.Add(int64(q.ParseFailures))
	return nil
}

// tpQuestionsFor returns n questions: the embedded sample, repeated under
// new IDs when n exceeds it.
func tpQuestionsFor(b testing.TB, n int) []qa.Question {
	b.Helper()
	sample, err := datasets.Sample()
	if err != nil {
		b.Fatal(err)
	}
	qs := make([]qa.Question, n)
	for i := range qs {
		qs[i] = sample[i%len(sample)]
		if k := i / len(sample); k > 0 {
			qs[i].ID = fmt.Sprintf("%s-copy%d", qs[i].ID, k)
		}
	}
	return qs
}

func tpFullArm(b testing.TB) runner.Arm {
	b.Helper()
	c, err := teamwork.ParseComponents("full", teamwork.Default())
	if err != nil {
		b.Fatal(err)
	}
	c.Agents = 3
	return runner.Arm{Label: c.Label(), Protocol: teamwork.Arm{Config: c}}
}

// BenchmarkExecuteMemory measures the runner's own memory on a large run:
// one iteration is 20,000 distinct questions (the sample's stems made unique
// by a case number, so each question holds its own text) × base with 3
// agents on sim/default through limiter ▸ retry, Parallel 8 — the memcheck
// run (scripts/memcheck.sh) without the journal, the parquet export and the
// summary: the sink discards the rows. It reports, sampling
// runtime.MemStats every 10 ms:
//
//   - base-heap-MB: HeapInuse before the run, after a GC (the questions and
//     the simulator's items);
//   - peak-heap-MB: the largest HeapInuse seen during the run;
//   - after-heap-MB: HeapInuse after the run and a GC (the questions still
//     referenced), so after − base is what the run kept.
func BenchmarkExecuteMemory(b *testing.B) {
	const n = 20000
	sample, err := datasets.Sample()
	if err != nil {
		b.Fatal(err)
	}
	c, err := teamwork.ParseComponents("base", teamwork.Default())
	if err != nil {
		b.Fatal(err)
	}
	c.Agents = 3
	arm := runner.Arm{Label: c.Label(), Protocol: teamwork.Arm{Config: c}}
	profile, err := sim.LookupProfile("default")
	if err != nil {
		b.Fatal(err)
	}
	var base, peak, after uint64
	for b.Loop() {
		b.StopTimer()
		qs := make([]qa.Question, n)
		items := make(map[string]sim.Item, n)
		for i := range qs {
			q := sample[i%len(sample)]
			q.Stem = fmt.Sprintf("%s (Synthetic case %d.)", q.Stem, i+1)
			q.ID = datasets.MedQAID(q.Stem, q.Options)
			qs[i] = q
			items[q.ID] = sim.Item{Letters: q.Letters(), Gold: q.Gold}
		}
		client := llm.NewLimiter(llm.NewRetry(sim.New(profile, items, teamwork.Sim), llm.DefaultRetryPolicy()), llm.DefaultLimitPolicy("sim"))
		plan := runner.Plan{
			Tasks:    tasks.All(),
			RunID:    "memory",
			Sets:     []runner.QuestionSet{{Name: "synthetic", Questions: qs}},
			Models:   []runner.Model{{Name: "sim/default", Request: "default", Client: client}},
			Arms:     []runner.Arm{arm},
			Repeats:  1,
			Seed:     1,
			Parallel: 8,
		}
		base = tpHeapAfterGC()
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var runPeak uint64
		wg.Go(func() {
			var m runtime.MemStats
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for {
				runtime.ReadMemStats(&m)
				runPeak = max(runPeak, m.HeapInuse)
				select {
				case <-stop:
					return
				case <-tick.C:
				}
			}
		})
		b.StartTimer()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		sink := &tpSink{}
		st, err := runner.Execute(ctx, plan, runner.Options{Sink: sink})
		cancel()
		b.StopTimer()
		close(stop)
		wg.Wait()
		if err != nil || st.Finished != n || st.Failed > 0 {
			b.Fatalf("run: %v; finished %d of %d, %d failed (first error: %v)", err, st.Finished, n, st.Failed, sink.firstErr.Load())
		}
		after = tpHeapAfterGC()
		runtime.KeepAlive(qs)
		peak = max(peak, runPeak)
		b.StartTimer()
	}
	b.ReportMetric(float64(base)/(1<<20), "base-heap-MB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(after)/(1<<20), "after-heap-MB")
}

func tpHeapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// BenchmarkDryRunSweep measures a dry run of a nine-preset sweep on 1,273
// questions (the MedQA test set's size; the sample's questions repeated
// under new IDs) with real-model stubs, as `medteam run --dry-run --limit
// 1273 --config base,c1,…,full` runs it: it reports units/s and the heap
// in use at the end.
func BenchmarkDryRunSweep(b *testing.B) {
	qs := tpQuestionsFor(b, 1273)
	var arms []runner.Arm
	for _, name := range []string{"base", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "full"} {
		c, err := teamwork.ParseComponents(name, teamwork.Default())
		if err != nil {
			b.Fatal(err)
		}
		arms = append(arms, runner.Arm{Label: c.Label(), Protocol: teamwork.Arm{Config: c}})
	}
	plan := runner.Plan{RunID: "dry", Sets: []runner.QuestionSet{{Name: "medqa", Questions: qs}},
		Tasks:  tasks.All(),
		Models: []runner.Model{{Name: "openai/gpt-4o-mini", Request: "gpt-4o-mini"}}, Arms: arms, Repeats: 1, Seed: 1, Parallel: 8}
	for b.Loop() {
		est, err := runner.DryRun(context.Background(), plan)
		if err != nil || est.Units != 9*1273 {
			b.Fatalf("units %d, err %v", est.Units, err)
		}
	}
	b.ReportMetric(float64(9*1273*b.N)/b.Elapsed().Seconds(), "units/s")
}
