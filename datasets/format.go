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

	"github.com/medteam-bench/medteam/qa"
)

// Format names a dataset schema: which fields hold the stem, the options,
// the gold answer and the id. The container (JSON Lines, a JSON document,
// CSV or parquet) is always recognised from the content, so every format can
// also be read from a parquet export of it.
type Format string

// The formats Open reads. FormatAuto (the empty string) detects the format
// from the content (see Detect).
const (
	FormatAuto       Format = ""
	FormatMedQA      Format = "medqa"      // MedQA JSONL: question, options {A..E}, answer_idx, answer, meta_info
	FormatStandard   Format = "standard"   // standardised JSONL: question, options {A..}, answer_idx, realidx
	FormatMedMCQA    Format = "medmcqa"    // original MedMCQA: id, question, opa..opd, cop, choice_type, subject_name, topic_name
	FormatPubMedQA   Format = "pubmedqa"   // PubMedQA ori_pqal.json (object keyed by PMID) or its HF rows
	FormatMMLU       Format = "mmlu"       // MMLU CSV without header (subject from the file name) or HF rows
	FormatMMLUPro    Format = "mmlu-pro"   // MMLU-Pro: question_id, question, options [..10], answer, answer_index, category
	FormatMedBullets Format = "medbullets" // MedBullets CSV with header (or pandas column JSON): question, opa..ope, answer_idx, answer, link
	FormatParquet    Format = "parquet"    // a parquet file whose schema is recognised from its columns
	FormatCanonical  Format = "canonical"  // medteam's own rows: the Question struct (JSONL or parquet)
	FormatMapped     Format = "mapped"     // any JSONL/JSON/CSV/parquet with an explicit FieldMap
)

// FormatInfo describes a format for help texts.
type FormatInfo struct {
	Format      Format
	Description string
}

// Formats lists the formats Open accepts, for --format help.
func Formats() []FormatInfo {
	return []FormatInfo{
		{FormatMedQA, "MedQA JSONL (official 4- and 5-option files): question, options {A..E}, answer_idx, answer, meta_info"},
		{FormatStandard, "standardised JSONL of MedMCQA/MMLU-Pro/MedBullets copies: question, options {A..}, answer_idx, realidx"},
		{FormatMedMCQA, "original MedMCQA JSON lines: id, question, opa..opd, cop (0- or 1-based), choice_type, subject_name, topic_name"},
		{FormatPubMedQA, "PubMedQA ori_pqal.json (with test_ground_truth.json beside it for the official test split)"},
		{FormatMMLU, "MMLU CSV without header, <subject>_<split>.csv (a file or a folder of them)"},
		{FormatMMLUPro, "MMLU-Pro: question_id, question, options (up to 10), answer, answer_index, category"},
		{FormatMedBullets, "MedBullets CSV with header (link, question, opa..ope, answer_idx, answer, explanation) or the same columns as pandas JSON"},
		{FormatParquet, "parquet export of any of these, recognised from its columns"},
		{FormatCanonical, "medteam canonical rows (datasets convert): id, dataset, split, stem, context, options, gold, meta"},
		{FormatMapped, "any JSONL/JSON/CSV/parquet with --map question=…,options=…,answer=…"},
	}
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

// container is how a file's records are laid out.
type container int

const (
	encJSONL       container = iota // one JSON object per line
	encJSONObject                   // one JSON object keyed by record id
	encJSONArray                    // one JSON array of record objects
	encJSONColumns                  // one JSON object of columns, each an object row label → value (pandas to_json)
	encCSV                          // CSV, with or without header
	encParquet                      // parquet
)

var utf8BOM = []byte("\xEF\xBB\xBF")

// Detect recognises the format of a dataset file, or of the files in a
// directory (which must all have the same format), from their content:
//
//   - parquet (magic "PAR1"): from the column names, as for JSON records;
//   - JSON Lines and JSON arrays: from the fields of the first record:
//     id+stem+options+gold → canonical; opa+cop → medmcqa; question_id+options
//     → mmlu-pro; pubid or QUESTION with final_decision → pubmedqa;
//     question+choices+answer → mmlu (HF); question+opa+answer_idx →
//     medbullets; question+options+answer_idx with realidx → standard,
//     without → medqa;
//   - a JSON object whose values are records with QUESTION → pubmedqa;
//   - a JSON object of columns, each an object mapping row labels ("0",
//     "1", …) to values, as pandas DataFrame.to_json() writes by default
//     (orient="columns"): from the column names, as for JSON records;
//   - CSV: a header with question, opa and answer_idx → medbullets; no header,
//     4 to 12 fields with a last field that is an option letter → mmlu.
//
// The first JSON object is decoded member by member, so detection holds one
// member value at a time and does not depend on the length of the first line:
// an object that ends on the line where it starts is a JSON Lines record; one
// spanning lines is a document (keyed by id) or an error.
//
// Anything else is an error that names the fields seen and suggests
// --format mapped with --map.
func Detect(path string) (Format, error) {
	files, err := expandPath(path, "")
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

// sniff finds the container of a file and, when want is FormatAuto, its
// format. It reads through ReaderAt only, so in keeps its offset.
func sniff(in io.ReaderAt, size int64, name string, want Format) (container, Format, error) {
	unrecognised := func(format string, args ...any) (container, Format, error) {
		return 0, "", fmt.Errorf("unrecognised dataset format in %s: %s; %s", name, fmt.Sprintf(format, args...), formatHint)
	}
	var magic [4]byte
	isParquet := false
	if n, _ := in.ReadAt(magic[:], 0); n == 4 && string(magic[:]) == "PAR1" {
		isParquet = true
	}
	if want == FormatParquet && !isParquet {
		return 0, "", fmt.Errorf("%s is not a parquet file (it does not start with PAR1); leave --format out to detect its format", name)
	}
	if isParquet {
		if want != FormatAuto && want != FormatParquet {
			return encParquet, want, nil
		}
		cols, err := parquetColumns(in, size, name)
		if err != nil {
			return 0, "", err
		}
		if fm := classifyFields(cols); fm != "" {
			return encParquet, fm, nil
		}
		return unrecognised("the parquet columns %s match no known format", fieldList(cols))
	}

	first, lineNo, err := firstSignificantByte(io.NewSectionReader(in, 0, size))
	if err != nil && err != io.EOF {
		return 0, "", fmt.Errorf("reading %s: %w", name, err)
	}
	if err == io.EOF {
		if want == FormatAuto {
			return unrecognised("the file is empty")
		}
		return 0, "", &ParseError{Source: name, Code: CodeFile, Fatal: true, Msg: "the file is empty; a dataset needs at least one record"}
	}

	switch first {
	case '{':
		o, err := sniffObject(in, size, name)
		if pe, ok := err.(*ParseError); ok {
			return 0, "", pe // a column document damaged after its first column
		}
		if err != nil {
			if want != FormatAuto {
				return encJSONL, want, nil // the loader reports the bad line
			}
			return unrecognised("line %d is not one JSON object (%v)", lineNo, err)
		}
		switch o.kind {
		case objColumns:
			if want != FormatAuto {
				return encJSONColumns, want, nil
			}
			if fm := classifyFields(o.keys); fm != "" {
				return encJSONColumns, fm, nil
			}
			return unrecognised("a column-oriented JSON document (pandas to_json) with the columns %s, which match no known format", fieldList(o.keys))
		case objPubMedDoc, objRecordDict:
			if want == FormatPubMedQA || want == FormatMapped {
				return encJSONObject, want, nil
			}
			if want != FormatAuto {
				return encJSONL, want, nil
			}
			if o.kind == objPubMedDoc {
				return encJSONObject, FormatPubMedQA, nil
			}
			return unrecognised("a JSON object keyed by id whose records have the fields %s; only PubMedQA's ori_pqal.json is read in this form", fieldList(o.keys))
		case objMultiline:
			if want != FormatAuto {
				return encJSONL, want, nil // the loader reports the bad line
			}
			return unrecognised("line %d is not one JSON object (an object spans lines %d–%d; JSON Lines has one record per line)", lineNo, o.startLine, o.endLine)
		}
		if want != FormatAuto {
			return encJSONL, want, nil
		}
		if fm := classifyFields(o.keys); fm != "" {
			return encJSONL, fm, nil
		}
		return unrecognised("the record on line %d has the fields %s, which match no known format", lineNo, fieldList(o.keys))
	case '[':
		if want != FormatAuto {
			return encJSONArray, want, nil
		}
		first, err := firstArrayRecord(in, size)
		if err != nil {
			return unrecognised("a JSON array whose first element is not a record (%v)", err)
		}
		if fm := classifyFields(slices.Collect(maps.Keys(first))); fm != "" {
			return encJSONArray, fm, nil
		}
		return unrecognised("a JSON array whose first record has the fields %s, which match no known format", fieldList(slices.Collect(maps.Keys(first))))
	}

	if want != FormatAuto {
		return encCSV, want, nil
	}
	// The first CSV record may span lines (a quoted field with line breaks).
	cr := csv.NewReader(skipBOM(io.NewSectionReader(in, 0, size)))
	cr.FieldsPerRecord = -1
	rec, err := cr.Read()
	if err != nil || len(rec) < 2 {
		return unrecognised("line %d is neither JSON nor a CSV row", lineNo)
	}
	lower := make([]string, len(rec))
	for i, f := range rec {
		lower[i] = strings.ToLower(strings.TrimSpace(f))
	}
	switch {
	case slices.Contains(lower, "question") && slices.Contains(lower, "opa") && slices.Contains(lower, "answer_idx"):
		return encCSV, FormatMedBullets, nil
	case slices.Contains(lower, "question") || slices.Contains(lower, "stem"):
		return unrecognised("a CSV file with the header %s, which matches no known format", fieldList(rec))
	case len(rec) >= 4 && len(rec) <= qa.MaxOptions+2 && isLetterWithin(strings.TrimSpace(rec[len(rec)-1]), len(rec)-2):
		return encCSV, FormatMMLU, nil
	}
	return unrecognised("line %d is neither JSON nor a recognised CSV row (MMLU rows are: question, 2 to 10 options, answer letter)", lineNo)
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
	objPubMedDoc                 // an object whose first value is a record with QUESTION (ori_pqal.json)
	objRecordDict                // an object over several lines whose first value is an object: records keyed by id
	objMultiline                 // an object over several lines that is none of these (not JSON Lines)
	objColumns                   // an object whose first value is an object keyed by row numbers: pandas columns
)

// objSniff describes the first JSON object of a file.
type objSniff struct {
	kind               objKind
	keys               []string // record fields (objRecord, objMultiline), column names (objColumns), the first record's fields (objPubMedDoc, objRecordDict)
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
		if len(o.keys) == 0 {
			if fields, isObj := recordFields(v); isObj {
				if slices.Contains(fields, "QUESTION") {
					return objSniff{kind: objPubMedDoc, keys: fields, startLine: o.startLine}, nil
				}
				if len(fields) > 0 && !slices.ContainsFunc(fields, func(k string) bool { return !isRowLabel(k) }) {
					o.kind = objColumns
				}
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

const formatHint = "name the format with --format (" + "medqa, standard, medmcqa, pubmedqa, mmlu, mmlu-pro, medbullets, canonical" + "), or map the fields with --format mapped --map question=…,options=…,answer=…"

// classifyFields recognises a format from the field (column) names of the
// first record; "" when none matches.
func classifyFields(names []string) Format {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	has := func(ks ...string) bool {
		for _, k := range ks {
			if !set[k] {
				return false
			}
		}
		return true
	}
	switch {
	case has("id", "stem", "options", "gold"):
		return FormatCanonical
	case has("opa", "cop"):
		return FormatMedMCQA
	case has("question_id", "options") && (set["answer"] || set["answer_index"]):
		return FormatMMLUPro
	case (set["pubid"] || set["QUESTION"]) && set["final_decision"]:
		return FormatPubMedQA
	case has("question", "choices", "answer"):
		return FormatMMLU
	case has("question", "opa", "answer_idx"):
		return FormatMedBullets
	case has("question", "options", "answer_idx", "realidx"):
		return FormatStandard
	case has("question", "options", "answer_idx"):
		return FormatMedQA
	}
	return ""
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
