package slurm

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// hostile are values that run a command if a script ever puts them
// unquoted (or inside double quotes) on a shell line.
var hostile = []string{"$(touch PWNED)", "`touch PWNED`", "; touch PWNED", "it's \"q\" $HOME", "a|b&&touch PWNED>x", "--x=$(touch${IFS}PWNED)"}

// hostileJob is a Job with every field holding shell syntax that Check
// accepts, its directories and stubs created under dir.
func hostileJob(t *testing.T, dir string) Job {
	t.Helper()
	bad := "$(touch${IFS}PWNED)`touch${IFS}PWNED`;touch${IFS}PWNED&"
	j := Job{
		Name:    "medteam-" + bad,
		RunDir:  filepath.Join(dir, "run"+bad),
		Workdir: filepath.Join(dir, "wd $(touch PWNED) `touch PWNED` ; touch PWNED 'q' \"q\""),
		Shards:  3,
		Medteam: filepath.Join(dir, "bin", "medteam $(touch PWNED) 'q'"),
		Args:    hostile,
		Grace:   90,
		Options: []string{"--comment=" + bad}, Merge: []string{"--comment=" + bad},
	}
	if err := j.Check(); err != nil {
		t.Fatalf("the hostile job should pass Check (its values are quoted): %v", err)
	}
	for _, d := range []string{LogDir(j.RunDir), j.Workdir, filepath.Join(dir, "bin"), filepath.Join(dir, "argv")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, path := range map[string]string{"medteam": j.Medteam, "record": filepath.Join(dir, "bin", "record"),
		"vllm": filepath.Join(dir, "bin", "vllm"), "curl": filepath.Join(dir, "bin", "curl")} {
		// each stub writes its arguments, NUL-terminated, to argv/<name>
		stub := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done >" + Quote(filepath.Join(dir, "argv", name)) + "\n"
		if err := os.WriteFile(path, []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return j
}

// everyField uses each template field, the raw ones through q.
const everyField = `#!/bin/bash
{{.Directives}}
# {{.Name}} {{.RunDir}} {{.LogDir}} {{.Medteam}} {{.Args}}
set -eu
cd {{.Workdir}}
record {{q .Name}} {{q .RunDir}} {{q .LogDir}} {{q .Medteam}} {{.Workdir}} {{.ShardDir}} {{.Shards}} {{.Grace}}{{range .Args}} {{q .}}{{end}}
{{.MergeCmd}}
exec {{.ShardCmd}}
`

// TestHostileValuesStayArguments renders the shipped scripts, the vLLM
// template of docs/slurm.md and a template using every field with values
// full of shell syntax, runs them under bash with stub commands, and checks
// that nothing ran (no PWNED file) and that every value reached the stubs
// as one argument, unchanged.
func TestHostileValuesStayArguments(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not on PATH")
	}
	vllm, err := os.ReadFile(filepath.Join("testdata", "vllm.sh.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	shard := append(append([]string{"run"}, hostile...), "--shard", "2/3", "--out", "", "--run-name", "shard-2-of-3", "--no-report")
	for _, c := range []struct {
		name, text string
		fields     func(Job) Fields
		stubs      func(j Job) map[string][]string // stub → the argv it must see
	}{
		{"array", ArrayTemplate, ArrayFields, func(j Job) map[string][]string { return map[string][]string{"medteam": shardArgs(shard, j)} }},
		{"merge", MergeTemplate, MergeFields, func(j Job) map[string][]string {
			return map[string][]string{"medteam": {"slurm", "merge", j.RunDir}}
		}},
		{"vllm", string(vllm), ArrayFields, func(j Job) map[string][]string {
			return map[string][]string{"medteam": shardArgs(shard, j), "curl": {"-sf", "http://127.0.0.1:8000/v1/models"}}
		}},
		{"every field", everyField, ArrayFields, func(j Job) map[string][]string {
			return map[string][]string{"medteam": shardArgs(shard, j), "record": append([]string{j.Name, j.RunDir, LogDir(j.RunDir), j.Medteam, j.Workdir,
				ShardDir(j.RunDir, 2, 3), "3", "90"}, hostile...)}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			j := hostileJob(t, dir)
			script, err := Render(c.name, c.text, c.fields(j))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "script.sh")
			if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bash, path)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"), "SLURM_ARRAY_TASK_ID=1")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("bash %s: %v\n%s\n--- script:\n%s", c.name, err, out.String(), script)
			}
			_ = filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
				if err == nil && filepath.Base(p) == "PWNED" {
					t.Errorf("a value ran as a command: %s exists\n--- script:\n%s", p, script)
				}
				return nil
			})
			for stub, want := range c.stubs(j) {
				b, err := os.ReadFile(filepath.Join(dir, "argv", stub))
				if err != nil {
					t.Fatalf("stub %s did not run: %v\n%s", stub, err, out.String())
				}
				if got := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00"); !reflect.DeepEqual(got, want) {
					t.Errorf("%s got argv\n%q\nwant\n%q", stub, got, want)
				}
			}
		})
	}
}

// shardArgs is the argv of 'medteam run' for task 1 of job j.
func shardArgs(tmpl []string, j Job) []string {
	a := append([]string(nil), tmpl...)
	for i := range a {
		if a[i] == "--out" {
			a[i+1] = filepath.Join(j.RunDir, "shards")
		}
	}
	return a
}
