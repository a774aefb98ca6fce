package check

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// The simulation of the baseline gate's false-alarm and detection rates
// (issue 13). Real sim runs 400 times over are too slow for a test, so the
// outcomes are drawn at the row level with the accuracy and the seed-to-seed
// discordance of a real run — two `medteam run --dataset medqa --limit 500
// --config base --model sim/default` runs with seeds 1 and 2: base 71.4% and
// 72.4%, b/c = 33/38, discordance 14.2% — and judged by the gate's own code
// (Baseline → stats.Compare → NonInferior).
const (
	simQuestions   = 500
	simAccuracy    = 0.714
	simDiscordance = 0.142
	simPairs       = 200
	simDrop        = 0.05
)

// simRows draws a baseline and a candidate run of one arm over n questions:
// per question, both right with probability acc − d/2, only the baseline
// right d/2 + drop, only the candidate right d/2, else both wrong. drop = 0
// is the same configuration under another seed; drop > 0 a candidate that
// loses drop of accuracy (the lost answers are extra discordant pairs).
func simRows(rng *rand.Rand, n int, acc, d, drop float64) (base, cand []results.QuestionRow) {
	for i := range n {
		u := rng.Float64()
		b, c := false, false
		switch {
		case u < acc-d/2:
			b, c = true, true
		case u < acc+drop:
			b = true
		case u < acc+drop+d/2:
			c = true
		}
		id := fmt.Sprintf("q%04d", i)
		base = append(base, results.QuestionRow{Dataset: "medqa", Model: "sim/default", Arm: "base", QuestionID: id, Correct: b})
		cand = append(cand, results.QuestionRow{Dataset: "medqa", Model: "sim/default", Arm: "base", QuestionID: id, Correct: c})
	}
	return base, cand
}

// failRate is the share of pairs the gate fails (insufficient evidence is
// not a failure).
func failRate(seed uint64, drop, margin float64) float64 {
	var mu sync.Mutex
	fails := 0
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				rng := rand.New(rand.NewPCG(seed, uint64(p)))
				base, cand := simRows(rng, simQuestions, simAccuracy, simDiscordance, drop)
				s := Baseline(base, cand, BaselineOptions{Margin: margin, Seed: uint64(p) + 1, Reps: 100})
				if Failed(s.Results) > 0 {
					mu.Lock()
					fails++
					mu.Unlock()
				}
			}
		}()
	}
	for p := range simPairs {
		next <- p
	}
	close(next)
	wg.Wait()
	return float64(fails) / simPairs
}

func TestBaselineFalseAlarmAndDetection(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulation: 400 paired comparisons (2 s; longer under -race): go test -run TestBaselineFalseAlarm ./check/")
	}
	fa := failRate(1, 0, DefaultMargin)
	det := failRate(2, simDrop, DefaultMargin)
	t.Logf("baseline gate, margin %.3f, %d questions, discordance %.1f%%: false alarms %.1f%% of %d same-configuration pairs; detection %.1f%% of %d pairs %.0f points worse",
		DefaultMargin, simQuestions, 100*simDiscordance, 100*fa, simPairs, 100*det, simPairs, 100*simDrop)
	fmt.Printf("false-alarm rate %.1f%%, detection rate %.1f%% (margin %.3f)\n", 100*fa, 100*det, DefaultMargin)
	// A narrow margin no longer turns noise into failures: an unchanged
	// candidate fails only when it is shown worse (at most α), whatever δ.
	fa02 := failRate(1, 0, 0.02)
	t.Logf("with margin 0.020 instead: false alarms %.1f%%", 100*fa02)
	fmt.Printf("margin 0.020: false-alarm rate %.1f%%\n", 100*fa02)
	// α = 5% with a Monte Carlo allowance of 2 SE on 200 pairs (1.5 points).
	if fa > 0.08 || fa02 > 0.08 {
		t.Errorf("false-alarm rate %.1f%% (margin 0.02: %.1f%%), want ≤ 5%% within Monte Carlo error", 100*fa, 100*fa02)
	}
	// The gate's power at this size is 91% (NonInferiorityPower(500, 0.142,
	// 0.05, 0.05)): detection is about that.
	if det < 0.80 {
		t.Errorf("detection rate %.1f%%, want ≥ 80%%", 100*det)
	}
}
