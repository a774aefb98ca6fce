package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/journal"
)

func newExportCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "export DIR",
		Short:   "Write questions.parquet and calls.parquet of a run directory from its journal (at any time, even mid-run)",
		Example: "  medteam export results/run-3f2a9c1b0d4e",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			j, err := journal.OpenExisting(args[0])
			if err != nil {
				return usagef("export %s: %v", args[0], err)
			}
			defer j.Close()
			q, c, err := j.Export(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d question rows, %d call rows\n", args[0], q, c)
			return nil
		},
	}
}
