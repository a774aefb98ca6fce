package slurm

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseSbatch(t *testing.T) {
	for in, want := range map[string]string{"123\n": "123", "77;cluster\n": "77", "warning: x\n42\n": "42"} {
		if got, err := ParseSbatch(in); err != nil || got != want {
			t.Errorf("ParseSbatch(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "Submitted batch job 12", "abc"} {
		if _, err := ParseSbatch(in); err == nil {
			t.Errorf("ParseSbatch(%q): no error", in)
		}
	}
}

func TestParseStates(t *testing.T) {
	sacct := "10_0|COMPLETED\n10_1|CANCELLED by 0\n10_[2-3,5%2]|PENDING\n11|PENDING\nbad line\n"
	want := map[string]string{"10_0": "COMPLETED", "10_1": "CANCELLED", "10_2": "PENDING", "10_3": "PENDING", "10_5": "PENDING", "11": "PENDING"}
	if got := ParseSacct(sacct); !reflect.DeepEqual(got, want) {
		t.Errorf("ParseSacct = %v, want %v", got, want)
	}
	// scontrol show job -o (Slurm 22.05): a finished task, a running one,
	// the pending rest of the array, and a plain job.
	scontrol := "JobId=21 ArrayJobId=20 ArrayTaskId=0 JobName=x JobState=COMPLETED Reason=None\n" +
		"JobId=22 ArrayJobId=20 ArrayTaskId=1 JobName=x JobState=RUNNING Reason=None\n" +
		"JobId=20 ArrayJobId=20 ArrayTaskId=2-3%2 JobName=x JobState=PENDING Reason=JobArrayTaskLimit\n" +
		"JobId=24 JobName=merge JobState=PENDING Reason=Dependency Dependency=afterany:20_*(unfulfilled)\n"
	want = map[string]string{"20_0": "COMPLETED", "20_1": "RUNNING", "20_2": "PENDING", "20_3": "PENDING", "24": "PENDING"}
	if got := ParseScontrol(scontrol); !reflect.DeepEqual(got, want) {
		t.Errorf("ParseScontrol = %v, want %v", got, want)
	}
	if got := ParseSqueue("20_1 RUNNING\n20_2 PENDING\n\n"); !reflect.DeepEqual(got, map[string]string{"20_1": "RUNNING", "20_2": "PENDING"}) {
		t.Errorf("ParseSqueue = %v", got)
	}
}

func TestActive(t *testing.T) {
	for state, want := range map[string]bool{"PENDING": true, "RUNNING": true, "REQUEUED": true, "COMPLETED": false, "CANCELLED": false,
		"FAILED": false, "TIMEOUT": false, "NODE_FAIL": false, "OUT_OF_MEMORY": false, "": false} {
		if Active(state) != want {
			t.Errorf("Active(%q) = %v", state, !want)
		}
	}
}

// fakeRunner answers Slurm commands from a table and records the calls.
type fakeRunner struct {
	out   map[string]string // command name → output; missing = fails
	calls []string
}

func (f *fakeRunner) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	f.calls = append(f.calls, name+" "+strings.Join(args, " "))
	if o, ok := f.out[name]; ok {
		return []byte(o), nil
	}
	return nil, fmt.Errorf("%s: %w", name, errors.New("not available"))
}

// TestStatesFallback: without accounting (sacct fails) ended jobs come
// from scontrol; squeue's view of active jobs wins.
func TestStatesFallback(t *testing.T) {
	f := &fakeRunner{out: map[string]string{
		"scontrol": "JobId=21 ArrayJobId=20 ArrayTaskId=0 JobState=COMPLETED\nJobId=22 ArrayJobId=20 ArrayTaskId=1 JobState=RUNNING\n",
		"squeue":   "20_1 COMPLETING\n",
	}}
	got := Client{R: f}.States(context.Background(), []string{"20"})
	if want := map[string]string{"20_0": "COMPLETED", "20_1": "COMPLETING"}; !reflect.DeepEqual(got, want) {
		t.Errorf("States = %v, want %v (calls %q)", got, want, f.calls)
	}
	f = &fakeRunner{out: map[string]string{"sacct": "20_0|TIMEOUT\n", "scontrol": "JobId=21 ArrayJobId=20 ArrayTaskId=0 JobState=COMPLETED\n", "squeue": ""}}
	if got := (Client{R: f}).States(context.Background(), []string{"20"}); got["20_0"] != "TIMEOUT" {
		t.Errorf("with sacct: %v (calls %q)", got, f.calls)
	}
}

func TestSubmit(t *testing.T) {
	f := &fakeRunner{out: map[string]string{"sbatch": "123;c\n"}}
	id, err := Client{R: f}.Submit(context.Background(), "/r/slurm/array.sh", "--array=1,3%2")
	if err != nil || id != "123" || f.calls[0] != "sbatch --parsable --array=1,3%2 /r/slurm/array.sh" {
		t.Errorf("Submit = %q, %v; calls %q", id, err, f.calls)
	}
}

func FuzzParseScontrol(f *testing.F) {
	f.Add("JobId=20 ArrayJobId=20 ArrayTaskId=2-3%2 JobState=PENDING\n")
	f.Add("10_[2-3,5%2]|PENDING\n")
	f.Fuzz(func(t *testing.T, s string) {
		ParseScontrol(s)
		ParseSacct(s)
		ParseSqueue(s)
		ParseSbatch(s)
	})
}

func TestRecordRoundTrip(t *testing.T) {
	dir := t.TempDir()
	r := Record{Plan: "abc", Shards: 2, Units: []int{3, 4}, Jobs: []Submission{{Array: "5", Tasks: []int{0, 1}, Merge: "6"}, {Array: "7", Tasks: []int{1}, Merge: "8"}}}
	if err := r.Save(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil || got.Total() != 7 || !reflect.DeepEqual(got.Last(), map[int]string{0: "5", 1: "7"}) {
		t.Errorf("Load = %+v, %v", got, err)
	}
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a Slurm run directory") {
		t.Errorf("empty dir: %v", err)
	}
}
