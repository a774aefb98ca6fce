package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/results"
)

// TestPairWithPublished (issue 33, item 3): a medteam run on
// MedAgentsBench's own question file (--dataset-name medqa) and the
// rescored published outputs share their question ids, so 'medteam report
// RUN PUBLISHED' compares the run's arm with every published arm on the same
// 100 questions (MedAgents' file holds 99 of them), labelled across models
// when the models differ; 'medteam check --baseline PUBLISHED --baseline-arm
// ARM --baseline-model MODEL RUN' gates against one published arm.
func TestPairWithPublished(t *testing.T) {
	root := sharedDir(t, "published/medagentsbench", "output/medqa")
	dir := t.TempDir()
	sim := filepath.Join(dir, "sim")
	if code, so, se := runCLI(t, "run", "--dataset", root+"/data/medqa/test_hard.jsonl", "--dataset-name", "medqa", "--config", "full",
		"--out", dir, "--run-name", "sim"); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, so, se)
	}
	files, _ := filepath.Glob(root + "/output/medqa/*.json")
	pub := filepath.Join(dir, "pub")
	if code, _, se := runCLI(t, append([]string{"rescore", "--out", pub}, files...)...); code != 0 {
		t.Fatalf("rescore: exit %d: %s", code, se)
	}
	rep := filepath.Join(dir, "rep")
	code, so, se := runCLI(t, "report", sim, pub, "--prices", mabPrices, "--out", rep, "--bootstrap", "100")
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, se)
	}
	md := readText(t, filepath.Join(rep, "report.md"))
	for _, want := range []string{"## Against published runs", "40 of these comparisons are **across models**",
		"| medqa | full (sim/default) | medagents (gpt-4o) | 99 | 43.4 → ", "| medqa | full (sim/default) | mdagents (gpt-4o) | 100 | 36.0 → ",
		"| medqa | full (sim/default) | aflow (gpt-4o) | 100 | 48.0 → ", "| medqa | full (sim/default) | cot (gpt-4o) | 100 | 39.0 → ",
		"| $0.0622 | $0.0000 | across models: compares systems, not protocols |", "The medteam side is SIMULATED"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	sums, err := results.ReadFile[report.SummaryRow](filepath.Join(rep, report.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range sums {
		if r.Scope == "published" && r.Arm == "full" && r.Model == "sim/default" {
			n++
		}
	}
	if n != 40 {
		t.Errorf("summary.parquet: %d comparisons of scope published, want 40 (one per published arm × model)", n)
	}
	if !strings.Contains(so, "Against published runs") {
		t.Errorf("the terminal report lacks the published comparisons:\n%s", so)
	}
	checkAgainstPublished(t, pub, sim)
}

// checkAgainstPublished: the gate against a published arm, and its errors.
func checkAgainstPublished(t *testing.T, pub, sim string) {
	t.Helper()
	code, so, se := runCLI(t, "check", "--baseline", pub, "--baseline-arm", "aflow", "--baseline-model", "gpt-4o", sim)
	if code != 0 || !strings.Contains(so, "medqa · sim/default vs baseline gpt-4o · full vs baseline arm aflow") ||
		!strings.Contains(so, "on 100 shared pairs over 100 questions") || !strings.Contains(so, "sim/default vs baseline gpt-4o: across models: compares systems, not protocols") {
		t.Errorf("check against aflow: exit %d\n%s%s", code, so, se)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--baseline-arm gates against one arm of it"},
		{[]string{"--baseline-arm", "medagents"}, "has it on 3 models (DeepSeek-V3, gpt-4o, gpt-4o-mini): choose one with --baseline-model"},
		{[]string{"--baseline-arm", "nosuch"}, "--baseline-arm nosuch: the baseline"},
		{[]string{"--baseline-model", "gpt-4o"}, "give --baseline-arm too"},
	} {
		args := append(append([]string{"check", "--baseline", pub}, tc.args...), sim)
		if code, _, se := runCLI(t, args...); code != 2 || !strings.Contains(se, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", tc.args, code, tc.want, se)
		}
	}
}
