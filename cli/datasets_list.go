package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/datasets"
)

// listWidth is the width `medteam datasets list` fits its lines to: a
// 100-column terminal. --long prints every detail, wrapped to it.
const listWidth = 100

func newDatasetsListCmd() *cobra.Command {
	var long bool
	cmd := &cobra.Command{
		Use: "list", Short: "List the dataset registry and the supported formats", Args: cobra.NoArgs,
		Example: "  medteam datasets list\n  medteam datasets list --long",
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			if long {
				writeRegistryLong(w, datasets.Registry(), datasets.Formats(), listWidth)
				return nil
			}
			writeRegistryTable(w, datasets.Registry(), datasets.Formats(), listWidth)
			return nil
		},
	}
	cmd.Flags().BoolVar(&long, "long", false, "every detail: description, licence, files and how to get them, full format descriptions")
	return cmd
}

// getHow says in a word how `medteam datasets get` obtains an entry's files.
func getHow(e datasets.Entry) string {
	switch {
	case e.Embedded:
		return "embedded"
	case len(e.Downloads) > 0 && e.Manual == "":
		return "get"
	case len(e.Downloads) > 0:
		return "mirror"
	}
	return "by hand"
}

// writeRegistryTable prints the registry and the formats as tables whose
// lines fit width (the last column is cut with "…"; --long has it whole).
func writeRegistryTable(w io.Writer, reg []datasets.Entry, formats []datasets.FormatInfo, width int) {
	rows := [][]string{{"name", "questions", "files", "licence"}}
	for _, e := range reg {
		rows = append(rows, []string{e.Name, fmt.Sprint(e.Expected), getHow(e), e.License})
	}
	for _, l := range fitColumns(rows, width) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
	rows = [][]string{{"format", "description"}}
	for _, f := range formats {
		rows = append(rows, []string{string(f.Format), f.Description})
	}
	for _, l := range fitColumns(rows, width) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, "\nfiles: get = `medteam datasets get NAME` downloads them; mirror = only from a copy")
	fmt.Fprintln(w, "(`--from DIR|URL`, checksums pinned); by hand = place them yourself. Details: --long")
}

// fitColumns lays rows out in columns two spaces apart, cutting the last
// column so that no line is wider than width (in runes).
func fitColumns(rows [][]string, width int) []string {
	if len(rows) == 0 {
		return nil
	}
	n := len(rows[0])
	widths := make([]int, n)
	for _, r := range rows {
		for i := 0; i < n-1 && i < len(r); i++ {
			widths[i] = max(widths[i], utf8.RuneCountInString(r[i]))
		}
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		var b strings.Builder
		for i := 0; i < n-1 && i < len(r); i++ {
			b.WriteString(r[i])
			b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(r[i])+2))
		}
		last := ""
		if len(r) == n {
			last = r[n-1]
		}
		room := width - utf8.RuneCountInString(b.String())
		out = append(out, strings.TrimRight(b.String()+cut(last, room), " "))
	}
	return out
}

// cut shortens s to at most n runes, ending with "…" when shortened.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// writeRegistryLong prints every entry and format in full, wrapped to width.
func writeRegistryLong(w io.Writer, reg []datasets.Entry, formats []datasets.FormatInfo, width int) {
	for _, e := range reg {
		fmt.Fprintf(w, "%s — %d questions\n", e.Name, e.Expected)
		writeWrapped(w, "  ", e.Description, width)
		writeWrapped(w, "  licence: ", e.License, width)
		writeWrapped(w, "  files: ", entryFiles(e), width)
		writeWrapped(w, "  get: ", getDetail(e), width)
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "formats")
	for _, f := range formats {
		writeWrapped(w, fmt.Sprintf("  %-10s ", f.Format), f.Description, width)
	}
}

// entryFiles lists the accepted layouts of an entry's files.
func entryFiles(e datasets.Entry) string {
	if e.Embedded {
		return "none (embedded in the binary)"
	}
	var alts []string
	for _, l := range e.Layouts {
		fs := append([]string(nil), l.Files...)
		if l.GroundTruth != "" {
			fs = append(fs, l.GroundTruth)
		}
		alts = append(alts, strings.Join(fs, " + "))
	}
	return strings.Join(alts, ", or ")
}

func getDetail(e datasets.Entry) string {
	switch getHow(e) {
	case "embedded":
		return "nothing to get"
	case "get":
		return "medteam datasets get " + e.Name
	case "mirror":
		return "medteam datasets get " + e.Name + " --from DIR|URL (a copy; checksums pinned), or by hand: " + e.Manual
	}
	return "by hand: " + e.Manual
}

// writeWrapped prints text after prefix, wrapped at word boundaries to
// width; continuation lines are indented as far as the prefix. A word
// longer than a line (a URL) gets a line of its own.
func writeWrapped(w io.Writer, prefix, text string, width int) {
	indent := strings.Repeat(" ", utf8.RuneCountInString(prefix))
	line := prefix
	empty := true
	for _, word := range strings.Fields(text) {
		if !empty && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width {
			fmt.Fprintln(w, line)
			line, empty = indent, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	fmt.Fprintln(w, line)
}
