package datasets

import (
	"encoding/json"
	"fmt"
	"io"
)

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

func openJSONColumns(o opened, path string, _ *formatDef) (recordReader, error) {
	return newJSONColumnsReader(io.NewSectionReader(o.in, 0, o.size), path), nil
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
