package teamwork

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

// BenchmarkProtocol measures the protocol on the zero-latency simulator:
// one op is one question (all its calls, prompts, parses and aggregation).
// It runs on every core (b.RunParallel), as a run with --parallel does, and
// reports questions/s and calls/s; allocs/op is allocations per question.
func BenchmarkProtocol(b *testing.B) {
	qs := sampleQuestions(b, 50)
	model := simFor(b, "default", qs)
	for _, preset := range []string{"base", "full"} {
		b.Run(preset, func(b *testing.B) {
			c, err := ParseComponents(preset, Default())
			if err != nil {
				b.Fatal(err)
			}
			team := &Team{Config: c, Model: "sim", Arm: preset, RunSeed: 1}
			var next, calls atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					q := qs[int(next.Add(1))%len(qs)]
					counter := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
						calls.Add(1)
						return model.Chat(ctx, req)
					})
					if _, err := team.Run(context.Background(), counter, q.Item()); err != nil {
						b.Error(err)
						return
					}
				}
			})
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(b.N)/sec, "questions/s")
			b.ReportMetric(float64(calls.Load())/sec, "calls/s")
		})
	}
}
