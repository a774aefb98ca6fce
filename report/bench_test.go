package report

import (
	"io"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkReport is the whole report of 10 arms (the nine presets and
// smm+t) × 1,273 questions (the MedQA test set) × 3 repeats = 38,190 rows:
// Build with a price table (2,000 bootstrap replicates), report.md and
// summary.parquet. It reports the seconds per report and the peak heap
// (sampled every millisecond, the rows included) in MB; targets: < 5 s and
// < 300 MB.
func BenchmarkReport(b *testing.B) {
	arms := append(presetArms(), armSpec{"smm+t", [5]bool{true, false, false, true, false}})
	rows := synthRows(arms, 1273, 3, 1, "sim/default")
	opt := Options{Seed: 1, Prices: Prices{"sim/default": {Prompt: 0.15, Completion: 0.6}}, Runs: []RunInfo{{Name: "bench"}}}
	dir := b.TempDir()
	peak := watchHeap()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := Build(rows, opt)
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteMarkdown(io.Discard, r); err != nil {
			b.Fatal(err)
		}
		if err := WriteSummary(filepath.Join(dir, SummaryFile), r); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/report")
	b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MB")
}

// watchHeap samples the heap in use until the returned function is called,
// which returns the peak.
func watchHeap() func() uint64 {
	var max atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > max.Load() {
				max.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return max.Load()
	}
}
