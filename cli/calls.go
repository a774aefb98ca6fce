package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/teamwork"
)

func newCallsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "calls",
		Short: "Print the model calls per question of every preset (the call-accounting contract)",
		Long: `Prints, for every preset, team size N ∈ {2,3,4} and turns T ∈ {2,3}, the number
of model calls one question makes: recruitment 2; prediction N (+1 leader synthesis iff
L∧(SMM∨TO∨T)); discussion N·T (+T mediations iff L, +3·(T−1) monitoring iff MM);
aggregation 0 (+1 iff L and the final scores tie, shown as "+1 tie").`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return writeCallsTable(cmd.OutOrStdout())
		},
	}
}

func writeCallsTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "preset\tcomponents\tN\tT\trecruit\tpredict\tdiscuss\taggregate\ttotal")
	for _, name := range teamwork.PresetNames() {
		c, err := teamwork.ParseComponents(name, teamwork.Default())
		if err != nil {
			return err
		}
		for _, turns := range []int{2, 3} {
			c.Turns = turns
			for n := 2; n <= 4; n++ {
				cc := teamwork.ExpectedCalls(c, n, false)
				agg, tie := "0", ""
				if c.Leadership {
					agg, tie = "0 (+1 tie)", " (+1 tie)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%d%s\n", name, c.Combo(), n, turns,
					cc.Recruitment, cc.Prediction, cc.Discussion, agg, cc.Total(), tie)
			}
		}
	}
	return tw.Flush()
}
