package stats

import (
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// benchRows are 10 arms (the nine presets and smm+t) × 1,273 questions (the
// MedQA test set) × 3 repeats = 38,190 rows.
func benchRows() []results.QuestionRow {
	arms := append(presetArms(), armSpec{"smm+t", [5]bool{true, false, false, true, false}})
	p := func(f [5]bool, qe float64) float64 {
		return 0.55 + qe + 0.04*b2f(f[0]) + 0.06*b2f(f[1]) - 0.03*b2f(f[3])
	}
	return synthRows(arms, 1273, 3, 1, p)
}

// BenchmarkReport is everything a report computes from one run's rows:
// the per-group summaries with cost, every arm against base (2,000
// bootstrap replicates, Holm), the component effects and the factorial
// LPM.
func BenchmarkReport(b *testing.B) {
	rows := benchRows()
	price := func(_ string, p, c int64) (float64, bool) { return 1e-6*float64(p) + 4e-6*float64(c), true }
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Aggregate(rows, AggregateOptions{Price: price})
		CompareToReference(rows, "base", Bootstrap{Seed: 1})
		ComponentEffects(rows, Bootstrap{Seed: 1})
		if _, err := FactorialLPM(rows, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkCompareToReference is the nine comparisons alone.
func BenchmarkCompareToReference(b *testing.B) {
	rows := benchRows()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		CompareToReference(rows, "base", Bootstrap{Seed: 1})
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkAggregate is the per-group summaries alone.
func BenchmarkAggregate(b *testing.B) {
	rows := benchRows()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Aggregate(rows, AggregateOptions{})
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
