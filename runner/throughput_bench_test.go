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
	tpQuestions   = 60                    // questions per run (one benchmark iteration)
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

// BenchmarkThroughputHTTP measures how close a run gets to the throughput an
// OpenAI-compatible endpoint allows. One iteration is one whole run: 60
// questions (the 50 of datasets.Sample, then the first 10 again under new
// IDs) × the full preset with a fixed team of 3 agents (17 calls per
// question), with 4·C questions in flight, through the CLI's client stack
// (limiter ▸ retry ▸ openai client, limiter Initial = Max = C) to a loopback
// server that answers every chat completion after a fixed 20 ms and serves at
// most C requests at once (the rest wait in the handler, as on a real
// server). The server's capacity is C/20 ms, the bound.
//
// Sub-benchmarks C=4 and C=16 report:
//
//   - req/s: requests the server answered per second of run wall time;
//   - bound-req/s: C / 20 ms;
//   - of-bound: req/s ÷ bound-req/s (target ≥ 0.9). What is lost is the time
//     a call holds its limiter slot without being served (HTTP round trip and
//     JSON on both sides), the run's tail (fewer than C calls ready), the
//     server's timer lateness and CPU contention;
//   - served-ms/req: the server's mean service time, slot taken to answer
//     written: 20 ms plus its timer's lateness, which lowers of-bound
//     without being the harness's doing;
//   - server-util: the share of the server's C slots spent serving,
//     Σ service time ÷ (C × wall); 1 − server-util is what the client side
//     (transport, limiter hand-off, ramp-up and tail) leaves idle;
//   - transport-ms/req: the mean time of a backend call (timed inside the
//     retry: one HTTP exchange) minus the server's service time — request
//     and response encoding, decoding and loopback transfer on both sides,
//     held under the limiter's slot;
//   - peak-conc: the most requests the server had at once, queued or served
//     (≤ C when the limiter caps the client correctly);
//   - new-conns/run: TCP connections the server accepted per run (connection
//     reuse by the client's HTTP transport).
//
// Sub-benchmark overhead reports overhead-µs/call: the wall time of the same
// run at Parallel 1, against a zero-delay in-process llm.ClientFunc behind
// the same limiter ▸ retry, divided by its calls. It is what the harness
// itself spends per call on a question's critical path — prompt rendering,
// seeds and request hashing, meter, memo, limiter, retry, answer parsing,
// aggregation and result rows, amortized over the calls — without the HTTP
// transport. (Only the 3 prediction calls of a question overlap at Parallel
// 1, so it is close to the CPU time per call; the garbage collector's
// background work on other cores is not counted.) This work happens outside the
// limiter's slots, so it does not lower of-bound unless the CPU saturates,
// which happens near GOMAXPROCS / overhead calls per second.
func BenchmarkThroughputHTTP(b *testing.B) {
	qs := tpQuestionsFor(b, tpQuestions)
	arm := tpFullArm(b)
	for _, c := range []int{4, 16, 64} {
		b.Run(fmt.Sprintf("C=%d", c), func(b *testing.B) { tpBenchHTTP(b, qs, arm, c) })
	}
	b.Run("overhead", func(b *testing.B) { tpBenchOverhead(b, qs, arm) })
}

func tpBenchHTTP(b *testing.B, qs []qa.Question, arm runner.Arm, c int) {
	srv := newTPServer(c, tpDelay)
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			srv.conns.Add(1)
		}
	}
	ts.Start()
	b.Cleanup(ts.Close) // handlers return as soon as their client goes away

	var wall, busy time.Duration
	var calls int64
	var exchange atomic.Int64 // ns spent in backend calls, summed
	runs := 0
	for b.Loop() {
		backend, err := openai.New(openai.Config{BaseURL: ts.URL + "/v1"})
		if err != nil {
			b.Fatal(err)
		}
		// timed measures each backend call (one HTTP exchange) from inside
		// the retry: the server's service time plus the transport.
		timed := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
			t0 := time.Now()
			resp, err := backend.Chat(ctx, req)
			exchange.Add(int64(time.Since(t0)))
			return resp, err
		})
		client := tpStack(timed, c)
		before, busy0 := srv.requests.Load(), srv.busy.Load()
		start := time.Now()
		st := tpRun(b, qs, arm, client, 4*c)
		wall += time.Since(start)
		busy += time.Duration(srv.busy.Load() - busy0)
		got := srv.requests.Load() - before
		if sent := st.Calls - st.Shared; got != sent {
			b.Fatalf("server answered %d requests, the run sent %d logical calls (retries?)", got, sent)
		}
		calls += got
		runs++
	}
	rate := float64(calls) / wall.Seconds()
	bound := float64(c) / tpDelay.Seconds()
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(bound, "bound-req/s")
	b.ReportMetric(rate/bound, "of-bound")
	b.ReportMetric(busy.Seconds()*1000/float64(calls), "served-ms/req")
	b.ReportMetric(busy.Seconds()/(float64(c)*wall.Seconds()), "server-util")
	b.ReportMetric((time.Duration(exchange.Load())-busy).Seconds()*1000/float64(calls), "transport-ms/req")
	b.ReportMetric(float64(srv.peak.Load()), "peak-conc")
	b.ReportMetric(float64(srv.conns.Load())/float64(runs), "new-conns/run")
	b.ReportMetric(1000*float64(srv.conns.Load())/float64(calls), "new-conns/1000req")
	b.ReportMetric(float64(calls)/float64(runs*len(qs)), "calls/question")
	if p := srv.peak.Load(); p > int64(c) {
		b.Errorf("the server saw %d requests at once; the limiter should cap them at %d", p, c)
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
		client := tpStack(stub, 4) // the cap does not matter at Parallel 1 (≤ 3 calls at once)
		start := time.Now()
		st := tpRun(b, qs, arm, client, 1)
		wall += time.Since(start)
		calls += st.Calls
	}
	b.ReportMetric(float64(wall.Microseconds())/float64(calls), "overhead-µs/call")
}

// tpStack is the CLI's stack (cli openEndpoint) without the response
// cache: limiter ▸ retry ▸ backend, the limiter fixed at c.
func tpStack(backend llm.Client, c int) llm.Client {
	rp := llm.DefaultRetryPolicy()
	rp.PerCallTimeout = tpCallTimeout
	lp := llm.DefaultLimitPolicy("openai")
	lp.Initial, lp.Max = c, c
	return llm.NewLimiter(llm.NewRetry(backend, rp), lp)
}

// tpRun runs every question once through client and fails the benchmark on
// any error, failed question or timeout.
func tpRun(b *testing.B, qs []qa.Question, arm runner.Arm, client llm.Client, parallel int) runner.Stats {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), tpRunTimeout)
	defer cancel()
	plan := runner.Plan{
		RunID:    "throughput",
		Sets:     []runner.QuestionSet{{Name: "medqa-sample", Questions: qs}},
		Models:   []runner.Model{{Name: "openai/bench", Request: "bench", Client: client}},
		Arms:     []runner.Arm{arm},
		Repeats:  1,
		Seed:     1,
		Parallel: parallel,
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
// cap requests being served at once (the rest wait in the handler).
type tpServer struct {
	delay    time.Duration
	slots    chan struct{}
	requests atomic.Int64 // answered
	active   atomic.Int64 // in the handler now (queued or served)
	peak     atomic.Int64 // most in the handler at once
	conns    atomic.Int64 // TCP connections accepted
	busy     atomic.Int64 // total service time (ns): slot taken to answer written
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
	select {
	case s.slots <- struct{}{}:
	case <-r.Context().Done():
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
