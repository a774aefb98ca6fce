package runner_test

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/cache"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/tasks"
	"github.com/medteam-bench/medteam/teamwork"
)

// BenchmarkCacheOverhead measures what the response cache costs a run:
// the full preset on 240 questions on the simulator (no latency: all CPU),
// 8 questions in flight, with the cache off and with a fresh cache in rw
// mode (every call a miss that is stored: the cache's worst case). It
// reports wall-µs/call, the run's wall time per logical call, and
// cpu-µs/call, the process's CPU time (user + system, all threads, the
// cache's background writer included) per logical call, which other load
// on the machine disturbs much less.
func BenchmarkCacheOverhead(b *testing.B) {
	qs := tpQuestionsFor(b, tpQuestions)
	arm := tpFullArm(b)
	for _, mode := range []string{"off", "rw"} {
		b.Run("cache="+mode, func(b *testing.B) { benchCache(b, qs, arm, mode) })
	}
}

func benchCache(b *testing.B, qs []qa.Question, arm runner.Arm, mode string) {
	profile, err := sim.LookupProfile("default")
	if err != nil {
		b.Fatal(err)
	}
	items := map[string]sim.Item{}
	for _, q := range qs {
		items[q.ID] = sim.Item{Letters: q.Letters(), Gold: q.Gold}
	}
	var calls int64
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		var client llm.Client = llm.NewLimitedRetry(sim.New(profile, items, teamwork.Sim), llm.DefaultRetryPolicy(), llm.NewLimiter(nil, llm.DefaultLimitPolicy("sim")))
		var db *cache.Cache
		if mode == "rw" {
			if db, err = cache.Open(filepath.Join(b.TempDir(), "responses.db")); err != nil {
				b.Fatal(err)
			}
			client = db.Wrap(client, cache.Identity{Provider: "sim", Model: "default"}, cache.ModeReadWrite)
		}
		plan := runner.Plan{RunID: "cache", Sets: []runner.QuestionSet{{Name: "medqa", Questions: qs}},
			Tasks:  tasks.All(),
			Models: []runner.Model{{Name: "sim/default", Request: "default", Client: client}}, Arms: []runner.Arm{arm},
			Repeats: 1, Seed: 1, Parallel: 8}
		b.StartTimer()
		cpu0 := cpuTime()
		st, err := runner.Execute(context.Background(), plan, runner.Options{Sink: &tpSink{}})
		if db != nil {
			db.Close() // the writer's last batch is part of the cost
		}
		cpu += cpuTime() - cpu0
		b.StopTimer()
		if err != nil || st.Finished != len(qs) {
			b.Fatalf("finished %d, err %v", st.Finished, err)
		}
		calls += st.Calls
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(calls), "wall-µs/call")
	b.ReportMetric(float64(cpu.Microseconds())/float64(calls), "cpu-µs/call")
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
