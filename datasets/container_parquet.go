package datasets

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// parquetReader reads a parquet file row by row.
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

func openParquet(o opened, path string, _ *formatDef) (recordReader, error) {
	pr, err := newParquetReader(o.in, o.size, path)
	if err != nil {
		return nil, err
	}
	return pr, nil
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
