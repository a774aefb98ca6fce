package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/batch"
)

// BatchOptions tunes the batch conformance suite (RunBatch) to a provider.
type BatchOptions struct {
	// Model is the model name put in every request; "" means DefaultModel.
	Model string
	// New returns the batch provider under test and the synchronous client
	// of the same backend, both talking to the fake server s.
	New func(t *testing.T, s *Server) (batch.Provider, llm.Client)
	// Server starts the fake server of a check; nil means NewOpenAIServer
	// with zero ServerOptions.
	Server func(t *testing.T) *Server
}

// RunBatch holds a batch.Provider to the batch contract on the fake
// server's batch endpoint, one subtest per check: Complete (results routed
// by custom_id equal the synchronous answers, the line bodies are the
// synchronous request bodies, one file and one batch), PartialErrors (429
// and 500 entries classified retryable, a 400 not, resubmitting the
// retryable ones answers every line), Expired (unfinished lines reported
// retryable and unsent), Failed, Cancel, Split (chunks at the limits, one
// batch each) and List.
func RunBatch(t *testing.T, opts BatchOptions) {
	if opts.Model == "" {
		opts.Model = DefaultModel
	}
	if opts.Server == nil {
		opts.Server = func(t *testing.T) *Server { return NewOpenAIServer(t, ServerOptions{}) }
	}
	for _, c := range batchChecks {
		t.Run(c.name, func(t *testing.T) {
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("%s checks that %s", c.name, c.doc)
				}
			})
			s := opts.Server(t)
			p, sync := opts.New(t, s)
			c.run(t, &batchRig{opts: opts, s: s, p: p, sync: sync})
		})
	}
}

// batchRig is what a batch check runs against.
type batchRig struct {
	opts BatchOptions
	s    *Server
	p    batch.Provider
	sync llm.Client
}

// batchCheck is one check of RunBatch, holding a provider to the clause doc.
type batchCheck struct {
	name string
	doc  string
	run  func(t *testing.T, r *batchRig)
}

// instantClock is a batch.Clock that does not sleep.
type instantClock struct{}

func (instantClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// lines are n lines "L00", "L01", …: varied seeds and prompts, every other
// one asking for structured output.
func (r *batchRig) lines(n int) []batch.Line {
	out := make([]batch.Line, n)
	for i := range out {
		o := Options{Model: r.opts.Model}
		req := o.request(int64(100 + i))
		req.Messages[1].Content += fmt.Sprintf("\n(case %d)", i)
		if i%2 == 1 {
			req.Schema = DefaultSchema
			req.Temperature = 0.7
		}
		out[i] = batch.Line{CustomID: fmt.Sprintf("L%02d", i), Request: req}
	}
	return out
}

// submit submits lines and waits for the batch to end.
func (r *batchRig) submit(t *testing.T, lines []batch.Line) (batch.Ref, batch.Status, map[string]batch.Result) {
	t.Helper()
	ref, err := r.p.Submit(context.Background(), lines)
	if err != nil {
		t.Fatalf("Submit: %v", err)
	}
	if ref.ID == "" || ref.InputFileID == "" || ref.Count != len(lines) || ref.Bytes <= 0 {
		t.Errorf("Ref = %+v for %d lines", ref, len(lines))
	}
	st, err := (&batch.Poller{Provider: r.p, Clock: instantClock{}}).Wait(context.Background(), ref.ID)
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	res, err := r.p.Results(context.Background(), st)
	if err != nil {
		t.Fatalf("Results: %v", err)
	}
	return ref, st, res
}

// same fails the test unless res answers l as the synchronous client does.
func (r *batchRig) same(t *testing.T, l batch.Line, res batch.Result) {
	t.Helper()
	if res.Err != nil {
		t.Errorf("%s: error %v", l.CustomID, res.Err)
		return
	}
	want, err := r.sync.Chat(context.Background(), l.Request)
	if err != nil {
		t.Fatalf("sync Chat of %s: %v", l.CustomID, err)
	}
	if res.Response.Text != want.Text || res.Response.Usage != want.Usage {
		t.Errorf("%s: batch answer %q %+v, sync answer %q %+v", l.CustomID, res.Response.Text, res.Response.Usage, want.Text, want.Usage)
	}
	if res.Response.Attempts != 1 || res.Response.Cached {
		t.Errorf("%s: Attempts %d Cached %v", l.CustomID, res.Response.Attempts, res.Response.Cached)
	}
}

// classed fails the test unless err is a classified *llm.Error of class c.
func classed(t *testing.T, id string, err error, c llm.ErrorClass) *llm.Error {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %v (%T) is not an *llm.Error", id, err, err)
	}
	if e.Class != c || e.Provider == "" {
		t.Errorf("%s: class %q provider %q, want class %q: %v", id, e.Class, e.Provider, c, err)
	}
	return e
}

var batchChecks = []*batchCheck{
	batchCompleteCheck,
	batchPartialCheck,
	batchExpiredCheck,
	batchFailedCheck,
	batchCancelCheck,
	batchSplitCheck,
	batchListCheck,
}

var batchCompleteCheck = &batchCheck{
	name: "Complete",
	doc:  "a batch goes validating → in_progress → finalizing → completed and every line's result, routed by custom_id, equals the synchronous answer, the line's body being the synchronous request body",
	run: func(t *testing.T, r *batchRig) {
		r.s.SetBatchMode(BatchMode{PollsPerStage: 2})
		lines := r.lines(12)
		_, st, res := r.submit(t, lines)
		if st.State != batch.Completed || st.Counts.Total != 12 || st.Counts.Completed != 12 || st.Counts.Failed != 0 {
			t.Errorf("status %+v", st)
		}
		if len(res) != len(lines) {
			t.Errorf("%d results for %d lines", len(res), len(lines))
		}
		bodies := r.s.BatchInputBodies(st.InputFileID)
		for _, l := range lines {
			r.same(t, l, res[l.CustomID])
			if got, want := string(bodies[l.CustomID]), string(r.s.LastChat().Body); got != want {
				t.Errorf("%s: batch body %s, sync body %s", l.CustomID, got, want)
			}
		}
		bs := r.s.BatchStats()
		if bs.FilesUploaded != 1 || bs.BatchesCreated != 1 || fmt.Sprint(bs.LinesPerBatch) != "[12]" || bs.Polls != 6 {
			t.Errorf("server saw %+v, want 1 file, 1 batch of 12 lines, 6 polls", bs)
		}
	},
}

var batchPartialCheck = &batchCheck{
	name: "PartialErrors",
	doc:  "per-line error entries are classified as the synchronous path classifies their status (429 rate_limited and 5xx server, retryable; 400 bad_request, not), and resubmitting the retryable ones in later batches answers every line",
	run: func(t *testing.T, r *batchRig) {
		for _, tc := range []struct {
			status int
			class  llm.ErrorClass
		}{{429, llm.ClassRateLimited}, {500, llm.ClassServer}, {400, llm.ClassBadRequest}} {
			r.s.SetBatchMode(BatchMode{ErrorFraction: 0.5, ErrorStatus: tc.status})
			lines := r.lines(16)
			_, st, res := r.submit(t, lines)
			failed := 0
			var again []batch.Line
			for _, l := range lines {
				got, ok := res[l.CustomID]
				switch {
				case !ok:
					t.Errorf("HTTP %d: no result for %s", tc.status, l.CustomID)
				case got.Err != nil:
					failed++
					e := classed(t, l.CustomID, got.Err, tc.class)
					if e.Status != tc.status || got.Response.Attempts != 1 {
						t.Errorf("%s: Status %d Attempts %d", l.CustomID, e.Status, got.Response.Attempts)
					}
					if e.Class.Retryable() {
						again = append(again, l)
					}
				default:
					r.same(t, l, got)
				}
			}
			if failed == 0 || failed == len(lines) || failed != st.Counts.Failed {
				t.Errorf("HTTP %d: %d of %d lines failed, status counts %+v", tc.status, failed, len(lines), st.Counts)
			}
			if tc.class.Retryable() {
				r.retry(t, again)
			}
		}
	},
}

// retry resubmits lines until every one is answered (at most 30 batches).
func (r *batchRig) retry(t *testing.T, lines []batch.Line) {
	t.Helper()
	for round := 0; len(lines) > 0; round++ {
		if round == 30 {
			t.Fatalf("%d lines still failing after 30 batches", len(lines))
		}
		_, _, res := r.submit(t, lines)
		var left []batch.Line
		for _, l := range lines {
			if got := res[l.CustomID]; got.Err != nil {
				left = append(left, l)
			} else {
				r.same(t, l, got)
			}
		}
		lines = left
	}
}

var batchExpiredCheck = &batchCheck{
	name: "Expired",
	doc:  "an expired batch reports its answered lines and every unfinished line as a retryable error of class expired (batch.ErrExpired) that is an attempt (the provider received it) without tokens, and resubmitted they are answered",
	run: func(t *testing.T, r *batchRig) {
		r.s.SetBatchMode(BatchMode{PollsPerStage: 1, Outcome: BatchExpire, Prefix: 5})
		lines := r.lines(12)
		_, st, res := r.submit(t, lines)
		if st.State != batch.Expired {
			t.Fatalf("state %s, want expired", st.State)
		}
		var again []batch.Line
		for i, l := range lines {
			got := res[l.CustomID]
			if i < 5 {
				r.same(t, l, got)
				continue
			}
			e := classed(t, l.CustomID, got.Err, llm.ClassExpired)
			if !e.Class.Retryable() || e.Unsent || !errors.Is(got.Err, batch.ErrExpired) || got.Response.Attempts != 1 || got.Response.Usage != (llm.Usage{}) {
				t.Errorf("%s: %v (unsent %v, attempts %d, usage %+v), want a retryable attempt of class expired without tokens", l.CustomID, got.Err, e.Unsent, got.Response.Attempts, got.Response.Usage)
			}
			again = append(again, l)
		}
		ids := make([]string, len(lines))
		for i, l := range lines {
			ids[i] = l.CustomID
		}
		if u := batch.Unfinished(ids, res); len(u) != 0 {
			t.Errorf("lines without a result: %v", u)
		}
		r.s.SetBatchMode(BatchMode{})
		r.retry(t, again)
	},
}

var batchFailedCheck = &batchCheck{
	name: "Failed",
	doc:  "a batch failed in validation ends failed with its reasons and no results, so every line is unfinished",
	run: func(t *testing.T, r *batchRig) {
		r.s.SetBatchMode(BatchMode{Outcome: BatchFail})
		lines := r.lines(4)
		_, st, res := r.submit(t, lines)
		if st.State != batch.Failed || len(st.Errors) == 0 {
			t.Errorf("status %+v, want failed with errors", st)
		}
		if len(res) != 0 {
			t.Errorf("%d results from a failed batch", len(res))
		}
		if u := batch.Unfinished([]string{"L00", "L01", "L02", "L03"}, res); len(u) != 4 {
			t.Errorf("unfinished %v", u)
		}
		if bs := r.s.BatchStats(); bs.LinesRun != 0 {
			t.Errorf("a failed batch ran %d lines", bs.LinesRun)
		}
	},
}

var batchCancelCheck = &batchCheck{
	name: "Cancel",
	doc:  "a cancelled batch ends cancelled with the answers made before, its other lines reported canceled (batch.ErrCancelled); cancelling a finished batch is a classified error",
	run: func(t *testing.T, r *batchRig) {
		r.s.SetBatchMode(BatchMode{PollsPerStage: 3, Prefix: 2})
		lines := r.lines(6)
		ref, err := r.p.Submit(context.Background(), lines)
		if err != nil {
			t.Fatal(err)
		}
		st, err := r.p.Cancel(context.Background(), ref.ID)
		if err != nil || st.State != batch.Cancelling {
			t.Fatalf("Cancel = %s, %v; want cancelling", st.State, err)
		}
		st, err = (&batch.Poller{Provider: r.p, Clock: instantClock{}}).Wait(context.Background(), ref.ID)
		if err != nil || st.State != batch.Cancelled {
			t.Fatalf("Wait = %s, %v; want cancelled", st.State, err)
		}
		res, err := r.p.Results(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range lines {
			if i < 2 {
				r.same(t, l, res[l.CustomID])
				continue
			}
			if got := res[l.CustomID]; !errors.Is(got.Err, batch.ErrCancelled) {
				t.Errorf("%s: %v, want cancelled", l.CustomID, got.Err)
			} else {
				classed(t, l.CustomID, got.Err, llm.ClassCanceled)
			}
		}
		if _, err := r.p.Cancel(context.Background(), ref.ID); err == nil {
			t.Error("cancelling a cancelled batch succeeded")
		} else {
			CheckError(t, err)
		}
	},
}

var batchSplitCheck = &batchCheck{
	name: "Split",
	doc:  "lines cut by batch.Split at a request and a byte limit (with the provider's own sizes when it is a batch.Sizer) go out as one batch per chunk, each within the limits, and every line is answered",
	run: func(t *testing.T, r *batchRig) {
		lines := r.lines(23)
		sizes := make([]int, len(lines))
		sz, exact := r.p.(batch.Sizer)
		for i, l := range lines {
			if exact {
				n, err := sz.Size(l)
				if err != nil {
					t.Fatal(err)
				}
				sizes[i] = n
			} else {
				b, _ := json.Marshal(l.Request)
				sizes[i] = len(b)
			}
		}
		maxBytes := int64(sizes[0]+sizes[1]+sizes[2]) + 3 // three short lines
		ends, err := batch.Split(sizes, 5, maxBytes)
		if err != nil {
			t.Fatal(err)
		}
		start, want := 0, []int{}
		for _, e := range ends {
			ref, _, res := r.submit(t, lines[start:e])
			if exact && ref.Bytes > maxBytes {
				t.Errorf("batch of %d bytes over the %d limit", ref.Bytes, maxBytes)
			}
			for _, l := range lines[start:e] {
				r.same(t, l, res[l.CustomID])
			}
			want = append(want, e-start)
			start = e
		}
		if got := r.s.BatchStats().LinesPerBatch; fmt.Sprint(got) != fmt.Sprint(want) || len(got) < 5 {
			t.Errorf("server saw batches of %v lines, want %v (at least 5 batches)", got, want)
		}
	},
}

var batchListCheck = &batchCheck{
	name: "List",
	doc:  "List reports every submitted batch, newest first",
	run: func(t *testing.T, r *batchRig) {
		var ids []string
		for range 3 {
			ref, _, _ := r.submit(t, r.lines(2))
			ids = append([]string{ref.ID}, ids...)
		}
		list, err := r.p.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, st := range list {
			got = append(got, st.ID)
			if st.State != batch.Completed {
				t.Errorf("%s: state %s", st.ID, st.State)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(ids) {
			t.Errorf("List = %v, want %v", got, ids)
		}
	},
}
