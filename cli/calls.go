package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols"
)

func newCallsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "calls",
		Short: "Print the model calls per question of every preset (the call-accounting contract)",
		Long: `Prints, for every registered protocol, its call-accounting table. For teamwork: for
every preset, team size N ∈ {2,3,4} and turns T ∈ {2,3}, the number of model calls one
question makes: recruitment 2; prediction N (+1 leader synthesis iff L∧(SMM∨TO∨T));
discussion N·T (+T mediations iff L, +3·(T−1) monitoring iff MM); aggregation 0 (+1 iff L
and the final scores tie, shown as "+1 tie").`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return writeCallsTable(cmd.OutOrStdout(), protocols.All())
		},
	}
}

// writeCallsTable writes each protocol's accounting table; with several
// protocols, each under a heading with its name.
func writeCallsTable(w io.Writer, reg protocol.Registry) error {
	for i, p := range reg {
		if len(reg) > 1 {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "# %s\n", p.Name)
		}
		if err := p.Accounting(w); err != nil {
			return err
		}
	}
	return nil
}
