package cli

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/journal"
	"github.com/medteam-bench/medteam/plan"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/rundir"
)

// exportManifest rewrites the manifest of the run in dir, whose journal j
// was just exported with calls call rows, with its status recomputed, and
// returns that status.
func exportManifest(j *journal.Journal, dir string, calls int) (results.Status, error) {
	body, _, err := j.PlanBody()
	if err != nil {
		return results.Status{}, err
	}
	rows, err := results.ReadQuestions(filepath.Join(dir, results.QuestionsFile))
	if err != nil {
		return results.Status{}, err
	}
	if err := plan.RewriteManifest(dir, body, rows, calls); err != nil {
		return results.Status{}, err
	}
	m, err := results.ReadManifest(filepath.Join(dir, results.ManifestFile))
	return m.Status, err
}

func newExportCmd() *cobra.Command {
	var salvage bool
	cmd := &cobra.Command{
		Use:   "export DIR",
		Short: "Write questions.parquet and calls.parquet of a run directory from its journal (at any time, even mid-run)",
		Long: `Writes the parquet files of a run directory from its journal, in plan order.
With --salvage, a damaged journal (a disk fault, a copy cut short) is read row by row
and every unit that can still be read is written; the count of unreadable ones is printed.
The damaged journal is then set aside (journal.db.damaged) and replaced by one holding the
recovered units, so rerunning the run's command redoes only the units that were lost.
SIGINT or SIGTERM stops a salvage at once.`,
		Example: "  medteam export results/run-3f2a9c1b0d4e\n  medteam export --salvage results/run-3f2a9c1b0d4e",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if salvage {
				// SIGINT or SIGTERM ends the scan at once (nothing is written then)
				ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				// the journal is rebuilt only while no run works in the directory
				lock, lerr := rundir.Acquire(dir, []string{"medteam", "export", "--salvage"})
				if lerr == nil {
					defer lock.Release()
				}
				rep, err := journal.Salvage(ctx, dir, lerr == nil)
				if err != nil {
					return fmt.Errorf("export --salvage %s: %w", dir, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "salvaged %s: %d units recovered, %d unreadable (%d rowids scanned)\n", dir, rep.Recovered, rep.Lost, rep.Scanned)
				if len(rep.Problems) > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "unreadable rows (first %d):\n  %s\n", len(rep.Problems), strings.Join(rep.Problems, "\n  "))
				}
				if rep.Rebuilt {
					fmt.Fprintf(cmd.OutOrStdout(), "the journal now holds the recovered units (the damaged one is %s): rerun the run's command to redo the units salvage lost\n", rep.Damaged)
				} else if rep.NotRebuilt != "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "the journal was left as it is: %s\n", rep.NotRebuilt)
				}
				return nil
			}
			j, err := journal.OpenExisting(dir)
			if err != nil {
				return usagef("export %s: %v", dir, err)
			}
			defer j.Close()
			q, c, err := j.Export(dir)
			if err != nil {
				return fmt.Errorf("export %s: %w (if the journal is damaged, 'medteam export --salvage %s' recovers every unit it can still read)", dir, err, dir)
			}
			st, err := exportManifest(j, dir, int(c))
			if err != nil {
				return fmt.Errorf("export %s: %w", dir, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d question rows, %d call rows; run %s\n", dir, q, c, st)
			return nil
		},
	}
	cmd.Flags().BoolVar(&salvage, "salvage", false, "recover every readable unit of a damaged journal (reads it row by row, never writes to it; sets it aside for a rebuilt one of the recovered units)")
	return cmd
}
