package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/results"
)

// endReports decides which report files an invocation that exported the
// run writes beside it. A run with every unit done writes report.md (and
// summary.parquet) and, with --html, report.html; a stopped one writes
// none of its own accord. Either way a report file already there (an
// earlier 'medteam report', or an earlier invocation's --html) is
// rewritten from the same rows, so report.md and report.html never
// describe different states of the run. --no-report writes nothing.
func endReports(done, noReport, html, haveMD, haveHTML bool) (md, page bool) {
	switch {
	case noReport:
		return false, false
	case done:
		return true, html || haveHTML
	}
	return haveMD || haveHTML, haveHTML
}

// reportAfterRun writes the report files endReports decides on for the
// run in dir, whose rows were just exported (done: every unit). A stopped
// run's reports are rewritten quietly (one line); a --no-report run with
// reports beside it says they are stale.
func reportAfterRun(f *Factory, o *RunOptions, dir string, rows []results.QuestionRow, done bool) {
	haveMD, haveHTML := fileExists(dir, report.MarkdownFile), fileExists(dir, report.HTMLFile)
	md, page := endReports(done, o.NoReport, o.HTML, haveMD, haveHTML)
	switch {
	case md && done:
		endOfRunReport(f, dir, rows, o.Prices, page)
	case md:
		rewriteReports(f, dir, rows, o.Prices, page)
	case haveMD || haveHTML:
		fmt.Fprintf(f.Err, "note: the report files beside the run describe it as it was before this invocation (--no-report); 'medteam report %s' rewrites them\n", dir)
	}
}

// rewriteReports rewrites the report files of a run that stopped, without
// printing its tables: report.md and summary.parquet, and report.html with
// page.
func rewriteReports(f *Factory, dir string, rows []results.QuestionRow, pricesFile string, page bool) {
	r, err := runReportOf(dir, rows, pricesFile)
	var wrote []string
	if err == nil {
		var md, sum string
		md, sum, err = report.WriteFiles(dir, r)
		wrote = append(wrote, md, sum)
	}
	if err == nil && page {
		var p string
		p, err = report.WriteHTMLFile(dir, r)
		wrote = append(wrote, p)
	}
	if err != nil {
		fmt.Fprintf(f.Err, "medteam: report not rewritten: %v; 'medteam report %s' writes it\n", err, dir)
		return
	}
	fmt.Fprintf(f.Out, "rewrote %s (INCOMPLETE: %s)\n", strings.Join(wrote, ", "), strings.Join(r.NotComplete(), "; "))
}

// fileExists reports whether dir holds the file name.
func fileExists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}
