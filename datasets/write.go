package datasets

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/medteam-bench/medteam/qa"
)

// QuestionWriter writes questions in a canonical format; Close flushes (and
// for parquet writes the footer) but does not close the underlying writer.
type QuestionWriter interface {
	Write(qa.Question) error
	Close() error
}

// NewJSONLWriter writes canonical JSONL: one Question per line as its JSON
// (id, source_id, dataset, split, stem, context, options [{letter, text}],
// gold, meta),
// which FormatCanonical reads back.
func NewJSONLWriter(w io.Writer) QuestionWriter {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &jsonlWriter{bw: bw, enc: enc}
}

type jsonlWriter struct {
	bw  *bufio.Writer
	enc *json.Encoder
}

func (w *jsonlWriter) Write(q qa.Question) error { return w.enc.Encode(q) }
func (w *jsonlWriter) Close() error              { return w.bw.Flush() }

// canonicalOption and canonicalRow are the parquet schema of canonical files:
// id, dataset, split, stem, context (list of strings), options (list of
// {letter, text}), gold, meta (a JSON object of strings, "" when empty),
// source_id (the source's own id, "" when none; files written before it
// existed read as "").
type canonicalOption struct {
	Letter string `parquet:"letter"`
	Text   string `parquet:"text"`
}

type canonicalRow struct {
	ID      string            `parquet:"id"`
	Dataset string            `parquet:"dataset"`
	Split   string            `parquet:"split"`
	Stem    string            `parquet:"stem"`
	Context []string          `parquet:"context,list"`
	Options []canonicalOption `parquet:"options,list"`
	Gold    string            `parquet:"gold"`
	Meta    string            `parquet:"meta"`
	// SourceID is Question.SourceID.
	SourceID string `parquet:"source_id"`
}

// CanonicalFormatKey is the parquet key/value metadata entry that marks a
// canonical file, with CanonicalFormatVersion as its value.
const (
	CanonicalFormatKey     = "medteam.dataset_format"
	CanonicalFormatVersion = "canonical-1"
)

// parquetRowGroupRows bounds the rows buffered before a row group is written.
const parquetRowGroupRows = 8192

// NewParquetWriter writes canonical parquet (zstd) to w.
func NewParquetWriter(w io.Writer) QuestionWriter {
	pw := parquet.NewGenericWriter[canonicalRow](w,
		parquet.Compression(&parquet.Zstd),
		parquet.MaxRowsPerRowGroup(parquetRowGroupRows),
		parquet.KeyValueMetadata(CanonicalFormatKey, CanonicalFormatVersion),
	)
	return &parquetWriter{pw: pw}
}

type parquetWriter struct {
	pw  *parquet.GenericWriter[canonicalRow]
	buf []canonicalRow
}

func (w *parquetWriter) Write(q qa.Question) error {
	row := canonicalRow{ID: q.ID, Dataset: q.Dataset, Split: q.Split, Stem: q.Stem, Context: q.Context, Gold: q.Gold, SourceID: q.SourceID}
	row.Options = make([]canonicalOption, len(q.Options))
	for i, o := range q.Options {
		row.Options[i] = canonicalOption{Letter: o.Letter, Text: o.Text}
	}
	if len(q.Meta) > 0 {
		b, err := json.Marshal(q.Meta) // keys sorted: deterministic
		if err != nil {
			return err
		}
		row.Meta = string(b)
	}
	w.buf = append(w.buf, row)
	if len(w.buf) >= 256 {
		return w.flush()
	}
	return nil
}

func (w *parquetWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.pw.Write(w.buf)
	clear(w.buf)
	w.buf = w.buf[:0]
	return err
}

func (w *parquetWriter) Close() error {
	if err := w.flush(); err != nil {
		return err
	}
	return w.pw.Close()
}

// WriteJSONL writes questions as canonical JSONL.
func WriteJSONL(w io.Writer, qs []qa.Question) error {
	return writeAll(NewJSONLWriter(w), qs)
}

// WriteParquet writes questions as canonical parquet.
func WriteParquet(w io.Writer, qs []qa.Question) error {
	return writeAll(NewParquetWriter(w), qs)
}

func writeAll(qw QuestionWriter, qs []qa.Question) error {
	for _, q := range qs {
		if err := qw.Write(q); err != nil {
			return err
		}
	}
	return qw.Close()
}

// OutputFormat tells from a file name what Convert writes: "parquet" for
// .parquet, "jsonl" for .jsonl and .ndjson.
func OutputFormat(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet":
		return "parquet", nil
	case ".jsonl", ".ndjson":
		return "jsonl", nil
	}
	return "", fmt.Errorf("cannot tell the output format of %s: name it .jsonl (canonical JSONL) or .parquet", path)
}

// Convert reads a source and writes its questions to dst as canonical JSONL
// or parquet (chosen by OutputFormat), streaming. The file appears only when
// complete (it is written to dst + ".tmp" and renamed). By default any
// problem leaves no output and returns an *InvalidError listing the problems;
// with SkipInvalid the invalid records are left out and counted. Reading the
// output back with Load gives the same questions (ids, stems, context,
// options, gold, split, dataset and metadata).
func Convert(src Source, dst string, opts LoadOptions) (Stats, error) {
	kind, err := OutputFormat(dst)
	if err != nil {
		return Stats{}, err
	}
	tmp := dst + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return Stats{}, err
	}
	var qw QuestionWriter
	if kind == "parquet" {
		qw = NewParquetWriter(f)
	} else {
		qw = NewJSONLWriter(f)
	}
	writeOpts := opts
	st, err := Stream(src, writeOpts, qw.Write)
	if err == nil {
		err = qw.Close()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		os.Remove(tmp)
		var inv *InvalidError
		if errors.As(err, &inv) {
			return st, err
		}
		return st, fmt.Errorf("converting %s to %s: %w", src, dst, err)
	}
	return st, nil
}
