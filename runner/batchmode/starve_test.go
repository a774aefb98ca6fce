package batchmode_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm/batch"
	"github.com/medteam-bench/medteam/llm/cache"
	"github.com/medteam-bench/medteam/llm/llmtest"
	"github.com/medteam-bench/medteam/llm/openai"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/runner/batchmode"
)

// starve runs the test on one P shared with spinners busy-looping
// goroutines (a loaded machine) until the returned stop is called; stop
// restores GOMAXPROCS.
func starve(spinners int) (stop func()) {
	prev := runtime.GOMAXPROCS(1)
	var quit atomic.Bool
	var wg sync.WaitGroup
	for range spinners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; !quit.Load(); n++ {
			}
		}()
	}
	return func() {
		quit.Store(true)
		wg.Wait()
		runtime.GOMAXPROCS(prev)
	}
}

// lockstepRun is one batch-mode run of the test: its fake server, its plan
// (the collector behind the response cache, as 'run --batch' has it) and
// the dry run's stage count for the server's answers.
type lockstepRun struct {
	s    *llmtest.Server
	p    runner.Plan
	col  *batchmode.Collector
	want int
}

func newLockstepRun(t *testing.T, n int, presets []string) *lockstepRun {
	t.Helper()
	s := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{APIKey: testKey})
	p, c := plan(t, s, n, presets...)
	dry, err := batchmode.DryRun(context.Background(), p, c) // the server's own answers
	if err != nil {
		t.Fatal(err)
	}
	col, err := batchmode.New(context.Background(), batchmode.Config{Provider: c.Batcher(openai.BatchConfig{}),
		Poller: batch.Poller{Clock: instant{}}}) // no settle delay, as the CLI
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(col.Close)
	db, err := cache.Open(filepath.Join(t.TempDir(), "responses.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p.Models[0].Client = db.Wrap(col, cache.Identity{Provider: "openai", BaseURL: s.BaseURL(), Model: p.Models[0].Request}, cache.ModeReadWrite)
	p.Lockstep = col
	return &lockstepRun{s: s, p: p, col: col, want: dry.Stages}
}

// TestBarrierUnderStarvation: two batch-mode runs side by side on one CPU
// shared with busy loops, the response cache on (the default), each submit
// exactly one batch per stage of the dry run with the same answers, for a
// single arm and for two arms whose first requests are identical: a stage
// is complete when every live unit has parked every call it makes at that
// stage, a unit waiting for an identical request of another unit
// included, whatever the timing (issue 35 item 7: 22 batches for 2 × 9
// stages on a loaded machine).
func TestBarrierUnderStarvation(t *testing.T) {
	for _, presets := range [][]string{{"full"}, {"base", "full"}} {
		t.Run(strings.Join(presets, ","), func(t *testing.T) {
			runs := []*lockstepRun{newLockstepRun(t, 24, presets), newLockstepRun(t, 24, presets)}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			stop := starve(4)
			var wg sync.WaitGroup
			errs := make([]error, len(runs))
			for i, r := range runs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = runner.Run(ctx, r.p, nil)
				}()
			}
			wg.Wait()
			stop()
			for i, r := range runs {
				bs, st := r.s.BatchStats(), r.col.Stats()
				t.Logf("run %d: dry run %d stages; run: %d stages, %d batches %v (%v)", i, r.want, st.Stages, bs.BatchesCreated, bs.LinesPerBatch, errs[i])
				if errs[i] != nil || bs.BatchesCreated != r.want || st.Stages != r.want {
					t.Errorf("run %d: %d stages, %d batches submitted (%v); the dry run has %d stages", i, st.Stages, bs.BatchesCreated, errs[i], r.want)
				}
			}
		})
	}
}
