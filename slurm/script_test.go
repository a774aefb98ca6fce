package slurm

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden scripts in testdata/")

func testJob() Job {
	return Job{
		Name: "medteam-run-abc", RunDir: "/shared/results/run-abc", Workdir: "/home/u/it's here", Shards: 4,
		Medteam: "/opt/medteam/bin/medteam", Args: []string{"--dataset=medqa", "--config=base", "--config=full", "--model=openai/gpt 4o"},
		Grace: 90, Options: []string{"--partition=gpu", "--gres=gpu:1"}, Merge: []string{"--time=00:10:00"},
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./slurm -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test ./slurm -update, then inspect the diff):\n%s", name, got)
	}
}

func TestScriptsGolden(t *testing.T) {
	j := testJob()
	array, err := Render("array", ArrayTemplate, ArrayFields(j))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "array.sh", array)
	merge, err := Render("merge", MergeTemplate, MergeFields(j))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "merge.sh", merge)
	gpu, err := os.ReadFile(filepath.Join("testdata", "vllm.sh.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	j.Args = append(j.Args, "--base-url=http://127.0.0.1:8000/v1")
	out, err := Render("vllm.sh.tmpl", string(gpu), ArrayFields(j))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "vllm.sh", out)
}

// TestArrayScriptRules: the rules the issue sets on the task script, each
// checked on its own (a golden file alone would accept a wrong script once
// regenerated).
func TestArrayScriptRules(t *testing.T) {
	s, err := Render("array", ArrayTemplate, ArrayFields(testJob()))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"#SBATCH --signal=B:TERM@90\n", "#SBATCH --requeue\n", "#SBATCH --partition=gpu\n", "#SBATCH --gres=gpu:1\n",
		`--shard "$((SLURM_ARRAY_TASK_ID+1))/4"`, // the count from the plan
		`--run-name "shard-$((SLURM_ARRAY_TASK_ID+1))-of-4"`,
		"--out /shared/results/run-abc/shards", "--no-report",
		"exec /opt/medteam/bin/medteam run", // exec: Slurm's B:TERM reaches medteam
		`'--model=openai/gpt 4o'`, `cd '/home/u/it'\''s here'`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("array script lacks %q:\n%s", want, s)
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "#") && strings.Contains(line, "SLURM_ARRAY_TASK_COUNT") {
			t.Errorf("the script uses SLURM_ARRAY_TASK_COUNT (a resubmitted task sees 1): %s", line)
		}
	}
	m, err := Render("merge", MergeTemplate, MergeFields(testJob()))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m, "exec /opt/medteam/bin/medteam slurm merge /shared/results/run-abc\n") || !strings.Contains(m, "#SBATCH --time=00:10:00\n") ||
		strings.Contains(m, "gpu") {
		t.Errorf("merge script:\n%s", m)
	}
}

func TestRenderErrors(t *testing.T) {
	for _, tmpl := range []string{"{{.Nope}}", "{{.Shards"} {
		if _, err := Render("t", tmpl, ArrayFields(testJob())); err == nil || !strings.Contains(err.Error(), "script template t") {
			t.Errorf("%q: err %v", tmpl, err)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain/path-1.jsonl": "plain/path-1.jsonl", "": "''", "a b": "'a b'", "it's": `'it'\''s'`, "$HOME": "'$HOME'", "--x=a,b": "--x=a,b",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}
