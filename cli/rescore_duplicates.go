package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/medteam-bench/medteam/escape"
	"github.com/medteam-bench/medteam/rescore"
	"github.com/medteam-bench/medteam/results"
)

// rescoreFormat is the manifest's format of a file rescore read.
const rescoreFormat = "published outputs"

// rescoreDuplicateNote is report.md's note on the content duplicates a
// rescored file holds (its manifest entry's duplicates_kept).
func rescoreDuplicateNote(d results.DatasetRef) string {
	return fmt.Sprintf("%s (%s): %d content duplicate(s) (the same stem, options and answer under another question_id) kept as questions of their own, as the published count keeps them; the rescore's rescore.md lists them",
		d.Name, filepath.Base(d.Path), d.DuplicatesKept)
}

// duplicateSummary says in one line how many content duplicates a rescore
// kept as questions of their own, as the published count keeps them.
func duplicateSummary(dups []rescore.Duplicate) string {
	return fmt.Sprintf("%d content duplicate(s) kept as questions of their own, as the published count keeps them (the same stem, options and answer under another question_id; every copy but the one of the smallest question_id has the content id, \"~\" and its question_id as its id): listed in rescore.md",
		len(dups))
}

// writeDuplicateLine prints the duplicate summary after the table, when
// there are duplicates.
func writeDuplicateLine(w io.Writer, dups []rescore.Duplicate) {
	if len(dups) > 0 {
		fmt.Fprintf(w, "\n%s\n", duplicateSummary(dups))
	}
}

// writeDuplicateNote writes rescore.md's note on the content duplicates
// kept: how many, and each with the question it repeats.
func writeDuplicateNote(w io.Writer, dups []rescore.Duplicate) {
	if len(dups) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Content duplicates kept\n\n%s.\n\n", strings.TrimSuffix(duplicateSummary(dups), ": listed in rescore.md"))
	fmt.Fprintln(w, "| file | question_id | same question as | records |")
	fmt.Fprintln(w, "|---|---|---|---:|")
	for _, d := range dups {
		fmt.Fprintf(w, "| %s | %s | %s | %d |\n", escape.Markdown(d.File), escape.Markdown(d.ID), escape.Markdown(d.Of), d.Records)
	}
}

// duplicatesOf counts the content duplicates of one file, for its manifest
// entry (duplicates_kept, which report.md notes), and adds a note naming the
// first few.
func duplicatesOf(path string, dups []rescore.Duplicate, notes []string) (int, []string) {
	var ids []string
	for _, d := range dups {
		if d.File == path {
			ids = append(ids, d.ID+" = "+d.Of)
		}
	}
	if len(ids) == 0 {
		return 0, notes
	}
	shown := ids[:min(len(ids), 5)]
	more := ""
	if len(ids) > len(shown) {
		more = ", …"
	}
	return len(ids), append(notes, fmt.Sprintf("%d content duplicate(s) kept as questions of their own, as the published count keeps them (question_id %s%s)",
		len(ids), strings.Join(shown, ", "), more))
}
