package datasets

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

// Reader streams the questions of a source: it holds one record at a time
// (plus one map slot per question for the duplicate check). It knows no
// format by name: the file's formatDef normalises each record, and the
// reader gives the question its id, keeps or filters it, validates it and
// checks it for duplicates.
type Reader struct {
	src    Source
	format Format
	files  []string
	fileNo int // index of the open file in files; len(files) when done

	cur     recordReader
	closer  io.Closer
	ctx     *fileCtx
	pending []*ParseError

	seen      map[uint64]seenQuestion // FNV-64a of the id → the first copy
	seenSrc   map[uint64]uint64       // FNV-64a of the SourceID → packed location (see packLoc)
	records   int
	filtered  int
	collapsed int      // exact duplicates left out
	kept      int      // content duplicates kept under their distinct source ids
	padding   int      // padding options dropped (see dropPadding)
	padded    int      // questions that had padding options
	keptPairs []string // the first few, "line 9 (id 6075) = line 2 (id 6074)"
	dupPairs  []string // the first few, "line 9 = line 2"
	notes     []string
	err       error // sticky: a fatal problem or an I/O error
}

// Open starts reading a source. Detection and the opening of the first file
// happen here, so a missing file (os.ErrNotExist, unwrapped), an unknown
// format or an unreadable file is reported by Open.
func Open(src Source) (*Reader, error) {
	if src.Format != FormatAuto {
		f, err := ParseFormat(string(src.Format))
		if err != nil {
			return nil, err
		}
		src.Format = f
	}
	if f := lookupFormat(src.Format); f != nil && f.CheckSource != nil {
		if err := f.CheckSource(&src); err != nil {
			return nil, err
		}
	}
	files, err := src.paths()
	if err != nil {
		return nil, err
	}
	r := &Reader{src: src, format: src.Format, files: files, fileNo: -1}
	if !src.SkipDuplicateCheck {
		r.seen, r.seenSrc = make(map[uint64]seenQuestion), make(map[uint64]uint64)
	}
	if err := r.openFile(0); err != nil {
		return nil, err
	}
	return r, nil
}

// newStreamReader reads JSONL records of a known format from r (ReadMedQA).
func newStreamReader(in io.Reader, name string, f *formatDef) *Reader {
	r := &Reader{format: f.Name, files: []string{name}, fileNo: 0, seen: make(map[uint64]seenQuestion), seenSrc: make(map[uint64]uint64)}
	r.cur = newJSONLReader(in, name)
	r.ctx = &fileCtx{src: &r.src, name: name, def: f, enc: encJSONL, dataset: f.dataset("", name), idDataset: f.Dataset}
	return r
}

// Format returns the format being read (detected from the first file when
// the source did not name one).
func (r *Reader) Format() Format { return r.format }

// Files returns the files of the source.
func (r *Reader) Files() []string { return r.files }

// Records returns how many records have been read so far, valid or not.
func (r *Reader) Records() int { return r.records }

// Filtered returns how many valid-looking records were left out by
// Source.Split and Source.Filter.
func (r *Reader) Filtered() int { return r.filtered }

// Collapsed returns how many exact duplicates have been left out so far (see
// Next).
func (r *Reader) Collapsed() int { return r.collapsed }

// Notes returns remarks about decisions taken from the data (for example how
// MedMCQA's cop was found to count, or which exact duplicates were collapsed).
func (r *Reader) Notes() []string {
	notes := slices.Clone(r.notes)
	if r.kept > 0 {
		notes = append(notes, fmt.Sprintf(
			"%d content duplicate(s) kept as distinct questions, as the source counts them (%s): the same stem, options and answer under another source id; the later copy's id is the content id, \"~\" and its source id (--dedupe merges them)",
			r.kept, listed(r.keptPairs, r.kept)))
	}
	if r.padding > 0 {
		notes = append(notes, fmt.Sprintf(
			"%d padding option(s) (\"n/a\") dropped from %d question(s): options after the last real one that only pad the question to a fixed number of options; the model is not shown them, and each question records its count in meta.padding_options_dropped",
			r.padding, r.padded))
	}
	if r.collapsed > 0 {
		notes = append(notes, fmt.Sprintf(
			"%d exact duplicate record(s) collapsed, the first copy kept (%s): the same question and answer again (and the same source id, or none), differing at most in link/url fields — as MedBullets publishes some questions twice under two links",
			r.collapsed, listed(r.dupPairs, r.collapsed)))
	}
	return notes
}

// Kept returns how many content duplicates with distinct source ids have
// been kept so far (see Source.Dedupe).
func (r *Reader) Kept() int { return r.kept }

// listed joins the first pairs, with "…" when there are more than shown.
func listed(pairs []string, n int) string {
	s := strings.Join(pairs, ", ")
	if n > len(pairs) {
		s += ", …"
	}
	return s
}

// Close closes the open file.
func (r *Reader) Close() error {
	r.err = errors.New("datasets: reader closed")
	return r.closeFile()
}

func (r *Reader) closeFile() error {
	err := closeRecords(r.cur)
	if r.closer != nil {
		if e := r.closer.Close(); err == nil {
			err = e
		}
		r.closer = nil
	}
	r.cur = nil
	return err
}

func (r *Reader) open(path string) (opened, error) {
	if r.src.embedded != nil {
		return openBytes(r.src.embedded), nil
	}
	return openPath(path)
}

// openFile opens files[i], detects its format and prepares its reader.
func (r *Reader) openFile(i int) error {
	r.fileNo = i
	if i >= len(r.files) {
		return nil
	}
	path := r.files[i]
	o, err := r.open(path)
	if err != nil {
		return err
	}
	ctx, rr, err := r.prepareFile(i, path, o)
	if err != nil {
		closeQuietly(o.closer)
		return err
	}
	r.cur, r.closer, r.ctx = rr, o.closer, ctx
	return nil
}

// prepareFile detects the format of the open file files[i] (which must be
// the first file's), readies its context as the format says and returns its
// record reader.
func (r *Reader) prepareFile(i int, path string, o opened) (*fileCtx, recordReader, error) {
	enc, fm, err := sniff(o.in, o.size, path, r.src.Format) // with FormatAuto each file is detected and must agree
	if err != nil {
		return nil, nil, err
	}
	if i == 0 {
		r.format = fm
	} else if fm != r.format {
		return nil, nil, &ParseError{Source: path, Code: CodeFile, Fatal: true, Msg: fmt.Sprintf(
			"looks like %s, but %s is %s; one source must have one format (pass --format, or read the files separately)", fm, r.files[0], r.format)}
	}
	f := lookupFormat(fm)
	ctx := &fileCtx{
		src:     &r.src,
		name:    path,
		def:     f,
		enc:     enc,
		dataset: f.dataset(r.src.Dataset, path),
		split:   fileSplit(path),
	}
	ctx.idDataset = cmp.Or(r.src.Dataset, f.Dataset)
	if f.Prepare != nil {
		if err := f.Prepare(ctx); err != nil {
			return nil, nil, err
		}
	}
	if err := r.decideIndexBase(ctx, o); err != nil {
		return nil, nil, err
	}
	rr, err := containers[enc].Open(o, path, f)
	if err != nil {
		return nil, nil, err
	}
	return ctx, rr, nil
}

func closeQuietly(c io.Closer) {
	if c != nil {
		c.Close()
	}
}

// split returns the split to keep for the current file.
func (r *Reader) split() string {
	switch {
	case r.src.Split == AllSplits:
		return ""
	case r.src.Split != "":
		return r.src.Split
	case r.ctx != nil:
		return r.ctx.keepSplit
	}
	return ""
}

func (r *Reader) keep(q qa.Question) bool {
	if s := r.split(); s != "" && q.Split != s {
		return false
	}
	for k, v := range r.src.Filter {
		if !strings.EqualFold(q.Meta[k], v) {
			return false
		}
	}
	return true
}

// Next returns the next valid question, io.EOF at the end, or a problem.
//
// A *ParseError that is not Fatal concerns one record: the reader has moved
// past it and the next call continues with the following record. A Fatal
// *ParseError, or any other error (I/O), ends reading: every later call
// returns it again.
//
// Every question's ID is its ContentID (canonical rows keep theirs), so
// copies of a question share it. An exact duplicate — a record with the id
// of an earlier one and the same content (see contentPrint: everything but
// link/url metadata) — is left out and counted (Collapsed, and a note); a
// record with the id of an earlier one but other content, or with the
// SourceID of an earlier, different question, is a CodeDuplicate problem.
func (r *Reader) Next() (qa.Question, error) {
	for {
		rec, err := r.nextRecord()
		if err != nil {
			return qa.Question{}, err
		}
		q, ok, pe := r.question(rec)
		if pe != nil {
			return qa.Question{}, pe
		}
		if ok {
			return q, nil
		}
	}
}

// nextRecord returns the next raw record of the source, opening its files
// in turn, or what ends the call to Next: a queued problem, a problem of
// the record, io.EOF at the end, or a sticky error.
func (r *Reader) nextRecord() (*record, error) {
	for {
		if r.err != nil {
			return nil, r.err
		}
		if len(r.pending) > 0 {
			pe := r.pending[0]
			r.pending = r.pending[1:]
			if pe.Fatal {
				r.err = pe
			}
			return nil, pe
		}
		if r.cur == nil {
			if r.fileNo+1 >= len(r.files) {
				return nil, io.EOF
			}
			if err := r.openFile(r.fileNo + 1); err != nil {
				r.err = err
				return nil, err
			}
			continue
		}
		rec, err := r.cur.next()
		if err == io.EOF {
			r.endOfFile()
			r.closeFile()
			continue
		}
		if err != nil {
			return nil, r.recordError(err)
		}
		r.records++
		return rec, nil
	}
}

// recordError counts a problem of a record (a fatal one, and any other
// error, ends reading) and returns it.
func (r *Reader) recordError(err error) error {
	if pe, ok := err.(*ParseError); ok {
		r.records++
		if pe.Fatal {
			r.err = pe
		}
		return pe
	}
	r.err = err
	return err
}

// question turns a record into a question: normalised by the file's format,
// given its id, kept or filtered (ok false), validated, and checked for
// duplicates (an exact duplicate is collapsed: ok false).
func (r *Reader) question(rec *record) (q qa.Question, ok bool, pe *ParseError) {
	n, pe := r.ctx.def.Normalize(r.ctx, rec)
	if pe != nil {
		return qa.Question{}, false, pe
	}
	padded, pe := r.ctx.dropPaddingOf(&n, rec)
	if pe != nil {
		return qa.Question{}, false, pe
	}
	if !n.keepID {
		n.q.ID = ContentID(cmp.Or(r.ctx.idDataset, n.q.Dataset), n.q.Stem, n.q.Context, n.q.Options, n.scope...)
	}
	if !r.keep(n.q) {
		r.filtered++
		return qa.Question{}, false, nil
	}
	if v := n.q.Check(); v != nil {
		return qa.Question{}, false, r.ctx.fail(rec, n.names.field(v.Part), v.Code, "%s", v.Msg)
	}
	if pe := r.checkItemSize(n, rec); pe != nil {
		return qa.Question{}, false, pe
	}
	dup, pe := r.checkDuplicate(n, rec)
	if pe != nil {
		return qa.Question{}, false, pe
	}
	if strings.HasPrefix(dup, keptPrefix) {
		r.kept++
		if len(r.keptPairs) < maxDupPairs {
			r.keptPairs = append(r.keptPairs, strings.TrimPrefix(dup, keptPrefix))
		}
		n.q.ID += "~" + n.q.SourceID
		r.countPadding(padded)
		return n.q, true, nil
	}
	if dup != "" {
		r.collapsed++
		if len(r.dupPairs) < maxDupPairs {
			r.dupPairs = append(r.dupPairs, dup)
		}
		return qa.Question{}, false, nil
	}
	r.countPadding(padded)
	return n.q, true, nil
}

// countPadding counts the padding options dropped from a question read.
func (r *Reader) countPadding(dropped int) {
	if dropped > 0 {
		r.padding += dropped
		r.padded++
	}
}

// Padding returns how many padding options have been dropped so far, and
// from how many questions (see dropPadding).
func (r *Reader) Padding() (options, questions int) { return r.padding, r.padded }

// endOfFile queues the problems only visible at the end of a file (see
// formatDef.Finish).
func (r *Reader) endOfFile() {
	c := r.ctx
	if c == nil || c.def.Finish == nil {
		return
	}
	if pe := c.def.Finish(c); pe != nil {
		r.pending = append(r.pending, pe)
	}
}
