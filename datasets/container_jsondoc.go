package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

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

// jsonDocReader reads a JSON document that is an object keyed by record id
// or an array of records, one member at a time.
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

func openJSONDoc(o opened, path string, _ *formatDef) (recordReader, error) {
	return newJSONDocReader(io.NewSectionReader(o.in, 0, o.size), path), nil
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
		if err := c.start(); err != nil {
			c.done = true
			return nil, err
		}
	}
	if !c.dec.More() {
		c.done = true
		return nil, c.end()
	}
	key, raw, err := c.member()
	if err != nil {
		c.done = true
		return nil, c.fatal(err)
	}
	c.n++
	line := c.lc.lineAt(c.dec.InputOffset() - int64(len(raw)))
	return c.record(key, raw, line)
}

// start reads the opening '{' or '['.
func (c *jsonDocReader) start() error {
	tok, err := c.dec.Token()
	if err != nil {
		return c.fatal(err)
	}
	d, ok := tok.(json.Delim)
	if !ok || (d != '{' && d != '[') {
		return &ParseError{Source: c.name, Line: 1, Code: CodeSyntax, Fatal: true,
			Msg: "the file must be a JSON object keyed by record id, or an array of record objects"}
	}
	c.kind, c.started = d, true
	return nil
}

// end reads the closing '}' or ']' and checks that nothing follows:
// io.EOF, or the problem.
func (c *jsonDocReader) end() error {
	if _, err := c.dec.Token(); err != nil {
		return c.fatal(err)
	}
	if _, err := c.dec.Token(); err != io.EOF {
		line := c.lc.lineAt(c.dec.InputOffset())
		return &ParseError{Source: c.name, Line: line, Code: CodeSyntax, Fatal: true,
			Msg: "unexpected data after the end of the JSON document"}
	}
	return io.EOF
}

// member reads the next member: its key (in an object) and its value.
func (c *jsonDocReader) member() (string, json.RawMessage, error) {
	key := ""
	if c.kind == '{' {
		tok, err := c.dec.Token()
		if err != nil {
			return "", nil, err
		}
		key, _ = tok.(string)
	}
	var raw json.RawMessage
	if err := c.dec.Decode(&raw); err != nil {
		return "", nil, err
	}
	return key, raw, nil
}

// record turns the member read into a record, or reports why it is none.
func (c *jsonDocReader) record(key string, raw json.RawMessage, line int) (*record, error) {
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
