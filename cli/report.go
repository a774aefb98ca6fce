package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/escape"
	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/results"
)

// ReportOptions are the settings of 'medteam report'.
type ReportOptions struct {
	Runs           []string // run directories (or their questions.parquet)
	Out            string   // where to write; "" = the first run's directory
	Reference      string
	ReferenceModel string
	Prices         string
	Seed           uint64
	Bootstrap      int
	Figures        string // directory for each figure as SVG, PDF and caption; "" = none
}

// NewCmdReport builds 'medteam report'; runF as for NewCmdRun.
func NewCmdReport(f *Factory, runF func(context.Context, *ReportOptions) error) *cobra.Command {
	opts := &ReportOptions{}
	cmd := &cobra.Command{
		Use:   "report RUN [RUN...]",
		Short: "Write summary.parquet and report.md of one or more runs: intervals, paired comparisons, calibration, component effects, power",
		Long: `Reads questions.parquet of each run and writes into the run directory (or --out):
  summary.parquet  every statistic, one row per arm × model × dataset and per comparison
  report.md        the report as Markdown
  report.html      the same as one self-contained offline page with its plots (inline SVG)
With --figures DIR it also writes each figure into DIR for a paper: NAME.svg (standalone),
NAME.pdf (vector), NAME.txt (the caption) and NAME.tex (a LaTeX figure environment including
NAME.pdf with the caption and \label{fig:NAME}); NAME is forest, frontier, reliability,
risk-coverage, agreement, subjects, or confusion-ARM on triage data.

Every arm is compared with the reference arm (--reference; default base when present, else the
first arm) on the same questions, paired on question id × repeat: Δaccuracy with a seeded paired
bootstrap interval, exact McNemar p, Holm-adjusted p, the minimum detectable difference. Identical
arms (c5 and c7) count once in the Holm family and are flagged.

Several runs are pooled: arms of different runs are compared like arms of one run, within each
dataset × model, so give runs over the same questions. An arm label found in more than one run on
the same dataset and model is relabelled ARM@RUN (RUN = the run id, the run directory's name) so
that the copies are compared, not mixed; --reference base then means the first run's base. With
several models on one dataset, each arm is also compared across models against --reference-model
(default: the first model by name).`,
		Example: `  medteam report results/run-3f2a9c1b0d4e
  medteam report results/run-3f2a9c1b0d4e --reference c2 --prices configs/prices.yaml
  medteam report results/run-llama results/run-qwen --out results/compare --reference-model ollama/qwen2.5:7b
  medteam report results/run-3f2a9c1b0d4e --figures paper/figures`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("report: give at least one run directory, e.g. medteam report results/run-3f2a9c1b0d4e")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Runs = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runReport(f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Out, "out", "", "directory for summary.parquet, report.md and report.html (default: the first run's directory)")
	fl.StringVar(&opts.Reference, "reference", "", "reference arm (default: base when present, else the first arm)")
	fl.StringVar(&opts.ReferenceModel, "reference-model", "", "reference model for comparisons across models (default: the first model by name)")
	fl.StringVar(&opts.Prices, "prices", "", "price table (YAML, see configs/prices.yaml) for cost per question")
	fl.Uint64Var(&opts.Seed, "seed", 1, "bootstrap seed: the same seed gives the same intervals")
	fl.IntVar(&opts.Bootstrap, "bootstrap", 2000, "bootstrap replicates")
	fl.StringVar(&opts.Figures, "figures", "", "also write each figure into this directory as NAME.svg, NAME.pdf (vector) and its caption as NAME.txt and NAME.tex")
	return cmd
}

func runReport(f *Factory, o *ReportOptions) error {
	if o.Bootstrap < 100 {
		return usagef("--bootstrap %d: use at least 100 replicates (2000 is the default)", o.Bootstrap)
	}
	out := o.Out
	if out == "" {
		out = runDirOf(o.Runs[0])
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("report: --out %s: %w", out, err)
	}
	runs, err := loadRuns(o.Runs, out)
	if err != nil {
		return err
	}
	prices, paid, notes, err := reportPrices(o.Prices, runs)
	if err != nil {
		return err
	}
	r, err := buildReport(runs, report.Options{Reference: o.Reference, ReferenceModel: o.ReferenceModel, Seed: o.Seed, Reps: o.Bootstrap, Prices: prices, PaidPrices: paid, Notes: notes})
	if err != nil {
		return err
	}
	if err := writeReport(f.Out, out, r, true, true, report.SecHeadline, report.SecComparisons, report.SecTriage, report.SecModels, report.SecPublished); err != nil {
		return err
	}
	if o.Figures == "" {
		return nil
	}
	paths, err := report.WriteFigures(o.Figures, r)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Out, "wrote %d figures into %s (SVG, PDF, caption .txt and .tex each)\n", len(paths)/4, o.Figures)
	return nil
}

// runDirOf is the run directory of a RUN argument (a directory, or a
// parquet file in one).
func runDirOf(arg string) string {
	if strings.HasSuffix(arg, ".parquet") {
		return filepath.Dir(arg)
	}
	return arg
}

// runInput is one run to report on.
type runInput struct {
	rows     []results.QuestionRow
	info     report.RunInfo
	armOrder []string
	batch    bool     // the manifest says the calls went as provider batches
	notes    []string // what the manifest says a reader must know (in-sample red-flag rules, content duplicates kept)
}

// loadRuns reads each run's questions.parquet and manifest; out is the
// directory the report goes to (the SQL names the files relative to it).
func loadRuns(args []string, out string) ([]runInput, error) {
	var runs []runInput
	for _, arg := range args {
		dir := runDirOf(arg)
		path := arg
		if dir == arg {
			path = filepath.Join(dir, results.QuestionsFile)
		}
		if err := checkRunPath(dir, path); err != nil {
			return nil, err
		}
		rows, err := results.ReadQuestions(path)
		if err != nil {
			return nil, fmt.Errorf("report: %w (rewrite it with 'medteam export %s')", err, dir)
		}
		runs = append(runs, newRunInput(dir, sqlPath(out, path), rows))
	}
	return runs, nil
}

// newRunInput describes the rows of the run in dir, whose
// questions.parquet the SQL names parquet, with what its manifest (if
// any) says: whether it is simulated, and the arms in plan order.
func newRunInput(dir, parquet string, rows []results.QuestionRow) runInput {
	name := filepath.Base(filepath.Clean(dir))
	if abs, err := filepath.Abs(dir); err == nil {
		name = filepath.Base(abs)
	}
	in := runInput{rows: rows, info: report.RunInfo{Name: name, Parquet: parquet, Status: results.Status{State: results.StateUnknown}}}
	if m, err := results.ReadManifest(filepath.Join(dir, results.ManifestFile)); err == nil {
		in.info.Simulated = m.Simulated
		if m.Status.State != "" {
			in.info.Status = m.Status
		}
		in.batch = m.Batch
		in.notes = append(in.notes, duplicateNotes(m.Datasets)...)
		for _, a := range m.Arms {
			in.armOrder = append(in.armOrder, a.Label)
			if a.RedFlagsDevelopedOn != "" {
				in.notes = append(in.notes, fmt.Sprintf("arm %s applies the red-flag rules %s, developed on %s: its triage figures on that data are in-sample",
					a.Label, a.RedFlags, a.RedFlagsDevelopedOn))
			}
		}
	}
	return in
}

// duplicateNotes says, for each dataset whose manifest counts content
// duplicates kept under distinct source ids, how many (the published count
// includes them; --dedupe merges them).
func duplicateNotes(refs []results.DatasetRef) []string {
	var notes []string
	for _, d := range refs {
		if d.DuplicatesKept > 0 && d.Format == rescoreFormat {
			notes = append(notes, rescoreDuplicateNote(d))
		} else if d.DuplicatesKept > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d content duplicate(s) with distinct source ids kept, as the published dataset counts them (merge with --dedupe)",
				d.Name, d.DuplicatesKept))
		}
	}
	return notes
}

// checkRunPath says what is missing, and what to do about it.
func checkRunPath(dir, path string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usagef("report: run directory %s does not exist", dir)
	}
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "journal.db")); err == nil {
		return usagef("report: %s is missing; write it from the run's journal with 'medteam export %s'", path, dir)
	}
	return usagef("report: %s is missing and %s has no journal.db: not a run directory (run 'medteam run' or 'medteam export DIR' first)", path, dir)
}

// sqlPath is path as the DuckDB query should name it, with forward
// slashes: relative to the report's directory when it is in it or one
// level up (a sibling run directory), else absolute.
func sqlPath(out, path string) string {
	ao, err1 := filepath.Abs(out)
	ap, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(path)
	}
	if rel, err := filepath.Rel(ao, ap); err == nil && !strings.HasPrefix(filepath.ToSlash(rel), "../../") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(ap)
}

// reportPrices loads a price table for the report of runs ("" = none):
// at batch rates when every run sent its calls as provider batches (run
// --batch), else at the synchronous rates, with a note when some did.
func reportPrices(path string, runs []runInput) (list, paid report.Prices, notes []string, err error) {
	if path == "" {
		return nil, nil, nil, nil
	}
	t, err := loadPrices(path)
	if err != nil {
		return nil, nil, nil, err
	}
	batch := 0
	for _, r := range runs {
		if r.batch {
			batch++
		}
	}
	switch {
	case batch > 0 && batch == len(runs):
		return pricesOf(t, false), pricesOf(t, true), []string{"actual spend is at the price table's batch rates: the runs sent their calls as provider batches (run --batch); list cost is at the synchronous rates"}, nil
	case batch > 0:
		return pricesOf(t, false), pricesOf(t, false), []string{fmt.Sprintf("%d of the %d runs sent their calls as provider batches, but actual spend is at the synchronous rates: report them apart for batch prices", batch, len(runs))}, nil
	}
	return pricesOf(t, false), nil, nil, nil
}

// pricesOf converts a price table, at its batch rates (batch_prompt,
// batch_completion; half the synchronous rates when it gives neither) or
// its synchronous ones.
func pricesOf(t priceTable, batch bool) report.Prices {
	if len(t) == 0 {
		return nil
	}
	if batch {
		t = t.batchRates()
	}
	out := report.Prices{}
	for m, p := range t {
		pr := report.Price{Prompt: p.Prompt, Completion: p.Completion}
		if p.CachedPrompt != nil {
			pr.Cached, pr.HasCached = *p.CachedPrompt, true
		}
		out[m] = pr
	}
	return out
}

// buildReport pools the runs and builds their report; a reference the
// rows lack is a usage error.
func buildReport(runs []runInput, opt report.Options) (*report.Report, error) {
	in := make([]report.RunRows, len(runs))
	for i, r := range runs {
		in[i] = report.RunRows{Info: r.info, Rows: r.rows}
		opt.Simulated = opt.Simulated || r.info.Simulated
		for _, n := range r.notes {
			if !slices.Contains(opt.Notes, n) {
				opt.Notes = append(opt.Notes, n)
			}
		}
		for _, a := range r.armOrder {
			if !slices.Contains(opt.ArmOrder, a) {
				opt.ArmOrder = append(opt.ArmOrder, a)
			}
		}
	}
	rows, infos, notes, err := report.Pool(in)
	if err != nil {
		return nil, usageError{err}
	}
	opt.Runs, opt.Notes = infos, append(opt.Notes, notes...) // the caller's notes first, then Pool's
	if opt.OwnFirstAnswer == nil {
		opt.OwnFirstAnswer = protocols.All().OwnFirstAnswer()
	}
	r, err := report.Build(rows, opt)
	var re *report.ReferenceError
	if errors.As(err, &re) {
		flag := "--reference"
		if re.What == "model" {
			flag = "--reference-model"
		}
		return nil, usagef("%s %s: no such %s in the results; they have %s", flag, re.Name, re.What, strings.Join(re.Have, ", "))
	}
	return r, err
}

// writeReport writes report.md and summary.parquet (and, with html,
// report.html) into dir and prints the sections named (and the notes) to
// w, under a SIMULATED banner when banner is set and the rows are
// simulated.
func writeReport(w io.Writer, dir string, r *report.Report, banner, html bool, sections ...string) error {
	md, sum, err := report.WriteFiles(dir, r)
	if err != nil {
		return err
	}
	page := ""
	if html {
		if page, err = report.WriteHTMLFile(dir, r); err != nil {
			return err
		}
	}
	if t := r.IncompleteText(); t != "" {
		fmt.Fprintln(w, escape.Terminal(t))
	}
	if banner && r.Simulated {
		fmt.Fprintln(w, "SIMULATED results (sim backend; not a model result):")
	}
	if err := report.WriteText(w, r, sections...); err != nil {
		return err
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if page != "" {
		fmt.Fprintf(w, "\nwrote %s, %s and %s\n", md, sum, page)
	} else {
		fmt.Fprintf(w, "\nwrote %s and %s\n", md, sum)
	}
	return nil
}

// endOfRunReport writes report.md and summary.parquet of a finished run
// (and report.html with page) and prints its comparisons. A failure is
// reported, not fatal: the run's results are saved, and 'medteam report
// DIR' can try again.
func endOfRunReport(f *Factory, dir string, rows []results.QuestionRow, pricesFile string, page bool) {
	r, err := runReportOf(dir, rows, pricesFile)
	if err == nil {
		err = writeReport(f.Out, dir, r, false, page, report.SecComparisons, report.SecTriage, report.SecModels)
	}
	if err != nil {
		fmt.Fprintf(f.Err, "medteam: report not written: %v; the results are saved, 'medteam report %s' writes it\n", err, dir)
	}
}

// runReportOf builds the report of one run's rows, as 'medteam report DIR'
// does with its defaults.
func runReportOf(dir string, rows []results.QuestionRow, pricesFile string) (*report.Report, error) {
	in := newRunInput(dir, results.QuestionsFile, rows)
	prices, paid, notes, err := reportPrices(pricesFile, []runInput{in})
	if err != nil {
		return nil, err
	}
	return buildReport([]runInput{in}, report.Options{Seed: 1, Prices: prices, PaidPrices: paid, Notes: notes})
}
