package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm/llmtest"
	"github.com/medteam-bench/medteam/results"
)

// chatClock puts a recorder of chat request times in front of a fake
// server.
type chatClock struct {
	srv   *llmtest.Server
	http  *httptest.Server
	mu    sync.Mutex
	times []time.Time
}

func newChatClock(t *testing.T, srv *llmtest.Server) *chatClock {
	c := &chatClock{srv: srv}
	c.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			c.mu.Lock()
			c.times = append(c.times, time.Now())
			c.mu.Unlock()
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(c.http.Close)
	return c
}

func (c *chatClock) baseURL() string { return c.http.URL + "/v1" }

// since is the chat requests received from t on, and the first's time.
func (c *chatClock) since(t time.Time) (n int, first time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, x := range c.times {
		if !x.Before(t) {
			n++
		}
	}
	if len(c.times) > 0 {
		first = c.times[0]
	}
	return n, first
}

// TestOutageHangCLI (issue 35 item 2): every chat hangs. With --timeout 1s
// and --max-outage 4s a full run of 20 questions (several units in flight,
// several calls each) stops with exit 5 within --max-outage + one
// --timeout of the first failure (the first request's timeout), committing
// no error row. Before, the breaker heard of failures only when units had
// spent all their attempts, and the run was still going after 400 s.
func TestOutageHangCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}, ChatFaultsOnly: true})
	srv.FailFraction(1, llmtest.Hang())
	clock := newChatClock(t, srv)
	out := t.TempDir()
	const timeout, maxOutage = time.Second, 4 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var so, se strings.Builder
	code := execute(ctx, nil, []string{"run", "--model", "openai/tiny", "--base-url", clock.baseURL(), "--limit", "20", "--config", "full",
		"--cache", "off", "--timeout", timeout.String(), "--max-outage", maxOutage.String(), "--out", out, "--run-name", "r"}, &so, &se)
	end := time.Now()
	_, first := clock.since(time.Time{})
	took := end.Sub(first.Add(timeout))
	t.Logf("exit %d %s after the first failure (bound %s + %s)", code, took.Round(time.Millisecond), maxOutage, timeout)
	if ctx.Err() != nil || code != exitUnavailable {
		t.Fatalf("exit %d after %s (want %d)\n%s", code, took, exitUnavailable, lastLine(se.String(), "medteam:"))
	}
	if slack := 3 * time.Second; took > maxOutage+timeout+slack { // a loaded machine
		t.Errorf("stopped %s after the first failure, want ≤ %s + %s (+%s slack)", took, maxOutage, timeout, slack)
	}
	if qs, err := results.ReadQuestions(filepath.Join(out, "r", results.QuestionsFile)); err == nil && len(qs) > 0 {
		t.Errorf("%d rows committed during an outage", len(qs))
	}
}

// TestOutage503StormCLI (issue 35 item 2): /models answers, every chat
// answers 503, with the default parallelism and attempts and
// --retry-base-delay 50ms: after the first failure the endpoint gets at
// most 5 chat requests/s (the breaker opens on failed attempts as they
// happen; then only probes are sent), and the run stops with exit 5.
// Before, units in flight kept retrying (25/s over the first seconds).
func TestOutage503StormCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}, ChatFaultsOnly: true})
	srv.FailFraction(1, llmtest.Status(503))
	clock := newChatClock(t, srv)
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var so, se strings.Builder
	code := execute(ctx, nil, []string{"run", "--model", "openai/tiny", "--base-url", clock.baseURL(), "--limit", "20", "--config", "full",
		"--cache", "off", "--retry-base-delay", "50ms", "--max-outage", "6s", "--out", out, "--run-name", "r"}, &so, &se)
	end := time.Now()
	n, first := clock.since(time.Time{})
	window := end.Sub(first)
	rate := float64(n) / window.Seconds()
	t.Logf("exit %d; %d chat requests in the %s from the first failure to the end: %.1f/s", code, n, window.Round(time.Millisecond), rate)
	if ctx.Err() != nil || code != exitUnavailable {
		t.Fatalf("exit %d (want %d)\n%s", code, exitUnavailable, lastLine(se.String(), "medteam:"))
	}
	if rate > 5 {
		t.Errorf("%.1f chat requests/s after the first failure, want ≤ 5", rate)
	}
}

// TestProbesAccounted (issue 35 item 8): the first 12 chats answer 503, so
// the breaker opens and probes until the endpoint is back, and the run
// completes. Every chat the server received is on record: the attempts of
// calls.parquet plus the probes of manifest.json (counts.probes), which
// the summary also prints.
func TestProbesAccounted(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}, ChatFaultsOnly: true})
	srv.FailNext(12, llmtest.Status(503))
	out := t.TempDir()
	code, so, se := runCLI(t, "run", "--model", "openai/tiny", "--base-url", srv.BaseURL(), "--limit", "10", "--config", "full",
		"--cache", "off", "--retry-base-delay", "10ms", "--outage-probe", "50ms", "--max-outage", "1m", "--out", out, "--run-name", "r")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	dir := filepath.Join(out, "r")
	calls, err := results.ReadCalls(filepath.Join(dir, results.CallsFile))
	if err != nil {
		t.Fatal(err)
	}
	attempts := 0
	for _, c := range calls {
		attempts += int(c.Attempts)
	}
	raw, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Counts map[string]int64 `json:"counts"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	probes := m.Counts["probes"]
	served := srv.AwaitChatRequests(int64(attempts)+probes, 2*time.Second)
	t.Logf("%d attempts in calls.parquet + %d probes (%d tokens) in the manifest; the server received %d chats", attempts, probes, m.Counts["probe_tokens"], served)
	if probes == 0 {
		t.Fatal("no probe recorded: the breaker did not open, or its probes are not counted")
	}
	if int64(attempts)+probes != served {
		t.Errorf("attempts %d + probes %d = %d, the server received %d chat requests", attempts, probes, int64(attempts)+probes, served)
	}
	if !strings.Contains(so+se, "probe request(s)") {
		t.Errorf("the summary does not mention the probes:\n%s", so)
	}
}

// TestAbandonedAttemptsAccounted (issue 35 item 8): the endpoint answers a
// while, then returns 503 for good, so the run stops on --max-outage with
// units in flight that had sent calls. Their requests are on record too:
// attempts of calls.parquet + probes + the manifest's abandoned_attempts =
// the chats the server received.
func TestAbandonedAttemptsAccounted(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}, ChatFaultsOnly: true})
	done := make(chan struct{})
	defer close(done)
	go func() { // after 120 answered chats the endpoint goes down for good
		for srv.ChatRequests() < 120 {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
		srv.FailFraction(1, llmtest.Status(503))
	}()
	out := t.TempDir()
	code, so, se := runCLI(t, "run", "--model", "openai/tiny", "--base-url", srv.BaseURL(), "--limit", "20", "--config", "full",
		"--parallel", "4", "--cache", "off", "--retry-base-delay", "10ms", "--outage-probe", "50ms", "--max-outage", "1s", "--out", out, "--run-name", "r")
	if code != exitUnavailable {
		t.Fatalf("exit %d, want %d (outage)\n%s\n%s", code, exitUnavailable, so, se)
	}
	dir := filepath.Join(out, "r")
	calls, err := results.ReadCalls(filepath.Join(dir, results.CallsFile))
	if err != nil {
		t.Fatal(err)
	}
	attempts := int64(0)
	for _, c := range calls {
		attempts += int64(c.Attempts)
	}
	m, err := results.ReadManifest(filepath.Join(dir, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	n := m.Counts
	recorded := attempts + int64(n.Probes) + int64(n.AbandonedAttempts)
	served := srv.AwaitChatRequests(recorded, 2*time.Second)
	t.Logf("%d attempts in calls.parquet + %d probes + %d abandoned attempts (%d tokens); the server received %d chats",
		attempts, n.Probes, n.AbandonedAttempts, n.AbandonedTokens, served)
	if n.AbandonedAttempts == 0 {
		t.Fatal("no abandoned attempt recorded: the outage stopped no unit that had sent calls")
	}
	if recorded != served {
		t.Errorf("recorded %d requests, the server received %d", recorded, served)
	}
	if !strings.Contains(so+se, "questions stopped before they were written") {
		t.Errorf("the summary does not mention the abandoned requests:\n%s\n%s", so, se)
	}
}
