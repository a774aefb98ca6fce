package datasets

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// csvReader reads CSV: with a header row naming the columns, or, for a
// format with a headerless layout (MMLU), rows that the layout turns into
// records.
type csvReader struct {
	cr         *csv.Reader
	name       string
	headerless *headerlessCSV // nil: the first row is the header
	header     []string
	width      int // headerless: the field count of the first row
	done       bool
}

func newCSVReader(r io.Reader, name string, headerless *headerlessCSV) *csvReader {
	cr := csv.NewReader(skipBOM(r))
	cr.FieldsPerRecord = -1
	return &csvReader{cr: cr, name: name, headerless: headerless}
}

func openCSV(o opened, path string, f *formatDef) (recordReader, error) {
	return newCSVReader(io.NewSectionReader(o.in, 0, o.size), path, f.Headerless), nil
}

func (c *csvReader) next() (*record, error) {
	for {
		if c.done {
			return nil, io.EOF
		}
		cells, err := c.cr.Read()
		if err != nil {
			c.done = true
			return nil, c.readError(err)
		}
		line, _ := c.cr.FieldPos(0)
		for i, cell := range cells {
			if off := invalidUTF8At([]byte(cell)); off >= 0 {
				return c.fail(line, c.columnName(i), CodeEncoding, "invalid UTF-8 at byte %d of the field; re-encode the file as UTF-8", off+1)
			}
		}
		switch {
		case c.headerless != nil:
			return c.headerlessRecord(cells, line)
		case c.header == nil:
			c.header = make([]string, len(cells))
			for i, h := range cells {
				c.header[i] = strings.TrimSpace(h)
			}
			continue
		}
		return c.headerRecord(cells, line)
	}
}

// readError is what an error of the CSV reader means: the end of the file
// (an empty file, if it has no header either), a fatal syntax problem, or an
// I/O error.
func (c *csvReader) readError(err error) error {
	if err == io.EOF {
		if c.headerless == nil && c.header == nil {
			return &ParseError{Source: c.name, Code: CodeFile, Fatal: true, Msg: "the CSV file is empty; it needs a header row and records"}
		}
		return io.EOF
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{Source: c.name, Line: pe.StartLine, Code: CodeSyntax, Fatal: true, Msg: fmt.Sprintf(
			"CSV: %v (line %d, column %d); fields with commas, quotes or line breaks must be in double quotes, with inner quotes doubled — or the file is truncated",
			pe.Err, pe.Line, pe.Column)}
	}
	return fmt.Errorf("reading %s: %w", c.name, err)
}

func (c *csvReader) fail(line int, field, code, format string, args ...any) (*record, error) {
	return nil, &ParseError{Source: c.name, Line: line, Field: field, Code: code, Msg: fmt.Sprintf(format, args...)}
}

// headerRecord is a row under a header: its fields by column name. Extra
// trailing fields must be empty.
func (c *csvReader) headerRecord(cells []string, line int) (*record, error) {
	if len(cells) < len(c.header) {
		return c.fail(line, "", CodeFields, "row has %d fields but the header has %d (%s); a field is missing or a comma inside a field is not quoted",
			len(cells), len(c.header), strings.Join(c.header, ","))
	}
	for i := len(c.header); i < len(cells); i++ {
		if strings.TrimSpace(cells[i]) != "" {
			return c.fail(line, "", CodeFields, "row has %d fields but the header has %d, and field %d is not empty; a comma inside a field is probably not quoted",
				len(cells), len(c.header), i+1)
		}
	}
	m := make(map[string]any, len(c.header))
	for i, h := range c.header {
		m[h] = cells[i]
	}
	return &record{native: m, line: line}, nil
}

// headerlessRecord is a row of a headerless layout.
func (c *csvReader) headerlessRecord(cells []string, line int) (*record, error) {
	m, err := c.headerless.Row(cells, c.width)
	if err != nil {
		return c.fail(line, "", CodeFields, "%v", err)
	}
	if c.width == 0 {
		c.width = len(cells)
	}
	return &record{native: m, line: line}, nil
}

func (c *csvReader) columnName(i int) string {
	if c.headerless == nil && c.header != nil && i < len(c.header) {
		return c.header[i]
	}
	return fmt.Sprintf("column %d", i+1)
}
