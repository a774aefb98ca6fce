package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/plan"
	"github.com/medteam-bench/medteam/rundir"
	"github.com/medteam-bench/medteam/runner"
)

// ExitCode is what the medteam process exits with. Every code is here, and
// the exit code table of docs/commands.md#exit-codes lists them.
type ExitCode int

// Exit codes.
const (
	exitOK          ExitCode = 0
	exitError       ExitCode = 1   // the run failed
	exitUsage       ExitCode = 2   // bad flags or input
	exitBudget      ExitCode = 3   // stopped by --budget-tokens/--budget-usd; rerun to resume
	exitUnitErrors  ExitCode = 4   // finished, but more units ended in error than --max-error-rate allows; rerun to retry them
	exitUnavailable ExitCode = 5   // the endpoint stayed unreachable longer than --max-outage; rerun to resume
	exitBusy        ExitCode = 6   // another process is working in the run directory
	exitGateFailed  ExitCode = 7   // medteam check (or run --check): a threshold or the baseline gate failed
	exitNoEvidence  ExitCode = 8   // medteam check --require-evidence: insufficient evidence — the baseline gate could not decide (too few shared questions or units, or an inconclusive interval); nothing failed (without the flag: exit 0 with a warning)
	exitIncomplete  ExitCode = 9   // medteam check: a run checked is not complete (stopped, killed or failed); --allow-incomplete gates it anyway
	exitInterrupted ExitCode = 130 // stopped by SIGINT/SIGTERM after a clean flush; rerun to resume
	exitKilled      ExitCode = 131 // second signal: exited at once; rerun to resume
)

// stoppedError ends a run early but cleanly: everything finished is saved.
type stoppedError struct {
	why  string // "signal" or "budget"
	done int
	of   int
	dir  string
}

func (e stoppedError) Error() string {
	return fmt.Sprintf("stopped by %s after %d of %d units; results so far are in %s; rerun the same command to resume", e.why, e.done, e.of, e.dir)
}

// unavailableError ends a run whose endpoint stayed down past --max-outage;
// nothing was marked failed, so rerunning resumes.
type unavailableError struct {
	err      error
	done, of int
	dir      string
	st       runner.Stats // what this invocation sent that no row holds
}

func (e unavailableError) Error() string {
	msg := fmt.Sprintf("%v\n%d of %d units are done; results so far are in %s", e.err, e.done, e.of, e.dir)
	if e.st.Probes > 0 || e.st.AbandonedAttempts > 0 {
		msg += fmt.Sprintf("\nthe endpoint also received %d probe request(s) of the circuit breaker and %d request(s) of questions stopped before they were written (%d tokens; they run again on resume",
			e.st.Probes, e.st.AbandonedAttempts, e.st.AbandonedTokens)
		if e.done > 0 {
			msg += "; manifest.json counts.probes, counts.abandoned_attempts"
		}
		msg += ")"
	}
	return msg
}
func (e unavailableError) Unwrap() error { return e.err }

// unitErrorsError ends a finished run with more units in error than
// --max-error-rate tolerates.
type unitErrorsError struct {
	errors, of, retryable int
	classes               map[string]int
	tolerated             float64
	dir                   string
}

func (e unitErrorsError) Error() string {
	names := make([]string, 0, len(e.classes))
	for c := range e.classes {
		names = append(names, c)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, c := range names {
		parts[i] = fmt.Sprintf("%s %d", c, e.classes[c])
	}
	msg := fmt.Sprintf("%d of %d units ended in error (%s), more than --max-error-rate %g allows; results are in %s",
		e.errors, e.of, strings.Join(parts, ", "), e.tolerated, e.dir)
	if e.retryable > 0 {
		msg += fmt.Sprintf("; rerun the same command to retry the %d with a retryable error", e.retryable)
	}
	switch {
	case e.retryable == 0:
		msg += "; they will fail again until their cause is fixed (see the error column of questions.parquet)"
	case e.retryable < e.errors:
		msg += fmt.Sprintf("; the other %d will fail again until their cause is fixed (see the error column of questions.parquet)", e.errors-e.retryable)
	}
	return msg
}

// usageError marks errors in what the user asked for.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func newRoot(stop <-chan struct{}, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "medteam",
		Short:         "Benchmark harness for multi-agent medical question answering",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       currentVersion().String(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	f := &Factory{Out: stdout, Err: stderr, Stop: stop, Argv: os.Args}
	root.AddCommand(NewCmdRun(f, nil), NewCmdSweep(f, nil), newCallsCmd(), newModelsCmd(), newExportCmd(), newDatasetsCmd(f), NewCmdMerge(f, nil),
		NewCmdReport(f, nil), NewCmdPower(f, nil), NewCmdCheck(f, nil), NewCmdBatches(f, nil), newTriageCmd(f), NewCmdRescore(f, nil),
		NewCmdView(f), newSlurmCmd(f), newVersionCmd(stdout))
	argsAreInput(root)
	return root
}

func execute(ctx context.Context, stop <-chan struct{}, args []string, stdout, stderr io.Writer) ExitCode {
	root := newRoot(stop, stdout, stderr)
	root.SetArgs(args)
	err := commandError(root, args)
	if err == nil {
		err = root.ExecuteContext(ctx)
	}
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "medteam:", err)
	var ue usageError
	var se stoppedError
	var busy *rundir.BusyError
	var ua unavailableError
	var ue4 unitErrorsError
	var gate gateFailedError
	var noEvidence insufficientError
	var incomplete incompleteError
	switch {
	case errors.As(err, &incomplete):
		return exitIncomplete
	case errors.As(err, &gate):
		return exitGateFailed
	case errors.As(err, &noEvidence):
		return exitNoEvidence
	case errors.As(err, &ue), plan.IsInput(err):
		return exitUsage
	case errors.As(err, &busy):
		return exitBusy
	case errors.As(err, &ua):
		return exitUnavailable
	case errors.As(err, &ue4):
		return exitUnitErrors
	case errors.As(err, &se) && se.why == "budget":
		return exitBudget
	case errors.As(err, &se), errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	return exitError
}
