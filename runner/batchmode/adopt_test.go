package batchmode_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/batch"
	"github.com/medteam-bench/medteam/runner/batchmode"
)

// memJournal is a PendingJournal in memory.
type memJournal struct {
	mu      sync.Mutex
	batches [][3]any // id, file, ids
	pending map[string][2]any
}

func (j *memJournal) SaveBatch(id, file string, ids []string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.batches = append(j.batches, [3]any{id, file, ids})
	return nil
}

func (j *memJournal) LoadBatches(fn func(id, file string, ids []string)) error {
	for _, b := range j.batches {
		fn(b[0].(string), b[1].(string), b[2].([]string))
	}
	return nil
}

func (j *memJournal) SavePending(tag, file string, ids []string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.pending == nil {
		j.pending = map[string][2]any{}
	}
	j.pending[tag] = [2]any{file, ids}
	return nil
}

func (j *memJournal) DropPending(tag string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.pending, tag)
	return nil
}

func (j *memJournal) LoadPending(fn func(tag, file string, ids []string)) error {
	for tag, p := range j.pending {
		fn(tag, p[0].(string), p[1].([]string))
	}
	return nil
}

// lostReply creates each batch but loses the reply to the creation (a
// timeout), or, with kill, leaves the collector as a SIGKILL would: the
// batch created, nothing journaled after the pending entry.
type lostReply struct {
	*batchmode.Memory
	submits int
}

func (l *lostReply) SubmitTagged(ctx context.Context, lines []batch.Line, tag string, uploaded func(string) error) (batch.Ref, error) {
	l.submits++
	ref, err := l.Memory.SubmitTagged(ctx, lines, tag, uploaded)
	if err != nil {
		return ref, err
	}
	return batch.Ref{InputFileID: ref.InputFileID}, &llm.Error{Class: llm.ClassTimeout, Err: errors.New("reply lost")}
}

// TestLostCreationReplyAdopted (issue 28 item 1): a batch whose creation
// reply is lost (created, but the client does not know) is found by its
// tag and awaited, never submitted again; a pending entry left by a killed
// run is adopted by the next Collector from the provider's list.
func TestLostCreationReplyAdopted(t *testing.T) {
	calls := 0
	p := &lostReply{Memory: &batchmode.Memory{Client: llm.ClientFunc(func(context.Context, llm.Request) (llm.Response, error) {
		calls++
		return llm.Response{Text: "ok", Attempts: 1}, nil
	})}}
	j := &memJournal{}
	col, err := batchmode.New(context.Background(), batchmode.Config{Provider: p, Journal: j, Poller: batch.Poller{Clock: instantClock{}}})
	if err != nil {
		t.Fatal(err)
	}
	col.Seal()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := col.Chat(ctx, req("a")); err != nil {
		t.Fatal(err)
	}
	col.Close()
	if p.submits != 1 || calls != 1 || len(j.batches) != 1 || len(j.pending) != 0 {
		t.Fatalf("%d submits, %d lines run, %d journaled, %d pending; want 1 1 1 0", p.submits, calls, len(j.batches), len(j.pending))
	}

	// A killed run's pending entry: the batch exists at the provider.
	mem := &batchmode.Memory{Client: echo()}
	ref, err := mem.SubmitTagged(ctx, []batch.Line{{CustomID: llm.HashOf(new(req("b"))), Request: req("b")}}, "mt-killed", nil)
	if err != nil {
		t.Fatal(err)
	}
	j2 := &memJournal{}
	_ = j2.SavePending("mt-killed", ref.InputFileID, []string{llm.HashOf(new(req("b")))})
	col2, err := batchmode.New(context.Background(), batchmode.Config{Provider: mem, Journal: j2, Poller: batch.Poller{Clock: instantClock{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer col2.Close()
	col2.Seal()
	if _, err := col2.Chat(ctx, req("b")); err != nil {
		t.Fatal(err)
	}
	if st := col2.Stats(); st.Adopted != 1 || st.Batches != 0 || st.Resumed != 1 || len(j2.pending) != 0 {
		t.Fatalf("stats %+v, pending %v: want the killed run's batch adopted, nothing submitted", st, j2.pending)
	}
}
