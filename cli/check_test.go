package cli

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/check"
)

// checkRun runs the embedded sample (base and full) on sim into out/name.
func checkRun(t *testing.T, out, name string, extra ...string) string {
	t.Helper()
	args := append([]string{"run", "--config", "base,full", "--out", out, "--run-name", name, "--no-report"}, extra...)
	if code, so, se := runCLI(t, args...); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, so, se)
	}
	return filepath.Join(out, name)
}

func writeThresholds(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "th.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckThresholds(t *testing.T) {
	out := t.TempDir()
	dir := checkRun(t, out, "a")

	code, so, se := runCLI(t, "check", "--thresholds", "../configs/thresholds.yaml", dir)
	if code != exitOK || !strings.Contains(so, "gate passed") || !strings.Contains(so, "SIMULATED") {
		t.Fatalf("example thresholds: exit %d\n%s\n%s", code, so, se)
	}

	th := writeThresholds(t, "thresholds:\n  - metric: accuracy\n    arm: full\n    bound: ci_low >= 0.99\n  - compare: [base, full]\n    metric: calls_per_q\n    bound: value <= 0\n")
	junit, md := filepath.Join(out, "check.xml"), filepath.Join(out, "check.md")
	code, so, se = runCLI(t, "check", "--thresholds", th, "--junit", junit, "--markdown", md, dir)
	if code != exitGateFailed || !strings.Contains(so, "gate FAILED: 1 of 2 checks failed") || !strings.Contains(se, "gate failed") {
		t.Fatalf("failing threshold: exit %d\n%s\n%s", code, so, se)
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc check.JUnitSuites
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	cs := doc.Suites[0].Cases
	if doc.Tests != 2 || doc.Failures != 1 || cs[0].Classname != "full" || cs[0].Failure == nil ||
		!strings.HasPrefix(cs[0].Failure.Message, "observed 0.") || !strings.HasSuffix(cs[0].Failure.Message, "bound >= 0.99") || cs[1].Failure != nil {
		t.Errorf("junit:\n%s", b)
	}
	if m, _ := os.ReadFile(md); !strings.Contains(string(m), "gate FAILED") {
		t.Errorf("markdown:\n%s", m)
	}

	code, so, se = runCLI(t, "check", "--thresholds", th, "--json", dir)
	var js check.JSONReport
	if err := json.Unmarshal([]byte(so), &js); err != nil || code != exitGateFailed || js.Pass || js.Total != 2 {
		t.Errorf("json: exit %d, %v\n%s\n%s", code, err, so, se)
	}
}

func TestCheckUsage(t *testing.T) {
	dir := checkRun(t, t.TempDir(), "a")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"check", dir}, "give --thresholds FILE, --baseline RUN or both"},
		{[]string{"check", "--thresholds", "x.yaml"}, "give at least one run directory"},
		{[]string{"check", "--thresholds", writeThresholds(t, "thresholds:\n  - metric: accuracy\n    bound: value >> 1\n"), dir}, `th.yaml:3: bound "value >> 1"`},
		{[]string{"check", "--thresholds", writeThresholds(t, "thresholds:\n  - metric: accuracy\n    compare: [full, c1]\n    bound: value >= 0\n"), dir}, `th.yaml:3: unknown arm "c1" in compare; the results have base, full`},
		{[]string{"check", "--thresholds", writeThresholds(t, "thresholds:\n  - metric: accuracy\n    arm: c2\n    bound: value >= 0\n"), dir}, `th.yaml:3: unknown arm "c2"`},
		{[]string{"check", "--baseline", dir, "--margin", "5", dir}, "--margin 5"},
		{[]string{"check", "--baseline", dir, "--min-questions", "1", dir}, "--min-questions 1"},
		{[]string{"check", "--baseline", dir, "--min-coverage", "1.5", dir}, "--min-coverage 1.5"},
		{[]string{"check", "--baseline", dir, "--alpha", "0.7", dir}, "--alpha 0.7"},
		{[]string{"check", "--baseline", filepath.Join(dir, "missing"), dir}, "does not exist"},
	}
	for _, c := range cases {
		code, so, se := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(se, c.want) {
			t.Errorf("%v: exit %d, want %d and %q\n%s\n%s", c.args[1:], code, exitUsage, c.want, so, se)
		}
	}
}

// TestCheckBaseline: a rerun with another seed passes the baseline gate;
// a weaker model fails it.
func TestCheckBaseline(t *testing.T) {
	out := t.TempDir()
	base := checkRun(t, out, "base")
	again := checkRun(t, out, "again", "--seed", "2")
	// 50 questions: the 95% interval of Δ is ±10 points around a Δ that is
	// itself a few points of seed noise (−6 for base on the simulator), so
	// the margin must be wider than the default's (which is for about 500).
	code, so, se := runCLI(t, "check", "--baseline", base, "--margin", "0.2", again)
	if code != exitOK || !strings.Contains(so, "100 shared (question, repeat) pairs, 0 in the baseline only, 0 in the candidate only") {
		t.Fatalf("same configuration: exit %d\n%s\n%s", code, so, se)
	}
	weak := checkRun(t, out, "weak", "--model", "sim/weak")
	junit := filepath.Join(out, "baseline.xml")
	code, so, se = runCLI(t, "check", "--baseline", base, "--margin", "0.2", "--junit", junit, weak)
	if code != exitGateFailed || !strings.Contains(so, "sim/weak vs baseline sim/default") {
		t.Fatalf("weaker model: exit %d\n%s\n%s", code, so, se)
	}
	if b, _ := os.ReadFile(junit); !strings.Contains(string(b), "<failure") {
		t.Errorf("junit has no failure:\n%s", b)
	}
	// The default margin (5 points) on 50 questions: neither
	// non-inferiority nor a drop can be shown — inconclusive: the gate
	// passes with a warning (issue 34; exit 8 before), and exits 8 only
	// with --require-evidence.
	code, so, _ = runCLI(t, "check", "--baseline", base, again)
	if code != exitOK || !strings.Contains(so, "INSUFFICIENT") || !strings.Contains(so, "gate passed with a WARNING") || !strings.Contains(so, "questions needed for 80% power") {
		t.Errorf("default margin on 50 questions: exit %d\n%s", code, so)
	}
	code, so, _ = runCLI(t, "check", "--baseline", base, "--require-evidence", again)
	if code != exitNoEvidence || !strings.Contains(so, "INSUFFICIENT") || !strings.Contains(so, "warning: low power") {
		t.Errorf("--require-evidence, default margin on 50 questions: exit %d\n%s", code, so)
	}
	// 20 shared questions: under --min-questions 30, insufficient whatever
	// the margin; so is a candidate that shares 20 of the baseline's 50.
	few := checkRun(t, out, "few", "--seed", "2", "--limit", "20")
	code, so, _ = runCLI(t, "check", "--baseline", base, "--margin", "0.5", "--junit", junit, "--require-evidence", few)
	if code != exitNoEvidence || !strings.Contains(so, "insufficient evidence: 20 shared pairs over 20 questions (40% of the baseline's units") {
		t.Errorf("20 shared questions: exit %d\n%s", code, so)
	}
	if b, _ := os.ReadFile(junit); !strings.Contains(string(b), "<skipped") || strings.Contains(string(b), "<failure") {
		t.Errorf("junit of an undecided gate:\n%s", b)
	}
	code, so, _ = runCLI(t, "check", "--baseline", base, "--margin", "0.5", "--min-questions", "10", "--min-coverage", "0.3", few)
	if code != exitOK {
		t.Errorf("--min-questions 10 --min-coverage 0.3: exit %d\n%s", code, so)
	}
}

// TestCheckArmLabels: thresholds name arms as the report does — "full"
// finds the sweep label "full/n3" — and a name matching several arms is
// an error at its line (issue 24, item 8).
func TestCheckArmLabels(t *testing.T) {
	out := t.TempDir()
	dir := checkRun(t, out, "n3", "--agents", "3")
	th := writeThresholds(t, "thresholds:\n  - {metric: accuracy, arm: full, bound: ci_low >= 0.3}\n  - {metric: accuracy, compare: [full, base], bound: ci_low >= -0.5}\n")
	code, so, se := runCLI(t, "check", "--thresholds", th, dir)
	if code != exitOK || !strings.Contains(so, "full/n3 − base/n3") || !strings.Contains(so, "· full/n3 ") {
		t.Fatalf("full → full/n3: exit %d\n%s\n%s", code, so, se)
	}
	two := checkRun(t, out, "n2", "--agents", "2")
	code, so, se = runCLI(t, "check", "--thresholds", th, dir, two)
	if code != exitUsage || !strings.Contains(se, `th.yaml:2: arm "full" is ambiguous: it names full/n3, full/n2`) {
		t.Errorf("two full arms: exit %d\n%s\n%s", code, so, se)
	}
}

// TestCheckAfterRun: run --check gates the finished run; a failed gate
// exits exitGateFailed, a bad thresholds file is refused before the run.
func TestCheckAfterRun(t *testing.T) {
	out := t.TempDir()
	pass := writeThresholds(t, "thresholds:\n  - {metric: accuracy, arm: full, bound: value >= 0.3}\n")
	if code, so, se := runCLI(t, "run", "--config", "full", "--out", out, "--run-name", "p", "--no-report", "--check", pass); code != exitOK || !strings.Contains(so, "gate passed: 1 of 1") {
		t.Fatalf("passing gate: exit %d\n%s\n%s", code, so, se)
	}
	fail := writeThresholds(t, "thresholds:\n  - {metric: accuracy, arm: full, bound: value >= 0.99}\n")
	if code, so, se := runCLI(t, "run", "--config", "full", "--out", out, "--run-name", "f", "--no-report", "--check", fail); code != exitGateFailed || !strings.Contains(so, "gate FAILED") {
		t.Fatalf("failing gate: exit %d\n%s\n%s", code, so, se)
	}
	bad := writeThresholds(t, "thresholds:\n  - {metric: acc, bound: value >= 0.99}\n")
	code, so, se := runCLI(t, "run", "--config", "full", "--out", out, "--run-name", "b", "--no-report", "--check", bad)
	if code != exitUsage || !strings.Contains(se, `th.yaml:2: unknown metric "acc"`) {
		t.Fatalf("bad thresholds: exit %d\n%s\n%s", code, so, se)
	}
	if _, err := os.Stat(filepath.Join(out, "b")); err == nil {
		t.Error("a bad thresholds file should stop the run before it starts")
	}
}

// TestCheckInconclusivePassesWithWarning: an inconclusive baseline check
// passes CI (exit 0) with a warning in the terminal, the Markdown and the
// JUnit file (a skipped case giving the questions needed for 80% power),
// and the JSON says pass with a warning (issue 34, item 1).
func TestCheckInconclusivePassesWithWarning(t *testing.T) {
	out := t.TempDir()
	base := checkRun(t, out, "base")
	again := checkRun(t, out, "again", "--seed", "2")
	junit, md := filepath.Join(out, "c.xml"), filepath.Join(out, "c.md")
	code, so, se := runCLI(t, "check", "--baseline", base, "--junit", junit, "--markdown", md, again)
	if code != exitOK || !strings.Contains(so, "gate passed with a WARNING: 2 of 2 checks inconclusive") {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	if b, _ := os.ReadFile(md); !strings.Contains(string(b), "> [!WARNING]\n> gate passed with a WARNING") {
		t.Errorf("markdown has no warning:\n%s", b)
	}
	b, _ := os.ReadFile(junit)
	var doc check.JUnitSuites
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Suites[0].Cases {
		if c.Failure != nil || c.Skipped == nil || !strings.HasPrefix(c.Skipped.Message, "inconclusive, not gated: insufficient evidence") ||
			!strings.Contains(c.Skipped.Message, "questions needed for 80% power") {
			t.Errorf("junit case %+v: want a skipped case with the questions needed", c)
		}
	}
	code, so, _ = runCLI(t, "check", "--baseline", base, "--json", again)
	var js check.JSONReport
	if err := json.Unmarshal([]byte(so), &js); code != exitOK || err != nil || !js.Pass || !js.Warning || js.Insufficient != 2 || js.Results[0].Needed == 0 {
		t.Errorf("json: exit %d, %v\n%s", code, err, so)
	}
}

// TestCheckClearPassNoPowerWarning: a candidate far better than the
// baseline passes without a low-power warning; before issue 34 the power
// came from the discordance the difference itself made ("power 42% … below
// 80%" for a candidate 24 points better).
func TestCheckClearPassNoPowerWarning(t *testing.T) {
	out := t.TempDir()
	weak := checkRun(t, out, "weak", "--model", "sim/weak")
	better := checkRun(t, out, "better")
	code, so, se := runCLI(t, "check", "--baseline", weak, better)
	if code != exitOK || strings.Contains(so, "low power") || strings.Contains(so, "below 80%") || !strings.Contains(so, "gate passed: 2 of 2 checks") {
		t.Errorf("clear pass: exit %d\n%s\n%s", code, so, se)
	}
}

// TestCheckAnchor: --anchor gates the candidate against a pinned run too,
// as its own rows sharing α with the baseline's: a candidate that passes
// against a chained baseline that already drifted (here the weak model)
// fails against the anchor (issue 34, item 5).
func TestCheckAnchor(t *testing.T) {
	out := t.TempDir()
	anchor := checkRun(t, out, "anchor")
	drifted := checkRun(t, out, "drifted", "--model", "sim/weak")
	cand := checkRun(t, out, "cand", "--model", "sim/weak", "--seed", "2")
	code, so, se := runCLI(t, "check", "--baseline", drifted, "--margin", "0.2", cand)
	if code != exitOK {
		t.Fatalf("against the drifted baseline alone: exit %d\n%s\n%s", code, so, se)
	}
	code, so, se = runCLI(t, "check", "--baseline", drifted, "--margin", "0.2", "--anchor", anchor, "--anchor-margin", "0.1", cand)
	if code != exitGateFailed || !strings.Contains(so, "anchor: delta(accuracy, candidate, anchor) lower 98.75% bound >= -0.1") ||
		!strings.Contains(so, "one-sided α = 0.05 over 4 baseline checks (0.0125 each)") || !strings.Contains(so, "gate FAILED: 2 of 4 checks failed") {
		t.Errorf("with --anchor: exit %d\n%s\n%s", code, so, se)
	}
	for _, args := range [][]string{{"--anchor-margin", "0.1"}, {"--anchor", anchor, "--anchor-margin", "-1"}} {
		if code, _, se := runCLI(t, append(append([]string{"check", "--baseline", drifted}, args...), cand)...); code != exitUsage || !strings.Contains(se, "--anchor-margin") {
			t.Errorf("%v: exit %d\n%s", args, code, se)
		}
	}
}

// TestCheckExitCodesDocumented: the exit codes of 'medteam check' are one
// list, word for word the same in check --help, the README's check
// section, docs/commands.md and docs/ci.md (issue 34, item 3).
func TestCheckExitCodesDocumented(t *testing.T) {
	code, so, _ := runCLI(t, "check", "--help")
	if code != exitOK || !strings.Contains(so, checkExitCodes) {
		t.Errorf("check --help does not print the exit-code list:\n%s", so)
	}
	for _, path := range []string{"../README.md", "../docs/commands.md", "../docs/ci.md"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "```text\n"+checkExitCodes+"\n```") {
			t.Errorf("%s: no fenced block (```text) holding the exit codes of medteam check word for word as cli/check.go's checkExitCodes:\n%s", path, checkExitCodes)
		}
	}
}
