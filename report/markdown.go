package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/medteam-bench/medteam/escape"
)

// WriteMarkdown writes r as report.md: the title, then every section
// (Sections) with its tables as GitHub-flavoured pipe tables.
func WriteMarkdown(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s\n", r.Title())
	for _, s := range Sections(r) {
		fmt.Fprintf(bw, "\n## %s\n", escape.Markdown(s.Heading))
		if s.Text != "" {
			fmt.Fprintf(bw, "\n%s\n", s.Text)
		}
		for _, t := range s.Tables {
			writeMarkdownTable(bw, t)
		}
	}
	return bw.Flush()
}

// writeMarkdownTable writes one pipe table, its caption above it in bold.
func writeMarkdownTable(w io.Writer, t Table) {
	fmt.Fprintln(w)
	if t.Caption != "" {
		fmt.Fprintf(w, "**%s**\n\n", mdCell(t.Caption))
	}
	writeRow(w, t.Header)
	sep := make([]string, len(t.Header))
	for i := range sep {
		sep[i] = "---"
		if i > 0 && numericColumn(t, i) {
			sep[i] = "---:"
		}
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(sep, "|"))
	for _, row := range t.Rows {
		writeRow(w, row)
	}
}

// writeRow writes one table row.
func writeRow(w io.Writer, cells []string) {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = mdCell(c)
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(out, " | "))
}

// mdCell escapes a table cell: its text may come from the data (a
// subject, a dataset or question id), so Markdown, HTML, line breaks and
// control characters in it are escaped.
func mdCell(s string) string { return escape.Markdown(s) }

// numericColumn reports whether every cell of column i starts like a
// number (or is a dash or "none"), so that it is right-aligned.
func numericColumn(t Table, i int) bool {
	for _, row := range t.Rows {
		if i >= len(row) || !numeric(row[i]) {
			return false
		}
	}
	return len(t.Rows) > 0
}

// numeric reports whether s starts like a number.
func numeric(s string) bool {
	if s == dash || s == "" || s == "none" {
		return true
	}
	s = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(s, "−"), "+"), "$")
	s = strings.TrimPrefix(s, "<")
	return s != "" && s[0] >= '0' && s[0] <= '9'
}
