//go:build calibrate

package check

// The calibration of the statistics on real sim runs (issue 24, item 4 and
// its "done when"): `make calibrate` (not part of `make test`). The runs are
// the simulator's (runner.Run in memory, llm/sim, the zeroshot protocol: one
// call per question), on questions drawn at random from MedMCQA (2,816
// questions; set MEDTEAM_DATA or keep ../shared/datasets beside the
// checkout). Nothing here is tuned on its results: the gate's defaults come
// from docs/ci.md's reasoning, the drop from a fixed target of 5 points.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/stats"
)

// calibration sizes (issue 24, item 4) and pairs per cell.
var calSizes = []int{100, 200, 500, 1273, 2000}

const (
	calPairs    = 200
	calDrop     = 0.05
	oldMargin   = 0.065 // the gate before issue 24: fail when the bootstrap 95% lower end < −0.065
	covRuns     = 300
	covN        = 200
	covRepeats  = 3
	truthSeeds  = 12
	calDataset  = "medmcqa"
	calProtocol = "zeroshot"
)

// calPool loads the question pool.
func calPool(t *testing.T) []qa.Question {
	t.Helper()
	dir := datasets.DataDir("")
	if _, err := os.Stat(filepath.Join(dir, calDataset)); err != nil {
		dir = filepath.Join("..", "..", "..", "shared", "datasets")
	}
	src, err := datasets.Resolve(calDataset, dir)
	if err != nil {
		t.Skipf("calibration needs the %s data (MEDTEAM_DATA): %v", calDataset, err)
	}
	res, err := datasets.Load(src, datasets.LoadOptions{SkipInvalid: true})
	if err != nil {
		t.Skipf("calibration needs the %s data: %v", calDataset, err)
	}
	if len(res.Questions) < calSizes[len(calSizes)-1] {
		t.Fatalf("%s has %d questions, the calibration needs %d", calDataset, len(res.Questions), calSizes[len(calSizes)-1])
	}
	return res.Questions
}

// simRun runs the zeroshot arm on qs with a sim profile and a run seed.
func simRun(t testing.TB, qs []qa.Question, p sim.Profile, seed int64, repeats int) []results.QuestionRow {
	items := make(map[string]sim.Item, len(qs))
	for _, q := range qs {
		items[q.ID] = sim.Item{Letters: q.Letters(), Gold: q.Gold}
	}
	arm, err := protocols.All().Parse(calProtocol, protocol.Settings{Turns: 2, Discussion: "round_robin", Structured: true, AgentTemp: 0.7, LeaderTemp: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	plan := runner.Plan{RunID: "calibrate", Sets: []runner.QuestionSet{{Name: calDataset, Questions: qs}},
		Arms:    []runner.Arm{{Label: calProtocol, Protocol: arm}},
		Models:  []runner.Model{{Name: "sim/" + p.Name, Request: p.Name, Client: sim.New(p, items)}},
		Repeats: repeats, Seed: seed, Parallel: 1}
	res, err := runner.Run(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Questions
}

// accuracy is the share of correct rows (errors and abstentions wrong).
func accuracy(rows []results.QuestionRow) float64 {
	k := 0
	for _, r := range rows {
		if r.Correct && !r.Abstained && r.Error == "" && r.ErrorClass == "" {
			k++
		}
	}
	return float64(k) / float64(len(rows))
}

// poolAccuracy is the profile's true accuracy on the pool: the mean over
// truthSeeds full-pool runs.
func poolAccuracy(t *testing.T, pool []qa.Question, p sim.Profile) float64 {
	s := 0.0
	for seed := range truthSeeds {
		s += accuracy(simRun(t, pool, p, int64(1000+seed), 1))
	}
	return s / truthSeeds
}

// dropProfile is the default profile with its skills lowered until the
// zeroshot accuracy on the pool is calDrop lower (bisection on the shift,
// each step judged on the pool over truthSeeds seeds).
func dropProfile(t *testing.T, pool []qa.Question, base sim.Profile, target float64) (sim.Profile, float64) {
	lo, hi := 0.0, 0.5
	var best sim.Profile
	bestAcc := math.NaN()
	for range 10 {
		mid := (lo + hi) / 2
		p := base
		p.Name = "default"
		p.AgentSkill -= mid
		p.LeaderSkill -= mid
		acc := poolAccuracy(t, pool, p)
		best, bestAcc = p, acc
		if math.Abs(acc-target) < 0.002 {
			break
		}
		if acc > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return best, bestAcc
}

// verdicts counts a cell's outcomes.
type verdicts struct{ fail, insufficient, pass, oldFail int }

// TestCalibrateBaselineGate draws pairs of sim runs — the same
// configuration under two seeds (no true difference), and the baseline
// against a candidate 5 points worse — at n = 100 … 2,000 questions, and
// judges each with the default gate and with the gate before issue 24.
func TestCalibrateBaselineGate(t *testing.T) {
	pool := calPool(t)
	base, err := sim.LookupProfile("default")
	if err != nil {
		t.Fatal(err)
	}
	truth := poolAccuracy(t, pool, base)
	drop, dropAcc := dropProfile(t, pool, base, truth-calDrop)
	t.Logf("pool %s (%d questions), %s: true accuracy %.4f; drop profile (skills %.3f/%.3f) %.4f: a drop of %.4f",
		calDataset, len(pool), calProtocol, truth, drop.AgentSkill, drop.LeaderSkill, dropAcc, truth-dropAcc)
	nmax := calSizes[len(calSizes)-1]
	same, worse := make([]verdicts, len(calSizes)), make([]verdicts, len(calSizes))
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				rng := rand.New(rand.NewPCG(24, uint64(p)))
				perm := rng.Perm(len(pool))[:nmax]
				qs := make([]qa.Question, nmax)
				for i, j := range perm {
					qs[i] = pool[j]
				}
				b := simRun(t, qs, base, int64(2*p+1), 1)
				c := simRun(t, qs, base, int64(2*p+2), 1)
				w := simRun(t, qs, drop, int64(2*p+2), 1)
				for k, n := range calSizes {
					ids := map[string]bool{}
					for _, q := range qs[:n] {
						ids[q.ID] = true
					}
					sub := func(rows []results.QuestionRow) []results.QuestionRow {
						var out []results.QuestionRow
						for _, r := range rows {
							if ids[r.QuestionID] {
								out = append(out, r)
							}
						}
						return out
					}
					vs, vw := judgePair(sub(b), sub(c), uint64(p)), judgePair(sub(b), sub(w), uint64(p))
					mu.Lock()
					same[k].add(vs)
					worse[k].add(vw)
					mu.Unlock()
				}
			}
		}()
	}
	for p := range calPairs {
		next <- p
	}
	close(next)
	wg.Wait()
	var tab strings.Builder
	fmt.Fprintf(&tab, "| n | false alarms | detection of a %.0f-point drop | drop: insufficient evidence | drop: passed | before: false alarms | before: detection |\n|---:|---:|---:|---:|---:|---:|---:|\n", 100*calDrop)
	for k, n := range calSizes {
		s, w := same[k], worse[k]
		fmt.Fprintf(&tab, "| %d | %s | %s | %s | %s | %s | %s |\n", n, share(s.fail), share(w.fail), share(w.insufficient), share(w.pass), share(s.oldFail), share(w.oldFail))
		// α = 5% within Monte Carlo error: 2 SE on calPairs pairs.
		if lim := 0.05 + 2*math.Sqrt(0.05*0.95/calPairs); float64(s.fail)/calPairs > lim {
			t.Errorf("n = %d: false alarms %s, above %.1f%%", n, share(s.fail), 100*lim)
		}
	}
	t.Logf("calibration (%d pairs per cell; gate δ = %.2f, α = %.2f one-sided; before: bootstrap 95%% lower end < −%.3f):\n%s",
		calPairs, DefaultMargin, DefaultAlpha, oldMargin, tab.String())
	fmt.Print(tab.String())
}

func (v *verdicts) add(o verdicts) {
	v.fail += o.fail
	v.insufficient += o.insufficient
	v.pass += o.pass
	v.oldFail += o.oldFail
}

// judgePair is the default gate's verdict and the old rule's on one pair.
func judgePair(base, cand []results.QuestionRow, seed uint64) verdicts {
	c := stats.Compare(base, cand, stats.Bootstrap{Seed: seed, Reps: 500})
	r := NonInferior(c, BaselineOptions{})
	var v verdicts
	switch {
	case r.Pass:
		v.pass = 1
	case r.Insufficient:
		v.insufficient = 1
	default:
		v.fail = 1
	}
	if !(c.Accuracy.Delta.Boot.Lo >= -oldMargin) {
		v.oldFail = 1
	}
	return v
}

func share(k int) string { return fmt.Sprintf("%.1f%%", 100*float64(k)/calPairs) }

// TestCalibrateCoverage: covRuns sim runs of covN random questions with 3
// repeats each; the share whose 95% accuracy interval covers the true
// accuracy (the mean over truthSeeds full-pool runs), for the
// design-effect-corrected Wilson interval and for Wilson on the rows as if
// independent (before issue 24).
func TestCalibrateCoverage(t *testing.T) {
	pool := calPool(t)
	p, err := sim.LookupProfile("default")
	if err != nil {
		t.Fatal(err)
	}
	truth := poolAccuracy(t, pool, p)
	var mu sync.Mutex
	var wg sync.WaitGroup
	covered, naive := 0, 0
	deff := 0.0
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for run := range next {
				rng := rand.New(rand.NewPCG(2424, uint64(run)))
				perm := rng.Perm(len(pool))[:covN]
				qs := make([]qa.Question, covN)
				for i, j := range perm {
					qs[i] = pool[j]
				}
				rows := simRun(t, qs, p, int64(5000+run), covRepeats)
				g := stats.Aggregate(rows, stats.AggregateOptions{})[0]
				old := stats.Wilson(g.Correct, g.Rows, 0)
				mu.Lock()
				if g.AccuracyCI.Contains(truth) {
					covered++
				}
				if old.Contains(truth) {
					naive++
				}
				deff += g.DesignEffect
				mu.Unlock()
			}
		}()
	}
	for run := range covRuns {
		next <- run
	}
	close(next)
	wg.Wait()
	cov, old := float64(covered)/covRuns, float64(naive)/covRuns
	msg := fmt.Sprintf("coverage of nominal 95%% intervals, %d runs × %d questions × %d repeats (true accuracy %.4f, mean design effect %.2f): design-effect-corrected Wilson %.1f%%, Wilson on rows (before) %.1f%%",
		covRuns, covN, covRepeats, truth, deff/covRuns, 100*cov, 100*old)
	t.Log(msg)
	fmt.Println(msg)
	if cov < 0.925 || cov > 0.975 {
		t.Errorf("coverage %.1f%%, want 92.5–97.5%%", 100*cov)
	}
}
