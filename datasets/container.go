package datasets

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// container is how a file's records are laid out.
type container int

const (
	encJSONL       container = iota // one JSON object per line
	encJSONObject                   // one JSON object keyed by record id
	encJSONArray                    // one JSON array of record objects
	encJSONColumns                  // one JSON object of columns, each an object row label → value (pandas to_json)
	encCSV                          // CSV, with or without header
	encParquet                      // parquet
	encJSONGrouped                  // one JSON object whose records sit in groups (HEAD-QA's exams)
)

// containerDef describes one container: how it is recognised and how its
// records are read. Each container's reader is in its own file
// (container_jsonl.go, container_jsondoc.go, container_columns.go,
// container_csv.go, container_parquet.go, container_grouped.go).
type containerDef struct {
	// Name names the container in messages.
	Name string
	// Magic, when not empty, is how a file of this (binary) container
	// starts. Text containers are recognised by their first significant
	// byte instead (see sniff).
	Magic string
	// Columns returns the top-level column names of a file of a binary
	// container, from which its format is recognised.
	Columns func(in io.ReaderAt, size int64, name string) ([]string, error)
	// Open returns the reader of the records of an open file, in format f.
	Open func(o opened, path string, f *formatDef) (recordReader, error)
}

// containers describes every container.
var containers = [...]containerDef{
	encJSONL:       {Name: "JSON Lines", Open: openJSONL},
	encJSONObject:  {Name: "JSON object keyed by id", Open: openJSONDoc},
	encJSONArray:   {Name: "JSON array", Open: openJSONDoc},
	encJSONColumns: {Name: "column-oriented JSON", Open: openJSONColumns},
	encCSV:         {Name: "CSV", Open: openCSV},
	encParquet:     {Name: "parquet", Magic: "PAR1", Columns: parquetColumns, Open: openParquet},
	encJSONGrouped: {Name: "JSON document of grouped records", Open: openGrouped},
}

// recordReader yields the raw records of one file in order. next returns
// io.EOF at the end, a *ParseError for a bad record (reading may continue
// unless it is Fatal) and any other error for an I/O failure.
type recordReader interface {
	next() (*record, error)
}

// recordCloser is implemented by the record readers that hold resources of
// their own (parquet), released before the file is closed.
type recordCloser interface {
	close() error
}

// closeRecords releases what a record reader holds, if anything.
func closeRecords(rr recordReader) error {
	if c, ok := rr.(recordCloser); ok {
		return c.close()
	}
	return nil
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

var utf8BOM = []byte("\xEF\xBB\xBF")
