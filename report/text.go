package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteText prints the tables of the sections named by ids (every section
// when none is named) as aligned plain text, each under its heading: the
// terminal's view of the report.
func WriteText(w io.Writer, r *Report, ids ...string) error {
	for _, s := range Sections(r) {
		if len(s.Tables) == 0 || len(ids) > 0 && !slices.Contains(ids, s.ID) {
			continue
		}
		if _, err := fmt.Fprintf(w, "\n%s\n", s.Heading); err != nil {
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

// writeTextTable writes one table with aligned columns.
func writeTextTable(w io.Writer, t Table) error {
	if t.Caption != "" {
		fmt.Fprintln(w, t.Caption)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.Header, "\t"))
	for _, row := range t.Rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}
