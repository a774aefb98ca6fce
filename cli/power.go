package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/stats"
)

// PowerOptions are the settings of 'medteam power'.
type PowerOptions struct {
	Delta       float64  // the paired difference in accuracy to detect (a proportion)
	Runs        []string // runs whose comparisons give the discordance
	Discordance float64  // a stated discordance instead of a run's
	Pairs       int      // with --discordance: a size to give the MDE for
	Alpha       float64
	Power       float64
	Reference   string
}

// NewCmdPower builds 'medteam power'; runF as for NewCmdRun.
func NewCmdPower(f *Factory, runF func(context.Context, *PowerOptions) error) *cobra.Command {
	opts := &PowerOptions{}
	cmd := &cobra.Command{
		Use:   "power --delta D (--run RUN | --discordance P)",
		Short: "How many questions a paired comparison needs to detect a difference in accuracy (McNemar)",
		Long: `Plans the size of a paired comparison of two arms on the same questions, tested with McNemar's
test (two-sided, --alpha) at the given --power: the number of pairs needed to detect a difference
--delta in accuracy when a share of the pairs is discordant (one arm right, the other wrong), by
Connor's (1987) normal approximation.

The discordance comes from a run (--run: each arm against the reference arm, as in the report, at
its null discordance 2·min(b, c)/pairs — what an unchanged arm would show, as the baseline gate
plans — with the run's design effect of repeats; the minimum detectable difference (MDE) for the run's own
size is printed too) or is stated (--discordance; --pairs N adds the MDE for N pairs). The
discordance bounds what can be detected: no size detects a difference larger than a stated discordance.`,
		Example: `  medteam power --delta 0.03 --discordance 0.2
  medteam power --delta 0.03 --discordance 0.2 --pairs 1273
  medteam power --delta 0.03 --run results/run-3f2a9c1b0d4e
  medteam power --delta 0.05 --run results/run-3f2a9c1b0d4e --reference c2 --power 0.9`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPower(f, opts)
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&opts.Delta, "delta", 0, "difference in accuracy to detect, as a proportion (0.03 = 3 percentage points)")
	fl.StringArrayVar(&opts.Runs, "run", nil, "run directory whose comparisons give the discordance (repeat to pool runs, as for report)")
	fl.Float64Var(&opts.Discordance, "discordance", 0, "share of pairs on which the two arms disagree (instead of --run)")
	fl.IntVar(&opts.Pairs, "pairs", 0, "with --discordance: also print the minimum detectable difference for this many pairs")
	fl.Float64Var(&opts.Alpha, "alpha", stats.DefaultAlpha, "two-sided significance level")
	fl.Float64Var(&opts.Power, "power", stats.DefaultPower, "power")
	fl.StringVar(&opts.Reference, "reference", "", "with --run: the reference arm (default: base when present, else the first arm)")
	return cmd
}

func runPower(f *Factory, o *PowerOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	fmt.Fprintf(f.Out, "McNemar test, two-sided α = %g, power %g, Δ = %s pp\n", o.Alpha, o.Power, fmtPP(o.Delta))
	if len(o.Runs) == 0 {
		return statedPower(f.Out, o)
	}
	runs, err := loadRuns(o.Runs, runDirOf(o.Runs[0]))
	if err != nil {
		return err
	}
	r, err := buildReport(runs, report.Options{Reference: o.Reference, Reps: 100, Seed: 1})
	if err != nil {
		return err
	}
	if len(r.Comparisons) == 0 {
		return usagef("power: the run has one arm (%s): nothing to compare", r.Reference)
	}
	if r.Simulated {
		fmt.Fprintln(f.Out, "discordance from SIMULATED results (sim backend; not a model result)")
	}
	return writePowerTable(f.Out, r, report.PowerFor(r.Comparisons, []float64{o.Delta}, o.Alpha, o.Power))
}

// check validates the options.
func (o *PowerOptions) check() error {
	switch {
	case !(o.Delta > 0 && o.Delta < 1):
		return usagef("--delta %g: give the difference to detect as a proportion in (0, 1), e.g. --delta 0.03 for 3 percentage points", o.Delta)
	case !(o.Alpha > 0 && o.Alpha < 1) || !(o.Power > 0 && o.Power < 1):
		return usagef("--alpha %g, --power %g: both must be in (0, 1)", o.Alpha, o.Power)
	case len(o.Runs) > 0 && o.Discordance != 0:
		return usagef("give --run or --discordance, not both")
	case len(o.Runs) == 0 && !(o.Discordance > 0 && o.Discordance <= 1):
		return usagef("give --run RUN (the discordance observed in a run) or --discordance P in (0, 1] (the share of pairs on which the arms disagree)")
	case o.Pairs < 0:
		return usagef("--pairs %d: give a number of pairs ≥ 0", o.Pairs)
	}
	return nil
}

// statedPower prints the plan for a stated discordance.
func statedPower(w io.Writer, o *PowerOptions) error {
	n, ok := stats.PairsNeeded(o.Delta, o.Discordance, o.Alpha, o.Power)
	if !ok && o.Delta <= o.Discordance {
		return usagef("--delta %g: detecting Δ = %g at %s%% discordance needs more than %.0e pairs; give a larger --delta", o.Delta, o.Delta, fmtPP(o.Discordance), stats.MaxPairs)
	}
	if !ok {
		return usagef("no number of pairs detects Δ = %s pp when %s%% of pairs are discordant: a difference cannot exceed the discordance", fmtPP(o.Delta), fmtPP(o.Discordance))
	}
	fmt.Fprintf(w, "discordance %s%%: %d pairs needed (questions × repeats; without repeats, questions)\n", fmtPP(o.Discordance), n)
	if o.Pairs > 0 {
		d := stats.MinDetectableDiff(float64(o.Pairs), o.Discordance, o.Alpha, o.Power)
		if math.IsNaN(d) {
			fmt.Fprintf(w, "with %d pairs: no difference is detectable at this discordance\n", o.Pairs)
		} else {
			fmt.Fprintf(w, "with %d pairs: minimum detectable difference %s pp\n", o.Pairs, fmtPP(d))
		}
	}
	return nil
}

// writePowerTable prints one line per comparison.
func writePowerTable(w io.Writer, r *report.Report, rows []report.PowerRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	lead := ""
	if len(r.Datasets) > 1 || len(r.Models) > 1 {
		lead = "dataset\tmodel\t"
	}
	fmt.Fprintf(tw, "%sarm vs %s\tpairs\tquestions\tnull discordance\tdesign effect\tMDE (this n)\tpairs needed\tquestions needed\n", lead, r.Reference)
	for _, p := range rows {
		if lead != "" {
			fmt.Fprintf(tw, "%s\t%s\t", p.Dataset, p.Model)
		}
		need, q := "none", "none"
		if n := p.Needed[0]; n.OK {
			need, q = fmt.Sprint(n.Pairs), fmt.Sprint(n.Questions)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s%%\t%s\t%s\t%s\t%s\n", p.Candidate, p.Pairs, p.Questions, fmtPP(p.Discordance), fmtNum(p.Deff, 2), mdeText(p.MDE), need, q)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "pairs needed are effective pairs; questions needed include this run's repeats and their design effect; the discordance under a difference δ is taken as at least δ; none: too few pairs.")
	return nil
}

// fmtPP is a proportion in percent with one decimal.
func fmtPP(x float64) string { return fmt.Sprintf("%.1f", 100*x) }

// fmtNum is x with prec decimals, "—" for NaN.
func fmtNum(x float64, prec int) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.*f", prec, x)
}

// mdeText is a minimum detectable difference in percentage points, "none"
// when no difference is detectable.
func mdeText(x float64) string {
	if math.IsNaN(x) {
		return "none"
	}
	return fmtPP(x) + " pp"
}
