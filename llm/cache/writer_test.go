package cache

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

// echo answers every request with its seed.
type echo struct{ calls int }

func (e *echo) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	e.calls++
	return llm.Response{Text: fmt.Sprint(req.Seed), Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 2}}, nil
}

func req(seed int64) llm.Request {
	return llm.Request{Model: "m", Seed: seed, Messages: []llm.Message{{Role: "user", Content: "q"}}}
}

// TestOneFileLookupPerCall: a miss reads the file once (not again before
// the backend call), and an answer stored a moment ago is served from
// memory before the writer has committed it.
func TestOneFileLookupPerCall(t *testing.T) {
	c, err := Open(filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	be := &echo{}
	cl := c.Wrap(be, Identity{Provider: "openai", Model: "m"}, ModeReadWrite)
	ctx := context.Background()
	const n = 200
	for i := range n {
		if _, err := cl.Chat(ctx, req(int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.fileLookups.Load(); got != n {
		t.Fatalf("%d file lookups for %d misses, want %d", got, n, n)
	}
	// The same requests again, at once: hits, from memory or the file.
	for i := range n {
		r, err := cl.Chat(ctx, req(int64(i)))
		if err != nil || !r.Cached || r.Text != fmt.Sprint(i) {
			t.Fatalf("call %d again: %+v %v", i, r, err)
		}
	}
	if be.calls != n {
		t.Fatalf("backend calls %d, want %d", be.calls, n)
	}
	if got := c.fileLookups.Load(); got > 2*n {
		t.Fatalf("%d file lookups, want ≤ %d", got, 2*n)
	}
	st := c.Stats() // commits what is queued
	if st.Writes != n || st.Hits != n || st.Misses != n {
		t.Fatalf("stats %+v", st)
	}
	if k := c.commits.Load(); k > n/writeBatch+10 || k < 1 {
		t.Fatalf("%d transactions for %d writes, want 1…%d (batches of up to %d, and what a flush drains)", k, n, n/writeBatch+10, writeBatch)
	}
}

// TestCloseCommitsQueuedWrites: what was stored before Close is in the file
// for the next Open.
func TestCloseCommitsQueuedWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	id := Identity{Provider: "openai", Model: "m"}
	cl := c.Wrap(&echo{}, id, ModeReadWrite)
	for i := range 100 {
		if _, err := cl.Chat(context.Background(), req(int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	for i := range 100 {
		if _, ok, err := c2.lookupFile(context.Background(), Key(id, req(int64(i)))); !ok || err != nil {
			t.Fatalf("entry %d not in the file after Close: %v %v", i, ok, err)
		}
	}
}

// TestWriteFailuresCounted: answers a failed write loses are counted
// (Stats.Unstored of Stats.Queued) and reported once through
// OnWriteFailure, however many writes fail (issue 28, item 6: a full disk
// lost 94 of 1,035 answers without a word).
func TestWriteFailuresCounted(t *testing.T) {
	c, err := Open(filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var warnings []int64
	var warnErr error
	c.OnWriteFailure(func(lost int64, err error) { warnings, warnErr = append(warnings, lost), err })
	cl := c.Wrap(&echo{}, Identity{Provider: "openai", Model: "m"}, ModeReadWrite)
	ctx := context.Background()
	call := func(from, to int) {
		for i := from; i < to; i++ {
			if _, err := cl.Chat(ctx, req(int64(i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	call(0, 10)
	if st := c.Stats(); st.Queued != 10 || st.Unstored != 0 || st.Writes != 10 {
		t.Fatalf("before the failure: %+v", st)
	}
	// The file stops taking writes (as a full disk does): every insert fails.
	if _, err := c.db.Exec("DROP TABLE responses"); err != nil {
		t.Fatal(err)
	}
	call(10, 15)
	c.Flush()
	call(15, 20)
	st := c.Stats()
	if st.Queued != 20 || st.Unstored != 10 || st.Writes != 10 || st.Errors < 10 {
		t.Errorf("after the failure: %+v, want 10 of 20 unstored", st)
	}
	if len(warnings) != 1 || warnings[0] < 1 || warnErr == nil {
		t.Errorf("warnings %v (%v), want one", warnings, warnErr)
	}
}
