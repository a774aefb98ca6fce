package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/stats"
)

// TriageScoreOptions are the settings of 'medteam triage score'.
type TriageScoreOptions struct {
	Files  []string
	Levels []string // the urgency codes, least urgent first
}

// newTriageCmd builds 'medteam triage' and its subcommands.
func newTriageCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "triage",
		Short: "Triage metrics outside a run (score published per-case outputs)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(NewCmdTriageScore(f, nil))
	return cmd
}

// NewCmdTriageScore builds 'medteam triage score'; runF as for NewCmdRun.
func NewCmdTriageScore(f *Factory, runF func(context.Context, *TriageScoreOptions) error) *cobra.Command {
	opts := &TriageScoreOptions{}
	cmd := &cobra.Command{
		Use:   "score RUN_DIR... | FILE...",
		Short: "Triage metrics of a run's arms, or of per-case outputs in JSONL (true_urgency, llm_output)",
		Long: `Given run directories (or their questions.parquet), prints each arm's triage metrics: a
summary line per arm (n, accuracy, safe, under-triage, the recall of the most urgent level — em
on the Semigran scale — the red flags that fired by true level and the red-flag rule set), then
per arm the table below, the recall per level, the confusion matrix, and for the judge how often
its output agreed with the seed's algorithm computed in code. A rule set whose file says it was
developed on some data (the semigran set) is flagged: its figures on that data are in-sample.

Given JSONL files, scores per-case triage outputs made outside medteam — such as the published
results of the medask triage benchmark — with medteam's own metrics (package stats, as in a run's
report).

Each line of each FILE is a JSON object with true_urgency (a level code) and llm_output (the
model's answer), and optionally case_id: rows of one case_id (across files, e.g. repeated runs)
are one question, so the intervals account for repeats. The answer is the level whose code it
is (case and surrounding space ignored), else the one level code it names as a word (the
published benchmark's reading, \b(em|ne|sc)\b); an answer naming no level or several is "no
level": counted in n, not correct, not safe. Blank lines are skipped.

Prints n, accuracy, the safe rate (at or above the true level), under-triage (less urgent than
the truth) and over-triage with 95% intervals clustered by case (a line's case_id: Wilson's
interval on the effective n = n / design effect, exactly Wilson's when every case has one line;
and the case-clustered SE with repeats), quadratic-weighted kappa, recall per level and the confusion matrix.`,
		Example: `  medteam triage score results/run-3f2a9c1b0d4e
  medteam triage score ../shared/datasets/triage/published_results/semigran_gpt4o_*.jsonl
  medteam triage score --levels low,medium,high mine.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runTriageScore(f, opts)
		},
	}
	cmd.Flags().StringSliceVar(&opts.Levels, "levels", []string{"sc", "ne", "em"}, "urgency level codes, least urgent first (JSONL files; a run's rows name their levels)")
	return cmd
}

func runTriageScore(f *Factory, o *TriageScoreOptions) error {
	runs := 0
	for _, a := range o.Files {
		if isRunArg(a) {
			runs++
		}
	}
	switch {
	case runs == len(o.Files):
		return scoreRuns(f.Out, o.Files)
	case runs > 0:
		return usagef("triage score: give run directories or JSONL files, not both")
	}
	if err := checkLevels(o.Levels); err != nil {
		return err
	}
	var obs []stats.TriageObs
	for _, path := range o.Files {
		b, err := os.ReadFile(path)
		if err != nil {
			return usagef("triage score: %w", err)
		}
		got, err := readTriageOutputs(path, b, o.Levels)
		if err != nil {
			return usageError{err}
		}
		obs = append(obs, got...)
	}
	if len(obs) == 0 {
		return usagef("triage score: no rows in %s", strings.Join(o.Files, ", "))
	}
	return writeTriageScore(f.Out, len(o.Files), stats.TriageMetrics(obs, o.Levels, 0))
}

// checkLevels validates --levels: at least two distinct non-empty codes.
func checkLevels(levels []string) error {
	seen := map[string]bool{}
	for _, l := range levels {
		if l == "" || seen[strings.ToLower(l)] {
			return usagef("--levels %s: give at least two distinct level codes, least urgent first, e.g. --levels sc,ne,em", strings.Join(levels, ","))
		}
		seen[strings.ToLower(l)] = true
	}
	if len(levels) < 2 {
		return usagef("--levels %s: give at least two level codes, least urgent first, e.g. --levels sc,ne,em", strings.Join(levels, ","))
	}
	return nil
}

// triageLine is one line of a per-case output file.
type triageLine struct {
	CaseID json.RawMessage `json:"case_id"`
	Truth  *string         `json:"true_urgency"`
	Output *string         `json:"llm_output"`
}

// readTriageOutputs reads a per-case output file (JSONL) named path;
// errors name path:line.
func readTriageOutputs(path string, b []byte, levels []string) ([]stats.TriageObs, error) {
	word := levelWords(levels)
	var out []stats.TriageObs
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		o, err := parseTriageLine(sc.Bytes(), levels, word)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if o.Cluster == "" {
			o.Cluster = fmt.Sprintf("%s:%d", path, line)
		}
		out = append(out, o)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// parseTriageLine reads one line: its truth, its answer's level (-1 for
// none) and its case id ("" when none).
func parseTriageLine(b []byte, levels []string, word *regexp.Regexp) (stats.TriageObs, error) {
	var v triageLine
	if err := json.Unmarshal(b, &v); err != nil {
		return stats.TriageObs{}, fmt.Errorf("not a JSON object: %v", err)
	}
	if v.Truth == nil || v.Output == nil {
		return stats.TriageObs{}, fmt.Errorf("a line needs true_urgency and llm_output")
	}
	truth := levelIndex(levels, *v.Truth)
	if truth < 0 {
		return stats.TriageObs{}, fmt.Errorf("true_urgency %q is not one of the levels %s (set them with --levels)", *v.Truth, strings.Join(levels, ", "))
	}
	o := stats.TriageObs{Truth: truth, Pred: readLevel(*v.Output, levels, word)}
	if id := strings.Trim(string(bytes.TrimSpace(v.CaseID)), `"`); id != "" && id != "null" {
		o.Cluster = "case " + id
	}
	return o, nil
}

// levelIndex is the index of code among levels (case ignored), -1 if none.
func levelIndex(levels []string, code string) int {
	return slices.IndexFunc(levels, func(l string) bool { return strings.EqualFold(l, strings.TrimSpace(code)) })
}

// levelWords matches any level code as a whole word, case ignored.
func levelWords(levels []string) *regexp.Regexp {
	q := make([]string, len(levels))
	for i, l := range levels {
		q[i] = regexp.QuoteMeta(l)
	}
	return regexp.MustCompile(`(?i)\b(` + strings.Join(q, "|") + `)\b`)
}

// readLevel is the level an answer names: its code, else the one code it
// names as a word; -1 when it names none or several.
func readLevel(answer string, levels []string, word *regexp.Regexp) int {
	if i := levelIndex(levels, answer); i >= 0 {
		return i
	}
	found := -1
	for _, m := range word.FindAllString(answer, -1) {
		i := levelIndex(levels, m)
		if found >= 0 && i != found {
			return -1
		}
		found = i
	}
	return found
}

// writeTriageScore prints the metrics.
func writeTriageScore(w io.Writer, files int, t stats.Triage) error {
	fmt.Fprintf(w, "%d rows from %d files; levels %s (least urgent first); %d with no level\n", t.N, files, strings.Join(t.Levels, " < "), t.None)
	return writeTriageMetrics(w, t)
}

// allAlike is true when every row of r is a hit or every row a miss (the
// design effect is then the bound at any number of cases).
func allAlike(r stats.Rate) bool { return r.K == 0 || r.K == r.N }

// writeTriageMetrics prints the rates with their intervals, kappa, the
// recall per level and the confusion matrix.
func writeTriageMetrics(w io.Writer, t stats.Triage) error {
	if t.Repeats > 1 {
		fmt.Fprintf(w, "up to %d rows per case: the intervals and the clustered SE treat a case's rows as one draw\n", t.Repeats)
	}
	if t.Accuracy.DeffBound && !allAlike(t.Accuracy) {
		fmt.Fprintf(w, "fewer than %d cases: the design effect is not estimated; the intervals use its conservative bound, rows per case (each case's rows as one draw)\n", stats.MinDeffClusters)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\trate\tk/n\t95% CI (Wilson, clustered)\tclustered SE (pp)")
	for _, m := range []struct {
		name string
		r    stats.Rate
	}{{"accuracy", t.Accuracy}, {"safe (at or above truth)", t.Safe}, {"under-triage", t.Under}, {"over-triage", t.Over}} {
		fmt.Fprintf(tw, "%s\t%s%%\t%d/%d\t[%s, %s]\t%s\n", m.name, fmtPP(m.r.Value), m.r.K, m.r.N, fmtPP(m.r.CI.Lo), fmtPP(m.r.CI.Hi), fmtNum(100*m.r.ClusteredSE, 1))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "quadratic-weighted kappa: %s\n", fmtNum(t.Kappa, 4))
	rec := make([]string, len(t.Levels))
	for i, l := range t.Levels {
		r := t.Recall[i]
		rec[i] = fmt.Sprintf("%s %s%% (%d/%d)", l, fmtPP(r.Value), r.K, r.N)
	}
	fmt.Fprintf(w, "recall per level: %s\n", strings.Join(rec, ", "))
	fmt.Fprintln(w, "confusion matrix (rows: true level, columns: predicted)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\t%s\tnone\t\n", strings.Join(t.Levels, "\t"))
	for i, l := range t.Levels {
		cells := make([]string, len(t.Confusion[i]))
		for j, c := range t.Confusion[i] {
			cells[j] = fmt.Sprint(c)
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", l, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}
