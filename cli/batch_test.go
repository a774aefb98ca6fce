package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm/llmtest"
	"github.com/medteam-bench/medteam/results"
)

// TestBatchRunCLI: run --batch on the fake endpoint writes the rows of the
// sequential synchronous run (timing aside), one batch per stage; a rerun submits
// nothing; --dry-run --batch prints the stages; --batch refuses sim.
func TestBatchRunCLI(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}})
	args := []string{"run", "--model", "openai/tiny", "--base-url", srv.BaseURL(), "--limit", "12", "--config", "base,full",
		"--cache", "off", "--run-name", "r"}
	syncOut, batchOut := t.TempDir(), t.TempDir()
	// The reference is sequential: which arm's row counts a request two arms
	// share as made (the other as cached) is then the first in plan order,
	// as batch mode does it; a parallel run decides it by arrival.
	if code, so, se := runCLI(t, append(args, "--out", syncOut, "--parallel", "1")...); code != 0 {
		t.Fatalf("sync: exit %d\n%s\n%s", code, so, se)
	}
	code, so, se := runCLI(t, append(args, "--out", batchOut, "--batch", "--batch-poll", "5ms")...)
	if code != 0 {
		t.Fatalf("batch: exit %d\n%s\n%s", code, so, se)
	}
	bs := srv.BatchStats()
	t.Logf("%d batches, lines %v; %s", bs.BatchesCreated, bs.LinesPerBatch, lastLine(se, "batch mode:"))
	if bs.BatchesCreated == 0 || !strings.Contains(se, "batch mode:") {
		t.Fatalf("no batch created:\n%s", se)
	}
	want, got := untimedRows(t, syncOut), untimedRows(t, batchOut)
	if len(want) != len(got) {
		t.Fatalf("%d batch rows, %d synchronous", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(want[i], got[i]) {
			t.Errorf("row %d differs:\nsync  %+v\nbatch %+v", i, want[i], got[i])
			break
		}
	}
	for dir, want := range map[string]bool{syncOut: false, batchOut: true} {
		if m, err := results.ReadManifest(filepath.Join(dir, "r", results.ManifestFile)); err != nil || m.Batch != want {
			t.Errorf("%s manifest batch = %v (%v), want %v", dir, m.Batch, err, want)
		}
	}
	if code, so, se := runCLI(t, append(args, "--out", batchOut, "--batch", "--batch-poll", "5ms")...); code != 0 || srv.BatchStats().BatchesCreated != bs.BatchesCreated {
		t.Errorf("rerun: exit %d, %d batches created (had %d)\n%s\n%s", code, srv.BatchStats().BatchesCreated, bs.BatchesCreated, so, se)
	}
	// a synchronous rerun of the batch run says its batches' answers go unused
	if code, so, se := runCLI(t, append(args, "--out", batchOut)...); code != 0 || !strings.Contains(se, "16 provider batches") {
		t.Errorf("synchronous rerun: exit %d, no warning about the journaled batches\n%s\n%s", code, so, se)
	}
	if code, _, se := runCLI(t, append(args, "--out", syncOut)...); code != 0 || strings.Contains(se, "provider batches") {
		t.Errorf("synchronous rerun of a synchronous run: exit %d, warned\n%s", code, se)
	}
	prices := filepath.Join(t.TempDir(), "prices.yaml")
	if err := os.WriteFile(prices, []byte("models:\n  openai/tiny: {prompt: 1, completion: 2}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, so, se = runCLI(t, append(args, "--out", t.TempDir(), "--batch", "--dry-run", "--prices", prices)...)
	// The calls sent (the 24 first answers base and full share counted once),
	// 302,509–315,506 prompt (shared prompt layout) and 32,004–33,251 completion tokens without and
	// with full's 12 possible tie-breaks, at half of $1 and $2 per million.
	if code != 0 || !strings.Contains(so, "batch mode: 15 stages") || !strings.Contains(so, "make at most 16 stages") || !strings.Contains(so, "expected cost: $0.1833–$0.1910") {
		t.Errorf("dry run: exit %d\n%s\n%s", code, so, se)
	}
	t.Logf("dry run:\n%s", so)
	if code, _, se := runCLI(t, "run", "--batch", "--limit", "2", "--out", t.TempDir()); code == 0 || !strings.Contains(se, "openai/") {
		t.Errorf("--batch on sim: exit %d\n%s", code, se)
	}
}

func lastLine(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func untimedRows(t *testing.T, out string) []results.QuestionRow {
	t.Helper()
	qs, err := results.ReadQuestions(filepath.Join(out, "r", results.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	for i := range qs {
		qs[i].WallMS, qs[i].CallLatencyMS = 0, 0
	}
	return qs
}

// TestBatchesCancelThenResume: a --batch run stopped while its first batch
// is in flight; 'batches list' shows it in flight, 'batches cancel' cancels
// it; the rerun reads the cancelled batch, resubmits its lines and ends
// with the rows of the sequential synchronous run, but for one attempt
// more per line of the cancelled batch (the provider received them).
func TestBatchesCancelThenResume(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}})
	args := []string{"run", "--model", "openai/tiny", "--base-url", srv.BaseURL(), "--limit", "6", "--config", "full",
		"--cache", "off", "--run-name", "r"}
	syncOut, out := t.TempDir(), t.TempDir()
	if code, so, se := runCLI(t, append(args, "--out", syncOut, "--parallel", "1")...); code != 0 {
		t.Fatalf("sync: exit %d\n%s\n%s", code, so, se)
	}
	srv.SetBatchMode(llmtest.BatchMode{PollsPerStage: 1 << 30})
	ctx, stop := context.WithCancel(context.Background())
	ended := make(chan ExitCode)
	go func() {
		var so, se bytes.Buffer
		ended <- execute(ctx, nil, append(args, "--out", out, "--batch", "--batch-poll", "5ms"), &so, &se)
	}()
	for deadline := time.Now().Add(30 * time.Second); srv.BatchStats().Polls == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no batch polled within 30 s")
		}
	}
	stop()
	<-ended
	dir := filepath.Join(out, "r")
	code, so, se := runCLI(t, "batches", "list", dir)
	if code != 0 || !strings.Contains(so, "1 in flight") {
		t.Fatalf("list: exit %d\n%s\n%s", code, so, se)
	}
	t.Logf("batches list:\n%s", so)
	code, so, se = runCLI(t, "batches", "cancel", dir)
	if code != 0 || !strings.Contains(so, "1 cancelled") || srv.BatchStats().Cancels != 1 {
		t.Fatalf("cancel: exit %d, %d cancels\n%s\n%s", code, srv.BatchStats().Cancels, so, se)
	}
	srv.SetBatchMode(llmtest.BatchMode{})
	code, so, se = runCLI(t, append(args, "--out", out, "--batch", "--batch-poll", "5ms")...)
	if code != 0 {
		t.Fatalf("rerun: exit %d\n%s\n%s", code, so, se)
	}
	bs := srv.BatchStats()
	t.Logf("rerun: %s; %d batches in all, lines %v", lastLine(se, "batch mode:"), bs.BatchesCreated, bs.LinesPerBatch)
	// The lines of the cancelled batch reached the provider, which never
	// ran them: one more attempt each (class canceled, no tokens), and
	// otherwise the synchronous rows.
	want, got := untimedRows(t, syncOut), untimedRows(t, out)
	extra := 0
	for i := range min(len(want), len(got)) {
		extra += int(got[i].Attempts - want[i].Attempts)
		got[i].Attempts = want[i].Attempts
	}
	if !reflect.DeepEqual(want, got) || extra != bs.LinesPerBatch[0] {
		t.Errorf("rows after cancel and resume differ from the synchronous rows, or have %d more attempts than them for the %d lines of the cancelled batch", extra, bs.LinesPerBatch[0])
	}
}

// childArgs, in the environment, makes TestBatchChild run medteam with
// these arguments (separated by \x1f) and exit with its code: the process
// TestBatchSIGKILLThenResume kills.
const childArgs = "MEDTEAM_TEST_CHILD_ARGS"

func TestBatchChild(t *testing.T) {
	args := os.Getenv(childArgs)
	if args == "" {
		t.Skip("run by TestBatchSIGKILLThenResume")
	}
	os.Exit(int(execute(context.Background(), nil, strings.Split(args, "\x1f"), os.Stdout, os.Stderr)))
}

// TestBatchSIGKILLThenResume: a --batch run in its own process is killed
// (SIGKILL) while it polls its fifth batch; the rerun submits no batch
// again — the fake server's count of batches created ends at the 16
// stages — and ends with the sequential synchronous run's rows.
func TestBatchSIGKILLThenResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}})
	args := []string{"run", "--model", "openai/tiny", "--base-url", srv.BaseURL(), "--limit", "20", "--config", "full",
		"--cache", "off", "--run-name", "r"}
	syncOut, out := t.TempDir(), t.TempDir()
	if code, so, se := runCLI(t, append(args, "--out", syncOut, "--parallel", "1")...); code != 0 {
		t.Fatalf("sync: exit %d\n%s\n%s", code, so, se)
	}
	requests := srv.ChatRequests() // each distinct request, once
	batchArgs := append(args, "--out", out, "--batch", "--batch-poll", "1ms")
	cmd := exec.Command(os.Args[0], "-test.run=^TestBatchChild$")
	cmd.Env = append(os.Environ(), childArgs+"="+strings.Join(batchArgs, "\x1f"))
	var childErr bytes.Buffer
	cmd.Stderr = &childErr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Batches 1–4 complete at their first poll; the fifth stays a poll
	// in each state, and the child is killed at its first poll of it (it
	// was journaled before).
	polls := -1
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Microsecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the child did not reach its fifth batch in 60 s:\n%s", childErr.String())
		}
		st := srv.BatchStats()
		if st.BatchesCreated == 4 && polls < 0 {
			srv.SetBatchMode(llmtest.BatchMode{PollsPerStage: 1})
		}
		if st.BatchesCreated == 5 && polls < 0 {
			polls = st.Polls
		}
		if polls >= 0 && st.Polls > polls {
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	srv.SetBatchMode(llmtest.BatchMode{})
	before := srv.BatchStats()
	code, so, se := runCLI(t, batchArgs...)
	if code != 0 {
		t.Fatalf("rerun: exit %d\n%s\n%s", code, so, se)
	}
	after := srv.BatchStats()
	t.Logf("killed at batch %d (%d polls); rerun: %s; batches created: %d before the rerun, %d after",
		before.BatchesCreated, before.Polls, lastLine(se, "batch mode:"), before.BatchesCreated, after.BatchesCreated)
	// Nothing journaled is sent again: the 5 batches of the killed process
	// are resumed, and over both processes the provider ran each request
	// exactly once (16 batches for the 16 stages: the barrier is exact, a
	// starved machine does not split a stage).
	if before.BatchesCreated != 5 || !strings.Contains(se, "5 journaled batches resumed") {
		t.Errorf("batches created: %d when killed, %d in all; want 5, then the 5 resumed\n%s", before.BatchesCreated, after.BatchesCreated, se)
	}
	if int64(after.LinesRun) != requests {
		t.Errorf("%d lines run over both processes for %d distinct requests: a line was sent twice", after.LinesRun, requests)
	}
	if want, got := untimedRows(t, syncOut), untimedRows(t, out); !reflect.DeepEqual(want, got) {
		t.Errorf("rows after SIGKILL and resume differ from the synchronous rows")
	}
}

// TestBatchCacheFirst: with the response cache, a second --batch run of
// the same plan (another directory) is answered by the cache: no batch.
func TestBatchCacheFirst(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}})
	cachePath := filepath.Join(t.TempDir(), "responses.db")
	args := []string{"run", "--model", "openai/tiny", "--base-url", srv.BaseURL(), "--limit", "5", "--config", "full",
		"--cache", "rw", "--cache-path", cachePath, "--run-name", "r", "--batch", "--batch-poll", "5ms"}
	if code, so, se := runCLI(t, append(args, "--out", t.TempDir())...); code != 0 {
		t.Fatalf("first: exit %d\n%s\n%s", code, so, se)
	}
	first := srv.BatchStats().BatchesCreated
	code, so, se := runCLI(t, append(args, "--out", t.TempDir())...)
	if code != 0 {
		t.Fatalf("second: exit %d\n%s\n%s", code, so, se)
	}
	t.Logf("first run: %d batches; second: %s", first, lastLine(se, "batch mode:"))
	if first == 0 || srv.BatchStats().BatchesCreated != first {
		t.Errorf("batches: %d after the first run, %d after the second (want no more)", first, srv.BatchStats().BatchesCreated)
	}
}
