package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// TestShardsMergeToTheWholeRun: three shards of a plan, merged, give the
// rows of the unsharded run; shards are disjoint and cover the plan.
func TestShardsMergeToTheWholeRun(t *testing.T) {
	out := t.TempDir()
	plan := []string{"run", "--dataset", medqaSample, "--limit", "30", "--config", "base,c2", "--out", out}
	if code, so, se := runCLI(t, append(plan, "--run-name", "whole")...); code != 0 {
		t.Fatalf("%d %s %s", code, so, se)
	}
	var shards []string
	total := 0
	for _, s := range []string{"1/3", "2/3", "3/3"} {
		name := "shard" + s[:1]
		if code, so, se := runCLI(t, append(plan, "--shard", s, "--run-name", name)...); code != 0 {
			t.Fatalf("shard %s: %d %s %s", s, code, so, se)
		}
		rows, err := results.ReadQuestions(filepath.Join(out, name, results.QuestionsFile))
		if err != nil {
			t.Fatal(err)
		}
		total += len(rows)
		shards = append(shards, filepath.Join(out, name))
	}
	if total != 60 {
		t.Fatalf("shards hold %d rows together, want 60 (disjoint and covering)", total)
	}
	merged := filepath.Join(out, "merged")
	code, so, se := runCLI(t, append([]string{"merge", "--out", merged}, shards...)...)
	if code != 0 || !strings.Contains(so, "60 question rows") {
		t.Fatalf("merge: %d %s %s", code, so, se)
	}
	wantQ, wantC := normalised(t, filepath.Join(out, "whole"))
	gotQ, gotC := normalised(t, merged)
	for i := range wantQ {
		wantQ[i].RunID, gotQ[i].RunID = "", ""
	}
	for i := range wantC {
		wantC[i].RunID, gotC[i].RunID = "", ""
	}
	if !reflect.DeepEqual(gotQ, wantQ) || !reflect.DeepEqual(gotC, wantC) {
		t.Fatal("merged shards differ from the unsharded run")
	}
	// A directory of another plan is refused.
	if code, _, _ := runCLI(t, "run", "--limit", "3", "--config", "full", "--out", out, "--run-name", "other"); code != 0 {
		t.Fatal("other run failed")
	}
	code, _, se = runCLI(t, "merge", "--out", filepath.Join(out, "bad"), shards[0], filepath.Join(out, "other"))
	if code != exitUsage || !strings.Contains(se, "different plan") {
		t.Fatalf("mismatched merge: exit %d, %s", code, se)
	}
}

func TestDatasetsCommands(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"question": "Q?", "options": {"A": "x", "B": "y"}, "answer_idx": "C", "answer": "z"}`+"\n"), 0o644)
	if code, so, se := runCLI(t, "datasets", "validate", bad); code != exitError || !strings.Contains(so+se, "bad.jsonl:1") {
		t.Fatalf("validate bad file: exit %d\n%s%s", code, so, se)
	}
	if code, so, se := runCLI(t, "datasets", "validate", "../datasets/testdata/pubmedqa/ori_pqal.json"); code != 0 || !strings.Contains(so, "records 3, valid 3, invalid 0") {
		t.Fatalf("validate the pubmedqa fixture: exit %d\n%s%s", code, so, se)
	}
	t.Run("real pubmedqa", func(t *testing.T) {
		const real = "../../shared/datasets/pubmedqa/ori_pqal.json"
		needShared(t, real)
		if code, so, se := runCLI(t, "datasets", "validate", real); code != 0 || !strings.Contains(so, "records 1000, valid 500") {
			t.Fatalf("validate pubmedqa: exit %d\n%s%s", code, so, se)
		}
	})
	pq := filepath.Join(dir, "sample.parquet")
	if code, so, se := runCLI(t, "datasets", "convert", "medqa-sample", pq); code != 0 {
		t.Fatalf("convert: %d %s %s", code, so, se)
	}
	if code, so, se := runCLI(t, "datasets", "show", pq, "-n", "1"); code != 0 || !strings.Contains(so, "gold:") {
		t.Fatalf("show: %d %s %s", code, so, se)
	}
	if code, so, _ := runCLI(t, "datasets", "list"); code != 0 || !strings.Contains(so, "pubmedqa") {
		t.Fatalf("list: %d %s", code, so)
	}
}

// TestMergeRefusesIncompleteShardSets: a merge lacking a shard is incomplete
// (planned: the whole plan's units) and check exits 9; shards of different
// splits and a shard given twice are refused; a shard directory that holds
// nothing names the missing shard.
func TestMergeRefusesIncompleteShardSets(t *testing.T) {
	out := t.TempDir()
	plan := []string{"run", "--dataset", medqaSample, "--limit", "30", "--config", "base,c2", "--out", out}
	for _, s := range []struct{ shard, name string }{{"1/2", "h1"}, {"2/2", "h2"}, {"2/3", "t2"}} {
		if code, so, se := runCLI(t, append(plan, "--shard", s.shard, "--run-name", s.name)...); code != 0 {
			t.Fatalf("shard %s: %d %s %s", s.shard, code, so, se)
		}
	}
	dir := func(n string) string { return filepath.Join(out, n) }
	os.MkdirAll(dir("empty"), 0o755)
	cases := []struct {
		name   string
		shards []string
		code   ExitCode
		want   []string
	}{
		{"one shard of two", []string{"h1"}, 0, []string{"shard 2/2", "40 of 60"}},
		{"different splits", []string{"h1", "t2"}, exitUsage, []string{"2/3", "1/2", "2 and 3 shards"}},
		{"a shard twice", []string{"h1", "h1"}, exitUsage, []string{"shard 1/2 is given twice"}},
		{"a shard wrote nothing", []string{"h1", "empty"}, exitUsage, []string{"empty holds no run", "shard 2/2"}},
		{"whole", []string{"h1", "h2"}, 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			merged := filepath.Join(out, "m-"+strings.ReplaceAll(c.name, " ", "-"))
			args := []string{"merge", "--out", merged}
			for _, s := range c.shards {
				args = append(args, dir(s))
			}
			code, so, se := runCLI(t, args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, so, se)
			}
			for _, w := range c.want {
				if !strings.Contains(se, w) {
					t.Errorf("stderr lacks %q:\n%s", w, se)
				}
			}
			if code != 0 {
				return
			}
			m, err := results.ReadManifest(filepath.Join(merged, results.ManifestFile))
			if err != nil {
				t.Fatal(err)
			}
			whole := len(c.shards) == 2
			if m.Status.Planned != 60 || m.Status.Complete() != whole {
				t.Fatalf("status %+v, want planned 60, complete %v", m.Status, whole)
			}
			wantCheck := exitIncomplete
			if whole {
				wantCheck = 0
			}
			if code, so, se := runCLI(t, "check", merged, "--baseline", merged); code != wantCheck {
				t.Fatalf("check: exit %d, want %d\n%s%s", code, wantCheck, so, se)
			}
		})
	}
}
