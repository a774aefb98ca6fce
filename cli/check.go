package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/medteam-bench/medteam/check"
	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/stats"
)

// CheckOptions are the settings of 'medteam check'.
type CheckOptions struct {
	Runs       []string // run directories (or their questions.parquet)
	Thresholds string   // thresholds file ("" = none)
	Baseline   string   // baseline run directory ("" = none)
	Margin     float64  // non-inferiority margin δ of the baseline gate, a share of accuracy
	Alpha      float64  // one-sided level of the baseline gate
	MinQ       int      // fewest shared questions the baseline gate judges on
	MinCover   float64  // smallest shared share of the baseline's units per arm
	JUnit      string   // write JUnit XML here
	Markdown   string   // write a Markdown summary here
	JSON       bool     // print JSON instead of the table
	Prices     string
	Seed       uint64
	Bootstrap  int
	// AllowIncomplete gates runs whose manifest does not record them
	// complete instead of refusing them (exitIncomplete).
	AllowIncomplete bool
	// BaselineArm and BaselineModel choose one arm of the baseline to gate
	// every arm checked against (a published method; "" = arm by arm).
	BaselineArm, BaselineModel string
	// RequireEvidence fails the gate (exit exitNoEvidence) on an
	// inconclusive baseline check instead of passing it with a warning.
	RequireEvidence bool
	// Anchor is a pinned run the candidate is also gated against (beside a
	// chained --baseline), with AnchorMargin (0 = Margin).
	Anchor       string
	AnchorMargin float64
}

// checkExitCodes is the one list of 'medteam check”s exit codes: check
// --help prints it, and README.md, docs/commands.md and docs/ci.md carry it
// word for word (TestCheckExitCodesDocumented).
const checkExitCodes = `Exit codes of medteam check (a CI step fails on any non-zero code):
  0  every check passed, or a baseline check was inconclusive (insufficient evidence:
     too few shared questions, or an interval that shows neither non-inferiority nor
     a drop); an inconclusive check passes with a WARNING in the table, the Markdown
     and the JUnit file (a skipped case with the questions needed for 80% power)
  2  a bad flag or thresholds file; the message names the flag or file:line
  7  a check failed: a threshold did not hold, or the candidate is shown worse than
     the baseline (or --anchor) and not within the margin
  8  only with --require-evidence: nothing failed, but a baseline check was
     inconclusive
  9  a run checked is not complete (stopped, killed or failed): nothing was gated;
     --allow-incomplete gates the units it has`

// gateFailedError is a gate with failed checks: exit exitGateFailed.
type gateFailedError struct{ failed, total int }

func (e gateFailedError) Error() string {
	return fmt.Sprintf("gate failed: %d of %d checks failed (exit %d)", e.failed, e.total, exitGateFailed)
}

// insufficientError is a gate that failed nothing but could not decide
// some check: exit exitNoEvidence.
type insufficientError struct{ undecided, total int }

func (e insufficientError) Error() string {
	return fmt.Sprintf("insufficient evidence: %d of %d checks could not be decided (exit %d)", e.undecided, e.total, exitNoEvidence)
}

// incompleteError is a gate refused because a run checked is not complete:
// exit exitIncomplete.
type incompleteError struct{ runs []string }

func (e incompleteError) Error() string {
	return fmt.Sprintf("not gated: %s; resume the run ('medteam run --resume DIR') and export it, or pass --allow-incomplete to gate the units done (exit %d)",
		strings.Join(e.runs, "; "), exitIncomplete)
}

// incompleteRuns lists the runs not recorded complete, as "dir: status".
func incompleteRuns(runs []runInput, dirs []string) []string {
	var out []string
	for i, r := range runs {
		if !r.info.Status.Complete() {
			out = append(out, dirs[i]+": "+r.info.Status.String())
		}
	}
	return out
}

// gateIncomplete refuses runs that are not complete (incompleteError)
// unless --allow-incomplete, which turns each into a warning note.
func gateIncomplete(runs []runInput, o *CheckOptions) ([]string, error) {
	inc := incompleteRuns(runs, o.Runs)
	if len(inc) > 0 && !o.AllowIncomplete {
		return nil, incompleteError{runs: inc}
	}
	var warnings []string
	for _, r := range inc {
		warnings = append(warnings, "warning: INCOMPLETE run gated on the units it has (--allow-incomplete) — "+r)
	}
	return warnings, nil
}

// checkLong is check --help's text, ending with checkExitCodes.
func checkLong() string {
	return `Checks the results of one or more runs (pooled as by 'medteam report') against a thresholds file
(see configs/thresholds.yaml: bounds on point values and on 95% interval ends, per arm, model,
dataset or subject, and paired comparisons between arms) and/or a baseline run.

The thresholds file is validated before anything is evaluated: a problem is reported as file:line
and exits ` + fmt.Sprint(exitUsage) + `.

Arm names in the thresholds file are found as 'medteam report' finds its reference: "full" is
the arm full, or the one arm labelled full/... (e.g. full/n3 of a sweep); a name that matches
several arms is an error naming them.

--baseline RUN is a paired non-inferiority test: for each dataset × model × arm present in both,
the candidate's rows are paired with the baseline's on (question id, repeat), and Δ = candidate −
baseline accuracy gets one-sided (1 − a) bounds L and U from its question-clustered standard error
(t with questions − 1 degrees of freedom), a = α / (the number of baseline and anchor checks):
the gate's baseline checks share α (Bonferroni), so that an unchanged candidate turns the gate
red at most α of the time however many arms are compared. With the margin δ:
  PASS          L ≥ −δ              a drop of δ or more is ruled out
  FAIL          L < −δ and U < 0    worse than the baseline, not shown within the margin (exit ` + fmt.Sprint(exitGateFailed) + `)
  INSUFFICIENT  L < −δ and U ≥ 0    inconclusive: passes with a warning (exit ` + fmt.Sprint(exitNoEvidence) + ` with --require-evidence)
and INSUFFICIENT before that when the pairs cover fewer than --min-questions questions or less
than --min-coverage of the baseline's (question, repeat) units of the arm. An inconclusive check
gives its power to detect a drop of δ (at the discordance an unchanged candidate would show) and
the questions needed for 80%; a pass gives none. Every accuracy figure of the gate, δ included, is
a share of accuracy (0–1): --margin 0.05 is 5 percentage points (see docs/ci.md for the
calibration).

--anchor RUN gates the candidate against a pinned run too (each check its own row, named
"anchor: …"), with --anchor-margin (default: --margin): a baseline chained from run to run can
drift down by drops each within the margin; the anchor bounds the total drift.

Prints a table (threshold, where, observed, bound, result) or, with --json, a JSON document; writes
--junit (one test case per check, classname = the arm) and --markdown (for CI step summaries).

A run whose manifest does not record it complete (stopped or killed before every unit was done,
failed, or exported by a medteam that recorded no status) is not gated, unless --allow-incomplete
gates the units it has.

` + checkExitCodes
}

// NewCmdCheck builds 'medteam check'; runF as for NewCmdRun.
func NewCmdCheck(f *Factory, runF func(context.Context, *CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{}
	cmd := &cobra.Command{
		Use:   "check --thresholds FILE RUN [RUN...]",
		Short: "CI gate: check runs against thresholds and a baseline run; exit " + fmt.Sprint(exitGateFailed) + " when a check fails",
		Long:  checkLong(),
		Example: `  medteam check --thresholds configs/thresholds.yaml results/run-3f2a9c1b0d4e
  medteam check --baseline results/run-main results/run-pr --junit check.xml --markdown check.md
  medteam check --thresholds configs/thresholds.yaml --baseline results/run-main results/run-pr --json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("check: give at least one run directory, e.g. medteam check --thresholds configs/thresholds.yaml results/run-3f2a9c1b0d4e")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Runs = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runCheck(f, opts)
		},
	}
	registerCheckFlags(cmd.Flags(), opts)
	return cmd
}

// registerCheckFlags registers check's flags into opts.
func registerCheckFlags(fl *pflag.FlagSet, opts *CheckOptions) {
	fl.StringVar(&opts.Thresholds, "thresholds", "", "thresholds file (YAML, see configs/thresholds.yaml)")
	fl.StringVar(&opts.Baseline, "baseline", "", "baseline run directory: paired non-inferiority of Δaccuracy against it")
	fl.StringVar(&opts.BaselineArm, "baseline-arm", "", "gate every arm checked against this one arm of --baseline (e.g. a published method of a 'medteam rescore' run) instead of arm by arm")
	fl.StringVar(&opts.BaselineModel, "baseline-model", "", "--baseline-arm's model, when the baseline has the arm on several models")
	fl.Float64Var(&opts.Margin, "margin", check.DefaultMargin, "non-inferiority margin δ of --baseline, as a share of accuracy like every accuracy figure check prints (0.05 = 5 percentage points)")
	fl.Float64Var(&opts.Alpha, "alpha", check.DefaultAlpha, "one-sided level of --baseline's bounds")
	fl.IntVar(&opts.MinQ, "min-questions", check.DefaultMinQuestions, "--baseline: fewest shared questions to judge on (fewer: insufficient evidence)")
	fl.Float64Var(&opts.MinCover, "min-coverage", check.DefaultMinCoverage, "--baseline: smallest share of the baseline's (question, repeat) units each compared arm must share (less: insufficient evidence)")
	fl.StringVar(&opts.JUnit, "junit", "", "write the checks as JUnit XML to this file")
	fl.StringVar(&opts.Markdown, "markdown", "", "write the checks as a Markdown table to this file")
	fl.BoolVar(&opts.JSON, "json", false, "print the checks as JSON instead of a table")
	fl.StringVar(&opts.Prices, "prices", "", "price table (YAML, see configs/prices.yaml) for cost_per_q")
	fl.Uint64Var(&opts.Seed, "seed", 1, "bootstrap seed: the same seed gives the same intervals")
	fl.IntVar(&opts.Bootstrap, "bootstrap", stats.DefaultReps, "bootstrap replicates")
	fl.BoolVar(&opts.RequireEvidence, "require-evidence", false, "--baseline: fail (exit "+fmt.Sprint(exitNoEvidence)+") when a baseline check is inconclusive, instead of passing it with a warning")
	fl.StringVar(&opts.Anchor, "anchor", "", "a pinned run to gate the candidate against too, beside a chained --baseline (bounds the drift of sub-margin drops)")
	fl.Float64Var(&opts.AnchorMargin, "anchor-margin", 0, "--anchor's margin, a share of accuracy (default: --margin)")
	fl.BoolVar(&opts.AllowIncomplete, "allow-incomplete", false, "gate runs that are not complete (stopped, killed or failed) on the units they have, instead of exiting "+fmt.Sprint(exitIncomplete))
}

// check validates the options.
func (o *CheckOptions) check() error {
	if o.Thresholds == "" && o.Baseline == "" && o.Anchor == "" {
		return usagef("check: give --thresholds FILE, --baseline RUN or both (and --anchor RUN: a pinned run to gate against too)")
	}
	if err := o.checkAnchor(); err != nil {
		return err
	}
	if o.Bootstrap < 100 {
		return usagef("--bootstrap %d: use at least 100 replicates (2000 is the default)", o.Bootstrap)
	}
	if o.Margin <= 0 || o.Margin >= 1 {
		return usagef("--margin %g: give a share of accuracy between 0 and 1, e.g. 0.05 for 5 percentage points", o.Margin)
	}
	if o.Alpha <= 0 || o.Alpha >= 0.5 {
		return usagef("--alpha %g: give a one-sided level between 0 and 0.5, e.g. 0.05", o.Alpha)
	}
	if o.MinQ < 2 {
		return usagef("--min-questions %d: give at least 2 (a paired difference over one question has no interval)", o.MinQ)
	}
	if o.MinCover <= 0 || o.MinCover > 1 {
		return usagef("--min-coverage %g: give a share in (0, 1], e.g. 0.9", o.MinCover)
	}
	return nil
}

// checkAnchor validates --anchor-margin.
func (o *CheckOptions) checkAnchor() error {
	if o.AnchorMargin != 0 && o.Anchor == "" {
		return usagef("--anchor-margin %g: give --anchor RUN too (the pinned run it applies to)", o.AnchorMargin)
	}
	if o.AnchorMargin < 0 || o.AnchorMargin >= 1 {
		return usagef("--anchor-margin %g: give a share of accuracy between 0 and 1, e.g. 0.05 for 5 percentage points", o.AnchorMargin)
	}
	return nil
}

// runCheck runs the gate and writes its outputs; a failed check is a
// gateFailedError.
func runCheck(f *Factory, o *CheckOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	var th []check.Threshold
	if o.Thresholds != "" {
		var err error
		if th, err = check.Load(o.Thresholds); err != nil {
			return usageError{err}
		}
	}
	runs, err := loadRuns(o.Runs, runDirOf(o.Runs[0]))
	if err != nil {
		return err
	}
	warnings, err := gateIncomplete(runs, o)
	if err != nil {
		return err
	}
	var rs []check.Result
	var notes []string
	if th != nil {
		if rs, notes, err = checkThresholds(runs, th, o); err != nil {
			return err
		}
	}
	if o.Baseline != "" || o.Anchor != "" {
		brs, bnotes, err := checkBaseline(runs, o)
		if err != nil {
			return err
		}
		rs, notes = append(rs, brs...), append(notes, bnotes...)
	}
	if err := writeCheck(f.Out, rs, append(warnings, notes...), o); err != nil {
		return err
	}
	if n := check.Failed(rs); n > 0 {
		return gateFailedError{failed: n, total: len(rs)}
	}
	if n := check.Insufficient(rs); n > 0 && o.RequireEvidence {
		return insufficientError{undecided: n, total: len(rs)}
	}
	return nil
}

// checkThresholds builds the runs' report (one per reference arm the
// comparisons need), validates the thresholds on it and evaluates them.
func checkThresholds(runs []runInput, th []check.Threshold, o *CheckOptions) ([]check.Result, []string, error) {
	list, paid, priceNotes, err := reportPrices(o.Prices, runs)
	if err != nil {
		return nil, nil, err
	}
	// A cost threshold reads the list cost at the rates the runs paid (batch
	// rates for batch runs), as before actual spend was reported apart.
	if paid != nil {
		list = paid
	}
	opt := report.Options{Seed: o.Seed, Reps: o.Bootstrap, Prices: list, Notes: priceNotes}
	r, err := buildReport(runs, opt)
	if err != nil {
		return nil, nil, err
	}
	// Arm names as 'medteam report' finds them: full finds full/n3.
	if th, err = check.ResolveArms(th, r.Arms); err != nil {
		return nil, nil, usageError{err}
	}
	for _, ref := range check.References(th) {
		if ref == r.Reference || !slices.Contains(r.Arms, ref) {
			continue
		}
		opt.Reference = ref
		more, err := buildReport(runs, opt)
		if err != nil {
			return nil, nil, err
		}
		r.Comparisons = append(r.Comparisons, more.Comparisons...)
	}
	if err := check.Validate(r, th); err != nil {
		return nil, nil, usageError{err}
	}
	notes := r.Notes
	if r.Simulated {
		notes = append([]string{"SIMULATED results (sim backend; not a model result)"}, notes...)
	}
	return check.Evaluate(r, th), notes, nil
}

// checkBaseline pairs the runs' rows (pooled) with the baseline run's and
// with the anchor's; their checks share α.
func checkBaseline(runs []runInput, o *CheckOptions) ([]check.Result, []string, error) {
	in := make([]report.RunRows, len(runs))
	for i, r := range runs {
		in[i] = report.RunRows{Info: r.info, Rows: r.rows}
	}
	cand, _, _, err := report.Pool(in)
	if err != nil {
		return nil, nil, usageError{err}
	}
	var baseRows, anchorRows []results.QuestionRow
	var notes []string
	if o.Baseline != "" {
		base, err := loadRuns([]string{o.Baseline}, runDirOf(o.Baseline))
		if err != nil {
			return nil, nil, err
		}
		if baseRows, notes, err = baselineArm(base[0].rows, cand, o); err != nil {
			return nil, nil, err
		}
	}
	if o.Anchor != "" {
		anchor, err := loadRuns([]string{o.Anchor}, runDirOf(o.Anchor))
		if err != nil {
			return nil, nil, err
		}
		anchorRows = anchor[0].rows
	}
	family := check.Comparisons(baseRows, cand) + check.Comparisons(anchorRows, cand)
	var rs []check.Result
	for _, ref := range []struct {
		label, dir string
		rows       []results.QuestionRow
		margin     float64
	}{{"baseline", o.Baseline, baseRows, o.Margin}, {"anchor", o.Anchor, anchorRows, cmp.Or(o.AnchorMargin, o.Margin)}} {
		if ref.dir == "" {
			continue
		}
		s := check.Baseline(ref.rows, cand, check.BaselineOptions{Margin: ref.margin, Alpha: o.Alpha, MinQuestions: o.MinQ, MinCoverage: o.MinCover,
			Seed: o.Seed, Reps: o.Bootstrap, Family: family, Label: ref.label})
		if len(s.Results) == 0 {
			hint := "--baseline-arm gates against one arm of it"
			if ref.label == "anchor" {
				hint = "pin an anchor run of the same datasets and arms"
			}
			return nil, nil, usagef("--%s %s: no dataset × model × arm is in both the %s and the runs checked; nothing to compare (%s); %s",
				ref.label, ref.dir, ref.label, strings.Join(s.Unmatched, "; "), hint)
		}
		if ref.label == "baseline" {
			labelBaselineArm(s.Results, o)
		}
		rs = append(rs, s.Results...)
		notes = append(notes, refNotes(ref.label, ref.dir, ref.margin, family, s, o)...)
	}
	return rs, notes, nil
}

// refNotes are the notes of one reference run's comparisons.
func refNotes(label, dir string, margin float64, family int, s check.BaselineSummary, o *CheckOptions) []string {
	notes := []string{fmt.Sprintf("%s %s: %d shared (question, repeat) pairs, %d in the %s only, %d in the candidate only; margin δ = %s of accuracy, one-sided α = %g over %d baseline checks (%g each)",
		label, dir, s.Shared, s.BaseOnly, label, s.CandOnly, check.Format(margin), o.Alpha, family, o.Alpha/float64(family))}
	for _, w := range s.BySource {
		notes = append(notes, "paired on source id (the question ids differ: another layout of the dataset; the source ids and gold answers match): "+w)
	}
	for _, lp := range s.LowPower {
		notes = append(notes, fmt.Sprintf("warning: low power (below %.0f%%) — %s", 100*check.PowerWarning, lp))
	}
	for _, u := range s.Unmatched {
		notes = append(notes, "not compared with the "+label+": "+u)
	}
	return notes
}

// writeCheck prints the table (or JSON) and writes --junit and --markdown.
func writeCheck(w io.Writer, rs []check.Result, notes []string, o *CheckOptions) error {
	if o.JSON {
		if err := check.WriteJSON(w, rs, notes, o.RequireEvidence); err != nil {
			return err
		}
	} else {
		for _, n := range notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
		if err := check.WriteTable(w, rs, o.RequireEvidence); err != nil {
			return err
		}
	}
	for _, out := range []struct {
		path  string
		write func(io.Writer, []check.Result, bool) error
	}{{o.JUnit, check.WriteJUnit}, {o.Markdown, check.WriteMarkdown}} {
		if out.path == "" {
			continue
		}
		if err := writeFileWith(out.path, func(w io.Writer) error { return out.write(w, rs, o.RequireEvidence) }); err != nil {
			return err
		}
	}
	return nil
}

// writeFileWith writes a file with write.
func writeFileWith(path string, write func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	if err := write(fh); err != nil {
		fh.Close()
		return fmt.Errorf("check: %s: %w", path, err)
	}
	return fh.Close()
}

// runGate runs the gate after 'medteam run --check FILE' on the run in dir.
func runGate(f *Factory, dir, thresholds, prices string) error {
	fmt.Fprintf(f.Out, "\ncheck %s:\n", thresholds)
	return runCheck(f, &CheckOptions{Runs: []string{dir}, Thresholds: thresholds, Prices: prices, Seed: 1, Bootstrap: stats.DefaultReps,
		Margin: check.DefaultMargin, Alpha: check.DefaultAlpha, MinQ: check.DefaultMinQuestions, MinCover: check.DefaultMinCoverage})
}
