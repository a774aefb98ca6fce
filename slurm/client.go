package slurm

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Runner runs one Slurm command and returns its standard output.
type Runner interface {
	Run(ctx context.Context, name string, args ...string) ([]byte, error)
}

// Exec runs the Slurm commands found on PATH.
type Exec struct{}

// Run runs name with args; a failure carries its standard error.
func (Exec) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	var out, errb bytes.Buffer
	c := exec.CommandContext(ctx, name, args...)
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// Client submits, cancels and inspects jobs through a Runner.
type Client struct{ R Runner }

// Submit submits script with the sbatch options opts and returns the job id.
func (c Client) Submit(ctx context.Context, script string, opts ...string) (string, error) {
	out, err := c.R.Run(ctx, "sbatch", append(append([]string{"--parsable"}, opts...), script)...)
	if err != nil {
		return "", err
	}
	return ParseSbatch(string(out))
}

// Cancel cancels job id.
func (c Client) Cancel(ctx context.Context, id string) error {
	_, err := c.R.Run(ctx, "scancel", id)
	return err
}

// States returns the state of the jobs ids and of their array tasks, keyed
// by job id ("123" for a job, "123_4" for array task 4). Active jobs come
// from squeue; ended ones from sacct when accounting is there, else from
// scontrol (which knows jobs until MinJobAge after their end). A job no
// command knows is missing from the map.
func (c Client) States(ctx context.Context, ids []string) map[string]string {
	st := map[string]string{}
	if len(ids) == 0 {
		return st
	}
	list := strings.Join(ids, ",")
	if out, err := c.R.Run(ctx, "sacct", "-n", "-P", "-X", "-o", "JobID,State", "-j", list); err == nil && len(bytes.TrimSpace(out)) > 0 {
		for k, v := range ParseSacct(string(out)) {
			st[k] = v
		}
	} else {
		for _, id := range ids {
			if out, err := c.R.Run(ctx, "scontrol", "show", "job", "-o", id); err == nil {
				for k, v := range ParseScontrol(string(out)) {
					st[k] = v
				}
			}
		}
	}
	if out, err := c.R.Run(ctx, "squeue", "-h", "-r", "-o", "%i %T", "-j", list); err == nil {
		for k, v := range ParseSqueue(string(out)) {
			st[k] = v // squeue is the freshest for active jobs
		}
	}
	return st
}

// Active reports whether a job state means the job may still run.
func Active(state string) bool {
	switch strings.Fields(state + " x")[0] {
	case "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING", "SUSPENDED", "STAGE_OUT", "SIGNALING", "PREEMPTED":
		return true
	}
	return false
}

// ParseSbatch reads the job id of 'sbatch --parsable' ("id" or "id;cluster").
func ParseSbatch(out string) (string, error) {
	line := strings.TrimSpace(out)
	if i := strings.LastIndexByte(line, '\n'); i >= 0 {
		line = strings.TrimSpace(line[i+1:])
	}
	id, _, _ := strings.Cut(line, ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("sbatch printed %q, not a job id", strings.TrimSpace(out))
	}
	return id, nil
}

// ParseSqueue reads 'squeue -h -r -o "%i %T"' lines: "123_4 RUNNING".
func ParseSqueue(out string) map[string]string {
	st := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 {
			st[f[0]] = f[1]
		}
	}
	return st
}

// ParseSacct reads 'sacct -n -P -X -o JobID,State' lines: "123_4|COMPLETED",
// "123_[5-7]|PENDING", "124|CANCELLED by 0". Ranges are expanded.
func ParseSacct(out string) map[string]string {
	st := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		id, state, ok := strings.Cut(strings.TrimSpace(line), "|")
		if !ok || id == "" || state == "" {
			continue
		}
		state = strings.Fields(state)[0]
		for _, k := range expandIDs(id) {
			st[k] = state
		}
	}
	return st
}

// expandIDs expands "123_[1-3,5]" to 123_1 … 123_5; other ids stay as given.
func expandIDs(id string) []string {
	base, rest, ok := strings.Cut(id, "_[")
	if !ok || !strings.HasSuffix(rest, "]") {
		return []string{id}
	}
	var out []string
	for _, r := range strings.Split(strings.TrimSuffix(rest, "]"), ",") {
		r, _, _ = strings.Cut(r, "%")
		lo, hi, isRange := strings.Cut(r, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || b < a || b-a > 100000 {
			continue
		}
		for i := a; i <= b; i++ {
			out = append(out, base+"_"+strconv.Itoa(i))
		}
	}
	return out
}

// ParseScontrol reads 'scontrol show job -o' lines (one job or array task a
// line, Key=Value words): an array task is keyed ArrayJobId_ArrayTaskId,
// a job by JobId; a pending array's remaining tasks ("ArrayTaskId=2-3") are
// expanded.
func ParseScontrol(out string) map[string]string {
	st := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		kv := map[string]string{}
		for _, w := range strings.Fields(line) {
			if k, v, ok := strings.Cut(w, "="); ok {
				if _, seen := kv[k]; !seen {
					kv[k] = v
				}
			}
		}
		state := kv["JobState"]
		if state == "" || kv["JobId"] == "" {
			continue
		}
		if a, t := kv["ArrayJobId"], kv["ArrayTaskId"]; a != "" && t != "" {
			t, _, _ = strings.Cut(t, "%")
			for _, k := range expandIDs(a + "_[" + t + "]") {
				st[k] = state
			}
			continue
		}
		st[kv["JobId"]] = state
	}
	return st
}
