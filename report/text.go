package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/medteam-bench/medteam/escape"
)

// WriteText prints the tables of the sections named by ids (every section
// when none is named) as aligned plain text, each under its heading: the
// terminal's view of the report.
func WriteText(w io.Writer, r *Report, ids ...string) error {
	for _, s := range Sections(r) {
		if len(s.Tables) == 0 || len(ids) > 0 && !slices.Contains(ids, s.ID) {
			continue
		}
		if _, err := fmt.Fprintf(w, "\n%s\n", escape.Terminal(s.Heading)); err != nil {
			return err
		}
		for _, t := range s.Tables {
			if err := writeTextTable(w, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeTextTable writes one table with aligned columns. Cells may hold
// data (subjects, ids): control characters are spelled out (escape.Terminal).
func writeTextTable(w io.Writer, t Table) error {
	if t.Caption != "" {
		fmt.Fprintln(w, escape.Terminal(t.Caption))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, terminalRow(t.Header))
	for _, row := range t.Rows {
		fmt.Fprintln(tw, terminalRow(row))
	}
	return tw.Flush()
}

// terminalRow is a row's cells, escaped for a terminal, joined by tabs.
func terminalRow(cells []string) string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = escape.Terminal(c)
	}
	return strings.Join(out, "\t")
}
