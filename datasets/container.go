package datasets

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/medteam-bench/medteam/qa"
)

// recordReader yields the raw records of one file in order. next returns
// io.EOF at the end, a *ParseError for a bad record (reading may continue
// unless it is Fatal) and any other error for an I/O failure.
type recordReader interface {
	next() (*record, error)
}

// input is an open dataset file: read sequentially by the text readers and
// at offsets by the parquet reader and the format sniffer.
type input interface {
	io.Reader
	io.ReaderAt
}

// opened is one open file of a source.
type opened struct {
	in     input
	size   int64
	closer io.Closer
}

// openPath opens a file on disk.
func openPath(path string) (opened, error) {
	f, err := os.Open(path)
	if err != nil {
		return opened{}, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return opened{}, err
	}
	if st.IsDir() {
		f.Close()
		return opened{}, fmt.Errorf("%s is a directory; give a file, or the directory itself as the dataset path", path)
	}
	return opened{in: f, size: st.Size(), closer: f}, nil
}

// openBytes wraps data held in memory (the embedded sample, fuzz inputs).
func openBytes(data []byte) opened {
	return opened{in: bytes.NewReader(data), size: int64(len(data))}
}

// dataExtensions are the file extensions read from a dataset directory.
var dataExtensions = []string{".jsonl", ".ndjson", ".json", ".csv", ".parquet"}

// expandPath lists the files of a dataset path: the file itself, or the data
// files of a directory in name order (hidden files, other extensions and
// PubMedQA ground-truth files are left out). When split is not empty, files
// whose name names another split (anatomy_dev.csv for split "test") are left
// out too.
func expandPath(path, split string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || !slices.Contains(dataExtensions, strings.ToLower(filepath.Ext(name))) {
			continue
		}
		if strings.Contains(strings.ToLower(name), "ground_truth") {
			continue
		}
		if split != "" && split != AllSplits {
			if s := fileSplit(name); s != "" && s != split {
				continue
			}
		}
		out = append(out, filepath.Join(path, name))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s contains no dataset files (%s)", path, strings.Join(dataExtensions, ", "))
	}
	return out, nil
}

// fileSplit is the split a file name states: the MMLU suffix
// (_test/_dev/_val/_train before the extension), else SplitFromName.
func fileSplit(path string) string {
	base := strings.ToLower(filepath.Base(path))
	base = strings.TrimSuffix(base, filepath.Ext(base))
	for _, s := range []string{"test", "dev", "val", "train"} {
		if strings.HasSuffix(base, "_"+s) {
			return s
		}
	}
	return SplitFromName(path)
}

// mmluSubject is the subject an MMLU file name states:
// "anatomy_test.csv" → "anatomy".
func mmluSubject(path string) string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	for _, s := range []string{"_test", "_dev", "_val", "_train"} {
		if strings.HasSuffix(strings.ToLower(base), s) {
			return base[:len(base)-len(s)]
		}
	}
	return ""
}

// ---- JSON Lines ----

type jsonlReader struct {
	br     *bufio.Reader
	name   string
	lineNo int
	eof    bool
}

func newJSONLReader(r io.Reader, name string) *jsonlReader {
	return &jsonlReader{br: bufio.NewReaderSize(r, 64<<10), name: name}
}

// MaxRecordBytes is the per-record limit of JSON Lines files: a line longer
// than this (256 MiB) is reported as a CodeSize problem at its file:line and
// skipped without being held in memory; reading goes on with the next line.
// Lines up to the limit are read whole, however long (format detection does
// not depend on the length of the first line). CSV rows and the records of
// JSON documents have no such limit.
const MaxRecordBytes = 256 << 20

// maxRecordBytes is MaxRecordBytes, lowered by tests.
var maxRecordBytes = MaxRecordBytes

// readLineCapped reads one line with its newline. A line longer than max
// bytes is read to its end but not kept: it returns the length read and
// over = true. err is io.EOF for a final line without a newline (or none).
func readLineCapped(br *bufio.Reader, max int) (line []byte, n int, over bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if !over {
			if n > max {
				over, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, n, over, err
	}
}

func (c *jsonlReader) next() (*record, error) {
	for !c.eof {
		line, n, over, err := readLineCapped(c.br, maxRecordBytes)
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("reading %s: %w", c.name, err)
		}
		if err == io.EOF {
			c.eof = true
		}
		if n == 0 {
			continue
		}
		c.lineNo++
		if over {
			return nil, &ParseError{Source: c.name, Line: c.lineNo, Code: CodeSize, Msg: fmt.Sprintf(
				"the line has %d bytes, over the per-record limit of %d MiB for JSON Lines; shorten the record (for example drop fields medteam does not read) or leave it out with --skip-invalid",
				n, maxRecordBytes>>20)}
		}
		final := line[len(line)-1] != '\n'
		if c.lineNo == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return parseJSONLine(line, c.name, c.lineNo, final)
	}
	return nil, io.EOF
}

// parseJSONLine decodes one non-blank line into a record. final is true for
// a last line without a newline, where a cut-off object means truncation.
func parseJSONLine(line []byte, source string, lineNo int, final bool) (*record, error) {
	fail := func(code, format string, args ...any) (*record, error) {
		return nil, &ParseError{Source: source, Line: lineNo, Code: code, Msg: fmt.Sprintf(format, args...)}
	}
	if off := invalidUTF8At(line); off >= 0 {
		return fail(CodeEncoding, "invalid UTF-8 at byte %d of the line; re-encode the file as UTF-8", off+1)
	}
	if json.Valid(line) {
		if m, dup, ok := objectMap(line); ok {
			if dup != "" {
				return nil, &ParseError{Source: source, Line: lineNo, Field: dup, Code: CodeSyntax,
					Msg: "the field appears more than once in the record; keep one (a JSON reader would silently use the last)"}
			}
			return &record{json: m, line: lineNo}, nil
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn) && syn.Error() == "unexpected end of JSON input":
			code := CodeSyntax
			if final {
				code = CodeTruncated
			}
			return fail(code, "invalid JSON: unexpected end of input; the line looks truncated (was the file completely written?)")
		case errors.As(err, &syn):
			return fail(CodeSyntax, "invalid JSON at byte %d: %v; each line must be one JSON object", syn.Offset, syn)
		case errors.As(err, &typ) && typ.Field == "":
			return fail(CodeSyntax, "line is a JSON %s, not an object; each line must be one JSON object", typ.Value)
		default:
			return fail(CodeSyntax, "invalid JSON: %v", err)
		}
	}
	if m == nil {
		return fail(CodeSyntax, "line is JSON null, not an object; each line must be one JSON object")
	}
	return &record{json: m, line: lineNo}, nil
}

// invalidUTF8At returns the offset of the first invalid UTF-8 byte, or -1.
func invalidUTF8At(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	off := 0
	for off < len(b) {
		r, size := utf8.DecodeRune(b[off:])
		if r == utf8.RuneError && size <= 1 {
			return off
		}
		off += size
	}
	return -1
}

// ---- JSON documents (an object keyed by id, or an array of records) ----

// lineCounter counts the lines of what passes through it, so that offsets
// reported by a json.Decoder can be turned into line numbers. Queries must
// come in increasing offset order; only newlines not yet passed are kept, so
// memory stays bounded by the decoder's look-ahead.
type lineCounter struct {
	r    io.Reader
	off  int64
	nl   []int64
	line int
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	b, base := p[:n], c.off
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		c.nl = append(c.nl, base+int64(i))
		base += int64(i) + 1
		b = b[i+1:]
	}
	c.off += int64(n)
	return n, err
}

// lineAt returns the 1-based line of byte offset off.
func (c *lineCounter) lineAt(off int64) int {
	i := 0
	for i < len(c.nl) && c.nl[i] < off {
		i++
	}
	c.line += i
	c.nl = c.nl[i:]
	return c.line + 1
}

type jsonDocReader struct {
	dec     *json.Decoder
	lc      *lineCounter
	name    string
	kind    json.Delim
	started bool
	done    bool
	n       int
}

func newJSONDocReader(r io.Reader, name string) *jsonDocReader {
	lc := &lineCounter{r: skipBOM(r)}
	return &jsonDocReader{dec: json.NewDecoder(lc), lc: lc, name: name}
}

func (c *jsonDocReader) fatal(err error) error { return docFatal(c.lc, c.name, err) }

// docFatal turns an error of a json.Decoder reading a document into a fatal
// problem at its line (syntax, truncated), or an I/O error.
func docFatal(lc *lineCounter, name string, err error) error {
	pe := &ParseError{Source: name, Code: CodeSyntax, Fatal: true}
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		pe.Line = lc.lineAt(syn.Offset)
		pe.Msg = fmt.Sprintf("invalid JSON: %v; the rest of the document cannot be read", syn)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		pe.Line = lc.lineAt(lc.off)
		pe.Code = CodeTruncated
		pe.Msg = "the JSON document ends early; the file looks truncated (was it completely written?)"
	default:
		var pe2 *ParseError
		if errors.As(err, &pe2) {
			return pe2
		}
		return fmt.Errorf("reading %s: %w", name, err)
	}
	return pe
}

func (c *jsonDocReader) next() (*record, error) {
	if c.done {
		return nil, io.EOF
	}
	if !c.started {
		tok, err := c.dec.Token()
		if err != nil {
			c.done = true
			return nil, c.fatal(err)
		}
		d, ok := tok.(json.Delim)
		if !ok || (d != '{' && d != '[') {
			c.done = true
			return nil, &ParseError{Source: c.name, Line: 1, Code: CodeSyntax, Fatal: true,
				Msg: "the file must be a JSON object keyed by record id, or an array of record objects"}
		}
		c.kind, c.started = d, true
	}
	if !c.dec.More() {
		c.done = true
		if _, err := c.dec.Token(); err != nil {
			return nil, c.fatal(err)
		}
		if _, err := c.dec.Token(); err != io.EOF {
			line := c.lc.lineAt(c.dec.InputOffset())
			return nil, &ParseError{Source: c.name, Line: line, Code: CodeSyntax, Fatal: true,
				Msg: "unexpected data after the end of the JSON document"}
		}
		return nil, io.EOF
	}
	key := ""
	if c.kind == '{' {
		tok, err := c.dec.Token()
		if err != nil {
			c.done = true
			return nil, c.fatal(err)
		}
		key, _ = tok.(string)
	}
	var raw json.RawMessage
	if err := c.dec.Decode(&raw); err != nil {
		c.done = true
		return nil, c.fatal(err)
	}
	c.n++
	line := c.lc.lineAt(c.dec.InputOffset() - int64(len(raw)))
	fail := func(code, format string, args ...any) (*record, error) {
		return nil, &ParseError{Source: c.name, Line: line, Code: code, Msg: fmt.Sprintf(format, args...)}
	}
	if off := invalidUTF8At(raw); off >= 0 {
		return fail(CodeEncoding, "invalid UTF-8 in the record (byte %d); re-encode the file as UTF-8", off+1)
	}
	if strings.ContainsRune(key, utf8.RuneError) {
		return fail(CodeEncoding, "invalid UTF-8 in the key %q; re-encode the file as UTF-8", key)
	}
	m, dup, ok := objectMap(raw)
	if ok && dup != "" {
		return nil, &ParseError{Source: c.name, Line: line, Field: dup, Code: CodeSyntax,
			Msg: "the field appears more than once in the record; keep one (a JSON reader would silently use the last)"}
	}
	if !ok {
		if c.kind == '{' {
			return fail(CodeType, "the value of %q is %s, not a record object", key, jsonKind(raw))
		}
		return fail(CodeType, "element %d is %s, not a record object", c.n, jsonKind(raw))
	}
	return &record{json: m, key: key, line: line, row: c.n}, nil
}

// ---- column-oriented JSON (pandas DataFrame.to_json(), orient="columns") ----

// jsonColumnsReader reads {"col": {"0": v, "1": v, …}, …}: each record is
// spread over the whole document, so the document is read whole (held in
// memory, about its size) on the first call. Rows come in the order their
// labels first appear (pandas writes them in index order); a row missing
// from a column lacks that field. Problems of a row carry Row (the N-th row
// label), not a line; problems of the layout are fatal and name the column.
type jsonColumnsReader struct {
	in     io.Reader
	name   string
	rows   []map[string]json.RawMessage
	n      int
	loaded bool
}

func newJSONColumnsReader(r io.Reader, name string) *jsonColumnsReader {
	return &jsonColumnsReader{in: r, name: name}
}

func (c *jsonColumnsReader) load() error {
	lc := &lineCounter{r: skipBOM(c.in)}
	dec := json.NewDecoder(lc)
	tok, err := dec.Token()
	if err != nil {
		return docFatal(lc, c.name, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return &ParseError{Source: c.name, Line: 1, Code: CodeSyntax, Fatal: true,
			Msg: `a column-oriented JSON document must be one object of columns, {"question": {"0": …}, …}`}
	}
	index := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return docFatal(lc, c.name, err)
		}
		col, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return docFatal(lc, c.name, err)
		}
		fail := func(format string, args ...any) error {
			return &ParseError{Source: c.name, Line: lc.lineAt(dec.InputOffset() - int64(len(raw))), Field: col, Code: CodeType, Fatal: true,
				Msg: fmt.Sprintf(format, args...)}
		}
		labels, vals, ok := splitObject(raw)
		if !ok {
			return fail("column %q is %s, not an object of row values keyed by row label; the file mixes layouts", col, jsonKind(raw))
		}
		seen := make(map[string]bool, len(labels))
		for i, label := range labels {
			if !isRowLabel(label) {
				return fail("column %q: row label %q is not a non-negative integer; write the DataFrame with its default index (df.reset_index(drop=True).to_json())", col, clip(label))
			}
			if seen[label] {
				return fail("column %q has the row label %q twice", col, label)
			}
			seen[label] = true
			k, ok := index[label]
			if !ok {
				k = len(c.rows)
				index[label] = k
				c.rows = append(c.rows, map[string]json.RawMessage{})
			}
			c.rows[k][col] = vals[i]
		}
	}
	if _, err := dec.Token(); err != nil {
		return docFatal(lc, c.name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return &ParseError{Source: c.name, Line: lc.lineAt(dec.InputOffset()), Code: CodeSyntax, Fatal: true,
			Msg: "unexpected data after the end of the JSON document"}
	}
	return nil
}

func (c *jsonColumnsReader) next() (*record, error) {
	if !c.loaded {
		c.loaded = true
		if err := c.load(); err != nil {
			c.rows = nil
			return nil, err
		}
	}
	if c.n >= len(c.rows) {
		return nil, io.EOF
	}
	rec := c.rows[c.n]
	c.rows[c.n] = nil
	c.n++
	return &record{json: rec, row: c.n}, nil
}

// ---- CSV ----

type csvLayout int

const (
	csvHeader csvLayout = iota // the first row names the columns
	csvMMLU                    // no header: question, options…, answer letter
)

type csvReader struct {
	cr     *csv.Reader
	name   string
	layout csvLayout
	header []string
	width  int // MMLU: the field count of the first row
	done   bool
}

func newCSVReader(r io.Reader, name string, layout csvLayout) *csvReader {
	cr := csv.NewReader(skipBOM(r))
	cr.FieldsPerRecord = -1
	return &csvReader{cr: cr, name: name, layout: layout}
}

func (c *csvReader) next() (*record, error) {
	for {
		if c.done {
			return nil, io.EOF
		}
		cells, err := c.cr.Read()
		if err == io.EOF {
			c.done = true
			if c.layout == csvHeader && c.header == nil {
				return nil, &ParseError{Source: c.name, Code: CodeFile, Fatal: true, Msg: "the CSV file is empty; it needs a header row and records"}
			}
			return nil, io.EOF
		}
		if err != nil {
			c.done = true
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &ParseError{Source: c.name, Line: pe.StartLine, Code: CodeSyntax, Fatal: true, Msg: fmt.Sprintf(
					"CSV: %v (line %d, column %d); fields with commas, quotes or line breaks must be in double quotes, with inner quotes doubled — or the file is truncated",
					pe.Err, pe.Line, pe.Column)}
			}
			return nil, fmt.Errorf("reading %s: %w", c.name, err)
		}
		line, _ := c.cr.FieldPos(0)
		fail := func(field, code, format string, args ...any) (*record, error) {
			return nil, &ParseError{Source: c.name, Line: line, Field: field, Code: code, Msg: fmt.Sprintf(format, args...)}
		}
		for i, cell := range cells {
			if off := invalidUTF8At([]byte(cell)); off >= 0 {
				return fail(c.columnName(i), CodeEncoding, "invalid UTF-8 at byte %d of the field; re-encode the file as UTF-8", off+1)
			}
		}
		switch c.layout {
		case csvHeader:
			if c.header == nil {
				c.header = make([]string, len(cells))
				for i, h := range cells {
					c.header[i] = strings.TrimSpace(h)
				}
				continue
			}
			if len(cells) < len(c.header) {
				return fail("", CodeFields, "row has %d fields but the header has %d (%s); a field is missing or a comma inside a field is not quoted",
					len(cells), len(c.header), strings.Join(c.header, ","))
			}
			for i := len(c.header); i < len(cells); i++ {
				if strings.TrimSpace(cells[i]) != "" {
					return fail("", CodeFields, "row has %d fields but the header has %d, and field %d is not empty; a comma inside a field is probably not quoted",
						len(cells), len(c.header), i+1)
				}
			}
			m := make(map[string]any, len(c.header))
			for i, h := range c.header {
				m[h] = cells[i]
			}
			return &record{native: m, line: line}, nil
		default: // csvMMLU
			if c.width == 0 {
				if len(cells) < 4 || len(cells) > qa.MaxOptions+2 {
					return fail("", CodeFields, "row has %d fields; an MMLU row has the question, 2 to %d options and the answer letter (usually 6 fields)", len(cells), qa.MaxOptions)
				}
				c.width = len(cells)
			}
			if len(cells) != c.width {
				return fail("", CodeFields, "row has %d fields but the first row has %d (question, %d options, answer); a field is missing or a comma inside a field is not quoted",
					len(cells), c.width, c.width-2)
			}
			choices := make([]any, c.width-2)
			for i := range choices {
				choices[i] = cells[i+1]
			}
			return &record{native: map[string]any{"question": cells[0], "choices": choices, "answer": cells[c.width-1]}, line: line}, nil
		}
	}
}

func (c *csvReader) columnName(i int) string {
	if c.layout == csvHeader && c.header != nil && i < len(c.header) {
		return c.header[i]
	}
	return fmt.Sprintf("column %d", i+1)
}

// ---- parquet ----

type parquetReader struct {
	rd   *parquet.Reader
	name string
	n    int
	done bool
}

// checkParquetFrame checks the magic bytes and that the footer fits in the
// file, before parquet-go trusts the footer length (a damaged length makes it
// try to read gigabytes).
func checkParquetFrame(in io.ReaderAt, size int64, name string) error {
	bad := func(why string) error {
		return &ParseError{Source: name, Code: CodeFile, Fatal: true, Msg: "not a readable parquet file: " + why + "; the file is truncated or damaged — re-export or re-download it"}
	}
	if size < 12 {
		return bad("too short")
	}
	var head, tail [4]byte
	var foot [8]byte
	if _, err := in.ReadAt(head[:], 0); err != nil {
		return bad(err.Error())
	}
	if _, err := in.ReadAt(foot[:], size-8); err != nil {
		return bad(err.Error())
	}
	copy(tail[:], foot[4:])
	if string(head[:]) != "PAR1" || string(tail[:]) != "PAR1" {
		return bad("the magic bytes PAR1 are missing at the start or the end")
	}
	if n := int64(binary.LittleEndian.Uint32(foot[:4])); n == 0 || n > size-12 {
		return bad(fmt.Sprintf("the footer claims %d bytes in a file of %d", n, size))
	}
	return nil
}

func newParquetReader(in io.ReaderAt, size int64, name string) (pr *parquetReader, err error) {
	if err := checkParquetFrame(in, size, name); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			pr, err = nil, &ParseError{Source: name, Code: CodeFile, Fatal: true, Msg: fmt.Sprintf("not a readable parquet file: %v", r)}
		}
	}()
	f, err := parquet.OpenFile(in, size)
	if err != nil {
		return nil, &ParseError{Source: name, Code: CodeFile, Fatal: true, Msg: fmt.Sprintf("not a readable parquet file: %v; re-export or re-download it", err)}
	}
	return &parquetReader{rd: parquet.NewReader(f), name: name}, nil
}

func (c *parquetReader) next() (rec *record, err error) {
	if c.done {
		return nil, io.EOF
	}
	defer func() {
		if r := recover(); r != nil {
			c.done = true
			rec, err = nil, &ParseError{Source: c.name, Row: c.n + 1, Code: CodeFile, Fatal: true, Msg: fmt.Sprintf("cannot read the row: %v; the file is damaged", r)}
		}
	}()
	m := map[string]any{}
	if err := c.rd.Read(&m); err != nil {
		c.done = true
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, &ParseError{Source: c.name, Row: c.n + 1, Code: CodeFile, Fatal: true, Msg: fmt.Sprintf("cannot read the row: %v; the file is damaged", err)}
	}
	c.n++
	return &record{native: m, row: c.n}, nil
}

func (c *parquetReader) close() error {
	if c.rd == nil {
		return nil
	}
	return c.rd.Close()
}

// parquetColumns returns the top-level column names of a parquet file.
func parquetColumns(in io.ReaderAt, size int64, name string) (cols []string, err error) {
	if err := checkParquetFrame(in, size, name); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			cols, err = nil, &ParseError{Source: name, Code: CodeFile, Fatal: true, Msg: fmt.Sprintf("not a readable parquet file: %v", r)}
		}
	}()
	f, err := parquet.OpenFile(in, size)
	if err != nil {
		return nil, &ParseError{Source: name, Code: CodeFile, Fatal: true, Msg: fmt.Sprintf("not a readable parquet file: %v; re-export or re-download it", err)}
	}
	for _, field := range f.Schema().Fields() {
		cols = append(cols, field.Name())
	}
	return cols, nil
}
