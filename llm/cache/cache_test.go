package cache_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/cache"
)

// backend is a fake model: it answers with a text derived from the request
// and counts calls.
type backend struct {
	calls atomic.Int64
	err   error
	gate  chan struct{} // when non-nil, calls wait on it (or ctx)
}

func (b *backend) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	n := b.calls.Add(1)
	if b.gate != nil {
		select {
		case <-b.gate:
		case <-ctx.Done():
			return llm.Response{}, &llm.Error{Class: llm.ClassCanceled, Provider: "fake", Err: ctx.Err()}
		}
	}
	if b.err != nil {
		return llm.Response{}, b.err
	}
	last := ""
	if len(req.Messages) > 0 {
		last = req.Messages[len(req.Messages)-1].Content
	}
	return llm.Response{
		Text:     fmt.Sprintf("answer to %q (call %d)", last, n),
		Usage:    llm.Usage{PromptTokens: 11, CompletionTokens: 7},
		Latency:  1234 * time.Millisecond,
		Attempts: 2,
	}, nil
}

var testID = cache.Identity{Provider: "ollama", BaseURL: "http://127.0.0.1:11434", Model: "llama3.1:8b", Digest: "sha256:46e0c10c039e"}

func baseReq() llm.Request {
	return llm.Request{
		Model:       "llama3.1:8b",
		Messages:    []llm.Message{{Role: llm.RoleSystem, Content: "You are a doctor."}, {Role: llm.RoleUser, Content: "Q1?"}},
		Temperature: 0.7,
		TopP:        0.9,
		MaxTokens:   256,
		Seed:        42,
		Schema:      &llm.Schema{Name: "ranking", Schema: json.RawMessage(`{"type":"object"}`)},
		Meta:        llm.Meta{QuestionID: "q1", Arm: "base", Repeat: 0, Phase: "prediction", Kind: "predict", Agent: 1, Role: "cardiologist"},
	}
}

func openTemp(t testing.TB) (*cache.Cache, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sub", "responses.db")
	c, err := cache.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, path
}

func TestHitMiss(t *testing.T) {
	c, _ := openTemp(t)
	be := &backend{}
	cl := c.Wrap(be, testID, cache.ModeReadWrite)
	ctx := context.Background()

	first, err := cl.Chat(ctx, baseReq())
	if err != nil {
		t.Fatal(err)
	}
	if first.Cached || first.Attempts != 2 || first.Latency != 1234*time.Millisecond {
		t.Fatalf("miss should pass the backend's response through: %+v", first)
	}
	second, err := cl.Chat(ctx, baseReq())
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{Text: first.Text, Usage: first.Usage, Cached: true}
	if !reflect.DeepEqual(second, want) {
		t.Fatalf("hit = %+v, want %+v", second, want)
	}
	if be.calls.Load() != 1 {
		t.Fatalf("backend calls %d, want 1", be.calls.Load())
	}
	if st := c.Stats(); st != (cache.Stats{Hits: 1, Misses: 1, Writes: 1, Queued: 1}) {
		t.Fatalf("stats %+v", st)
	}
	e, ok, err := c.Lookup(ctx, cache.Key(testID, baseReq()))
	if err != nil || !ok {
		t.Fatalf("lookup: %v %v", ok, err)
	}
	if e.Latency != 1234*time.Millisecond || e.Provider != "ollama" || e.Model != "llama3.1:8b" ||
		e.Digest != testID.Digest || e.Usage != first.Usage || time.Since(e.CreatedAt) > time.Minute {
		t.Fatalf("entry %+v", e)
	}
	// The meter records a hit as cached with 0 attempts.
	m := llm.NewMeter(cl, false)
	if _, err := m.Chat(ctx, baseReq()); err != nil {
		t.Fatal(err)
	}
	if tot := m.Totals(); tot.CachedCalls != 1 || tot.Attempts != 0 || tot.Usage != first.Usage {
		t.Fatalf("meter totals %+v", tot)
	}
}

func TestModes(t *testing.T) {
	ctx := context.Background()
	t.Run("read serves hits and never writes", func(t *testing.T) {
		c, _ := openTemp(t)
		be := &backend{}
		ro := c.Wrap(be, testID, cache.ModeRead)
		for range 2 {
			r, err := ro.Chat(ctx, baseReq())
			if err != nil || r.Cached {
				t.Fatalf("%+v %v", r, err)
			}
		}
		if be.calls.Load() != 2 || c.Stats().Writes != 0 {
			t.Fatalf("calls %d, stats %+v", be.calls.Load(), c.Stats())
		}
		if _, ok, _ := c.Lookup(ctx, cache.Key(testID, baseReq())); ok {
			t.Fatal("read mode wrote an entry")
		}
		// Filled by a rw client, served to the read client.
		if _, err := c.Wrap(be, testID, cache.ModeReadWrite).Chat(ctx, baseReq()); err != nil {
			t.Fatal(err)
		}
		r, err := ro.Chat(ctx, baseReq())
		if err != nil || !r.Cached || be.calls.Load() != 3 {
			t.Fatalf("%+v %v calls %d", r, err, be.calls.Load())
		}
	})
	t.Run("off bypasses", func(t *testing.T) {
		c, _ := openTemp(t)
		be := &backend{}
		if _, err := c.Wrap(be, testID, cache.ModeReadWrite).Chat(ctx, baseReq()); err != nil {
			t.Fatal(err)
		}
		off := c.Wrap(be, testID, cache.ModeOff)
		if off != llm.Client(be) {
			t.Fatal("off should return the backend itself")
		}
		r, err := off.Chat(ctx, baseReq())
		if err != nil || r.Cached || be.calls.Load() != 2 {
			t.Fatalf("%+v %v", r, err)
		}
	})
	t.Run("errors are never stored", func(t *testing.T) {
		c, _ := openTemp(t)
		be := &backend{err: &llm.Error{Class: llm.ClassServer, Status: 503, Err: errors.New("down")}}
		cl := c.Wrap(be, testID, cache.ModeReadWrite)
		for range 2 {
			if _, err := cl.Chat(ctx, baseReq()); llm.ClassOf(err) != llm.ClassServer {
				t.Fatalf("err %v", err)
			}
		}
		if be.calls.Load() != 2 || c.Stats().Writes != 0 {
			t.Fatalf("calls %d stats %+v", be.calls.Load(), c.Stats())
		}
	})
}

func TestParseMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want cache.Mode
		ok   bool
	}{
		{"rw", cache.ModeReadWrite, true}, {"RW", cache.ModeReadWrite, true}, {"", cache.ModeReadWrite, true},
		{"read", cache.ModeRead, true}, {" off ", cache.ModeOff, true},
		{"write", "", false}, {"on", "", false},
	} {
		got, err := cache.ParseMode(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseMode(%q) = %q, %v", tc.in, got, err)
		}
	}
}

func TestKey(t *testing.T) {
	base := cache.Key(testID, baseReq())
	for _, tc := range []struct {
		name    string
		id      func(*cache.Identity)
		req     func(*llm.Request)
		changes bool
	}{
		{"temperature", nil, func(r *llm.Request) { r.Temperature = 0.5 }, true},
		{"temperature 0", nil, func(r *llm.Request) { r.Temperature = 0 }, true},
		{"top_p", nil, func(r *llm.Request) { r.TopP = 0.95 }, true},
		{"max tokens", nil, func(r *llm.Request) { r.MaxTokens = 512 }, true},
		{"seed", nil, func(r *llm.Request) { r.Seed = 43 }, true},
		{"schema", nil, func(r *llm.Request) { r.Schema = nil }, true},
		{"schema body", nil, func(r *llm.Request) { r.Schema = &llm.Schema{Name: "ranking", Schema: json.RawMessage(`{}`)} }, true},
		{"message", nil, func(r *llm.Request) { r.Messages[1].Content = "Q2?" }, true},
		{"role", nil, func(r *llm.Request) { r.Messages[0].Role = llm.RoleUser }, true},
		{"request model", nil, func(r *llm.Request) { r.Model = "llama3.1:70b" }, true},
		{"repeat", nil, func(r *llm.Request) { r.Meta.Repeat = 1 }, true},
		{"digest", func(i *cache.Identity) { i.Digest = "sha256:ffff" }, nil, true},
		{"base url", func(i *cache.Identity) { i.BaseURL = "http://gpu-box:11434" }, nil, true},
		{"provider", func(i *cache.Identity) { i.Provider = "openai" }, nil, true},
		{"identity model", func(i *cache.Identity) { i.Model = "other" }, nil, true},
		{"arm", nil, func(r *llm.Request) { r.Meta.Arm = "full" }, false},
		{"question id", nil, func(r *llm.Request) { r.Meta.QuestionID = "q999" }, false},
		{"phase/kind/turn/agent/role", nil, func(r *llm.Request) {
			r.Meta.Phase, r.Meta.Kind, r.Meta.Turn, r.Meta.Agent, r.Meta.Role = "discussion", "discuss", 2, 0, "x"
		}, false},
		{"userinfo", func(i *cache.Identity) { i.BaseURL = "http://user:secret@127.0.0.1:11434" }, nil, false},
		{"trailing slash and case", func(i *cache.Identity) { i.BaseURL = "HTTP://127.0.0.1:11434/" }, nil, false},
	} {
		id, req := testID, baseReq()
		if tc.id != nil {
			tc.id(&id)
		}
		if tc.req != nil {
			tc.req(&req)
		}
		if changed := cache.Key(id, req) != base; changed != tc.changes {
			t.Errorf("%s: key changed = %v, want %v", tc.name, changed, tc.changes)
		}
	}
}

func TestCleanBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:secret@api.example.com/v1":  "https://api.example.com/v1",
		"https://secret@API.example.com/v1/":      "https://api.example.com/v1",
		"http://127.0.0.1:11434":                  "http://127.0.0.1:11434",
		"":                                        "",
		"user:secret@host:8080/v1":                "host:8080/v1",
		"https://us%er:se cret@host/v1":           "https://host/v1",
		"https://user:p@ss@host.example/v1?x=1#f": "https://host.example/v1?x=1#f",
	} {
		got := cache.CleanBaseURL(in)
		if got != want {
			t.Errorf("CleanBaseURL(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(got, "secret") || strings.Contains(got, "user") {
			t.Errorf("CleanBaseURL(%q) = %q leaks userinfo", in, got)
		}
	}
}

func TestNoSecretsStored(t *testing.T) {
	c, path := openTemp(t)
	const secret = "sk-SUPERSECRET-123"
	id := testID
	id.BaseURL = "https://apiuser:" + secret + "@api.example.com/v1"
	cl := c.Wrap(&backend{}, id, cache.ModeReadWrite)
	for i := range 20 {
		req := baseReq()
		req.Seed = int64(i)
		if _, err := cl.Chat(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	// Every column of every row.
	c.Flush()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT * FROM responses")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	n := 0
	for rows.Next() {
		n++
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			s := fmt.Sprint(v)
			if b, ok := v.([]byte); ok {
				s = string(b)
			}
			if strings.Contains(s, secret) || strings.Contains(s, "apiuser") {
				t.Fatalf("column %s holds the credential: %q", cols[i], s)
			}
		}
	}
	if err := rows.Err(); err != nil || n != 20 {
		t.Fatalf("rows %d, err %v", n, err)
	}
	// And the raw bytes of the database and its WAL.
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte("apiuser")) {
			t.Fatalf("%s contains the credential", p)
		}
	}
	// The userinfo did not enter the key either: a clean base URL hits.
	id.BaseURL = "https://api.example.com/v1"
	req := baseReq()
	req.Seed = 0
	r, err := c.Wrap(&backend{}, id, cache.ModeRead).Chat(context.Background(), req)
	if err != nil || !r.Cached {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestPersistence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "responses.db")
	ctx := context.Background()
	c1, err := cache.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	first, err := c1.Wrap(&backend{}, testID, cache.ModeReadWrite).Chat(ctx, baseReq())
	if err != nil {
		t.Fatal(err)
	}
	if err := c1.Close(); err != nil {
		t.Fatal(err)
	}
	c2, err := cache.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	be := &backend{}
	r, err := c2.Wrap(be, testID, cache.ModeRead).Chat(ctx, baseReq())
	if err != nil || !r.Cached || r.Text != first.Text || r.Usage != first.Usage || be.calls.Load() != 0 {
		t.Fatalf("after reopen: %+v %v (calls %d)", r, err, be.calls.Load())
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := cache.Open(""); err == nil {
		t.Error("empty path accepted")
	}
	if _, err := cache.Open(filepath.Join(t.TempDir(), "a?b.db")); err == nil {
		t.Error("path with '?' accepted")
	}
	p, err := cache.DefaultPath()
	if err != nil {
		t.Skip(err)
	}
	if filepath.Base(p) != "responses.db" || filepath.Base(filepath.Dir(p)) != "medteam" {
		t.Errorf("DefaultPath = %q", p)
	}
}

func TestSingleflight(t *testing.T) {
	c, _ := openTemp(t)
	be := &backend{gate: make(chan struct{})}
	cl := c.Wrap(be, testID, cache.ModeReadWrite)
	const n = 16
	var wg sync.WaitGroup
	resps := make([]llm.Response, n)
	for i := range n {
		wg.Go(func() {
			r, err := cl.Chat(context.Background(), baseReq())
			if err != nil {
				t.Error(err)
			}
			resps[i] = r
		})
	}
	for be.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // let the others join the flight
	close(be.gate)
	wg.Wait()
	if be.calls.Load() != 1 {
		t.Fatalf("backend calls %d, want 1", be.calls.Load())
	}
	uncached := 0
	for _, r := range resps {
		if r.Text != resps[0].Text {
			t.Fatalf("different answers: %q vs %q", r.Text, resps[0].Text)
		}
		if !r.Cached {
			uncached++
		}
	}
	st := c.Stats()
	if uncached != 1 || st.Misses != 1 || st.Shared+st.Hits != n-1 {
		t.Fatalf("uncached %d, stats %+v", uncached, st)
	}
}

// sharer is a backend that shares identical requests itself, as batch
// mode's collector does: it answers once every call it expects has arrived.
type sharer struct{ *backend }

func (sharer) SharesIdenticalRequests() {}

// TestNoFlightsBeforeSharer: in front of a client that shares identical
// requests itself (batch mode's collector, whose stage barrier must see
// every caller parked in it), concurrent identical misses all reach it; no
// caller waits for another's flight in the cache, where the barrier cannot
// see it (issue 35 item 7: two arms' identical first calls hung the run).
func TestNoFlightsBeforeSharer(t *testing.T) {
	c, _ := openTemp(t)
	be := sharer{&backend{gate: make(chan struct{})}}
	cl := c.Wrap(be, testID, cache.ModeReadWrite)
	const n = 4
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if _, err := cl.Chat(ctx, baseReq()); err != nil {
				t.Error(err)
			}
		})
	}
	for be.calls.Load() < n && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	close(be.gate)
	wg.Wait()
	if got := be.calls.Load(); got != n {
		t.Fatalf("%d of %d identical concurrent misses reached the sharing client; the others waited in the cache", got, n)
	}
}

func TestSingleflightLeaderCanceled(t *testing.T) {
	c, _ := openTemp(t)
	be := &backend{gate: make(chan struct{})}
	cl := c.Wrap(be, testID, cache.ModeReadWrite)
	lctx, cancel := context.WithCancel(context.Background())
	leaderErr := make(chan error, 1)
	go func() {
		_, err := cl.Chat(lctx, baseReq())
		leaderErr <- err
	}()
	for be.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	followerResp := make(chan llm.Response, 1)
	go func() {
		r, err := cl.Chat(context.Background(), baseReq())
		if err != nil {
			t.Error(err)
		}
		followerResp <- r
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	if err := <-leaderErr; llm.ClassOf(err) != llm.ClassCanceled {
		t.Fatalf("leader err %v", err)
	}
	for be.calls.Load() < 2 { // the follower makes its own call
		time.Sleep(time.Millisecond)
	}
	close(be.gate)
	r := <-followerResp
	if r.Text == "" || r.Cached {
		t.Fatalf("follower %+v", r)
	}
}

// fill makes n distinct calls through cl with seeds prefix*1e6+i.
func fill(ctx context.Context, cl llm.Client, prefix, n int) error {
	for i := range n {
		req := baseReq()
		req.Seed = int64(prefix*1_000_000 + i)
		if _, err := cl.Chat(ctx, req); err != nil {
			return err
		}
	}
	return nil
}

func TestTwoHandlesConcurrently(t *testing.T) {
	path := filepath.Join(t.TempDir(), "responses.db")
	var hs [2]*cache.Cache
	for i := range hs {
		c, err := cache.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		hs[i] = c
	}
	const goroutines, perG = 4, 60
	ctx := context.Background()
	var wg sync.WaitGroup
	for h := range hs {
		for g := range goroutines {
			wg.Go(func() {
				cl := hs[h].Wrap(&backend{}, testID, cache.ModeReadWrite)
				// Overlapping key ranges: goroutine g of each handle writes the same keys.
				if err := fill(ctx, cl, g, perG); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	for h, c := range hs {
		if st := c.Stats(); st.Errors != 0 {
			t.Fatalf("handle %d: %+v", h, st)
		}
	}
	// Every key is readable from both handles, and was written exactly once.
	writes := hs[0].Stats().Writes + hs[1].Stats().Writes
	if writes != goroutines*perG {
		t.Fatalf("writes %d, want %d", writes, goroutines*perG)
	}
	for _, c := range hs {
		be := &backend{}
		if err := fill(ctx, c.Wrap(be, testID, cache.ModeRead), 0, perG); err != nil {
			t.Fatal(err)
		}
		if be.calls.Load() != 0 {
			t.Fatalf("%d misses after both handles wrote", be.calls.Load())
		}
	}
}

const helperEnv = "MEDTEAM_CACHE_TEST_HELPER"

// TestHelperProcess is the child of TestTwoProcesses; it does nothing in a
// normal run.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	prefix, _ := strconv.Atoi(os.Getenv(helperEnv + "_PREFIX"))
	c, err := cache.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() {
			if err := fill(context.Background(), c.Wrap(&backend{}, testID, cache.ModeReadWrite), prefix+g, 80); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if st := c.Stats(); st.Errors != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a subprocess")
	}
	path := filepath.Join(t.TempDir(), "responses.db")
	c, err := cache.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+path, helperEnv+"_PREFIX=100")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Once the child is writing, this process writes its own keys and some
	// of the child's at the same time.
	first := baseReq()
	first.Seed = 101 * 1_000_000
	for deadline := time.Now().Add(60 * time.Second); ; {
		if _, ok, err := c.Lookup(context.Background(), cache.Key(testID, first)); err != nil {
			t.Fatal(err)
		} else if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("child never wrote")
		}
		time.Sleep(time.Millisecond)
	}
	var wg sync.WaitGroup
	for _, prefix := range []int{1, 2, 100} {
		wg.Go(func() {
			if err := fill(context.Background(), c.Wrap(&backend{}, testID, cache.ModeReadWrite), prefix, 80); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "PASS") {
		t.Fatalf("child did not run the helper:\n%s", out.String())
	}
	be := &backend{}
	ro := c.Wrap(be, testID, cache.ModeRead)
	for _, prefix := range []int{1, 2, 100, 101, 102} {
		if err := fill(context.Background(), ro, prefix, 80); err != nil {
			t.Fatal(err)
		}
	}
	if be.calls.Load() != 0 || c.Stats().Errors != 0 {
		t.Fatalf("misses %d, stats %+v", be.calls.Load(), c.Stats())
	}
}

func BenchmarkCacheHit(b *testing.B) {
	c, _ := openTemp(b)
	cl := c.Wrap(&backend{}, testID, cache.ModeReadWrite)
	ctx := context.Background()
	if _, err := cl.Chat(ctx, baseReq()); err != nil {
		b.Fatal(err)
	}
	req := baseReq()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r, err := cl.Chat(ctx, req)
			if err != nil || !r.Cached {
				b.Fatal(r, err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "hits/s")
}

// TestLeaderCanceledKeepsAttempts: a call canceled while its backend call is
// in flight returns the attempts the backend reports with its error, so
// they are counted (the cache used to answer with an empty Response).
func TestLeaderCanceledKeepsAttempts(t *testing.T) {
	c, _ := openTemp(t)
	started := make(chan struct{})
	be := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		close(started)
		<-ctx.Done()
		return llm.Response{Attempts: 3, AttemptErrors: []llm.ErrorClass{llm.ClassServer, llm.ClassServer, llm.ClassCanceled}},
			&llm.Error{Class: llm.ClassCanceled, Provider: "fake", Err: ctx.Err()}
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	m := llm.NewMeter(c.Wrap(be, testID, cache.ModeReadWrite), false)
	resp, err := m.Chat(ctx, baseReq())
	if llm.ClassOf(err) != llm.ClassCanceled {
		t.Fatalf("err %v", err)
	}
	if resp.Attempts != 3 || m.Totals().Attempts != 3 || len(m.Calls()[0].AttemptErrors) != 3 {
		t.Fatalf("attempts: response %d, meter %d, errors %v; want 3", resp.Attempts, m.Totals().Attempts, m.Calls()[0].AttemptErrors)
	}
}

// TestMissingUsageSurvivesHit: an answer without usage comes back from the
// file as Usage.Missing, not as 0 tokens.
func TestMissingUsageSurvivesHit(t *testing.T) {
	c, _ := openTemp(t)
	be := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return llm.Response{Text: "A", Usage: llm.Usage{Missing: true}, Attempts: 1}, nil
	})
	cl := c.Wrap(be, testID, cache.ModeReadWrite)
	for i, want := range []bool{false, true} {
		resp, err := cl.Chat(context.Background(), baseReq())
		if err != nil || resp.Cached != want || resp.Usage != (llm.Usage{Missing: true}) {
			t.Fatalf("call %d: %+v, %v", i, resp, err)
		}
	}
}

// TestFinishReasonSurvivesHit: a reply cut at its token limit is served
// from the cache with its finish reason, served model and refusal (a hit
// parses as the first call did), also from the file after a reopen; a cache
// file written before those columns existed gains them and reads its
// entries with none recorded.
func TestFinishReasonSurvivesHit(t *testing.T) {
	c, path := openTemp(t)
	be := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return llm.Response{Text: "The answer is", FinishReason: "length", ServedModel: "m-2024-08-06", Refusal: "I can't help with that.",
			Usage: llm.Usage{PromptTokens: 3, CompletionTokens: 3}, Attempts: 1}, nil
	})
	same := func(r llm.Response) bool {
		return r.FinishReason == "length" && r.ServedModel == "m-2024-08-06" && r.Refusal == "I can't help with that."
	}
	cl := c.Wrap(be, testID, cache.ModeReadWrite)
	for i, want := range []bool{false, true} {
		resp, err := cl.Chat(context.Background(), baseReq())
		if err != nil || resp.Cached != want || !same(resp) {
			t.Fatalf("call %d: %+v, %v", i, resp, err)
		}
	}
	c.Close()
	c2, err := cache.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	resp, err := c2.Wrap(be, testID, cache.ModeRead).Chat(context.Background(), baseReq())
	if err != nil || !resp.Cached || !same(resp) {
		t.Fatalf("after reopen: %+v, %v", resp, err)
	}

	// Old files: the table without finish_reason, and with it but without
	// served_model and refusal.
	for name, extra := range map[string]string{"v0": "", "v1": ", finish_reason TEXT NOT NULL DEFAULT ''"} {
		old := filepath.Join(t.TempDir(), name+".db")
		db, err := sql.Open("sqlite", old)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`CREATE TABLE responses (key TEXT PRIMARY KEY, provider TEXT NOT NULL, model TEXT NOT NULL,
		digest TEXT NOT NULL, created_at TEXT NOT NULL, text TEXT NOT NULL, prompt_tokens INTEGER NOT NULL,
		completion_tokens INTEGER NOT NULL, latency_ms REAL NOT NULL` + extra + `) WITHOUT ROWID`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		c3, err := cache.Open(old)
		if err != nil {
			t.Fatalf("%s: an old cache file: %v", name, err)
		}
		for i := 0; i < 2; i++ {
			if resp, err := c3.Wrap(be, testID, cache.ModeReadWrite).Chat(context.Background(), baseReq()); err != nil || !same(resp) {
				t.Fatalf("%s: old file, call %d: %+v, %v", name, i, resp, err)
			}
		}
		c3.Close()
		c4, err := cache.Open(old)
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := c4.Wrap(be, testID, cache.ModeRead).Chat(context.Background(), baseReq()); err != nil || !resp.Cached || !same(resp) {
			t.Fatalf("%s: old file after reopen: %+v, %v", name, resp, err)
		}
		c4.Close()
	}
}
