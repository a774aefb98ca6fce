package batchmode_test

import (
	"context"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/batch"
	"github.com/medteam-bench/medteam/llm/llmtest"
	"github.com/medteam-bench/medteam/llm/openai"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/runner/batchmode"
)

type slowClock struct{ d time.Duration }

func (c slowClock) Sleep(ctx context.Context, _ time.Duration) error {
	select {
	case <-time.After(c.d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// A batch-mode run where one line fails (its tries spent) at stage 1 and the
// next stage's batch takes longer than --max-outage + --timeout to complete
// (provider batches take minutes to hours): the endpoint is not down, so the
// run completes (before, the outage timer ended it while a batch was pending).
func TestSlowStageAfterOneFailureIsNoOutage(t *testing.T) {
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{APIKey: testKey})
	s.SetBatchMode(llmtest.BatchMode{PollsPerStage: 2, ErrorFraction: 0.1, ErrorStatus: 500})
	p, c := plan(t, s, 8, "base")
	col, err := batchmode.New(context.Background(), batchmode.Config{Provider: c.Batcher(openai.BatchConfig{}),
		Poller: batch.Poller{Clock: slowClock{150 * time.Millisecond}}, MaxTries: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	p.Models[0].Client, p.Lockstep = col, col
	p.Models[0].Probe = func(ctx context.Context) (llm.Response, error) { return llm.Response{Attempts: 1}, nil }
	p.Breaker = runner.BreakerPolicy{MaxOutage: 500 * time.Millisecond, Grace: 100 * time.Millisecond, Backoff: 10 * time.Millisecond}
	start := time.Now()
	res, err := runner.Run(context.Background(), p, nil)
	n := 0
	if res != nil {
		n = len(res.Questions)
	}
	t.Logf("took %s, %d rows, stats %+v", time.Since(start), n, col.Stats())
	if err != nil {
		t.Fatalf("run: %v", err)
	}
}
