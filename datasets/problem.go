package datasets

import (
	"fmt"
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

// Problem codes classify a ParseError (its Code), for example to count the
// reasons for skipped records in a run manifest. Every problem a loader
// reports carries one of them.
const (
	CodeEncoding  = qa.CodeEncoding // invalid UTF-8
	CodeSyntax    = "syntax"        // not valid JSON or CSV
	CodeTruncated = "truncated"     // the final line ends mid-record
	CodeFields    = "fields"        // a CSV row with the wrong number of fields
	CodeMissing   = "missing"       // a required field is absent or null
	CodeType      = "type"          // a field has the wrong type
	CodeID        = qa.CodeID       // an empty or unusable id
	CodeStem      = qa.CodeStem     // an empty question stem
	CodeOptions   = qa.CodeOptions  // too few or too many options, bad or duplicate letters, an empty option
	CodeGold      = qa.CodeGold     // gold answer missing, not among the options, or contradicted
	CodeMulti     = "multi"         // a multi-answer item, which a single-answer benchmark cannot score
	CodeDuplicate = "duplicate"     // the question id was seen before, for other content
	CodeSize      = "size"          // a JSON Lines record over MaxRecordBytes
	CodeSplit     = "split"         // a split file that does not agree with the data
	CodeFile      = "file"          // the file cannot be read (any further)
)

// ParseError reports a problem with one record of a dataset file (or with
// the file as a whole). It is the Problem type of this package.
//
// Line is the 1-based physical line number where the record starts (blank
// lines count), or 0 when the problem does not belong to one line. Row is the
// 1-based row number for formats without lines (parquet), else 0. Field names
// the offending field, or is empty when the whole record is at fault. Msg
// describes the problem and, where useful, what to do about it. Code is one
// of the Code constants (empty only in errors built by hand). Fatal means the
// file cannot be read past this point (for example a syntax error inside a
// JSON document, a broken CSV quote or a corrupt parquet file), so the records
// after it are unknown.
type ParseError struct {
	Source string
	Line   int
	Field  string
	Msg    string
	Row    int
	Code   string
	Fatal  bool
}

// Problem is a problem found while reading a dataset: see ParseError.
type Problem = ParseError

// Error formats the error as `source:line: field "name": message` (or
// `source: row N: …` for a parquet row), leaving out the parts that are empty.
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Line <= 0 && e.Row > 0 {
		fmt.Fprintf(&b, "row %d: ", e.Row)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Location returns "source:line" or "source: row N" (or just the source).
func (e *ParseError) Location() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s:%d", e.Source, e.Line)
	case e.Row > 0:
		return fmt.Sprintf("%s: row %d", e.Source, e.Row)
	}
	return e.Source
}

// DefaultMaxProblems is how many problems Load, Stream, Check and Convert
// keep for their report when LoadOptions.MaxProblems is 0. Every problem is
// counted in Stats.Reasons regardless.
const DefaultMaxProblems = 20

// InvalidError is returned when a source has invalid records and the caller
// did not ask to skip them, or when the source cannot be read to its end. It
// lists the first problems (in reading order) and counts all of them.
// errors.As(err, &pe) with pe *ParseError finds the first problem.
type InvalidError struct {
	Source   string        // the source as given (path or registry name)
	Problems []*ParseError // the first problems, at most LoadOptions.MaxProblems
	Total    int           // the number of problems found
	Fatal    bool          // reading stopped early at an unreadable point (the last problem)
}

// Error lists the problems, one per line, and says what to do.
func (e *InvalidError) Error() string {
	var b strings.Builder
	switch {
	case e.Fatal && e.Total == 1:
		fmt.Fprintf(&b, "%s cannot be read: %v", e.Source, e.Problems[0])
		return b.String()
	case e.Total == 1:
		fmt.Fprintf(&b, "%s: refusing the dataset: 1 invalid record: %v", e.Source, e.first())
	default:
		fmt.Fprintf(&b, "%s: refusing the dataset: %d invalid records", e.Source, e.Total)
		if len(e.Problems) < e.Total {
			fmt.Fprintf(&b, " (the first %d below)", len(e.Problems))
		}
		b.WriteString(":")
		for _, p := range e.Problems {
			b.WriteString("\n  ")
			b.WriteString(p.Error())
		}
	}
	if e.Fatal {
		b.WriteString("\nThe file cannot be read past the last problem; repair it (or re-download it) and try again.")
	} else {
		b.WriteString("\nFix the records, or pass --skip-invalid to run the others (the skipped count and reasons go into the manifest).")
	}
	return b.String()
}

func (e *InvalidError) first() error {
	if len(e.Problems) == 0 {
		return nil
	}
	return e.Problems[0]
}

// Unwrap returns the first problem.
func (e *InvalidError) Unwrap() error {
	if len(e.Problems) == 0 {
		return nil
	}
	return e.Problems[0]
}
