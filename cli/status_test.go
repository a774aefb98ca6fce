package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/results"
)

// TestIncompleteRunGate: a run stopped part-way (here by a token budget;
// its manifest then removed as a SIGKILL leaves it) and exported has an
// incomplete status in its manifest, its report says so at the top, and
// check refuses it with exitIncomplete unless --allow-incomplete (issue 28,
// item 4: it was "gate passed").
func TestIncompleteRunGate(t *testing.T) {
	out := t.TempDir()
	base := []string{"run", "--config", "base,full", "--agents", "3", "--limit", "20", "--out", out, "--run-name", "partial",
		"--parallel", "1", "--cache", "off", "--no-report"}
	code, so, se := runCLI(t, append(base, "--budget-tokens", "60000")...)
	if code != exitBudget {
		t.Fatalf("budget run: exit %d\n%s\n%s", code, so, se)
	}
	dir := filepath.Join(out, "partial")
	m, err := results.ReadManifest(filepath.Join(dir, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if m.Status.State != results.StateIncomplete || m.Status.Planned != 40 || m.Status.Done != m.Counts.Questions || m.Status.Done >= 40 {
		t.Fatalf("stopped run's status %+v (%d rows), want incomplete of 40", m.Status, m.Counts.Questions)
	}
	// A SIGKILL leaves neither manifest nor parquet files; export writes both.
	for _, f := range []string{results.ManifestFile, results.QuestionsFile, results.CallsFile} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if code, so, se := runCLI(t, "export", dir); code != exitOK || !strings.Contains(so, "run incomplete: ") {
		t.Fatalf("export: exit %d\n%s\n%s", code, so, se)
	}
	m2, err := results.ReadManifest(filepath.Join(dir, results.ManifestFile))
	if err != nil || m2.Status != m.Status {
		t.Fatalf("exported status %+v (%v), want %+v", m2.Status, err, m.Status)
	}
	if code, so, se := runCLI(t, "report", dir); code != exitOK {
		t.Fatalf("report: exit %d\n%s\n%s", code, so, se)
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	if first, _, _ := strings.Cut(string(md), "\n"); !strings.Contains(first, "INCOMPLETE RUN") || !strings.Contains(string(md), "**INCOMPLETE run.**") {
		t.Errorf("report.md does not say the run is incomplete:\n%.600s", md)
	}
	th := writeThresholds(t, "thresholds:\n  - {metric: accuracy, arm: full, bound: value >= 0}\n")
	code, so, se = runCLI(t, "check", "--thresholds", th, dir)
	if code != exitIncomplete || !strings.Contains(se, "incomplete: ") || !strings.Contains(se, "of 40 units done") || strings.Contains(so, "gate passed") {
		t.Fatalf("check of an incomplete run: exit %d, want %d\n%s\n%s", code, exitIncomplete, so, se)
	}
	code, so, se = runCLI(t, "check", "--allow-incomplete", "--thresholds", th, dir)
	if code != exitOK || !strings.Contains(so, "warning: INCOMPLETE run") || !strings.Contains(so, "gate passed") {
		t.Fatalf("check --allow-incomplete: exit %d\n%s\n%s", code, so, se)
	}
	// Resumed to the end, the run is complete and gated.
	if code, so, se := runCLI(t, base...); code != exitOK {
		t.Fatalf("resume: exit %d\n%s\n%s", code, so, se)
	}
	if m, _ := results.ReadManifest(filepath.Join(dir, results.ManifestFile)); m.Status != (results.Status{State: results.StateComplete, Done: 40, Planned: 40}) {
		t.Errorf("resumed status %+v", m.Status)
	}
	if code, so, se := runCLI(t, "check", "--thresholds", th, dir); code != exitOK {
		t.Errorf("check of the complete run: exit %d\n%s\n%s", code, so, se)
	}
}

// TestMergeStatus: a merge of shards is incomplete while one shard is, and
// complete once every shard is (issue 28, item 4).
func TestMergeStatus(t *testing.T) {
	out := t.TempDir()
	plan := []string{"run", "--config", "base", "--limit", "20", "--out", out, "--parallel", "1", "--cache", "off", "--no-report"}
	if code, so, se := runCLI(t, append(plan, "--shard", "1/2", "--run-name", "s1")...); code != exitOK {
		t.Fatalf("shard 1: exit %d\n%s\n%s", code, so, se)
	}
	if code, so, se := runCLI(t, append(plan, "--shard", "2/2", "--run-name", "s2", "--budget-tokens", "20000")...); code != exitBudget {
		t.Fatalf("shard 2 on a budget: exit %d\n%s\n%s", code, so, se)
	}
	shards := []string{filepath.Join(out, "s1"), filepath.Join(out, "s2")}
	merged := filepath.Join(out, "merged")
	status := func() results.Status {
		t.Helper()
		if code, so, se := runCLI(t, append([]string{"merge", "--out", merged}, shards...)...); code != exitOK {
			t.Fatalf("merge: exit %d\n%s\n%s", code, so, se)
		}
		m, err := results.ReadManifest(filepath.Join(merged, results.ManifestFile))
		if err != nil {
			t.Fatal(err)
		}
		return m.Status
	}
	if st := status(); st.State != results.StateIncomplete {
		t.Errorf("merge with a stopped shard: %+v, want incomplete", st)
	}
	if code, so, se := runCLI(t, append(plan, "--shard", "2/2", "--run-name", "s2")...); code != exitOK {
		t.Fatalf("shard 2 resumed: exit %d\n%s\n%s", code, so, se)
	}
	if st := status(); st.State != results.StateComplete || st.Done != 20 {
		t.Errorf("merge of complete shards: %+v, want complete with 20 units", st)
	}
}
