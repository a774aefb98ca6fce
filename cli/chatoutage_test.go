package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm/llmtest"
	"github.com/medteam-bench/medteam/results"
)

// TestOutageChatFailsModelsAnswers (issue 28 item 5): from the 300th chat
// request on, every chat completion answers 503 while the model list
// still answers 200. The breaker's probe is a real chat, so it does not
// close the breaker; calls are not sent while it is open; the outage clock
// runs from the first failure, so --max-outage fires (exit
// exitUnavailable) and no error row is committed. Before the fix the
// /models probe closed the breaker every time, the units hammered the
// endpoint (130 chat requests/s), and --max-outage never fired.
func TestOutageChatFailsModelsAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}})
	target, _ := url.Parse(srv.BaseURL())
	target.Path = ""
	rp := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	chats := 0
	var failed []time.Time // chat requests answered 503
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions") {
			mu.Lock()
			chats++
			down := chats >= 300
			if down {
				failed = append(failed, time.Now())
			}
			mu.Unlock()
			if down {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				w.Write([]byte(`{"error":{"message":"overloaded","type":"server_error"}}`))
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	base := proxy.URL + "/v1"
	out := t.TempDir()
	args := []string{"run", "--model", "openai/tiny", "--base-url", base, "--limit", "200", "--config", "full",
		"--cache", "off", "--parallel", "8", "--max-attempts", "2", "--retry-base-delay", "20ms",
		"--outage-probe", "200ms", "--max-outage", "6s", "--out", out, "--run-name", "r"}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var so, se bytes.Buffer
	start := time.Now()
	code := execute(ctx, nil, args, &so, &se)
	took := time.Since(start)
	mu.Lock()
	n := len(failed)
	var span time.Duration
	if n > 0 {
		span = time.Since(failed[0])
	}
	mu.Unlock()
	rate := float64(n) / span.Seconds()
	t.Logf("exit %d after %s; %d chat requests during the outage in %s: %.1f/s", code, took.Round(time.Millisecond), n, span.Round(time.Millisecond), rate)
	if ctx.Err() != nil || code != exitUnavailable {
		t.Fatalf("exit %d after %s (want %d, --max-outage 6s)\n%s", code, took, exitUnavailable, lastLine(se.String(), "medteam:"))
	}
	if rate > 5 {
		t.Errorf("%.1f chat requests/s during the outage, want ≤ 5", rate)
	}
	qs, err := results.ReadQuestions(filepath.Join(out, "r", results.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if q.Error != "" {
			t.Fatalf("the outage left an error row: %s %s", q.QuestionID, q.Error)
		}
	}
}
