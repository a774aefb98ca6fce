package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// groupedDoc describes a JSON document whose records sit in groups, as
// HEAD-QA's: {"version": …, "exams": {"<exam>": {"name": …, "year": …,
// "category": …, "data": [record, …]}, …}}. The groups are read one at a
// time (one group's records in memory), the records of a group in order.
type groupedDoc struct {
	// Name names the document in messages ("HEAD-QA's exams document").
	Name string
	// Groups is the top-level member holding the groups: an object keyed
	// by group name, or an array.
	Groups string
	// Items is the member of a group holding its records (an array).
	Items string
	// Inherit lists the group's fields given to each of its records that
	// lacks them (HEAD-QA's exam name, year and category).
	Inherit []string
	// Detect recognises the format from the fields of the first record of
	// the first group.
	Detect func(fields []string) bool
}

// groupedReader reads a grouped document (see groupedDoc).
type groupedReader struct {
	dec       *json.Decoder
	lc        *lineCounter
	name      string
	g         *groupedDoc
	started   bool
	inGroups  bool
	groupKind json.Delim
	sawGroups bool
	done      bool
	pending   []groupedItem
	n         int // records read
	groups    int // groups read
}

// groupedItem is one record of the current group, or its problem.
type groupedItem struct {
	rec *record
	err error
}

func openGrouped(o opened, path string, f *formatDef) (recordReader, error) {
	lc := &lineCounter{r: skipBOM(io.NewSectionReader(o.in, 0, o.size))}
	return &groupedReader{dec: json.NewDecoder(lc), lc: lc, name: path, g: f.Grouped}, nil
}

func (c *groupedReader) fatal(err error) error {
	c.done = true
	return docFatal(c.lc, c.name, err)
}

// problem is a fatal problem of the document's structure at its line.
func (c *groupedReader) problem(code, format string, args ...any) error {
	c.done = true
	return &ParseError{Source: c.name, Line: c.lc.lineAt(c.dec.InputOffset()), Code: code, Fatal: true, Msg: fmt.Sprintf(format, args...)}
}

func (c *groupedReader) next() (*record, error) {
	for {
		if len(c.pending) > 0 {
			it := c.pending[0]
			c.pending = c.pending[1:]
			return it.rec, it.err
		}
		if c.done {
			return nil, io.EOF
		}
		if err := c.step(); err != nil {
			return nil, err
		}
	}
}

// step reads the document up to the next group (queueing its records) or
// to its end (io.EOF), or returns the problem that ends reading.
func (c *groupedReader) step() error {
	switch {
	case !c.started:
		return c.start()
	case c.inGroups && !c.dec.More():
		return c.closeGroups()
	case c.inGroups:
		return c.group()
	case !c.dec.More():
		return c.finish()
	}
	return c.member()
}

// start reads the document's opening '{'; anything else is refused.
func (c *groupedReader) start() error {
	tok, err := c.dec.Token()
	if err != nil {
		return c.fatal(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return c.problem(CodeSyntax, "%s must be a JSON object with a %q member", c.g.Name, c.g.Groups)
	}
	c.started = true
	return nil
}

// closeGroups reads the delimiter closing the Groups member, after its
// last group.
func (c *groupedReader) closeGroups() error {
	if _, err := c.dec.Token(); err != nil {
		return c.fatal(err)
	}
	c.inGroups = false
	return nil
}

// finish reads the document's closing '}', refuses data after it, and
// refuses a document that had no Groups member.
func (c *groupedReader) finish() error {
	if _, err := c.dec.Token(); err != nil { // the closing '}'
		return c.fatal(err)
	}
	if _, err := c.dec.Token(); err != io.EOF {
		return c.problem(CodeSyntax, "unexpected data after the end of the JSON document")
	}
	c.done = true
	if !c.sawGroups {
		return &ParseError{Source: c.name, Code: CodeMissing, Fatal: true, Field: c.g.Groups,
			Msg: fmt.Sprintf("missing; %s holds its records in %q", c.g.Name, c.g.Groups)}
	}
	return nil
}

// member reads one top-level member: another member's value is skipped; the
// Groups member (allowed once) is entered up to its opening '{' or '['.
func (c *groupedReader) member() error {
	tok, err := c.dec.Token()
	if err != nil {
		return c.fatal(err)
	}
	key, _ := tok.(string)
	if key != c.g.Groups {
		var skip json.RawMessage
		if err := c.dec.Decode(&skip); err != nil {
			return c.fatal(err)
		}
		return nil
	}
	if c.sawGroups {
		return c.problem(CodeSyntax, "%q appears twice in the document; keep one", c.g.Groups)
	}
	tok, err = c.dec.Token()
	if err != nil {
		return c.fatal(err)
	}
	d, ok := tok.(json.Delim)
	if !ok || (d != '{' && d != '[') {
		return c.problem(CodeType, "%q must be an object of groups keyed by name, or an array of groups", c.g.Groups)
	}
	c.sawGroups, c.inGroups, c.groupKind = true, true, d
	return nil
}

// group reads one group whole, checks it is an object with an Items
// member, and queues its records.
func (c *groupedReader) group() error {
	key := ""
	if c.groupKind == '{' {
		tok, err := c.dec.Token()
		if err != nil {
			return c.fatal(err)
		}
		key, _ = tok.(string)
	}
	var raw json.RawMessage
	if err := c.dec.Decode(&raw); err != nil {
		return c.fatal(err)
	}
	c.groups++
	start := c.dec.InputOffset() - int64(len(raw))
	g := groupAt{key: key, raw: raw, line: c.lc.lineAt(start), label: key}
	if g.label == "" {
		g.label = fmt.Sprintf("number %d", c.groups)
	}
	gm, dup, ok := objectMap(raw)
	switch {
	case !ok:
		return c.groupProblem(g, CodeType, "group %s of %q is %s, not an object; its records cannot be read", g.label, c.g.Groups, jsonKind(raw))
	case dup != "":
		return c.groupProblem(g, CodeSyntax, "group %s: the field %q appears more than once; keep one", g.label, dup)
	}
	items, ok := gm[c.g.Items]
	if !ok || isNull(items) {
		return c.groupProblem(g, CodeMissing, "group %s has no %q array of records", g.label, c.g.Items)
	}
	g.fields = gm
	return c.queueItems(g)
}

// groupAt is one group being read: its key ("" in an array of groups), its
// raw JSON, the line it starts on, the label naming it in messages and its
// fields.
type groupAt struct {
	key    string
	raw    json.RawMessage
	line   int
	label  string
	fields map[string]json.RawMessage
}

// groupProblem is a fatal problem of group g, at the line it starts on.
func (c *groupedReader) groupProblem(g groupAt, code, format string, args ...any) error {
	c.done = true
	return &ParseError{Source: c.name, Line: g.line, Code: code, Fatal: true, Msg: fmt.Sprintf(format, args...)}
}

// queueItems queues the records of group g's Items array (the group's
// other members skipped), each at its own line.
func (c *groupedReader) queueItems(g groupAt) error {
	dec := json.NewDecoder(bytes.NewReader(g.raw))
	if _, err := dec.Token(); err != nil { // '{'
		return c.fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return c.fatal(err)
		}
		if k, _ := tok.(string); k != c.g.Items {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return c.fatal(err)
			}
			continue
		}
		tok, err = dec.Token()
		if err != nil {
			return c.fatal(err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return c.groupProblem(g, CodeType, "group %s: %q must be an array of records", g.label, c.g.Items)
		}
		for dec.More() {
			var item json.RawMessage
			if err := dec.Decode(&item); err != nil {
				return c.fatal(err)
			}
			off := dec.InputOffset() - int64(len(item))
			c.queue(g.key, g.fields, item, g.line+bytes.Count(g.raw[:off], []byte{'\n'}))
		}
		break // a repeated Items member was refused above
	}
	return nil
}

// queue adds one record of a group (with the inherited fields), or its
// problem.
func (c *groupedReader) queue(key string, group map[string]json.RawMessage, raw json.RawMessage, line int) {
	c.n++
	fail := func(code, field, format string, args ...any) {
		c.pending = append(c.pending, groupedItem{err: &ParseError{Source: c.name, Line: line, Field: field, Code: code, Msg: fmt.Sprintf(format, args...)}})
	}
	if off := invalidUTF8At(raw); off >= 0 {
		fail(CodeEncoding, "", "invalid UTF-8 in the record (byte %d); re-encode the file as UTF-8", off+1)
		return
	}
	m, dup, ok := objectMap(raw)
	switch {
	case !ok:
		fail(CodeType, "", "element %d of %q is %s, not a record object", c.n, c.g.Items, jsonKind(raw))
		return
	case dup != "":
		fail(CodeSyntax, dup, "the field appears more than once in the record; keep one (a JSON reader would silently use the last)")
		return
	}
	for _, k := range c.g.Inherit {
		if _, has := m[k]; !has {
			if v, ok := group[k]; ok {
				m[k] = v
			}
		}
	}
	c.pending = append(c.pending, groupedItem{rec: &record{json: m, key: key, line: line, row: c.n}})
}

// groupedFirstFields returns the fields of the first record of the first
// group of v, the value of a grouped document's Groups member.
func groupedFirstFields(g *groupedDoc, v json.RawMessage) ([]string, bool) {
	var first json.RawMessage
	if _, vals, ok := splitObject(v); ok {
		if len(vals) == 0 {
			return nil, false
		}
		first = vals[0]
	} else {
		var arr []json.RawMessage
		if json.Unmarshal(v, &arr) != nil || len(arr) == 0 {
			return nil, false
		}
		first = arr[0]
	}
	gm, _, ok := objectMap(first)
	if !ok {
		return nil, false
	}
	var items []json.RawMessage
	if json.Unmarshal(gm[g.Items], &items) != nil || len(items) == 0 {
		return nil, false
	}
	return recordFields(items[0])
}
