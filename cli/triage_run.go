package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/stats"
)

// 'medteam triage score RUN_DIR': the triage metrics of each arm of a run
// (its questions.parquet), with the recall of the most urgent level (em on
// the Semigran scale), the red flags that fired by true level, the rule set
// each arm applied (and, when its file says it was developed on some data,
// that the figures on that data are in-sample), and for the judge how often
// its output agreed with the algorithm computed in code.

// isRunArg reports whether a triage score argument names a run (a
// directory, or a questions.parquet) rather than a JSONL file.
func isRunArg(arg string) bool {
	if strings.HasSuffix(arg, ".parquet") {
		return true
	}
	st, err := os.Stat(arg)
	return err == nil && st.IsDir()
}

// triageArm is one arm's triage rows of a run.
type triageArm struct {
	key      stats.GroupKey
	rows     []results.QuestionRow
	flags    results.ArmRef // what the manifest says of the arm ("" fields when it has none)
	redFlags map[string]int // rows a red flag decided, by true level code
	agreed   int            // judge rows whose output agreed with the code's
	judged   int            // judge rows with an agreement flag
}

// scoreRuns prints the triage metrics of every arm of each run.
func scoreRuns(w io.Writer, args []string) error {
	for i, arg := range args {
		if i > 0 {
			fmt.Fprintln(w)
		}
		dir := runDirOf(arg)
		path := arg
		if dir == arg {
			path = filepath.Join(dir, results.QuestionsFile)
		}
		if err := checkRunPath(dir, path); err != nil {
			return err
		}
		rows, err := results.ReadQuestions(path)
		if err != nil {
			return fmt.Errorf("triage score: %w (rewrite it with 'medteam export %s')", err, dir)
		}
		m, _ := results.ReadManifest(filepath.Join(dir, results.ManifestFile)) // a run without one scores all the same
		arms := triageArms(rows, m)
		if len(arms) == 0 {
			return usagef("triage score: %s has no triage rows (run a triage dataset, e.g. --dataset semigran)", path)
		}
		if err := writeRunTriage(w, path, arms); err != nil {
			return err
		}
	}
	return nil
}

// triageArms groups a run's triage rows by dataset, model and arm, in the
// manifest's arm order (then by name).
func triageArms(rows []results.QuestionRow, m results.Manifest) []*triageArm {
	byKey := map[stats.GroupKey]*triageArm{}
	var out []*triageArm
	for _, r := range rows {
		if !stats.IsTriageRow(&r) {
			continue
		}
		k := stats.GroupKey{Dataset: r.Dataset, Model: r.Model, Arm: r.Arm}
		a := byKey[k]
		if a == nil {
			a = &triageArm{key: k, redFlags: map[string]int{}}
			for _, ref := range m.Arms {
				if ref.Label == r.Arm {
					a.flags = ref
				}
			}
			byKey[k] = a
			out = append(out, a)
		}
		a.rows = append(a.rows, r)
		if r.RedFlag != "" {
			a.redFlags[r.Urgency]++
		}
		var pj struct {
			Agrees *bool `json:"agrees"`
		}
		if r.ProtocolJSON != "" && json.Unmarshal([]byte(r.ProtocolJSON), &pj) == nil && pj.Agrees != nil {
			a.judged++
			if *pj.Agrees {
				a.agreed++
			}
		}
	}
	order := func(arm string) int {
		if i := slices.IndexFunc(m.Arms, func(a results.ArmRef) bool { return a.Label == arm }); i >= 0 {
			return i
		}
		return len(m.Arms)
	}
	slices.SortStableFunc(out, func(x, y *triageArm) int {
		if c := strings.Compare(x.key.Dataset, y.key.Dataset); c != 0 {
			return c
		}
		if c := strings.Compare(x.key.Model, y.key.Model); c != 0 {
			return c
		}
		if c := order(x.key.Arm) - order(y.key.Arm); c != 0 {
			return c
		}
		return strings.Compare(x.key.Arm, y.key.Arm)
	})
	return out
}

// writeRunTriage prints a summary line per arm, then each arm's metrics.
func writeRunTriage(w io.Writer, path string, arms []*triageArm) error {
	fmt.Fprintf(w, "%s: triage rows of %d arm(s)\n", path, len(arms))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "dataset\tmodel\tarm\tn\taccuracy\tsafe\tunder-triage\tmost urgent recall\tred flags fired\tred-flag rules")
	ms := make([]stats.Triage, len(arms))
	for i, a := range arms {
		ms[i] = *stats.TriageOf(a.rows, 0)
		t := ms[i]
		top := len(t.Levels) - 1
		rec := t.Recall[top]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s%%\t%s%%\t%s%%\t%s %s%% (%d/%d)\t%s\t%s\n", a.key.Dataset, a.key.Model, a.key.Arm, t.N,
			fmtPP(t.Accuracy.Value), fmtPP(t.Safe.Value), fmtPP(t.Under.Value), t.Levels[top], fmtPP(rec.Value), rec.K, rec.N,
			firedByLevel(a.redFlags, t.Levels), rulesName(a.flags))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, a := range arms {
		if a.flags.RedFlagsDevelopedOn != "" {
			fmt.Fprintf(w, "* %s: developed on %s — in-sample there\n", a.flags.RedFlags, a.flags.RedFlagsDevelopedOn)
			break
		}
	}
	for i, a := range arms {
		t := ms[i]
		fmt.Fprintf(w, "\n== %s · %s · %s\n", a.key.Arm, a.key.Dataset, a.key.Model)
		if a.flags.RedFlags != "" {
			fmt.Fprintf(w, "red-flag rules: %s (sha256 %.12s…)\n", a.flags.RedFlags, a.flags.RedFlagsSHA256)
		}
		if a.flags.RedFlagsDevelopedOn != "" {
			fmt.Fprintf(w, "NOTE: the red-flag rules %s were developed on %s: their figures on that data are in-sample, not a measure of how they generalise\n",
				a.flags.RedFlags, a.flags.RedFlagsDevelopedOn)
		}
		if a.judged > 0 {
			fmt.Fprintf(w, "judge output agrees with the algorithm computed in code: %s%% (%d/%d rows with a judge call)\n",
				fmtPP(float64(a.agreed)/float64(a.judged)), a.agreed, a.judged)
		}
		top := len(t.Levels) - 1
		rec := t.Recall[top]
		fmt.Fprintf(w, "%d rows; levels %s (least urgent first); %d with no level\n", t.N, strings.Join(t.Levels, " < "), t.None)
		if err := writeTriageMetrics(w, t); err != nil {
			return err
		}
		fmt.Fprintf(w, "most urgent level (%s) recall: %s%% (%d/%d) [%s, %s] (Wilson 95%%); red flags fired: %s\n", t.Levels[top],
			fmtPP(rec.Value), rec.K, rec.N, fmtPP(rec.CI.Lo), fmtPP(rec.CI.Hi), firedByLevel(a.redFlags, t.Levels))
	}
	return nil
}

// firedByLevel is "em 2, ne 0, sc 0" (most urgent first), or "none".
func firedByLevel(fired map[string]int, levels []string) string {
	total := 0
	var parts []string
	for i := len(levels) - 1; i >= 0; i-- {
		parts = append(parts, fmt.Sprintf("%s %d", levels[i], fired[levels[i]]))
		total += fired[levels[i]]
	}
	if total == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// rulesName is the arm's red-flag rule set, starred when its file says
// what data it was developed on (the footnote says it); "—" for an arm
// that applies none.
func rulesName(ref results.ArmRef) string {
	switch {
	case ref.RedFlags == "":
		return "—"
	case ref.RedFlagsDevelopedOn != "":
		return ref.RedFlags + "*"
	}
	return ref.RedFlags
}
