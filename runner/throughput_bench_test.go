package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/openai"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/teamwork"
)

// Throughput benchmark settings.
const (
	tpQuestions   = 240                   // questions per run (one benchmark iteration)
	tpDelay       = 20 * time.Millisecond // fixed service time of the fake server
	tpRunTimeout  = 2 * time.Minute       // a run that takes longer fails the benchmark
	tpCallTimeout = 10 * time.Second      // per-attempt timeout of the retry layer
	// tpAnswer is the content of an agent's answer (predict, discuss, final),
	// and of any request without a known schema.
	tpAnswer = `{"reasoning":"r","ranking":["A","B","C","D"],"confidence":0.6,"facts":["f"]}`
)

// tpAnswers are well-formed answers of the other call kinds (see
// teamwork/FORMATS.md), by the schema name the request carries, so that every
// call parses and the protocol takes its full path (monitoring included).
var tpAnswers = map[string]string{
	"medteam_assess":          `{"agents":3,"analysis":"a"}`,
	"medteam_recruit":         `{"roles":[{"name":"Cardiologist","focus":"f"},{"name":"Internist","focus":"f"},{"name":"Pharmacologist","focus":"f"}]}`,
	"medteam_synthesize":      `{"facts":["f"],"report":"r","quality":[0.8,0.6,0.7]}`,
	"medteam_mediate":         `{"summary":"s","leaning":"A"}`,
	"medteam_monitor_select":  `{"agent":2,"concern":"c"}`,
	"medteam_monitor_respond": `{"response":"r","accepts":true,"ranking":["A","B","C","D"],"confidence":0.6}`,
	"medteam_monitor_rate":    `{"quality":0.7,"debated_point":"d"}`,
	"medteam_tiebreak":        `{"answer":"A","reasoning":"r"}`,
}

// BenchmarkThroughputHTTP measures how close a run with the CLI's default
// settings gets to the throughput an OpenAI-compatible endpoint allows. One
// iteration is one whole run: 240 questions (the 50 of datasets.Sample,
// repeated under new IDs) × the full preset with a fixed team of 3 agents
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
//     second ÷ all requests after it (target < 0.05).
//
// Sub-benchmark overhead reports overhead-µs/call: the wall time of the same
// run at Parallel 1, against a zero-delay in-process llm.ClientFunc behind
// the same limiter ▸ retry, divided by its calls. It is what the harness
// itself spends per call on a question's critical path — prompt rendering,
// seeds and request hashing, meter, memo, limiter, retry, answer parsing,
// aggregation and result rows, amortized over the calls — without the HTTP
// transport.
func BenchmarkThroughputHTTP(b *testing.B) {
	qs := tpQuestionsFor(b, tpQuestions)
	arm := tpFullArm(b)
	for _, c := range []int{4, 16, 64, 256} {
		b.Run(fmt.Sprintf("C=%d", c), func(b *testing.B) { tpBenchHTTP(b, qs, arm, newTPServer(c, tpDelay)) })
	}
	b.Run("429/C=16", func(b *testing.B) {
		srv := newTPServer(16, tpDelay)
		srv.reject = true
		tpBenchHTTP(b, qs, arm, srv)
	})
	b.Run("overhead", func(b *testing.B) { tpBenchOverhead(b, qs, arm) })
}

func tpBenchHTTP(b *testing.B, qs []qa.Question, arm runner.Arm, srv *tpServer) {
	c := cap(srv.slots)
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			srv.conns.Add(1)
		}
	}
	ts.Start()
	b.Cleanup(ts.Close) // handlers return as soon as their client goes away

	var wall, busy time.Duration
	var calls, late, lateRejected int64
	runs, limit, units := 0, 0, 0
	for b.Loop() {
		backend, err := openai.New(openai.Config{BaseURL: ts.URL + "/v1"})
		if err != nil {
			b.Fatal(err)
		}
		client, lim := tpStack(backend, llm.DefaultLimitPolicy("openai"))
		before, busy0, rej0 := srv.requests.Load(), srv.busy.Load(), srv.rejected.Load()
		start := time.Now()
		srv.start.Store(start.UnixNano())
		lateRej0, lateAll0 := srv.lateRejected.Load(), srv.lateAll.Load()
		st := tpRun(b, qs, arm, client, lim.Spare)
		wall += time.Since(start)
		busy += time.Duration(srv.busy.Load() - busy0)
		got := srv.requests.Load() - before
		if sent := st.Calls - st.Shared; got != sent && !srv.reject {
			b.Fatalf("server answered %d requests, the run sent %d logical calls (retries?)", got, sent)
		}
		if srv.reject && srv.rejected.Load() == rej0 {
			b.Logf("the 429 server rejected nothing: the cap stayed under its capacity")
		}
		calls += got
		late += srv.lateAll.Load() - lateAll0
		lateRejected += srv.lateRejected.Load() - lateRej0
		limit, units = lim.Limit(), st.PeakUnits
		runs++
	}
	rate := float64(calls) / wall.Seconds()
	bound := float64(c) / tpDelay.Seconds()
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(bound, "bound-req/s")
	b.ReportMetric(rate/bound, "of-bound")
	b.ReportMetric(busy.Seconds()*1000/float64(calls), "served-ms/req")
	b.ReportMetric(busy.Seconds()/(float64(c)*wall.Seconds()), "server-util")
	b.ReportMetric(float64(srv.peak.Load()), "peak-conc")
	b.ReportMetric(float64(limit), "cap")
	b.ReportMetric(float64(units), "peak-units")
	b.ReportMetric(1000*float64(srv.conns.Load())/float64(calls), "new-conns/1000req")
	b.ReportMetric(float64(calls)/float64(runs*len(qs)), "calls/question")
	if srv.reject && late > 0 {
		b.ReportMetric(float64(lateRejected)/float64(late), "429-share-after-1s")
	}
}

func tpBenchOverhead(b *testing.B, qs []qa.Question, arm runner.Arm) {
	stub := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if err := ctx.Err(); err != nil {
			return llm.Response{}, &llm.Error{Class: llm.ClassCanceled, Err: err}
		}
		text := tpAnswer
		if req.Schema != nil {
			if a, ok := tpAnswers[req.Schema.Name]; ok {
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
	rp.PerCallTimeout = tpCallTimeout
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
func tpQuestionsFor(b *testing.B, n int) []qa.Question {
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

func tpFullArm(b *testing.B) runner.Arm {
	b.Helper()
	c, err := teamwork.ParseComponents("full", teamwork.Default())
	if err != nil {
		b.Fatal(err)
	}
	c.Agents = 3
	return runner.Arm{Label: c.Label(), Protocol: teamwork.Arm{Config: c}}
}

// tpServer is a minimal OpenAI-compatible chat-completion endpoint: every
// POST /v1/chat/completions is answered after delay with a well-formed answer
// of the requested kind (tpAnswers, else tpAnswer) and token usage, at most
// cap requests being served at once; the rest wait in the handler or, with
// reject, are answered 429 with Retry-After: 1 at once.
type tpServer struct {
	delay    time.Duration
	reject   bool
	slots    chan struct{}
	start    atomic.Int64 // run start (Unix ns), for the 429 share after the first second
	rejected atomic.Int64 // 429s
	// lateAll and lateRejected count the requests, and the 429s, after the
	// run's first second.
	lateAll, lateRejected atomic.Int64
	requests              atomic.Int64 // answered
	active                atomic.Int64 // in the handler now (queued or served)
	peak                  atomic.Int64 // most in the handler at once
	conns                 atomic.Int64 // TCP connections accepted
	busy                  atomic.Int64 // total service time (ns): slot taken to answer written
}

func newTPServer(cap int, delay time.Duration) *tpServer {
	return &tpServer{delay: delay, slots: make(chan struct{}, cap)}
}

type tpRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	ResponseFormat *struct {
		JSONSchema *struct {
			Name string `json:"name"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

type tpCompletion struct {
	ID      string     `json:"id"`
	Object  string     `json:"object"`
	Created int64      `json:"created"`
	Model   string     `json:"model"`
	Choices []tpChoice `json:"choices"`
	Usage   tpUsage    `json:"usage"`
}

type tpChoice struct {
	Index        int       `json:"index"`
	Message      tpMessage `json:"message"`
	FinishReason string    `json:"finish_reason"`
}

type tpMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type tpUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func (s *tpServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	n := s.active.Add(1)
	defer s.active.Add(-1)
	for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
	}
	var req tpRequest
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	late := time.Since(time.Unix(0, s.start.Load())) > time.Second
	if late {
		s.lateAll.Add(1)
	}
	if !s.take(r) {
		if late {
			s.lateRejected.Add(1)
		}
		s.rejected.Add(1)
		w.Header().Set("Retry-After", "1")
		http.Error(w, `{"error":{"message":"Rate limit reached: too many requests in flight","type":"requests","code":"rate_limit_exceeded"}}`, http.StatusTooManyRequests)
		return
	}
	taken := time.Now()
	defer func() {
		s.busy.Add(int64(time.Since(taken)))
		<-s.slots
	}()
	t := time.NewTimer(s.delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return
	}
	content := tpAnswer
	if f := req.ResponseFormat; f != nil && f.JSONSchema != nil {
		if a, ok := tpAnswers[f.JSONSchema.Name]; ok {
			content = a
		}
	}
	prompt := len(body) / 4
	out, _ := json.Marshal(tpCompletion{
		ID: "chatcmpl-bench", Object: "chat.completion", Created: 1, Model: req.Model,
		Choices: []tpChoice{{Message: tpMessage{Role: "assistant", Content: content}, FinishReason: "stop"}},
		Usage:   tpUsage{PromptTokens: prompt, CompletionTokens: len(content) / 4, TotalTokens: prompt + len(content)/4},
	})
	s.requests.Add(1) // before the answer leaves, so a finished run has counted it
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

// take waits for a service slot (without reject) or takes a free one; it
// reports false when none was taken (rejected, or the client went away).
func (s *tpServer) take(r *http.Request) bool {
	if s.reject {
		select {
		case s.slots <- struct{}{}:
			return true
		default:
			return false
		}
	}
	select {
	case s.slots <- struct{}{}:
		return true
	case <-r.Context().Done():
		return false
	}
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
		client := llm.NewLimiter(llm.NewRetry(sim.New(profile, items), llm.DefaultRetryPolicy()), llm.DefaultLimitPolicy("sim"))
		plan := runner.Plan{
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
