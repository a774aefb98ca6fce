package cli

import (
	"fmt"
	"strings"
	"testing"

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
	if !strings.Contains(so, want) || !strings.Contains(so, "limiter cap 8 now; 0 answered 429") {
		t.Fatalf("want %q and the limiter's cap and 429s in:\n%s", want, so)
	}
	// The simulator's timing means nothing: no such line for sim.
	code, so, _ = runCLI(t, "run", "--limit", "2", "--config", "base", "--out", t.TempDir())
	if code != exitOK || strings.Contains(so, "endpoint sim/") {
		t.Fatalf("exit %d; sim run reports endpoint load:\n%s", code, so)
	}
}
