package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/results"
)

func runCLI(t *testing.T, args ...string) (ExitCode, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := execute(context.Background(), nil, args, &out, &errb)
	return code, out.String(), errb.String()
}

// medqaTest is the real MedQA test file of ../shared (1,273 questions): for
// tests that need more than the 50 questions of medqaSample; they skip
// (needMedQA) where ../shared is absent.
const medqaTest = "../../shared/datasets/medqa/phrases_no_exclude_test.jsonl"

// medqaSample is the embedded default sample's file, committed in the
// repository: 50 MedQA questions in the official layout, for tests that need
// a dataset file and no more than 50 questions.
const medqaSample = "../datasets/sample/medqa_test_sample50.jsonl"

func TestRunWritesRunDirectory(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--dataset", medqaSample, "--config", "base,full", "--limit", "30", "--out", dir, "--parallel", "4")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "SIMULATION") || !strings.Contains(stdout, "SIMULATED") {
		t.Errorf("a sim run must say it is a simulation:\n%s\n%s", stdout, stderr)
	}
	for _, arm := range []string{"base", "full"} {
		if !strings.Contains(stdout, arm) {
			t.Errorf("summary lacks arm %s:\n%s", arm, stdout)
		}
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(runs) != 1 {
		t.Fatalf("want one run directory, got %v", runs)
	}
	qs, err := results.ReadQuestions(filepath.Join(runs[0], results.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	calls, err := results.ReadCalls(filepath.Join(runs[0], results.CallsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 60 {
		t.Fatalf("%d question rows, want 60 (30 × 2 arms)", len(qs))
	}
	var sum int
	for _, q := range qs {
		sum += int(q.Calls)
	}
	if sum != len(calls) {
		t.Fatalf("question rows count %d calls, calls.parquet has %d rows", sum, len(calls))
	}
	m, err := results.ReadManifest(filepath.Join(runs[0], results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Simulated || len(m.Arms) != 2 || m.Counts.Questions != 60 || m.Counts.Calls != len(calls) || m.Datasets[0].SHA256 == "" || m.PromptSetHash == "" {
		t.Fatalf("manifest incomplete: %+v", m)
	}
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--config", "mm"}, "mutual monitoring requires leadership"},
		{[]string{"run", "--config", "smm+zz"}, `unknown teamwork component "zz"`},
		{[]string{"run", "--config", "self-consistency"}, `unknown arm "self-consistency" (did you mean "sc:k=5"?); the protocols are zeroshot, cot, sc,`},
		{[]string{"run", "--turns", "4"}, "2 or 3"},
		{[]string{"run", "--agents", "7"}, "fixed size from 2 to 4"},
		{[]string{"run", "--model", "sim/nope"}, "nope"},
		{[]string{"run", "--model", "gpt4"}, "provider/model"},
		{[]string{"run", "--model", "acme/x"}, `provider "acme"`},
		{[]string{"run", "--dataset", "/nonexistent/file.jsonl"}, "/nonexistent/file.jsonl"},
		{[]string{"run", "--no-such-flag"}, "unknown flag"},
		{[]string{"run", "--config", "full,full"}, "twice"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, append(tt.args, "--out", t.TempDir())...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr: %s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Fatalf("stderr %q lacks %q", stderr, tt.want)
			}
		})
	}
}

func TestCallsTable(t *testing.T) {
	code, out, _ := runCLI(t, "calls")
	if code != 0 {
		t.Fatal(code)
	}
	// Every registered protocol prints its table under its name; teamwork's
	// is last.
	for _, p := range protocols.All() {
		if !strings.Contains(out, "# "+p.Name+"\n") {
			t.Fatalf("no table for protocol %s:\n%s", p.Name, out)
		}
	}
	_, teamworkTable, _ := strings.Cut(out, "# teamwork\n")
	lines := strings.Split(strings.TrimSpace(teamworkTable), "\n")
	if len(lines) != 1+9*2*3 {
		t.Fatalf("teamwork: %d lines, want header + 54", len(lines))
	}
	// full, N=3, T=2: 3 + 3 + 6 + 2 + 3 = 17 (+1 on a tie).
	found := false
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) > 4 && f[0] == "full" && f[2] == "3" && f[3] == "2" {
			found = strings.Contains(l, " 17 (+1 tie)")
		}
	}
	if !found {
		t.Fatalf("full N=3 T=2 line missing or wrong:\n%s", out)
	}
}
