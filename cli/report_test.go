package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/results"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files")

// simRun runs the embedded sample on sim with the given extra flags into
// out/name and returns the run directory.
func simRun(t *testing.T, out, name string, extra ...string) string {
	t.Helper()
	args := append([]string{"run", "--config", "base,c1,c2,c5,c7,full", "--agents", "3", "--out", out, "--run-name", name}, extra...)
	if code, so, se := runCLI(t, args...); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, so, se)
	}
	return filepath.Join(out, name)
}

// TestReportGolden: report.md of a fixed-seed sim run of the embedded
// sample (six arms, c5 and c7 alike), against testdata/report.golden.md
// (-update rewrites it). The run writes report.md at its end and
// 'medteam report DIR' writes the same file again; for the golden
// comparison the rows' timings (the one thing a rerun changes) are zeroed.
func TestReportGolden(t *testing.T) {
	out := t.TempDir()
	dir := simRun(t, out, "golden")
	md := filepath.Join(dir, report.MarkdownFile)
	first, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if code, so, se := runCLI(t, "report", dir); code != 0 || !strings.Contains(so, "SIMULATED") || !strings.Contains(so, "Headline") {
		t.Fatalf("report: exit %d\n%s\n%s", code, so, se)
	}
	if again, _ := os.ReadFile(md); !bytes.Equal(again, first) {
		t.Error("medteam report wrote another report.md than the end of the run")
	}
	path := filepath.Join(dir, results.QuestionsFile)
	rows, err := results.ReadQuestions(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].WallMS, rows[i].CallLatencyMS = 0, 0
	}
	if err := results.WriteQuestions(path, rows); err != nil {
		t.Fatal(err)
	}
	if code, so, se := runCLI(t, "report", dir); code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, so, se)
	}
	got, _ := os.ReadFile(md)
	golden := filepath.Join("testdata", "report.golden.md")
	if *updateGolden {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./cli -run ReportGolden -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("report.md differs from %s (rerun with -update after an intended change):\n%s", golden, got)
	}
	for _, s := range []string{"SIMULATED", "| c7/n3 |", "same configuration as c5/n3", "Comparisons with base/n3", "Holm p", "MDE", "```sql"} {
		if !bytes.Contains(got, []byte(s)) {
			t.Errorf("report.md lacks %q", s)
		}
	}
	// Elsewhere, the query names the run's parquet relative to the report.
	other := filepath.Join(out, "elsewhere")
	if code, so, se := runCLI(t, "report", dir, "--out", other); code != 0 || !strings.Contains(so, "wrote "+filepath.Join(other, report.MarkdownFile)) {
		t.Fatalf("report --out: exit %d\n%s\n%s", code, so, se)
	}
	if b, _ := os.ReadFile(filepath.Join(other, report.MarkdownFile)); !bytes.Contains(b, []byte("read_parquet(['../golden/questions.parquet'])")) {
		t.Errorf("report --out: the query does not name ../golden/questions.parquet:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(other, report.SummaryFile)); err != nil {
		t.Error(err)
	}
}

func TestReportErrors(t *testing.T) {
	out := t.TempDir()
	dir := simRun(t, out, "r", "--limit", "10", "--no-report")
	if _, err := os.Stat(filepath.Join(dir, report.MarkdownFile)); !os.IsNotExist(err) {
		t.Fatalf("--no-report wrote report.md: %v", err)
	}
	noParquet := filepath.Join(out, "noparquet")
	os.MkdirAll(noParquet, 0o755)
	os.WriteFile(filepath.Join(noParquet, "journal.db"), nil, 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"report", filepath.Join(out, "absent")}, "does not exist"},
		{[]string{"report", noParquet}, "medteam export " + noParquet},
		{[]string{"report", out}, "not a run directory"},
		{[]string{"report", dir, "--reference", "c9"}, "--reference c9: no such arm"},
		{[]string{"report", dir, "--reference-model", "sim/x"}, "--reference-model sim/x: no such model"},
		{[]string{"report", dir, "--bootstrap", "10"}, "at least 100"},
		{[]string{"report", dir, "--prices", filepath.Join(out, "none.yaml")}, "--prices"},
		{[]string{"report"}, "give at least one run directory"},
	}
	for _, tc := range tests {
		code, _, se := runCLI(t, tc.args...)
		if code != exitUsage || !strings.Contains(se, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", tc.args, code, se, exitUsage, tc.want)
		}
	}
}

// Two runs of the same arms with different seeds: the copies are
// labelled ARM@RUN and compared with the first run's base.
func TestReportSeveralRuns(t *testing.T) {
	out := t.TempDir()
	a := simRun(t, out, "ra", "--limit", "20", "--no-report")
	b := simRun(t, out, "rb", "--limit", "20", "--no-report", "--seed", "2")
	dst := filepath.Join(out, "both")
	code, so, se := runCLI(t, "report", a, b, "--out", dst)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	md, err := os.ReadFile(filepath.Join(dst, report.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Comparisons with base/n3@ra", "| base/n3@rb |", "| full/n3@rb |", "'../ra/questions.parquet', '../rb/questions.parquet'", "labelled base/n3@RUN"} {
		if !bytes.Contains(md, []byte(s)) {
			t.Errorf("report.md lacks %q:\n%s", s, md)
		}
	}
	rows, err := results.ReadQuestions(filepath.Join(a, results.QuestionsFile))
	if err != nil || len(rows) != 120 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
}

func TestPowerCommand(t *testing.T) {
	dir := simRun(t, t.TempDir(), "p", "--limit", "20", "--no-report")
	tests := []struct {
		args []string
		code ExitCode
		want string
	}{
		{[]string{"power", "--delta", "0.03", "--discordance", "0.2"}, 0, "1742 pairs needed"},
		{[]string{"power", "--delta", "0.03", "--discordance", "0.2", "--pairs", "1273"}, 0, "minimum detectable difference 3.5 pp"},
		{[]string{"power", "--delta", "0.05", "--run", dir}, 0, "arm vs base"},
		{[]string{"power", "--delta", "0.3", "--discordance", "0.2"}, exitUsage, "cannot exceed the discordance"},
		{[]string{"power", "--delta", "0.03"}, exitUsage, "give --run RUN"},
		{[]string{"power", "--delta", "3"}, exitUsage, "as a proportion"},
		{[]string{"power", "--delta", "0.03", "--run", dir, "--discordance", "0.2"}, exitUsage, "not both"},
	}
	for _, tc := range tests {
		code, so, se := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(so+se, tc.want) {
			t.Errorf("%v: exit %d\n%s%s\nwant exit %d and %q", tc.args, code, so, se, tc.code, tc.want)
		}
	}
}

// TestReportFiguresAndHelp: report --figures DIR writes each figure as SVG,
// PDF and caption sidecars; report --help names every file it writes.
func TestReportFiguresAndHelp(t *testing.T) {
	dir := simRun(t, t.TempDir(), "figs")
	figs := filepath.Join(t.TempDir(), "figures")
	code, so, se := runCLI(t, "report", dir, "--figures", figs)
	if code != 0 || !strings.Contains(so, "figures into "+figs) {
		t.Fatalf("report --figures: exit %d\n%s\n%s", code, so, se)
	}
	for _, f := range []string{"forest.svg", "forest.pdf", "forest.txt", "forest.tex", "frontier.pdf", "reliability.svg"} {
		if _, err := os.Stat(filepath.Join(figs, f)); err != nil {
			t.Error(err)
		}
	}
	_, help, _ := runCLI(t, "report", "--help")
	for _, f := range []string{"summary.parquet", "report.md", "report.html", "NAME.svg", "NAME.pdf", "NAME.txt", "NAME.tex"} {
		if !strings.Contains(help, f) {
			t.Errorf("report --help does not name %s", f)
		}
	}
}
