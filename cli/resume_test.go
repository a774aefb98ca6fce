package cli

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/results"
)

// buildBinary compiles medteam once for the subprocess tests.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "medteam")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/medteam").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// normalised reads a run's parquet files with the columns that describe how
// a result was obtained rather than what it is — timing, and whether a call
// was served by an earlier identical request (which depends on what an
// interrupted invocation had already done) — zeroed.
func normalised(t *testing.T, dir string) ([]results.QuestionRow, []results.CallRow) {
	t.Helper()
	qs, err := results.ReadQuestions(filepath.Join(dir, results.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := results.ReadCalls(filepath.Join(dir, results.CallsFile))
	if err != nil {
		t.Fatal(err)
	}
	for i := range qs {
		qs[i].WallMS, qs[i].CallLatencyMS, qs[i].Attempts, qs[i].CachedCalls = 0, 0, 0, 0
		qs[i].PaidPromptTokens, qs[i].PaidCompletionTokens = 0, 0        // billed by whichever unit sent a shared call
		qs[i].PaidCachedPromptTokens, qs[i].CallsCachedUnreported = 0, 0 // likewise counted over the billed calls
	}
	for i := range cs {
		cs[i].LatencyMS, cs[i].Attempts, cs[i].Cached = 0, 0, false
	}
	return qs, cs
}

// TestKillAndResume kills a 3-arm × 60-question sweep with SIGKILL at 10
// random points, resuming after each; the final parquet equals that of an
// uninterrupted run row for row, with no duplicate and no missing row.
func TestKillAndResume(t *testing.T) {
	t.Parallel() // mostly waiting on simulated latency or retries
	needMedQA(t)
	if testing.Short() {
		t.Skip("-short")
	}
	bin := buildBinary(t)
	args := func(out string) []string {
		return []string{"run", "--dataset", medqaTest, "--limit", "60", "--config", "base,c5,full",
			"--model", "sim/slow", "--parallel", "8", "--out", out, "--run-name", "sweep"}
	}
	// The uninterrupted reference.
	ref := t.TempDir()
	start := time.Now()
	if out, err := exec.Command(bin, args(ref)...).CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	full := time.Since(start)

	out := t.TempDir()
	rng := rand.New(rand.NewPCG(42, 1))
	kills := 0
	for i := range 10 {
		cmd := exec.Command(bin, args(out)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Spread the kill points over the first part of each invocation.
		wait := time.Duration(100+rng.IntN(int(full.Milliseconds()/3)+1)) * time.Millisecond
		timer := time.AfterFunc(wait, func() { cmd.Process.Signal(syscall.SIGKILL) })
		err := cmd.Wait()
		timer.Stop()
		if ee, ok := err.(*exec.ExitError); ok && ee.Sys().(syscall.WaitStatus).Signaled() {
			kills++
		} else if err != nil {
			t.Fatalf("invocation %d: %v", i, err)
		}
	}
	if kills < 5 {
		t.Fatalf("only %d of 10 invocations were killed mid-run; the test did not test resuming", kills)
	}
	final, err := exec.Command(bin, args(out)...).CombinedOutput()
	if err != nil {
		t.Fatalf("final resume: %v\n%s", err, final)
	}
	if !strings.Contains(string(final), "resuming run") {
		t.Fatalf("the final invocation did not resume:\n%s", final)
	}
	t.Logf("reference run %s; %d kills; final: %s", full.Round(time.Millisecond), kills, firstLine(string(final), "resuming"))

	wantQ, wantC := normalised(t, filepath.Join(ref, "sweep"))
	gotQ, gotC := normalised(t, filepath.Join(out, "sweep"))
	if len(gotQ) != 180 || len(wantQ) != 180 {
		t.Fatalf("question rows: %d interrupted, %d reference, want 180", len(gotQ), len(wantQ))
	}
	seen := map[string]bool{}
	for _, q := range gotQ {
		k := q.Arm + "|" + q.QuestionID
		if seen[k] {
			t.Fatalf("duplicate row %s", k)
		}
		seen[k] = true
	}
	for i := range wantQ {
		if !reflect.DeepEqual(gotQ[i], wantQ[i]) {
			t.Fatalf("question row %d differs:\n got %+v\nwant %+v", i, gotQ[i], wantQ[i])
		}
	}
	if len(gotC) != len(wantC) {
		t.Fatalf("call rows: %d interrupted, %d reference", len(gotC), len(wantC))
	}
	for i := range wantC {
		if !reflect.DeepEqual(gotC[i], wantC[i]) {
			t.Fatalf("call row %d differs:\n got %+v\nwant %+v", i, gotC[i], wantC[i])
		}
	}
}

func firstLine(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// TestBudgetStopsAndResumes: a token budget stops the run before it is
// exceeded (exit 3, resumable); rerunning without it finishes the run.
func TestBudgetStopsAndResumes(t *testing.T) {
	out := t.TempDir()
	base := []string{"run", "--dataset", medqaSample, "--limit", "40", "--config", "base,full", "--agents", "3",
		"--out", out, "--run-name", "budget", "--parallel", "1"}
	// One question in flight: what a question uses beyond its reservation
	// is the only way past the budget (docs/real-models.md, Budgets), and with one in
	// flight the run stops in the same place every time.
	const budget = 200000 // about a third of the plan's ~590k tokens
	code, so, se := runCLI(t, append(base, "--budget-tokens", fmt.Sprint(budget))...)
	if code != exitBudget {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitBudget, so, se)
	}
	rows, err := results.ReadQuestions(filepath.Join(out, "budget", results.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	// What the budget limits is what reached the endpoint: calls served by
	// an identical request of another arm (the shared recruitment) or the
	// cache cost nothing.
	calls, err := results.ReadCalls(filepath.Join(out, "budget", results.CallsFile))
	if err != nil {
		t.Fatal(err)
	}
	var spent int64
	for _, c := range calls {
		if p, q, ok := c.Tokens(); ok && !c.Cached {
			spent += p + q
		}
	}
	if spent > budget || len(rows) == 0 || len(rows) >= 80 {
		t.Fatalf("budget %d: spent %d over %d of 80 units", budget, spent, len(rows))
	}
	t.Logf("budget %d tokens: stopped after %d of 80 units having spent %d", budget, len(rows), spent)
	code, so, se = runCLI(t, base...)
	if code != 0 || !strings.Contains(se, "resuming run") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, so, se)
	}
	rows, err = results.ReadQuestions(filepath.Join(out, "budget", results.QuestionsFile))
	if err != nil || len(rows) != 80 {
		t.Fatalf("after resume %d rows (%v), want 80", len(rows), err)
	}
}

// TestPlanMismatchRefused: a different plan is not mixed into a run directory.
func TestPlanMismatchRefused(t *testing.T) {
	out := t.TempDir()
	if code, so, se := runCLI(t, "run", "--limit", "3", "--config", "base", "--out", out, "--run-name", "x"); code != 0 {
		t.Fatalf("%d %s %s", code, so, se)
	}
	code, _, se := runCLI(t, "run", "--limit", "3", "--config", "full", "--out", out, "--run-name", "x")
	if code != exitUsage || !strings.Contains(se, "different plan") {
		t.Fatalf("exit %d, stderr %s", code, se)
	}
	// --resume takes the recorded plan whatever the other flags say.
	code, _, se = runCLI(t, "run", "--resume", filepath.Join(out, "x"), "--config", "full")
	if code != 0 || !strings.Contains(se, "resuming run (3 of 3") {
		t.Fatalf("resume: exit %d, stderr %s", code, se)
	}
	if _, err := os.Stat(filepath.Join(out, "x", "journal.db")); err != nil {
		t.Fatal(err)
	}
}

// TestSigtermFlushesAndResumes: SIGTERM stops taking new questions, lets the
// ones in flight finish, saves, and exits 130; rerunning completes the run.
func TestSigtermFlushesAndResumes(t *testing.T) {
	t.Parallel() // mostly waiting on simulated latency or retries
	if testing.Short() {
		t.Skip("-short")
	}
	bin := buildBinary(t)
	out := t.TempDir()
	args := []string{"run", "--dataset", medqaSample, "--limit", "40", "--config", "base,full", "--model", "sim/slow",
		"--parallel", "4", "--out", out, "--run-name", "term"}
	cmd := exec.Command(bin, args...)
	var stderr strings.Builder
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Signal once the first progress line shows finished questions (a fixed
	// delay would race the start-up on a loaded machine).
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		line := sc.Text()
		stderr.WriteString(line + "\n")
		if strings.Contains(line, "/80 (") {
			break
		}
	}
	drained := make(chan struct{})
	go func() { // keep draining, so the child never blocks on a full pipe
		defer close(drained)
		for sc.Scan() {
			stderr.WriteString(sc.Text() + "\n")
		}
	}()
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	<-drained // the pipe closes when the child exits
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ExitCode(ee.ExitCode()) != exitInterrupted {
		t.Fatalf("exit %v, want %d\n%s", err, exitInterrupted, stderr.String())
	}
	t.Logf("stopped %s after SIGTERM", time.Since(sent).Round(time.Millisecond))
	rows, err := results.ReadQuestions(filepath.Join(out, "term", results.QuestionsFile))
	if err != nil || len(rows) == 0 || len(rows) >= 80 {
		t.Fatalf("after SIGTERM: %d rows saved (%v)", len(rows), err)
	}
	if o, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, o)
	}
	rows, err = results.ReadQuestions(filepath.Join(out, "term", results.QuestionsFile))
	if err != nil || len(rows) != 80 {
		t.Fatalf("after resume %d rows (%v), want 80", len(rows), err)
	}
}
