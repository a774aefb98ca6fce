// Package report turns result rows into what people read: a typed Report
// (Build), its Markdown (WriteMarkdown → report.md), its flat table
// (SummaryRows, WriteSummary → summary.parquet), a terminal view
// (WriteText), and the quick per-arm table printed at the end of a run
// (Summarize, WriteTable).
//
// The statistics are package stats' (pure functions, known-answer tests);
// this package chooses what to compute — per arm × model × dataset groups,
// every arm against a reference arm, models against a reference model,
// component effects, the factorial model when the arms are a factorial
// design, power — and lays it out. Rendering is separate from computing:
//
//	rows, infos, notes, err := report.Pool(runs)  // several runs → one table
//	r, err := report.Build(rows, report.Options{Runs: infos, Notes: notes, Seed: 1})
//	report.WriteMarkdown(w, r)                    // report.md
//	report.WriteSummary(path, r)                  // summary.parquet
//	for _, s := range report.Sections(r) { … }    // headings, text, tables for any renderer
//
// Sections is the layout that report.md and report.html share: an HTML
// renderer takes its text and tables and adds figures drawn from the typed
// fields of Report (Groups' calibration bins, risk–coverage and
// convergence; Comparisons; Components; Factorial; Power).
//
// Conventions: a failed or abstained row is not correct and stays in every
// denominator; statistics the data cannot define are NaN in the Report,
// "—" in text and null in summary.parquet; every random draw comes from
// Options.Seed, so the same rows and options give the same bytes.
package report
