package datasets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// jsonlReader reads JSON Lines: one record object per line.
type jsonlReader struct {
	br     *bufio.Reader
	name   string
	lineNo int
	eof    bool
}

func newJSONLReader(r io.Reader, name string) *jsonlReader {
	return &jsonlReader{br: bufio.NewReaderSize(r, 64<<10), name: name}
}

func openJSONL(o opened, path string, _ *formatDef) (recordReader, error) {
	return newJSONLReader(io.NewSectionReader(o.in, 0, o.size), path), nil
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
