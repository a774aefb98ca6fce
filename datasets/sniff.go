package datasets

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
)

// Detect recognises the format of a dataset file, or of the files in a
// directory (which must all have the same format), from their content:
//
//   - parquet (magic "PAR1"): from the column names, as for JSON records;
//   - JSON Lines and JSON arrays: from the fields of the first record:
//     case_description+urgency_level → semigran; urgency with case (or
//     case_description, vignette, case_text) → triage;
//     id+stem+options+gold → canonical; opa+cop → medmcqa; question_id+options
//     → mmlu-pro; pubid or QUESTION with final_decision → pubmedqa;
//     question+choices+answer → mmlu (HF); question+opa+answer_idx →
//     medbullets; question+options+answer_idx with realidx → standard,
//     without → medqa;
//   - a JSON object whose values are records with QUESTION → pubmedqa;
//   - a JSON object with an "exams" member holding groups whose "data"
//     records have qtext → headqa (the authors' HEAD-QA files);
//   - a JSON object of columns, each an object mapping row labels ("0",
//     "1", …) to values, as pandas DataFrame.to_json() writes by default
//     (orient="columns"): from the column names, as for JSON records;
//   - CSV: a header with question, opa and answer_idx → medbullets, with
//     the triage fields → semigran or triage; no header,
//     4 to 12 fields with a last field that is an option letter → mmlu.
//
// The first JSON object is decoded member by member, so detection holds one
// member value at a time and does not depend on the length of the first line:
// an object that ends on the line where it starts is a JSON Lines record; one
// spanning lines is a document (keyed by id) or an error.
//
// Anything else is an error that names the fields seen and suggests
// --format mapped with --map.
//
// Each format's own file (format_*.go) says how it is recognised; the order
// in which they are tried is detectOrder.
func Detect(path string) (Format, error) {
	files, err := expandPath(path, AllSplits) // the splits of one dataset share its format
	if err != nil {
		return "", err
	}
	var first Format
	for i, f := range files {
		fm, err := detectFile(f)
		if err != nil {
			return "", err
		}
		if i == 0 {
			first = fm
		} else if fm != first {
			return "", fmt.Errorf("%s mixes formats: %s is %s but %s is %s; point at one file or pass --format", path, files[0], first, f, fm)
		}
	}
	return first, nil
}

func detectFile(path string) (Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	_, fm, err := sniff(f, st.Size(), path, FormatAuto)
	return fm, err
}

// sniffer finds the container and the format of one file.
type sniffer struct {
	in   io.ReaderAt
	size int64
	name string
	want Format // the format named, or FormatAuto to detect it
	line int    // the line of the first significant byte (text containers)
}

// sniff finds the container of a file and, when want is FormatAuto, its
// format. It reads through ReaderAt only, so in keeps its offset. A binary
// container is recognised by its magic bytes; a text one by its first
// significant byte: '{' a JSON object (JSON Lines, a document keyed by id or
// a column-oriented document), '[' a JSON array, anything else CSV.
func sniff(in io.ReaderAt, size int64, name string, want Format) (container, Format, error) {
	s := &sniffer{in: in, size: size, name: name, want: want}
	if f := lookupFormat(want); f != nil && f.Container != nil {
		if !hasMagic(in, f.Container.Magic) {
			return 0, "", fmt.Errorf("%s is not a %s file (it does not start with %s); leave --format out to detect its format", name, f.Container.Name, f.Container.Magic)
		}
		s.want = FormatAuto
	}
	for enc := range containers {
		if m := containers[enc].Magic; m != "" && hasMagic(in, m) {
			return s.binary(container(enc))
		}
	}
	first, line, err := firstSignificantByte(io.NewSectionReader(in, 0, size))
	if err != nil && err != io.EOF {
		return 0, "", fmt.Errorf("reading %s: %w", name, err)
	}
	if err == io.EOF {
		if s.want == FormatAuto {
			return s.unrecognised("the file is empty")
		}
		return 0, "", &ParseError{Source: name, Code: CodeFile, Fatal: true, Msg: "the file is empty; a dataset needs at least one record"}
	}
	s.line = line
	switch first {
	case '{':
		return s.object()
	case '[':
		return s.array()
	}
	return s.csv()
}

// hasMagic reports whether the file starts with magic.
func hasMagic(in io.ReaderAt, magic string) bool {
	b := make([]byte, len(magic))
	n, _ := in.ReadAt(b, 0)
	return n == len(b) && string(b) == magic
}

// unrecognised is the error for a file whose format is not recognised.
func (s *sniffer) unrecognised(format string, args ...any) (container, Format, error) {
	return 0, "", fmt.Errorf("unrecognised dataset format in %s: %s; %s", s.name, fmt.Sprintf(format, args...), formatHint())
}

// classify returns enc with the format named, or else with the format the
// fields are recognised as, or else the unrecognised error with the message.
func (s *sniffer) classify(enc container, fields []string, format string, args ...any) (container, Format, error) {
	if s.want != FormatAuto {
		return enc, s.want, nil
	}
	if fm := classifyFields(fields); fm != "" {
		return enc, fm, nil
	}
	return s.unrecognised(format, args...)
}

// binary recognises the format of a file in a binary container (parquet)
// from its column names.
func (s *sniffer) binary(enc container) (container, Format, error) {
	c := &containers[enc]
	if s.want != FormatAuto {
		return enc, s.want, nil
	}
	cols, err := c.Columns(s.in, s.size, s.name)
	if err != nil {
		return 0, "", err
	}
	return s.classify(enc, cols, "the %s columns %s match no known format", c.Name, fieldList(cols))
}

// object handles a file that starts with a JSON object: JSON Lines, a
// column-oriented document, or a document keyed by record id.
func (s *sniffer) object() (container, Format, error) {
	o, err := sniffObject(s.in, s.size, s.name)
	if pe, ok := err.(*ParseError); ok {
		return 0, "", pe // a column document damaged after its first column
	}
	grouped := lookupFormat(s.want) != nil && lookupFormat(s.want).Grouped != nil
	if err != nil {
		if grouped {
			return encJSONGrouped, s.want, nil // the reader reports the syntax error at its line
		}
		if s.want != FormatAuto {
			return encJSONL, s.want, nil // the loader reports the bad line
		}
		return s.unrecognised("line %d is not one JSON object (%v)", s.line, err)
	}
	if grouped && (o.kind != objRecord || slices.Contains(o.keys, lookupFormat(s.want).Grouped.Groups)) {
		return encJSONGrouped, s.want, nil // a document, not JSON Lines: the reader says what is wrong with it
	}
	switch o.kind {
	case objGrouped:
		if s.want != FormatAuto {
			return encJSONL, s.want, nil // the loader reports the bad line
		}
		return encJSONGrouped, o.format, nil
	case objColumns:
		return s.classify(encJSONColumns, o.keys, "a column-oriented JSON document (pandas to_json) with the columns %s, which match no known format", fieldList(o.keys))
	case objKeyedDoc, objRecordDict:
		return s.keyed(o)
	case objMultiline:
		if s.want != FormatAuto {
			return encJSONL, s.want, nil // the loader reports the bad line
		}
		return s.unrecognised("line %d is not one JSON object (an object spans lines %d–%d; JSON Lines has one record per line)", s.line, o.startLine, o.endLine)
	}
	return s.classify(encJSONL, o.keys, "the record on line %d has the fields %s, which match no known format", s.line, fieldList(o.keys))
}

// keyed handles a JSON object keyed by record id: read as such by the
// formats that come in that form (as JSON Lines, reporting the bad lines, by
// the others), and detected only as a format whose keyedDoc recognises it.
func (s *sniffer) keyed(o objSniff) (container, Format, error) {
	if f := lookupFormat(s.want); f != nil && f.Keyed != nil {
		return encJSONObject, s.want, nil
	}
	if s.want != FormatAuto {
		return encJSONL, s.want, nil
	}
	if o.format != "" {
		return encJSONObject, o.format, nil
	}
	var names []string
	for _, f := range detectOrder {
		if f.Keyed != nil && f.Keyed.Detect != nil {
			names = append(names, f.Keyed.Name)
		}
	}
	return s.unrecognised("a JSON object keyed by id whose records have the fields %s; only %s is read in this form", fieldList(o.keys), strings.Join(names, ", "))
}

// array handles a JSON array of records.
func (s *sniffer) array() (container, Format, error) {
	if s.want != FormatAuto {
		return encJSONArray, s.want, nil
	}
	first, err := firstArrayRecord(s.in, s.size)
	if err != nil {
		return s.unrecognised("a JSON array whose first element is not a record (%v)", err)
	}
	keys := slices.Collect(maps.Keys(first))
	return s.classify(encJSONArray, keys, "a JSON array whose first record has the fields %s, which match no known format", fieldList(keys))
}

// csv handles a file that is not JSON: a CSV file whose header row names
// the fields of a format (CSVHeader), or whose first row has the layout of a
// headerless one.
func (s *sniffer) csv() (container, Format, error) {
	if s.want != FormatAuto {
		return encCSV, s.want, nil
	}
	// The first CSV record may span lines (a quoted field with line breaks).
	cr := csv.NewReader(skipBOM(io.NewSectionReader(s.in, 0, s.size)))
	cr.FieldsPerRecord = -1
	rec, err := cr.Read()
	if err != nil || len(rec) < 2 {
		return s.unrecognised("line %d is neither JSON nor a CSV row", s.line)
	}
	lower := make([]string, len(rec))
	for i, f := range rec {
		lower[i] = strings.ToLower(strings.TrimSpace(f))
	}
	header := newFieldSet(lower)
	for _, f := range detectOrder {
		if f.CSVHeader && f.Fields(header) {
			return encCSV, f.Name, nil
		}
	}
	if header.any("question", "stem") {
		return s.unrecognised("a CSV file with the header %s, which matches no known format", fieldList(rec))
	}
	var layouts []string
	for _, f := range detectOrder {
		if f.Headerless == nil {
			continue
		}
		if f.Headerless.Looks(rec) {
			return encCSV, f.Name, nil
		}
		layouts = append(layouts, f.Headerless.Describe)
	}
	return s.unrecognised("line %d is neither JSON nor a recognised CSV row (%s)", s.line, strings.Join(layouts, "; "))
}

// firstSignificantByte returns the first byte of r that is not white space
// (after a UTF-8 byte-order mark) and its 1-based line, reading no more than
// up to it; io.EOF when there is none. The line may be of any length.
func firstSignificantByte(r io.Reader) (byte, int, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, utf8BOM) {
		br.Discard(3)
	}
	line := 1
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, line, err
		}
		switch c {
		case '\n':
			line++
		case ' ', '\t', '\r':
		default:
			return c, line, nil
		}
	}
}

// objKind is what the first JSON object of a file turned out to be.
type objKind int

const (
	objRecord     objKind = iota // one record on one line: JSON Lines
	objKeyedDoc                  // an object whose first value is a record a format's keyedDoc recognises (PubMedQA's ori_pqal.json)
	objRecordDict                // an object over several lines whose first value is an object: records keyed by id
	objMultiline                 // an object over several lines that is none of these (not JSON Lines)
	objColumns                   // an object whose first value is an object keyed by row numbers: pandas columns
	objGrouped                   // an object with a member holding groups of records a format's groupedDoc recognises (HEAD-QA's exams)
)

// objSniff describes the first JSON object of a file.
type objSniff struct {
	kind               objKind
	keys               []string // record fields (objRecord, objMultiline), column names (objColumns), the first record's fields (objKeyedDoc, objRecordDict, objGrouped)
	format             Format   // objKeyedDoc, objGrouped: the format recognised
	startLine, endLine int
}

// sniffObject decodes the first JSON object of a file member by member, so
// that it holds one member value at a time however long the object (or its
// line) is, and says what it is. Only a syntax error in that object (or a
// read error) is an error; in a column document (recognised from its first
// column) it is a fatal *ParseError with its line.
func sniffObject(in io.ReaderAt, size int64, name string) (objSniff, error) {
	lc := &lineCounter{r: skipBOM(io.NewSectionReader(in, 0, size))}
	dec := json.NewDecoder(lc)
	if _, err := dec.Token(); err != nil { // the '{' (firstSignificantByte saw it)
		return objSniff{}, err
	}
	o := objSniff{startLine: lc.lineAt(dec.InputOffset() - 1)}
	var firstVal json.RawMessage
	fail := func(err error) (objSniff, error) {
		if o.kind == objColumns {
			return objSniff{}, docFatal(lc, name, err)
		}
		return objSniff{}, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return fail(err)
		}
		if g, ok := groupedFormat(key, v); ok {
			g.startLine = o.startLine
			return g, nil
		}
		if len(o.keys) == 0 {
			if keyed := o.first(v); keyed.kind == objKeyedDoc {
				return keyed, nil
			}
			firstVal = v
		}
		o.keys = append(o.keys, key)
	}
	if _, err := dec.Token(); err != nil { // the '}'
		return fail(err)
	}
	o.endLine = lc.lineAt(dec.InputOffset() - 1)
	if o.kind == objColumns || o.endLine == o.startLine {
		return o, nil // one record per line
	}
	if fields, isObj := recordFields(firstVal); isObj {
		return objSniff{kind: objRecordDict, keys: fields, startLine: o.startLine, endLine: o.endLine}, nil
	}
	o.kind = objMultiline
	return o, nil
}

// groupedFormat recognises a member of a document's top-level object as the
// groups of records of a format's groupedDoc (HEAD-QA's "exams"), from the
// fields of its first record. The member's value is then held whole (a
// grouped document is read one group at a time, but detected from one
// member).
func groupedFormat(key string, v json.RawMessage) (objSniff, bool) {
	for _, f := range detectOrder {
		g := f.Grouped
		if g == nil || g.Groups != key || g.Detect == nil {
			continue
		}
		if fields, ok := groupedFirstFields(g, v); ok && g.Detect(fields) {
			return objSniff{kind: objGrouped, keys: fields, format: f.Name}, true
		}
	}
	return objSniff{}, false
}

// first looks at the value of the object's first member: a record that a
// format's keyedDoc recognises makes the object a keyed document (returned),
// an object keyed by row labels makes it a column document (o.kind).
func (o *objSniff) first(v json.RawMessage) objSniff {
	fields, isObj := recordFields(v)
	if !isObj {
		return objSniff{}
	}
	for _, f := range detectOrder {
		if f.Keyed != nil && f.Keyed.Detect != nil && f.Keyed.Detect(fields) {
			return objSniff{kind: objKeyedDoc, keys: fields, format: f.Name, startLine: o.startLine}
		}
	}
	if len(fields) > 0 && !slices.ContainsFunc(fields, func(k string) bool { return !isRowLabel(k) }) {
		o.kind = objColumns
	}
	return objSniff{}
}

// isRowLabel reports whether a key is a row label of a pandas column
// (a non-negative integer in decimal).
func isRowLabel(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return false
		}
	}
	return true
}

// recordFields returns the keys of v when it is a JSON object.
func recordFields(v json.RawMessage) ([]string, bool) {
	keys, _, ok := splitObject(v)
	return keys, ok
}

// firstArrayRecord decodes the first element of a JSON array document.
func firstArrayRecord(in io.ReaderAt, size int64) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(skipBOM(io.NewSectionReader(in, 0, size)))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, errors.New("not a JSON array")
	}
	if !dec.More() {
		return nil, errors.New("the array is empty")
	}
	var rec map[string]json.RawMessage
	if err := dec.Decode(&rec); err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, errors.New("null element")
	}
	return rec, nil
}

// skipBOM returns r without a leading UTF-8 byte-order mark.
func skipBOM(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, utf8BOM) {
		br.Discard(3)
	}
	return br
}

// fieldList formats field names sorted, for messages.
func fieldList(names []string) string {
	s := slices.Clone(names)
	slices.Sort(s)
	if len(s) > 12 {
		s = append(s[:12], "…")
	}
	return strings.Join(s, ", ")
}

// isLetterWithin reports whether s is one of the first n option letters.
func isLetterWithin(s string, n int) bool {
	return len(s) == 1 && s[0] >= 'A' && int(s[0]-'A') < n
}
