package cli

import (
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm/llmtest"
)

// TestRunReportsEndpointLoad: the end of a run against a real endpoint says
// how many requests it sent (as many as the server saw), how many were in
// flight against the limiter's cap, and how many 429s came back.
func TestRunReportsEndpointLoad(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}})
	out := t.TempDir()
	code, so, se := runCLI(t, "run", "--model", "openai/tiny", "--base-url", srv.BaseURL(), "--limit", "3", "--config", "base",
		"--agents", "2", "--cache", "off", "--max-error-rate", "1", "--out", out)
	if code != exitOK && code != exitUnitErrors {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	want := fmt.Sprintf("endpoint openai/tiny: %d requests in ", srv.ChatRequests())
	if !strings.Contains(so, want) || !regexp.MustCompile(`limiter cap \d+ now; 0 answered 429`).MatchString(so) {
		t.Fatalf("want %q and the limiter's cap and 429s in:\n%s", want, so)
	}
	// The simulator's timing means nothing: no such line for sim.
	code, so, _ = runCLI(t, "run", "--limit", "2", "--config", "base", "--out", t.TempDir())
	if code != exitOK || strings.Contains(so, "endpoint sim/") {
		t.Fatalf("exit %d; sim run reports endpoint load:\n%s", code, so)
	}
}

// TestInFlightFlags: --in-flight alone fixes the calls in flight (the
// server never sees more, though the base preset asks 3 agents at once);
// --max-in-flight bounds the adaptive cap.
func TestInFlightFlags(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		max   int64
	}{
		{[]string{"--in-flight", "1"}, 1},
		{[]string{"--in-flight", "2", "--max-in-flight", "3"}, 3},
		{[]string{"--max-in-flight", "2"}, 2},
	} {
		var cur, peak atomic.Int64
		srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}, Respond: func(c llmtest.Call) string {
			n := cur.Add(1)
			defer cur.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(3 * time.Millisecond)
			return llmtest.DefaultRespond(c)
		}})
		args := append([]string{"run", "--model", "openai/tiny", "--base-url", srv.BaseURL(), "--limit", "6", "--config", "base",
			"--agents", "3", "--cache", "off", "--max-error-rate", "1", "--out", t.TempDir()}, tc.flags...)
		if code, so, se := runCLI(t, args...); code != exitOK && code != exitUnitErrors {
			t.Fatalf("%v: exit %d\n%s\n%s", tc.flags, code, so, se)
		}
		if got := peak.Load(); got > tc.max || got < 1 {
			t.Errorf("%v: the server saw %d calls at once, want 1…%d", tc.flags, got, tc.max)
		}
	}
	code, _, se := runCLI(t, "run", "--model", "openai/tiny", "--in-flight", "9", "--max-in-flight", "4", "--limit", "1", "--dry-run")
	if code != exitUsage || !strings.Contains(se, "--in-flight 9 is above --max-in-flight 4") {
		t.Fatalf("exit %d, stderr %s", code, se)
	}
}
