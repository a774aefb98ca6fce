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
	"strconv"
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
	"github.com/medteam-bench/medteam/tasks"
)

// calibration sizes (issue 24, item 4; issue 34: and 200 questions × 3
// repeats) and pairs per cell (MEDTEAM_CAL_PAIRS overrides calPairs for a
// quick look; the table in docs/ci.md is at 400).
var calSizes = []int{100, 200, 500, 1273, 2000}

// calArms are the arms of every calibration run: two one-call arms, so
// that the gate is a family of two baseline checks whose union turns CI
// red, as a --config base,full run's is.
var calArms = []string{"zeroshot", "cot"}

const (
	calPairsDefault = 400
	calDrop         = 0.05
	calRepN         = 200 // the repeats cell: 200 questions × calRepeats
	calRepeats      = 3
	discSeeds       = 40 // seed-to-seed discordance: runs of one configuration
	discN           = 500
	covRuns         = 300
	covN            = 200
	covRepeats      = 3
	truthSeeds      = 12
	calDataset      = "medmcqa"
	calProtocol     = "zeroshot"
)

// calPairs is the number of pairs per cell.
func calPairs(t *testing.T) int {
	if v := os.Getenv("MEDTEAM_CAL_PAIRS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("MEDTEAM_CAL_PAIRS=%q: give a number of pairs ≥ 1", v)
		}
		return n
	}
	return calPairsDefault
}

// calPool loads the question pool, at least as large as the largest cell.
func calPool(t *testing.T) []qa.Question {
	t.Helper()
	qs := loadPool(t, calDataset)
	if len(qs) < calSizes[len(calSizes)-1] {
		t.Fatalf("%s has %d questions, the calibration needs %d", calDataset, len(qs), calSizes[len(calSizes)-1])
	}
	return qs
}

// loadPool loads a registry dataset from MEDTEAM_DATA (else
// ../shared/datasets beside the checkout).
func loadPool(t *testing.T, name string) []qa.Question {
	t.Helper()
	dir := datasets.DataDir("")
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		dir = filepath.Join("..", "..", "..", "shared", "datasets")
	}
	src, err := datasets.Resolve(name, dir)
	if err != nil {
		t.Skipf("calibration needs the %s data (MEDTEAM_DATA): %v", name, err)
	}
	res, err := datasets.Load(src, datasets.LoadOptions{SkipInvalid: true})
	if err != nil {
		t.Skipf("calibration needs the %s data: %v", name, err)
	}
	return res.Questions
}

// simRun runs the zeroshot arm on qs with a sim profile and a run seed.
func simRun(t testing.TB, qs []qa.Question, p sim.Profile, seed int64, repeats int) []results.QuestionRow {
	return simRunArms(t, qs, p, seed, repeats, calProtocol)
}

// simRunArms runs arms on qs with a sim profile and a run seed.
func simRunArms(t testing.TB, qs []qa.Question, p sim.Profile, seed int64, repeats int, arms ...string) []results.QuestionRow {
	items := make(map[string]sim.Item, len(qs))
	for _, q := range qs {
		items[q.ID] = sim.Item{Letters: q.Letters(), Gold: q.Gold}
	}
	var ras []runner.Arm
	for _, a := range arms {
		arm, err := protocols.All().Parse(a, protocol.Settings{Turns: 2, Discussion: "round_robin", Structured: true, AgentTemp: 0.7, LeaderTemp: 0.5, Agents: 3})
		if err != nil {
			t.Fatal(err)
		}
		ras = append(ras, runner.Arm{Label: a, Protocol: arm})
	}
	plan := runner.Plan{RunID: "calibrate", Sets: []runner.QuestionSet{{Name: calDataset, Questions: qs}},
		Tasks:   tasks.All(),
		Arms:    ras,
		Models:  []runner.Model{{Name: "sim/" + p.Name, Request: p.Name, Client: protocols.NewSim(p, items)}},
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

// verdicts counts a cell's outcomes: red is any non-zero exit of the gate
// with its defaults (a failed check: exit 7; an inconclusive one passes
// with a warning), strictRed that with --require-evidence (exit 7 or 8).
type verdicts struct{ pairs, red, fail, inconclusive, pass, strictRed int }

func (v *verdicts) add(rs []Result) {
	v.pairs++
	switch {
	case Failed(rs) > 0:
		v.fail++
	case Insufficient(rs) > 0:
		v.inconclusive++
	default:
		v.pass++
	}
	if Red(rs, false) {
		v.red++
	}
	if Red(rs, true) {
		v.strictRed++
	}
}

// calCell is one row of the table: n questions × repeats.
type calCell struct{ n, repeats int }

func (c calCell) String() string {
	if c.repeats > 1 {
		return fmt.Sprintf("%d × %d repeats", c.n, c.repeats)
	}
	return numText(c.n)
}

// numText prints a count with a thousands comma.
func numText(n int) string {
	if n >= 1000 {
		return fmt.Sprintf("%d,%03d", n/1000, n%1000)
	}
	return fmt.Sprint(n)
}

// TestCalibrateBaselineGate draws pairs of sim runs of two arms (zeroshot
// and cot: the gate is a family of two checks) — the same configuration
// under two seeds (no true difference), and the baseline against a
// candidate 5 points worse — at n = 100 … 2,000 questions and at 200
// questions × 3 repeats, and judges each with the gate's own code
// (Baseline, family α split, Red for the exit).
func TestCalibrateBaselineGate(t *testing.T) {
	pool := calPool(t)
	pairs := calPairs(t)
	base, err := sim.LookupProfile("default")
	if err != nil {
		t.Fatal(err)
	}
	truth := poolAccuracy(t, pool, base)
	drop, dropAcc := dropProfile(t, pool, base, truth-calDrop)
	t.Logf("pool %s (%d questions), %s: true accuracy %.4f; drop profile (skills %.3f/%.3f) %.4f: a drop of %.4f",
		calDataset, len(pool), calProtocol, truth, drop.AgentSkill, drop.LeaderSkill, dropAcc, truth-dropAcc)
	cells := make([]calCell, 0, len(calSizes)+1)
	for _, n := range calSizes {
		cells = append(cells, calCell{n, 1})
	}
	cells = append(cells, calCell{calRepN, calRepeats})
	same, worse := make([]verdicts, len(cells)), make([]verdicts, len(cells))
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				vs, vw := calPair(t, pool, base, drop, p, cells)
				mu.Lock()
				for k := range cells {
					same[k].add(vs[k])
					worse[k].add(vw[k])
				}
				mu.Unlock()
			}
		}()
	}
	for p := range pairs {
		next <- p
	}
	close(next)
	wg.Wait()
	tab := calTable(cells, same, worse)
	// α = 5% within Monte Carlo error: 2 SE on the pairs of a cell.
	lim := 0.05 + 2*math.Sqrt(0.05*0.95/float64(pairs))
	for k, c := range cells {
		if r := float64(same[k].red) / float64(pairs); r > lim {
			t.Errorf("%s: an unchanged candidate turned CI red %s of the time, above %.1f%%", c, rate(same[k].red, pairs), 100*lim)
		}
	}
	t.Logf("calibration (%d pairs per cell; arms %s; gate δ = %.2f, α = %.2f one-sided over the family):\n%s",
		pairs, strings.Join(calArms, ", "), DefaultMargin, DefaultAlpha, tab)
	fmt.Print(tab)
}

// calPair draws pair p: n questions at random, a baseline run, an
// unchanged candidate (another seed) and a worse one, and the gate's
// results on each cell's first n questions.
func calPair(t *testing.T, pool []qa.Question, base, drop sim.Profile, p int, cells []calCell) (same, worse [][]Result) {
	nmax := calSizes[len(calSizes)-1]
	rng := rand.New(rand.NewPCG(24, uint64(p)))
	perm := rng.Perm(len(pool))[:nmax]
	qs := make([]qa.Question, nmax)
	for i, j := range perm {
		qs[i] = pool[j]
	}
	b := simRunArms(t, qs, base, int64(2*p+1), 1, calArms...)
	c := simRunArms(t, qs, base, int64(2*p+2), 1, calArms...)
	w := simRunArms(t, qs, drop, int64(2*p+2), 1, calArms...)
	rq := qs[:calRepN]
	rb := simRunArms(t, rq, base, int64(2*p+1), calRepeats, calArms...)
	rc := simRunArms(t, rq, base, int64(2*p+2), calRepeats, calArms...)
	rw := simRunArms(t, rq, drop, int64(2*p+2), calRepeats, calArms...)
	for _, cell := range cells {
		bb, cc, ww := b, c, w
		if cell.repeats > 1 {
			bb, cc, ww = rb, rc, rw
		}
		ids := map[string]bool{}
		for _, q := range qs[:cell.n] {
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
		o := BaselineOptions{Seed: uint64(p), Reps: 100}
		same = append(same, Baseline(sub(bb), sub(cc), o).Results)
		worse = append(worse, Baseline(sub(bb), sub(ww), o).Results)
	}
	return same, worse
}

// calTable is the Markdown table of the cells, with Wilson 95% Monte Carlo
// intervals on the rates that carry the claims.
func calTable(cells []calCell, same, worse []verdicts) string {
	var tab strings.Builder
	fmt.Fprintf(&tab, "| n | CI red (unchanged; any non-zero exit) | unchanged: exit 7 | unchanged: inconclusive, passed with a warning | CI red with --require-evidence | detection of a %.0f-point drop (exit 7) | drop: inconclusive | drop: passed |\n|---|---:|---:|---:|---:|---:|---:|---:|\n", 100*calDrop)
	for k, c := range cells {
		s, w := same[k], worse[k]
		fmt.Fprintf(&tab, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", c,
			rateCI(s.red, s.pairs), rate(s.fail, s.pairs), rate(s.inconclusive, s.pairs), rate(s.strictRed, s.pairs),
			rateCI(w.fail, w.pairs), rate(w.inconclusive, w.pairs), rate(w.pass, w.pairs))
	}
	return tab.String()
}

func rate(k, n int) string { return fmt.Sprintf("%.1f%%", 100*float64(k)/float64(n)) }

// rateCI is a rate with its Wilson 95% Monte Carlo interval.
func rateCI(k, n int) string {
	ci := stats.Wilson(k, n, 0)
	return fmt.Sprintf("%s [%.1f, %.1f]", rate(k, n), 100*ci.Lo, 100*ci.Hi)
}

// TestCalibrateDiscordance measures the simulator's seed-to-seed
// discordance that docs/ci.md plans with: discSeeds runs of the teamwork
// base and full arms on discN MedQA questions (the sample --limit 500
// draws with sample seed 1), every pair of seeds compared, arm by arm.
func TestCalibrateDiscordance(t *testing.T) {
	qs := loadPool(t, "medqa")
	if len(qs) < discN {
		t.Fatalf("medqa has %d questions, want %d", len(qs), discN)
	}
	qs = datasets.Limit(qs, discN, 1)
	for _, arm := range []string{"base", "full", "zeroshot"} {
		seedDiscordance(t, qs, arm)
	}
}

// seedDiscordance is TestCalibrateDiscordance for one arm.
func seedDiscordance(t *testing.T, qs []qa.Question, discArm string) {
	p, err := sim.LookupProfile("default")
	if err != nil {
		t.Fatal(err)
	}
	runs := make([]map[string]bool, discSeeds)
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range next {
				m := map[string]bool{}
				for _, r := range simRunArms(t, qs, p, int64(s+1), 1, discArm) {
					m[r.QuestionID] = r.Correct && !r.Abstained && r.Error == ""
				}
				runs[s] = m
			}
		}()
	}
	for s := range discSeeds {
		next <- s
	}
	close(next)
	wg.Wait()
	sum, lo, hi, k := 0.0, 1.0, 0.0, 0
	for i := range runs {
		for j := i + 1; j < len(runs); j++ {
			d := 0
			for id, c := range runs[i] {
				if runs[j][id] != c {
					d++
				}
			}
			x := float64(d) / float64(discN)
			sum += x
			lo, hi = math.Min(lo, x), math.Max(hi, x)
			k++
		}
	}
	msg := fmt.Sprintf("seed-to-seed discordance, %s arm, sim/default, %d MedQA questions, %d seeds (%d pairs): mean %.1f%%, range %.1f–%.1f%%",
		discArm, discN, discSeeds, k, 100*sum/float64(k), 100*lo, 100*hi)
	t.Log(msg)
	fmt.Println(msg)
}

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
