package cli

import (
	"bufio"
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/medteam-bench/medteam/check"
)

// TestRunCheckRefusedBeforeAnyCall: thresholds that cannot apply to the
// plan exit exitUsage with their file:line before the run directory is made
// or any request reaches the endpoint (on main the run made every call and
// then failed in the gate).
func TestRunCheckRefusedBeforeAnyCall(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":{"message":"down","type":"server_error"}}`))
	}))
	defer srv.Close()
	for _, c := range []struct {
		name, thresholds string
		args             []string
		want             []string
	}{
		{"unknown arm in compare", "thresholds:\n  - compare: [full, base]\n    metric: accuracy\n    bound: ci_low >= -0.02\n",
			[]string{"--model", "openai/tiny", "--base-url", srv.URL + "/v1", "--api-key", "k", "--cache", "off", "--max-attempts", "1"},
			[]string{`th.yaml:2: unknown arm "base"; the plan runs full`}},
		{"every problem at its line", "thresholds:\n  - {metric: accuracy, arm: c6, bound: value >= 0.5}\n  - {metric: safe, bound: ci_low >= 0.9}\n  - {metric: accuracy, bound: ci_low >= 0.99}\n",
			[]string{"--model", "openai/tiny", "--base-url", srv.URL + "/v1", "--api-key", "k", "--cache", "off", "--max-attempts", "1"},
			[]string{`th.yaml:2: unknown arm "c6"`, `th.yaml:3: metric safe needs triage items`, `th.yaml:4: bound "ci_low >= 0.99" cannot hold on this plan: a group has at most 50 units`}},
		{"the shipped thresholds on make run's plan", "", nil, []string{`thresholds.yaml:43: unknown arm "base"; the plan runs full`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			th := filepath.Join("..", "configs", "thresholds.yaml")
			if c.thresholds != "" {
				th = writeThresholds(t, c.thresholds)
			}
			served.Store(0)
			out := t.TempDir()
			code, so, se := runCLI(t, append([]string{"run", "--check", th, "--out", out, "--run-name", "r"}, c.args...)...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, exitUsage, so, se)
			}
			for _, w := range c.want {
				if !strings.Contains(se, w) {
					t.Errorf("stderr lacks %q:\n%s", w, se)
				}
			}
			if n := served.Load(); n != 0 {
				t.Errorf("%d requests reached the endpoint before the thresholds were refused", n)
			}
			if _, err := os.Stat(filepath.Join(out, "r")); err == nil {
				t.Error("the run directory was created for thresholds that cannot apply")
			}
		})
	}
}

// TestShippedThresholdsApply: every thresholds file of configs/ names its
// plan in a "# plan: run …" line; the thresholds apply to that plan (run
// --dry-run --check accepts them), and 'medteam check' on a run of that plan
// gives an answer (passed or failed, exit 0 or exitGateFailed; not
// exitUsage). make run gates itself with the file written for its plan.
func TestShippedThresholdsApply(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "configs", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("thresholds:")) && !bytes.Contains(b, []byte("\nthresholds:")) {
			continue // not a thresholds file
		}
		if _, err := check.Parse(file, b); err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		n++
		t.Run(filepath.Base(file), func(t *testing.T) {
			args := planLine(t, b)
			if slices.Contains(args, "semigran") {
				data := os.Getenv("MEDTEAM_DATA")
				if data == "" {
					data = filepath.Join("..", "..", "shared", "datasets")
				}
				if _, err := os.Stat(filepath.Join(data, "triage", "semigran_vignettes.jsonl")); err != nil {
					t.Skipf("needs %s/triage/semigran_vignettes.jsonl", data)
				}
				args = append(args, "--data-dir", data)
			}
			if code, so, se := runCLI(t, append(args, "--dry-run", "--check", file)...); code != exitOK || !strings.Contains(so, "apply to this plan") {
				t.Fatalf("%v --dry-run --check %s: exit %d\n%s\n%s", args, file, code, so, se)
			}
			out := t.TempDir()
			if code, so, se := runCLI(t, append(args, "--out", out, "--run-name", "r", "--no-report")...); code != exitOK {
				t.Fatalf("%v: exit %d\n%s\n%s", args, code, so, se)
			}
			code, so, se := runCLI(t, "check", "--thresholds", file, filepath.Join(out, "r"))
			if code != exitOK && code != exitGateFailed {
				t.Fatalf("check --thresholds %s on a run of its plan: exit %d, want an answer (%d or %d)\n%s\n%s", file, code, exitOK, exitGateFailed, so, se)
			}
		})
	}
	if n < 3 {
		t.Errorf("%d thresholds files in configs/, want thresholds.yaml, thresholds-sample.yaml and thresholds-triage.yaml", n)
	}
	if got := makeRunCheck(t); got != "configs/thresholds-sample.yaml" {
		t.Errorf("make run checks %q, want configs/thresholds-sample.yaml (the file whose plan is make run's)", got)
	}
	if b, err := os.ReadFile(filepath.Join("..", "configs", "thresholds-sample.yaml")); err != nil || strings.Join(planLine(t, b), " ") != "run" {
		t.Errorf("configs/thresholds-sample.yaml must be written for make run's plan (# plan: run): %v", err)
	}
}

// planLine is the arguments of a thresholds file's "# plan: run …" line.
func planLine(t *testing.T, b []byte) []string {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "# plan: "); ok {
			return strings.Fields(rest)
		}
	}
	t.Fatal(`no "# plan: run …" line: a thresholds file in configs/ names the plan it is written for`)
	return nil
}

// makeRunCheck is the --check file of the Makefile's run target.
func makeRunCheck(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	_, recipe, ok := strings.Cut(string(b), "\nrun: build\n")
	if !ok {
		t.Fatal("Makefile has no 'run: build' target")
	}
	line, _, _ := strings.Cut(recipe, "\n")
	_, file, ok := strings.Cut(line, "--check ")
	if !ok {
		return ""
	}
	return strings.Fields(file)[0]
}
