package batchmode_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/batch"
	"github.com/medteam-bench/medteam/runner/batchmode"
)

type flaky struct {
	*batchmode.Memory
	mu       sync.Mutex
	failLeft int
	failed   bool
	lim      batch.Limits
}

func (f *flaky) Limits() batch.Limits { return f.lim }

func (f *flaky) Status(ctx context.Context, id string) (batch.Status, error) {
	f.mu.Lock()
	if f.failLeft > 0 {
		f.failLeft--
		f.mu.Unlock()
		return batch.Status{ID: id}, &llm.Error{Class: llm.ClassNetwork, Err: context.DeadlineExceeded}
	}
	f.mu.Unlock()
	st, err := f.Memory.Status(ctx, id)
	if f.failed {
		st.State, st.Errors = batch.Failed, []string{"token_limit_exceeded: Enqueued token limit reached"}
	}
	return st, err
}

func (f *flaky) Results(ctx context.Context, st batch.Status) (map[string]batch.Result, error) {
	if f.failed {
		return map[string]batch.Result{}, nil
	}
	return f.Memory.Results(ctx, st)
}

type instantClock struct{}

func (instantClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

func echo() llm.Client {
	return llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return llm.Response{Text: "ok", Attempts: 1}, nil
	})
}

func newCol(t *testing.T, p batch.Provider) *batchmode.Collector {
	col, err := batchmode.New(context.Background(), batchmode.Config{Provider: p,
		Poller: batch.Poller{Clock: instantClock{}}})
	if err != nil {
		t.Fatal(err)
	}
	col.Seal()
	t.Cleanup(col.Close)
	return col
}

func req(s string) llm.Request {
	return llm.Request{Model: "m", Messages: []llm.Message{{Role: "user", Content: s}}}
}

// TestPollErrorDoesNotResubmit: a transient outage while polling (10
// retryable Status errors in a row) polls the same batch again at the next
// stage; it never submits the still-running batch's lines a second time.
func TestPollErrorDoesNotResubmit(t *testing.T) {
	p := &flaky{Memory: &batchmode.Memory{Client: echo()}, failLeft: 10}
	col := newCol(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := col.Chat(ctx, req("a"))
	st := col.Stats()
	t.Logf("err=%v batches=%d lines=%d retried=%d", err, st.Batches, st.Lines, st.Retried)
	if st.Batches != 1 {
		t.Errorf("a poll blip submitted %d batches for one request", st.Batches)
	}
}

// TestOneBadLineFailsAlone: a line too large for any batch fails alone,
// with its own error; the other lines of its model go out.
func TestOneBadLineFailsAlone(t *testing.T) {
	p := &flaky{Memory: &batchmode.Memory{Client: echo()}, lim: batch.Limits{MaxBytes: 3000}}
	col := newCol(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var small error
	wg.Add(2)
	go func() { defer wg.Done(); _, small = col.Chat(ctx, req("small")) }()
	go func() { defer wg.Done(); col.Chat(ctx, req(strings.Repeat("x", 5000))) }()
	wg.Wait()
	if small != nil {
		t.Errorf("the small request failed because of another line: %v (class %s)", small, llm.ClassOf(small))
	}
}

// TestFailedBatchKeepsReason: a batch the provider fails as a whole
// (validation, the queued-token limit) fails its lines with the provider's
// reason and class, not as expired.
func TestFailedBatchKeepsReason(t *testing.T) {
	p := &flaky{Memory: &batchmode.Memory{Client: echo()}, failed: true}
	col := newCol(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := col.Chat(ctx, req("a"))
	st := col.Stats()
	t.Logf("err=%v class=%s batches=%d", err, llm.ClassOf(err), st.Batches)
	if strings.Contains(err.Error(), "expired") || !strings.Contains(err.Error(), "token_limit") {
		t.Errorf("failed batch reported as %q (class %s), provider's reason lost; %d batches", err, llm.ClassOf(err), st.Batches)
	}
}

type gone struct{ *batchmode.Memory }

func (gone) Status(_ context.Context, id string) (batch.Status, error) {
	return batch.Status{ID: id, State: batch.Completed, OutputFileID: "file-x"}, nil
}
func (gone) Results(context.Context, batch.Status) (map[string]batch.Result, error) {
	return nil, &llm.Error{Class: llm.ClassNotFound, Status: 404, Err: context.Canceled}
}

type oneJournal struct{ id, hash string }

func (j oneJournal) SaveBatch(string, string, []string) error { return nil }
func (j oneJournal) LoadBatches(fn func(string, string, []string)) error {
	fn(j.id, "file-in", []string{j.hash})
	return nil
}

// TestResumedBatchFilesGoneNotFatal: a journaled batch whose output file is
// gone (404) is sent again, and its 404 never reads as a fatal model error.
func TestResumedBatchFilesGoneNotFatal(t *testing.T) {
	r := req("a")
	col, err := batchmode.New(context.Background(), batchmode.Config{Provider: gone{&batchmode.Memory{Client: echo()}},
		Journal: oneJournal{"batch_old", llm.HashOf(&r)}, Poller: batch.Poller{Clock: instantClock{}}})
	if err != nil {
		t.Fatal(err)
	}
	col.Seal()
	defer col.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = col.Chat(ctx, req("a"))
	if llm.ClassOf(err).Fatal() {
		t.Errorf("resumed batch with its file gone: %v (class %s, Fatal: the run stops, every rerun too)", err, llm.ClassOf(err))
	}
}

// TestAbandonedCallNotSubmitted: a call whose caller gave up before its
// stage is never submitted (nor billed).
func TestAbandonedCallNotSubmitted(t *testing.T) {
	col := newCol(t, &batchmode.Memory{Client: echo()})
	col.Admit() // a unit still running: the stage is not complete
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(time.Millisecond); cancel() }()
	_, err := col.Chat(ctx, req("a"))
	col.Leave() // the stage is complete, with nobody waiting
	time.Sleep(100 * time.Millisecond)
	if st := col.Stats(); st.Batches > 0 {
		t.Errorf("caller canceled (%v), yet %d batch(es) with %d line(s) submitted for nobody", err, st.Batches, st.Lines)
	}
}

// slowReads is a provider whose first reads of results time out (a loaded
// machine, a short --timeout).
type slowReads struct {
	*batchmode.Memory
	mu   sync.Mutex
	left int
}

func (s *slowReads) Results(ctx context.Context, st batch.Status) (map[string]batch.Result, error) {
	s.mu.Lock()
	if s.left > 0 {
		s.left--
		s.mu.Unlock()
		return nil, &llm.Error{Class: llm.ClassTimeout, Err: context.DeadlineExceeded}
	}
	s.mu.Unlock()
	return s.Memory.Results(ctx, st)
}

// TestSlowReadKeepsStage: a batch whose results could not be read at
// first (a timeout) is read again within its stage, so its units do not
// fall a stage behind the others and cost a batch more: two units of two
// sequential calls each, the first read timing out, make 2 stages and 2
// batches (issue 35 item 7: more batches than stages under load).
func TestSlowReadKeepsStage(t *testing.T) {
	p := &slowReads{Memory: &batchmode.Memory{Client: echo()}, left: 1}
	col, err := batchmode.New(context.Background(), batchmode.Config{Provider: p, Poller: batch.Poller{Clock: instantClock{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	const units = 2
	done := make(chan error, units)
	for u := range units {
		col.Admit()
		go func() {
			defer col.Leave()
			client := col.Wrap(col, int64(u))
			for step := range 2 {
				if _, err := client.Chat(ctx, req(fmt.Sprintf("u%d s%d", u, step))); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	col.Seal()
	for range units {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if st := col.Stats(); st.Stages != 2 || st.Batches != 2 {
		t.Errorf("%d stages, %d batches (lines %v) for two sequential calls per unit; want 2 and 2", st.Stages, st.Batches, st.BatchLines)
	}
}
