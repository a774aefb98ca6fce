package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/slurm"
)

// fakeSlurm answers sbatch with increasing job ids and the state queries
// from states (job id → state, served by scontrol; sacct is absent as on a
// cluster without accounting); it records every command.
type fakeSlurm struct {
	next   int
	states map[string]string
	calls  []string
}

func (f *fakeSlurm) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	f.calls = append(f.calls, name+" "+strings.Join(args, " "))
	switch name {
	case "sbatch":
		f.next++
		return []byte(fmt.Sprintf("%d\n", 100+f.next)), nil
	case "scancel":
		return nil, nil
	case "scontrol":
		var b strings.Builder
		id := args[len(args)-1]
		for k, st := range f.states {
			if a, task, ok := strings.Cut(k, "_"); ok && a == id {
				fmt.Fprintf(&b, "JobId=9%s ArrayJobId=%s ArrayTaskId=%s JobState=%s\n", task, a, task, st)
			} else if k == id {
				fmt.Fprintf(&b, "JobId=%s JobState=%s\n", k, st)
			}
		}
		return []byte(b.String()), nil
	}
	return nil, errors.New(name + ": not installed")
}

func (f *fakeSlurm) called(prefix string) []string {
	var out []string
	for _, c := range f.calls {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// parseSubmit parses 'medteam slurm submit' args into its options.
func parseSubmit(t *testing.T, args ...string) *SlurmSubmitOptions {
	t.Helper()
	var got *SlurmSubmitOptions
	cmd := NewCmdSlurmSubmit(&Factory{}, func(_ context.Context, o *SlurmSubmitOptions) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return got
}

// TestSlurmSubmitPassesPlanFlags: the tasks get the plan flags as given,
// repeated flags repeated, and not the ones submit sets itself.
func TestSlurmSubmitPassesPlanFlags(t *testing.T) {
	o := parseSubmit(t, "--shards", "3", "--dataset", "a.jsonl", "--dataset", "b.jsonl", "--config", "base,full", "--model", "sim/weak",
		"--limit", "5", "--agent-temperature", "0.3", "--max-outage", "1m", "--out", "o", "--run-name", "n", "--html", "--cache", "rw", "--slurm-opt=--partition=x")
	want := []string{"--agent-temperature=0.3", "--cache=rw", "--config=base", "--config=full", "--dataset=a.jsonl", "--dataset=b.jsonl",
		"--limit=5", "--max-outage=1m0s", "--model=sim/weak"}
	if !reflect.DeepEqual(o.Args, want) {
		t.Errorf("task args %q, want %q", o.Args, want)
	}
	if o.Shards != 3 || o.Run.Out != "o" || o.Run.RunName != "n" || !o.Run.HTML || !reflect.DeepEqual(o.SlurmOpts, []string{"--partition=x"}) {
		t.Errorf("options %+v", o)
	}
	for _, bad := range [][]string{{"--shards", "2", "--shard", "1/2"}, {"--shards", "2", "--resume", "x"}, {"--shards", "2", "--check", "t.yaml"}} {
		cmd := NewCmdSlurmSubmit(&Factory{}, func(context.Context, *SlurmSubmitOptions) error { return nil })
		cmd.SetArgs(bad)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "unknown flag") {
			t.Errorf("%v: err %v, want unknown flag", bad, err)
		}
	}
}

func TestArraySpec(t *testing.T) {
	for _, c := range []struct {
		tasks    []int
		throttle int
		want     string
	}{{[]int{0, 1, 2, 3}, 0, "--array=0-3"}, {[]int{0, 1, 2, 3}, 2, "--array=0-3%2"}, {[]int{1}, 0, "--array=1"}, {[]int{0, 2, 3, 5}, 1, "--array=0,2-3,5%1"}} {
		if got := arraySpec(c.tasks, c.throttle); got != c.want {
			t.Errorf("arraySpec(%v, %d) = %s, want %s", c.tasks, c.throttle, got, c.want)
		}
	}
}

func TestResubmitPlan(t *testing.T) {
	shards := []shardProgress{
		{Shard: 1, Done: 10, Planned: 10, Job: "5_0", State: "COMPLETED"},
		{Shard: 2, Done: 3, Planned: 10, Job: "5_1", State: "CANCELLED"},
		{Shard: 3, Done: 0, Planned: 10, Job: "5_2", State: "RUNNING"},
		{Shard: 4, Done: 9, Planned: 10, Job: "7_3", State: "TIMEOUT"},
		{Shard: 5, Done: 0, Planned: 10, Job: "7_4", State: "-"},
		{Shard: 6, Done: 10, Planned: 10, Job: "7_5", State: "FAILED"}, // all units journaled: finished
	}
	tasks, active, arrays := resubmitPlan(shards, nil)
	if !reflect.DeepEqual(tasks, []int{1, 3, 4}) || !reflect.DeepEqual(active, []int{2}) || !reflect.DeepEqual(arrays, []string{"5"}) {
		t.Errorf("resubmitPlan = %v %v %v", tasks, active, arrays)
	}
}

func TestSlurmSubmitUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shards", "0"}, "--shards 0"},
		{[]string{"--shards", "2", "--throttle", "-1"}, "--throttle -1"},
		{[]string{"--shards", "2", "--grace", "10s"}, "--grace 10s"},
		{[]string{"--shards", "2", "--template", "/nonexistent.tmpl", "--dry-run"}, "--template"},
		{[]string{"--shards", "2", "--api-key", "sk-secret", "--dry-run"}, "OPENAI_API_KEY"},
		{[]string{"--shards", "2", "--base-url", "http://u:pw@127.0.0.1:1/v1", "--dry-run"}, "carries credentials"},
		{[]string{"--shards", "2", "--slurm-opt", "--partition=gpu\ntouch PWNED", "--dry-run"}, "--slurm-opt"},
		{[]string{"--shards", "2", "--slurm-opt", "--partition=gpu\r", "--dry-run"}, "--slurm-opt"},
		{[]string{"--shards", "2", "--merge-opt", "--time=10\x00", "--dry-run"}, "--merge-opt"},
		{[]string{"--shards", "2", "--merge-opt", "--comment=two words", "--dry-run"}, "--merge-opt"},
		{[]string{"--shards", "2", "--out", "/tmp/dir with space", "--dry-run"}, "the run directory"},
	} {
		o := parseSubmit(t, c.args...)
		o.Slurm = &fakeSlurm{}
		err := runSlurmSubmit(context.Background(), &Factory{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, o)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want a usage error naming %s", c.args, err, c.want)
		}
	}
}

// TestSlurmRunCancelResubmitMerge runs a Slurm run without Slurm: the
// generated array script under bash for each task (with
// SLURM_ARRAY_TASK_COUNT=1, as a resubmitted task sees it), SIGTERM sent
// to the batch shell (as --signal=B:TERM does) while task 1 runs, the merge
// refusing the incomplete run, resubmit submitting only task 1 and
// re-arming the merge, and the merged rows equal to an unsharded run.
func TestSlurmRunCancelResubmitMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	bin := buildBinary(t)
	work := t.TempDir()
	plan := []string{"--limit", "30", "--config", "base,full", "--model", "sim/slow", "--parallel", "2", "--seed", "5"}
	o := parseSubmit(t, append([]string{"--shards", "2", "--throttle", "1", "--out", work, "--run-name", "sl", "--medteam", bin}, plan...)...)
	fake := &fakeSlurm{states: map[string]string{}}
	o.Slurm = fake
	var out bytes.Buffer
	f := &Factory{Out: &out, Err: &out}
	ctx := context.Background()
	if err := runSlurmSubmit(ctx, f, o); err != nil {
		t.Fatalf("submit: %v\n%s", err, out.String())
	}
	run := filepath.Join(work, "sl")
	rec, err := slurm.Load(run)
	if err != nil || rec.Total() != 60 || len(rec.Jobs) != 1 {
		t.Fatalf("record %+v, %v", rec, err)
	}
	sb := fake.called("sbatch")
	if len(sb) != 2 || sb[0] != "sbatch --parsable --array=0-1%1 "+filepath.Join(run, "slurm", "array.sh") ||
		sb[1] != "sbatch --parsable --dependency=afterany:101 "+filepath.Join(run, "slurm", "merge.sh") {
		t.Fatalf("sbatch calls %q", sb)
	}
	script := filepath.Join(run, "slurm", "array.sh")
	task := func(id int) *exec.Cmd {
		c := exec.Command("bash", script)
		c.Env = append(os.Environ(), fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", id), "SLURM_ARRAY_TASK_COUNT=1")
		return c
	}
	if o, err := task(0).CombinedOutput(); err != nil {
		t.Fatalf("task 0: %v\n%s", err, o)
	}
	// Task 1: SIGTERM to the batch shell once units are journaled.
	c := task(1)
	var log bytes.Buffer
	c.Stdout, c.Stderr = &log, &log
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	shard2 := slurm.ShardDir(run, 2, 2)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if n, _ := shardDone(shard2); n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task 1 journaled nothing in a minute:\n%s", log.String())
		}
	}
	c.Process.Signal(syscall.SIGTERM)
	err = c.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ExitCode(ee.ExitCode()) != exitInterrupted || !strings.Contains(log.String(), "stopping: no new questions") {
		t.Fatalf("task 1 after SIGTERM: %v, want exit %d\n%s", err, exitInterrupted, log.String())
	}
	done1, _ := shardDone(shard2)
	if done1 == 0 || done1 >= rec.Units[1] {
		t.Fatalf("after SIGTERM shard 2 has %d of %d units", done1, rec.Units[1])
	}
	// The merge job refuses the incomplete run.
	err = runSlurmMerge(f, &SlurmMergeOptions{Dir: run})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("shard 2/2 has %d of %d units", done1, rec.Units[1])) {
		t.Fatalf("merge of an incomplete run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(run, "questions.parquet")); err == nil {
		t.Fatal("an incomplete run was merged")
	}
	// Status and resubmit: task 1 cancelled, the merge job still pending.
	fake.states = map[string]string{"101_0": "COMPLETED", "101_1": "CANCELLED", "102": "PENDING"}
	out.Reset()
	if err := runSlurmStatus(ctx, f, &SlurmStatusOptions{Dir: run, Slurm: fake}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{fmt.Sprintf("1/2    %d/%d", rec.Units[0], rec.Units[0]), fmt.Sprintf("2/2    %d/%d", done1, rec.Units[1]), "101_1", "CANCELLED", "merge job 102: PENDING", "not complete"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, out.String())
		}
	}
	fake.calls = nil
	if err := runSlurmResubmit(ctx, f, &SlurmResubmitOptions{Dir: run, Slurm: fake}); err != nil {
		t.Fatal(err)
	}
	want := []string{"scancel 102", "sbatch --parsable --array=1%1 " + script, "sbatch --parsable --dependency=afterany:103 " + filepath.Join(run, "slurm", "merge.sh")}
	if got := append(fake.called("scancel"), fake.called("sbatch")...); !reflect.DeepEqual(got, want) {
		t.Errorf("resubmit ran %q, want %q", got, want)
	}
	if o, err := task(1).CombinedOutput(); err != nil || !strings.Contains(string(o), fmt.Sprintf("resuming run (%d of", done1)) {
		t.Fatalf("resubmitted task 1: %v\n%s", err, o)
	}
	out.Reset()
	if err := runSlurmMerge(f, &SlurmMergeOptions{Dir: run}); err != nil || !strings.Contains(out.String(), "merged 2 shard(s)") {
		t.Fatalf("merge: %v\n%s", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(run, "report.md")); err != nil {
		t.Errorf("no report: %v", err)
	}
	// Equal to an unsharded run of the same plan.
	if code, so, se := runCLI(t, append([]string{"run", "--out", work, "--run-name", "whole", "--no-report"}, plan...)...); code != 0 {
		t.Fatalf("unsharded run: exit %d\n%s\n%s", code, so, se)
	}
	gq, gc := normalised(t, run)
	wq, wc := normalised(t, filepath.Join(work, "whole"))
	for i := range gq {
		gq[i].RunID = ""
	}
	for i := range wq {
		wq[i].RunID = ""
	}
	for i := range gc {
		gc[i].RunID = ""
	}
	for i := range wc {
		wc[i].RunID = ""
	}
	if len(gq) != 60 || !reflect.DeepEqual(gq, wq) || !reflect.DeepEqual(gc, wc) {
		t.Errorf("merged rows (%d questions, %d calls) differ from the unsharded run's (%d, %d)", len(gq), len(gc), len(wq), len(wc))
	}
	// Shards of another plan than the submitted one are not merged.
	rec, _ = slurm.Load(run)
	rec.Plan = strings.Repeat("0", 64)
	if err := rec.Save(run); err != nil {
		t.Fatal(err)
	}
	if err := runSlurmMerge(f, &SlurmMergeOptions{Dir: run}); err == nil || !strings.Contains(err.Error(), "not the submitted plan 000000000000") {
		t.Errorf("merge of another plan's shards: %v", err)
	}
}

// TestSlurmStatusJournalBeingCreated: a journal a task is creating this
// moment (the file exists, its tables not yet) shows as "?", not as a
// failed status (the e2e script's polling met this).
func TestSlurmStatusJournalBeingCreated(t *testing.T) {
	run := t.TempDir()
	rec := slurm.Record{Plan: "p", Shards: 2, Units: []int{4, 5}, Jobs: []slurm.Submission{{Array: "7", Tasks: []int{0, 1}, Merge: "8"}}}
	if err := rec.Save(run); err != nil {
		t.Fatal(err)
	}
	dir := slurm.ShardDir(run, 1, 2)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "journal.db"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	fake := &fakeSlurm{states: map[string]string{"7_0": "RUNNING", "7_1": "PENDING", "8": "PENDING"}}
	if err := runSlurmStatus(context.Background(), &Factory{Out: &out, Err: &errb}, &SlurmStatusOptions{Dir: run, Slurm: fake}); err != nil {
		t.Fatalf("status: %v", err)
	}
	for _, want := range []string{"1/2    ?/4           7_0  RUNNING", "2/2    0/5           7_1  PENDING", "0 of 9 units done", "merge job 8: PENDING"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errb.String(), "shard 1/2: journal not readable now") {
		t.Errorf("stderr: %s", errb.String())
	}
}
