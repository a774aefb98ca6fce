package datasets

import (
	"fmt"
	"strings"
)

// Format names a dataset schema: which fields hold the stem, the options,
// the gold answer and the id. The container (JSON Lines, a JSON document,
// CSV or parquet) is always recognised from the content, so every format can
// also be read from a parquet export of it.
type Format string

// FormatAuto (the empty string) detects the format from the content (see
// Detect). The formats Open reads are declared beside their loaders
// (format_*.go) and listed by Formats.
const FormatAuto Format = ""

// A formatDef describes one dataset format the way an analysis.Analyzer
// describes one analysis: a documented value, declared in the format's own
// file (format_medqa.go, …) and listed in formatTable, that says what the
// format is called, how it is recognised from a sample of its fields and how
// one of its records becomes a question. Detection (sniff.go) and reading
// (reader.go) only iterate over these values.
type formatDef struct {
	// Name is the --format value.
	Name Format
	// Doc is the one-line description that `medteam datasets list` and the
	// --format help print.
	Doc string
	// Dataset is the dataset family: Question.Dataset and the id prefix of
	// the questions read (Source.Dataset overrides it). With GuessDataset it
	// is only the default, for a path that names no known dataset (see
	// guessDataset): standardised and mapped copies are named after their
	// folder.
	Dataset      string
	GuessDataset bool

	// Fields recognises the format from the field (column) names of the
	// first record of JSON Lines, a JSON array, a column-oriented JSON
	// document or parquet. Nil: never detected, only named with --format.
	// The formats are tried in detectOrder.
	Fields func(fieldSet) bool
	// CSVHeader says that Fields also recognises a CSV file from its header
	// row (the names trimmed and lower-cased).
	CSVHeader bool
	// Headerless reads CSV files without a header row; nil: the first row of
	// a CSV file names the columns.
	Headerless *headerlessCSV
	// Keyed, when not nil, says that the records may also come as one JSON
	// object keyed by record id, {"<id>": {…}, …}, and whether such a
	// document is recognised as this format.
	Keyed *keyedDoc
	// Grouped, when not nil, says that the records may also come in groups
	// inside one JSON document (HEAD-QA's exams), and how that document is
	// recognised and read.
	Grouped *groupedDoc
	// Container, when not nil, makes the format name a container rather than
	// a schema (parquet): the file must be one, and its schema is detected
	// as with FormatAuto.
	Container *containerDef

	// CheckSource checks the source before anything is read (mapped: the
	// field map); nil: nothing to check.
	CheckSource func(src *Source) error
	// Prepare readies the context of a file before its first record (the
	// MMLU subject from the file name, PubMedQA's ground truth); nil:
	// nothing to do.
	Prepare func(c *fileCtx) error
	// IndexBase says how the format's integer answers are counted, which is
	// decided per file; nil: it has none.
	IndexBase *indexRule
	// Normalize turns one record into a question, which the reader then
	// gives its id, validates and checks for duplicates. Nil only for a
	// Container format.
	Normalize normFunc
	// Finish reports what is only visible once a file has been read (PMIDs
	// of PubMedQA's ground truth missing from the data); nil: nothing.
	Finish func(c *fileCtx) *ParseError
}

// keyedDoc describes the JSON document keyed by record id that a format's
// records may come as.
type keyedDoc struct {
	// Name names the document in messages ("PubMedQA's ori_pqal.json").
	Name string
	// Detect recognises the format from the fields of the document's first
	// record; nil: such a document is read as this format only when the
	// format is named.
	Detect func(fields []string) bool
}

// headerlessCSV is a layout of CSV files without a header row.
type headerlessCSV struct {
	// Looks reports whether the first row of a file has this layout.
	Looks func(row []string) bool
	// Describe says what such rows look like, for the message about a CSV
	// file that is not recognised.
	Describe string
	// Row returns the fields of the record a row holds. width is the field
	// count of the first row, 0 for the first row itself. A row that does
	// not fit the layout is a CodeFields problem with the error's message.
	Row func(cells []string, width int) (map[string]any, error)
}

// dataset returns Question.Dataset for a file of this format at path:
// override when given, else the format's dataset family (for GuessDataset
// formats, the one the path names if any).
func (f *formatDef) dataset(override, path string) string {
	switch {
	case override != "":
		return override
	case f.GuessDataset:
		return guessDataset(path, f.Dataset)
	}
	return f.Dataset
}

// formatTable lists every format, in the order `medteam datasets list` and
// the --format help show them.
var formatTable = []*formatDef{
	medqaFormat,
	standardFormat,
	medmcqaFormat,
	pubmedqaFormat,
	mmluFormat,
	mmluProFormat,
	medbulletsFormat,
	headqaFormat,
	semigranFormat,
	triageFormat,
	parquetFormat,
	canonicalFormat,
	mappedFormat,
}

// detectOrder is the order in which the formats recognised from their
// fields are tried: the first that accepts a file's fields is its format.
// The triage formats (semigran: case_description and urgency_level;
// triage: urgency and a case field) share no field set with the others and
// come first. A format whose fields include another's comes first: canonical rows (id,
// stem, options, gold) and MedMCQA (opa, cop), whose fields are their own;
// MMLU-Pro (question_id), PubMedQA (final_decision) and HEAD-QA (qtext, ra,
// answers) before the formats
// with a question and options; standard (MedQA's fields and realidx) before
// MedQA.
var detectOrder = []*formatDef{
	semigranFormat,
	triageFormat,
	canonicalFormat,
	medmcqaFormat,
	mmluProFormat,
	pubmedqaFormat,
	headqaFormat,
	mmluFormat,
	medbulletsFormat,
	standardFormat,
	medqaFormat,
}

// lookupFormat returns the format named name, or nil.
func lookupFormat(name Format) *formatDef {
	for _, f := range formatTable {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// FormatInfo describes a format for help texts.
type FormatInfo struct {
	Format      Format
	Description string
}

// Formats lists the formats Open accepts, for --format help.
func Formats() []FormatInfo {
	out := make([]FormatInfo, len(formatTable))
	for i, f := range formatTable {
		out[i] = FormatInfo{f.Name, f.Doc}
	}
	return out
}

// ParseFormat checks a --format value ("" or "auto" for detection).
func ParseFormat(s string) (Format, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || s == "auto" {
		return FormatAuto, nil
	}
	for _, fi := range Formats() {
		if string(fi.Format) == s {
			return fi.Format, nil
		}
	}
	names := make([]string, 0, 10)
	for _, fi := range Formats() {
		names = append(names, string(fi.Format))
	}
	return "", fmt.Errorf("unknown format %q; known formats: %s (or auto)", s, strings.Join(names, ", "))
}

// fieldSet is the set of the field (column) names of a file's first record,
// from which its format is recognised.
type fieldSet map[string]bool

func newFieldSet(names []string) fieldSet {
	set := make(fieldSet, len(names))
	for _, n := range names {
		set[n] = true
	}
	return set
}

// has reports whether the set holds every one of names.
func (s fieldSet) has(names ...string) bool {
	for _, n := range names {
		if !s[n] {
			return false
		}
	}
	return true
}

// any reports whether the set holds at least one of names.
func (s fieldSet) any(names ...string) bool {
	for _, n := range names {
		if s[n] {
			return true
		}
	}
	return false
}

// classifyFields recognises a format from the field (column) names of the
// first record: the first format of detectOrder whose Fields accepts them;
// "" when none does.
func classifyFields(names []string) Format {
	set := newFieldSet(names)
	for _, f := range detectOrder {
		if f.Fields(set) {
			return f.Name
		}
	}
	return ""
}

// formatHint ends the message about a file whose format is not recognised:
// the formats it could be named as, and the field map.
func formatHint() string {
	var names []string
	for _, f := range formatTable {
		if f.Fields != nil {
			names = append(names, string(f.Name))
		}
	}
	return "name the format with --format (" + strings.Join(names, ", ") + "), or map the fields with --format mapped --map question=…,options=…,answer=…"
}
