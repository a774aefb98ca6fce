package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/results"
)

func TestEndReports(t *testing.T) {
	for _, c := range []struct {
		name                                 string
		done, noReport, html, haveMD, haveHT bool
		md, page                             bool
	}{
		{"done", true, false, false, false, false, true, false},
		{"done --html", true, false, true, false, false, true, true},
		{"done, an earlier report.html", true, false, false, true, true, true, true},
		{"done --no-report", true, true, true, true, true, false, false},
		{"stopped", false, false, true, false, false, false, false},
		{"stopped, an earlier report.md", false, false, false, true, false, true, false},
		{"stopped, earlier report.md and report.html", false, false, false, true, true, true, true},
		{"stopped, only an earlier report.html", false, false, false, false, true, true, true},
		{"stopped --no-report", false, true, false, true, true, false, false},
	} {
		md, page := endReports(c.done, c.noReport, c.html, c.haveMD, c.haveHT)
		if md != c.md || page != c.page {
			t.Errorf("%s: report.md %v, report.html %v; want %v, %v", c.name, md, page, c.md, c.page)
		}
	}
}

// TestReportsRewrittenOnResume: a run stopped by its budget and reported
// ('medteam report' writes report.md and report.html, and says INCOMPLETE
// on the terminal as report.md does), then resumed: each invocation that
// exports rewrites both files from the same rows, so they agree on the
// units done; the resume that completes the run leaves neither INCOMPLETE.
// On main report.html kept the first invocation's state.
func TestReportsRewrittenOnResume(t *testing.T) {
	out := t.TempDir()
	dir := filepath.Join(out, "r")
	args := []string{"run", "--dataset", medqaSample, "--limit", "40", "--config", "base,full", "--agents", "3",
		"--out", out, "--run-name", "r", "--parallel", "1"}
	budget := []string{"--budget-tokens", "200000"} // about a third of the plan's tokens per invocation
	if code, so, se := runCLI(t, append(args, budget...)...); code != exitBudget {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitBudget, so, se)
	}
	code, so, se := runCLI(t, "report", dir)
	if want := fmt.Sprintf("INCOMPLETE run. Not every planned unit of the run is in these figures, so they describe only the units done (r: incomplete: %d of 80 units done)", rowCount(t, dir)); code != exitOK || !strings.HasPrefix(so, want) {
		t.Fatalf("report of a partial run: exit %d, want stdout to open with %q\n%s\n%s", code, want, so, se)
	}
	if code, so, se := runCLI(t, append(args, budget...)...); code != exitBudget {
		t.Fatalf("resume under the budget: exit %d, want %d\n%s\n%s", code, exitBudget, so, se)
	}
	done := fmt.Sprintf("r: incomplete: %d of 80 units done", rowCount(t, dir))
	for _, f := range []string{report.MarkdownFile, report.HTMLFile} {
		if b := readFile(t, dir, f); !strings.Contains(b, done) {
			t.Errorf("%s after a resume that stopped again does not say %q (stale)", f, done)
		}
	}
	if code, so, se := runCLI(t, args...); code != exitOK {
		t.Fatalf("resume to the end: exit %d\n%s\n%s", code, so, se)
	}
	for _, f := range []string{report.MarkdownFile, report.HTMLFile} {
		if b := readFile(t, dir, f); strings.Contains(b, "INCOMPLETE") {
			t.Errorf("%s still says INCOMPLETE after the resume that completed the run", f)
		}
	}
}

func rowCount(t *testing.T, dir string) int {
	t.Helper()
	rows, err := results.ReadQuestions(filepath.Join(dir, results.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
