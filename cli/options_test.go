package cli

import (
	"context"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/datasets"
)

// The commands' flags parse into their Options without running anything
// (through the runF hook), and without any dataset on disk.

func TestRunFlagsToOptions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		check func(t *testing.T, o *RunOptions)
	}{
		{"defaults", nil, func(t *testing.T, o *RunOptions) {
			s := o.Spec
			if !reflect.DeepEqual(s.Datasets, []string{datasets.SampleName}) || !reflect.DeepEqual(s.Models, []string{"sim/default"}) ||
				!reflect.DeepEqual(s.Configs, []string{"full"}) || s.Turns != 2 || s.Agents != 0 || s.Discussion != "round_robin" ||
				s.Seed != 1 || s.SampleSeed != 1 || s.Repeats != 1 || s.AgentTemp != 0.7 || s.LeaderTemp != 0.5 || s.NumCtx != 8192 {
				t.Errorf("spec defaults %+v", s)
			}
			if o.Out != "results" || o.Parallel != 0 || !o.RetryErrors || o.MaxErrorRate != 0 || o.DryRun || o.DataDirGiven {
				t.Errorf("run defaults %+v", o)
			}
			if o.Backend.cacheMode != "auto" || o.Backend.maxAttempts < 1 {
				t.Errorf("backend defaults %+v", o.Backend)
			}
		}},
		{"plan and execution flags", []string{"--dataset", "a.jsonl", "--dataset", "b.csv", "--config", "base,smm+l", "--limit", "10",
			"--turns", "3", "--agents", "4", "--discussion", "parallel", "--text", "--seed", "7", "--base-url", "http://h:1/v1",
			"--num-ctx", "4096", "--parallel", "3", "--dry-run", "--max-outage", "30s", "--retry-errors=false", "--max-error-rate", "0.1",
			"--data-dir", "/d", "--shard", "2/4"}, func(t *testing.T, o *RunOptions) {
			s := o.Spec
			if !reflect.DeepEqual(s.Datasets, []string{"a.jsonl", "b.csv"}) || !reflect.DeepEqual(s.Configs, []string{"base", "smm+l"}) ||
				s.Limit != 10 || s.Turns != 3 || s.Agents != 4 || s.Discussion != "parallel" || !s.Text || s.Seed != 7 ||
				s.BaseURL != "http://h:1/v1" || s.NumCtx != 4096 || s.DataDir != "/d" || s.Shard != "2/4" {
				t.Errorf("spec %+v", s)
			}
			if o.Parallel != 3 || !o.DryRun || o.MaxOutage != 30*time.Second || o.RetryErrors || o.MaxErrorRate != 0.1 || !o.DataDirGiven {
				t.Errorf("options %+v", o)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got *RunOptions
			cmd := NewCmdRun(&Factory{Out: io.Discard, Err: io.Discard}, func(_ context.Context, o *RunOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("runF not called")
			}
			tc.check(t, got)
		})
	}
}

func TestSweepFlagsToOptions(t *testing.T) {
	var got *SweepOptions
	cmd := NewCmdSweep(&Factory{Out: io.Discard, Err: io.Discard}, func(_ context.Context, o *SweepOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"configs/x.yaml", "--repeats", "3", "--parallel", "2"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.File != "configs/x.yaml" || got.Run.Spec.Repeats != 3 || got.Run.Parallel != 2 {
		t.Fatalf("options %+v", got)
	}
	if !got.Given["repeats"] || !got.Given["parallel"] || got.Given["turns"] {
		t.Fatalf("given %v: want repeats and parallel only", got.Given)
	}
}

func TestSweepCommandLineWinsOverFile(t *testing.T) {
	// runSweep stops at the resume refusal after applying the file and the
	// flags, so nothing runs.
	var o *SweepOptions
	cmd := NewCmdSweep(&Factory{Out: io.Discard, Err: io.Discard}, func(_ context.Context, so *SweepOptions) error { o = so; return nil })
	cmd.SetArgs([]string{"../configs/ablation.yaml", "--repeats", "5", "--resume", "somewhere"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	err := runSweep(context.Background(), &Factory{Out: io.Discard, Err: io.Discard}, o)
	if err == nil || o.Run.Spec.Repeats != 5 || len(o.Run.Spec.Configs) != 9 || o.Run.Spec.Agents != 3 {
		t.Fatalf("err %v, spec %+v: want the resume refusal, the file's 9 arms and 3 agents, and the flag's 5 repeats", err, o.Run.Spec)
	}
}

func TestMergeFlagsToOptions(t *testing.T) {
	var got *MergeOptions
	cmd := NewCmdMerge(&Factory{Out: io.Discard, Err: io.Discard}, func(_ context.Context, o *MergeOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--out", "m", "r1", "r2"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Out != "m" || !reflect.DeepEqual(got.Shards, []string{"r1", "r2"}) {
		t.Fatalf("options %+v", got)
	}
}
