package slurm

import (
	"strings"
	"testing"
)

func TestJobCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Job)
		want string // "" = accepted
	}{
		{"ordinary", func(*Job) {}, ""},
		{"hostile args are quoted, not refused", func(j *Job) { j.Args = []string{"$(touch PWNED)", "a b;`c`'\""} }, ""},
		{"newline in a task flag", func(j *Job) { j.Args = []string{"--model=x\ntouch PWNED"} }, "task flag"},
		{"shell syntax in a directive is inert", func(j *Job) { j.Options = []string{"--comment=$(touch${IFS}PWNED);`x`"} }, ""},
		{"newline in --slurm-opt", func(j *Job) { j.Options = []string{"--partition=gpu\ntouch PWNED"} }, "--slurm-opt"},
		{"carriage return in --slurm-opt", func(j *Job) { j.Options = []string{"--partition=gpu\r"} }, "--slurm-opt"},
		{"NUL in --merge-opt", func(j *Job) { j.Merge = []string{"--time=1\x00"} }, "--merge-opt"},
		{"newline in --merge-opt", func(j *Job) { j.Merge = []string{"--time=1\ntouch PWNED"} }, "--merge-opt"},
		{"blank in --slurm-opt", func(j *Job) { j.Options = []string{"--comment=two words"} }, "--slurm-opt"},
		{"quote in --merge-opt", func(j *Job) { j.Merge = []string{`--comment="x"`} }, "--merge-opt"},
		{"backslash in --slurm-opt", func(j *Job) { j.Options = []string{`--comment=a\b`} }, "--slurm-opt"},
		{"newline in the run directory", func(j *Job) { j.RunDir = "/r\ntouch PWNED" }, "the run directory"},
		{"blank in the run directory", func(j *Job) { j.RunDir = "/r un" }, "the run directory"},
		{"newline in the job name", func(j *Job) { j.Name = "n\ntouch PWNED" }, "the job name"},
		{"newline in the working directory", func(j *Job) { j.Workdir = "/w\ntouch PWNED" }, "the working directory"},
		{"newline in --medteam", func(j *Job) { j.Medteam = "/m\ntouch PWNED" }, "--medteam"},
	} {
		j := testJob()
		c.edit(&j)
		err := j.Check()
		if c.want == "" && err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: err %v, want one naming %s", c.name, err, c.want)
		}
	}
}
