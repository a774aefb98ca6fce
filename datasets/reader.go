package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

// IndexBase says how integer answers count options: MedMCQA's cop and
// integer answers of mapped files.
type IndexBase int

const (
	// IndexAuto decides per file from the data: if any answer is 0 the file
	// counts from 0; if any answer equals the number of options it counts
	// from 1; if both occur the file is refused. When neither occurs the
	// default is 1 for MedMCQA JSON (the original release counts cop 1–4)
	// and 0 for MedMCQA parquet (HF exports store cop as a 0–3 class label)
	// and for mapped files.
	IndexAuto IndexBase = iota
	IndexZero           // 0 is the first option
	IndexOne            // 1 is the first option
)

// ParseIndexBase reads "auto" (or ""), "0" or "1".
func ParseIndexBase(s string) (IndexBase, error) {
	switch strings.TrimSpace(s) {
	case "", "auto":
		return IndexAuto, nil
	case "0":
		return IndexZero, nil
	case "1":
		return IndexOne, nil
	}
	return 0, fmt.Errorf("answer index base %q: want auto, 0 or 1", s)
}

// AllSplits as Source.Split keeps every split (see Source.Split).
const AllSplits = "*"

// NoGroundTruth as Source.GroundTruth reads PubMedQA without its split file.
const NoGroundTruth = "-"

// Source describes a dataset to read: where it is, how to read it and which
// of its questions to keep.
type Source struct {
	// Name is a label for reports (the registry name, or empty).
	Name string
	// Path is a file or a directory. A directory is read as its data files
	// (.jsonl, .ndjson, .json, .csv, .parquet; hidden files and
	// *ground_truth* files left out) in name order, as one dataset.
	Path string
	// Files, when not empty, lists the files to read in order as one
	// dataset, and Path is only a label.
	Files []string
	// Format is the schema; FormatAuto detects it from the content.
	Format Format
	// Map gives the field names for FormatMapped.
	Map FieldMap
	// GroundTruth is the PubMedQA split file (PMID → yes/no/maybe).
	// Empty: test_ground_truth.json beside the data file, if present.
	// NoGroundTruth: none. With a ground-truth file, its PMIDs get split
	// "test" and the others "train".
	GroundTruth string
	// Dataset overrides Question.Dataset and the id prefix. Empty: the
	// format's name (medqa, medmcqa, pubmedqa, mmlu, mmlu-pro, medbullets),
	// or for standardised and mapped files a name found in the path
	// ("…/medmcqa/test.jsonl" → medmcqa), else "standard" or "custom".
	Dataset string
	// Split keeps only the questions of this split. Empty keeps all, except
	// that PubMedQA read with its ground-truth file keeps "test" (the
	// official evaluation split); AllSplits keeps all in every case. Files
	// of a directory whose names state another split are not read.
	Split string
	// Filter keeps only questions whose Meta[key] equals the value
	// (ignoring case), e.g. {"category": "health"} for MMLU-Pro.
	Filter map[string]string
	// IndexBase says how integer answers count (MedMCQA cop, mapped answers).
	IndexBase IndexBase
	// SkipDuplicateCheck turns off the duplicate check (and the collapsing
	// of exact duplicates, which are then delivered), which keeps a 24-byte
	// map slot per question and a 16-byte one per question with a SourceID;
	// with it off, memory does not grow with the file.
	SkipDuplicateCheck bool

	embedded []byte // the embedded sample
}

// String names the source for messages: Name, else Path.
func (s Source) String() string {
	switch {
	case s.Name != "":
		return s.Name
	case s.Path != "":
		return s.Path
	case len(s.Files) > 0:
		return s.Files[0]
	}
	return "(no source)"
}

// Embedded reports whether the source is the embedded sample.
func (s Source) Embedded() bool { return s.embedded != nil }

// paths lists the files to read.
func (s *Source) paths() ([]string, error) {
	switch {
	case s.embedded != nil && s.Path != "":
		return []string{s.Path}, nil
	case s.embedded != nil:
		return []string{SampleFile}, nil
	case len(s.Files) > 0:
		return s.Files, nil
	case s.Path == "":
		return nil, errors.New("no dataset: give a file, a directory or a registry name")
	}
	return expandPath(s.Path, s.Split)
}

// Reader streams the questions of a source: it holds one record at a time
// (plus one map slot per question for the duplicate check).
type Reader struct {
	src    Source
	format Format
	files  []string
	fileNo int // index of the open file in files; len(files) when done

	cur     recordReader
	closer  io.Closer
	ctx     *fileCtx
	norm    normFunc
	pending []*ParseError

	seen      map[uint64]seenQuestion // FNV-64a of the id → the first copy
	seenSrc   map[uint64]uint64       // FNV-64a of the SourceID → packed location (see packLoc)
	records   int
	filtered  int
	collapsed int      // exact duplicates left out
	dupPairs  []string // the first few, "line 9 = line 2"
	notes     []string
	err       error // sticky: a fatal problem or an I/O error
}

// seenQuestion is what the duplicate check keeps of a question (24 bytes;
// seenSrc keeps 16 more per question with a SourceID):
// where it was first seen (see packLoc), a fingerprint of its content (see
// contentPrint) and its gold letter, for the message when a copy disagrees.
type seenQuestion struct {
	loc  uint64
	fp   uint64
	gold byte
}

// maxDupPairs is how many collapsed duplicates the note names.
const maxDupPairs = 5

// packLoc packs where a question was first seen into one word (a map slot
// of 16 bytes): the file index in the top 16 bits, a row flag in bit 47 and
// the line or row in the low 47 bits.
func packLoc(file int, loc int, row bool) uint64 {
	v := uint64(file)<<48 | uint64(loc)&(1<<47-1)
	if row {
		v |= 1 << 47
	}
	return v
}

func unpackLoc(v uint64) (file int, loc int, row bool) {
	return int(v >> 48), int(v & (1<<47 - 1)), v&(1<<47) != 0
}

// Open starts reading a source. Detection and the opening of the first file
// happen here, so a missing file (os.ErrNotExist, unwrapped), an unknown
// format or an unreadable file is reported by Open.
func Open(src Source) (*Reader, error) {
	if src.Format == FormatMapped {
		if err := src.Map.check(); err != nil {
			return nil, err
		}
	}
	if src.Format != FormatAuto {
		if _, err := ParseFormat(string(src.Format)); err != nil {
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
func newStreamReader(in io.Reader, name string, f Format) *Reader {
	r := &Reader{format: f, files: []string{name}, fileNo: 0, seen: make(map[uint64]seenQuestion), seenSrc: make(map[uint64]uint64)}
	r.cur = newJSONLReader(in, name)
	r.ctx = &fileCtx{src: &r.src, name: name, format: f, enc: encJSONL, dataset: defaultDataset(f, "", name)}
	r.norm = normalizerFor(f)
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
	if r.collapsed == 0 {
		return r.notes
	}
	which := strings.Join(r.dupPairs, ", ")
	if r.collapsed > len(r.dupPairs) {
		which += ", …"
	}
	return append(slices.Clone(r.notes), fmt.Sprintf(
		"%d exact duplicate record(s) collapsed, the first copy kept (%s): the same question and answer again, differing at most in link/url fields",
		r.collapsed, which))
}

// Close closes the open file.
func (r *Reader) Close() error {
	r.err = errors.New("datasets: reader closed")
	return r.closeFile()
}

func (r *Reader) closeFile() error {
	var err error
	if pr, ok := r.cur.(*parquetReader); ok {
		err = pr.close()
	}
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

func defaultDataset(f Format, override, path string) string {
	if override != "" {
		return override
	}
	switch f {
	case FormatMedQA:
		return DatasetMedQA
	case FormatMedMCQA:
		return DatasetMedMCQA
	case FormatPubMedQA:
		return DatasetPubMedQA
	case FormatMMLU:
		return DatasetMMLU
	case FormatMMLUPro:
		return DatasetMMLUPro
	case FormatMedBullets:
		return DatasetMedBullets
	case FormatStandard:
		return guessDataset(path, "standard")
	case FormatMapped:
		return guessDataset(path, "custom")
	}
	return guessDataset(path, "canonical")
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
	enc, fm, err := sniff(o.in, o.size, path, r.src.Format) // with FormatAuto each file is detected and must agree
	if err != nil {
		closeQuietly(o.closer)
		return err
	}
	if i == 0 {
		r.format = fm
	} else if fm != r.format {
		closeQuietly(o.closer)
		return &ParseError{Source: path, Code: CodeFile, Fatal: true, Msg: fmt.Sprintf(
			"looks like %s, but %s is %s; one source must have one format (pass --format, or read the files separately)", fm, r.files[0], r.format)}
	}
	ctx := &fileCtx{
		src:     &r.src,
		name:    path,
		format:  fm,
		enc:     enc,
		dataset: defaultDataset(fm, r.src.Dataset, path),
		split:   fileSplit(path),
	}
	if fm == FormatMMLU {
		ctx.subject = mmluSubject(path)
	}
	if fm == FormatCanonical {
		ctx.split = ""
	}
	if fm == FormatPubMedQA {
		if err := r.loadGroundTruth(ctx, path); err != nil {
			closeQuietly(o.closer)
			return err
		}
	}
	if err := r.decideIndexBase(ctx, path, enc, o); err != nil {
		closeQuietly(o.closer)
		return err
	}
	rr, err := newRecordReader(o, enc, fm, path)
	if err != nil {
		closeQuietly(o.closer)
		return err
	}
	r.cur, r.closer, r.ctx, r.norm = rr, o.closer, ctx, normalizerFor(fm)
	return nil
}

func closeQuietly(c io.Closer) {
	if c != nil {
		c.Close()
	}
}

func newRecordReader(o opened, enc container, fm Format, path string) (recordReader, error) {
	switch enc {
	case encParquet:
		return newParquetReader(o.in, o.size, path)
	case encJSONObject, encJSONArray:
		return newJSONDocReader(io.NewSectionReader(o.in, 0, o.size), path), nil
	case encJSONColumns:
		return newJSONColumnsReader(io.NewSectionReader(o.in, 0, o.size), path), nil
	case encCSV:
		layout := csvHeader
		if fm == FormatMMLU {
			layout = csvMMLU
		}
		return newCSVReader(io.NewSectionReader(o.in, 0, o.size), path, layout), nil
	}
	return newJSONLReader(io.NewSectionReader(o.in, 0, o.size), path), nil
}

// decideIndexBase sets ctx.base for formats with integer answers.
func (r *Reader) decideIndexBase(ctx *fileCtx, path string, enc container, o opened) error {
	var probe answerIndexProbe
	def := 0
	switch {
	case ctx.format == FormatMedMCQA:
		probe = medmcqaProbe
		if enc != encParquet {
			def = 1
		}
	case ctx.format == FormatMapped:
		probe = mappedProbe(r.src.Map)
	default:
		return nil
	}
	switch r.src.IndexBase {
	case IndexZero:
		ctx.base = 0
		return nil
	case IndexOne:
		ctx.base = 1
		return nil
	}
	rr, err := newRecordReader(o, enc, ctx.format, path)
	if err != nil {
		return err
	}
	base, seen0, seenN, err := decideBase(rr, probe, def)
	if pr, ok := rr.(*parquetReader); ok {
		pr.close()
	}
	if err != nil {
		return &ParseError{Source: path, Code: CodeGold, Fatal: true, Msg: err.Error()}
	}
	ctx.base = base
	what := map[Format]string{FormatMedMCQA: "cop", FormatMapped: "integer answers"}[ctx.format]
	switch {
	case seen0:
		r.notes = append(r.notes, fmt.Sprintf("%s: %s counted from 0 (a 0 occurs)", path, what))
	case seenN:
		r.notes = append(r.notes, fmt.Sprintf("%s: %s counted from 1 (the last option's number occurs)", path, what))
	default:
		r.notes = append(r.notes, fmt.Sprintf("%s: %s counted from %d by default (neither 0 nor the last option's number occurs)", path, what, base))
	}
	return nil
}

// loadGroundTruth reads the PubMedQA split file named by the source or found
// beside the data file.
func (r *Reader) loadGroundTruth(ctx *fileCtx, path string) error {
	gt := r.src.GroundTruth
	if gt == NoGroundTruth || r.src.embedded != nil {
		return nil
	}
	if gt == "" {
		cand := filepath.Join(filepath.Dir(path), "test_ground_truth.json")
		if _, err := os.Stat(cand); err != nil {
			return nil
		}
		gt = cand
	}
	data, err := os.ReadFile(gt)
	if err != nil {
		return err
	}
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return &ParseError{Source: gt, Code: CodeSplit, Fatal: true, Msg: fmt.Sprintf(
			"not a PubMedQA ground-truth file (a JSON object PMID → yes/no/maybe): %v", err)}
	}
	for pmid, d := range m {
		if pubmedLetter(d) == "" {
			return &ParseError{Source: gt, Code: CodeSplit, Fatal: true, Msg: fmt.Sprintf("PMID %s: %q is not yes, no or maybe", pmid, d)}
		}
	}
	ctx.gt, ctx.gtSeen, ctx.gtPath = m, make(map[string]bool, len(m)), gt
	return nil
}

// split returns the split to keep for the current file.
func (r *Reader) split() string {
	switch {
	case r.src.Split == AllSplits:
		return ""
	case r.src.Split != "":
		return r.src.Split
	case r.ctx != nil && r.ctx.gt != nil:
		return "test"
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
		if r.err != nil {
			return qa.Question{}, r.err
		}
		if len(r.pending) > 0 {
			pe := r.pending[0]
			r.pending = r.pending[1:]
			if pe.Fatal {
				r.err = pe
			}
			return qa.Question{}, pe
		}
		if r.cur == nil {
			if r.fileNo+1 >= len(r.files) {
				return qa.Question{}, io.EOF
			}
			if err := r.openFile(r.fileNo + 1); err != nil {
				r.err = err
				return qa.Question{}, err
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
			if pe, ok := err.(*ParseError); ok {
				r.records++
				if pe.Fatal {
					r.err = pe
				}
				return qa.Question{}, pe
			}
			r.err = err
			return qa.Question{}, err
		}
		r.records++
		n, pe := r.norm(r.ctx, rec)
		if pe != nil {
			return qa.Question{}, pe
		}
		if !n.keepID {
			n.q.ID = ContentID(n.q.Dataset, n.q.Stem, n.q.Context, n.q.Options, n.scope...)
		}
		if !r.keep(n.q) {
			r.filtered++
			continue
		}
		if v := n.q.Check(); v != nil {
			return qa.Question{}, r.ctx.fail(rec, n.names.field(v.Part), v.Code, "%s", v.Msg)
		}
		dup, pe := r.checkDuplicate(n, rec)
		if pe != nil {
			return qa.Question{}, pe
		}
		if dup != "" {
			r.collapsed++
			if len(r.dupPairs) < maxDupPairs {
				r.dupPairs = append(r.dupPairs, dup)
			}
			continue
		}
		return n.q, nil
	}
}

// field maps a part of a question to the source's field name.
func (f fieldNames) field(part string) string {
	switch part {
	case "id":
		return f.id
	case "stem":
		return f.stem
	case "options":
		return f.options
	case "gold":
		return f.gold
	case "context":
		return f.context
	}
	return ""
}

// checkDuplicate looks the question's id up among those seen. A new id is
// recorded. A repeated id with the same content (an exact duplicate) returns
// where the two copies are ("line 9 = line 2") for the caller to collapse;
// with other content it is a problem.
func (r *Reader) checkDuplicate(n normalized, rec *record) (string, *ParseError) {
	if r.seen == nil {
		return "", nil
	}
	h := fnv.New64a()
	io.WriteString(h, n.q.ID)
	key := h.Sum64()
	loc := packLoc(r.fileNo, rec.line, false)
	if rec.line == 0 {
		loc = packLoc(r.fileNo, rec.row, true)
	}
	fp := contentPrint(n.q)
	prev, dup := r.seen[key]
	if !dup {
		if n.q.SourceID != "" {
			h.Reset()
			io.WriteString(h, n.q.SourceID)
			skey := h.Sum64()
			if at, used := r.seenSrc[skey]; used {
				field := n.names.id
				if field == "" {
					field = "id"
				}
				return "", r.ctx.fail(rec, n.names.id, CodeDuplicate, "duplicate %s %s: already used at %s for a different question; the source's ids must be unique — remove the copy or correct its %s",
					field, n.q.SourceID, r.locString(at), field)
			}
			r.seenSrc[skey] = loc
		}
		r.seen[key] = seenQuestion{loc: loc, fp: fp, gold: goldByte(n.q.Gold)}
		return "", nil
	}
	where := r.locString(prev.loc)
	if prev.fp == fp {
		here := fmt.Sprintf("line %d", rec.line)
		if rec.line == 0 {
			here = fmt.Sprintf("row %d", rec.row)
		}
		if len(r.files) > 1 {
			here = r.files[r.fileNo] + ":" + strings.TrimPrefix(here, "line ")
		}
		return here + " = " + where, nil
	}
	if !n.keepID {
		if g := goldByte(n.q.Gold); g != prev.gold && prev.gold != 0 {
			return "", r.ctx.fail(rec, n.names.gold, CodeDuplicate,
				"same question (stem and options) as %s (id %s) but gold %s here and %c there; the copies contradict each other — remove the wrong one",
				where, n.q.ID, n.q.Gold, prev.gold)
		}
		return "", r.ctx.fail(rec, "", CodeDuplicate,
			"same question (stem and options) as %s (id %s) but a different split, context or metadata; remove one copy or make them agree", where, n.q.ID)
	}
	return "", r.ctx.fail(rec, n.names.id, CodeDuplicate, "duplicate id %s: already used at %s for a different question; ids must be unique — remove the copy or correct its id", n.q.ID, where)
}

// locString names a packed location for a message: "line 3", "row 3", or
// with the file when it is not the one being read.
func (r *Reader) locString(v uint64) string {
	file, at, row := unpackLoc(v)
	other := file != r.fileNo
	switch {
	case row && other:
		return fmt.Sprintf("%s: row %d", r.files[file], at)
	case row:
		return fmt.Sprintf("row %d", at)
	case other:
		return fmt.Sprintf("%s:%d", r.files[file], at)
	}
	return fmt.Sprintf("line %d", at)
}

func goldByte(g string) byte {
	if len(g) != 1 {
		return 0
	}
	return g[0]
}

// contentPrint is the FNV-64a fingerprint of everything the duplicate check
// compares: dataset, split, stem, context passages and option texts (each
// with runs of white space collapsed to one space, as in ContentID), the gold
// letter, and the metadata except keys containing "link" or "url" (any case;
// MedBullets publishes some questions twice under two links). Two records
// with the same id and the same print are exact duplicates.
func contentPrint(q qa.Question) uint64 {
	h := fnv.New64a()
	put := func(s string) {
		io.WriteString(h, s)
		h.Write([]byte{0})
	}
	put(q.Dataset)
	put(q.Split)
	put(collapseSpace(q.Stem))
	for _, c := range q.Context {
		put("\x1d" + collapseSpace(c))
	}
	for _, o := range q.Options {
		put(o.Letter + "\x1f" + collapseSpace(o.Text))
	}
	put(q.Gold)
	for _, k := range slices.Sorted(maps.Keys(q.Meta)) {
		if isLinkKey(k) {
			continue
		}
		put(k + "\x1f" + q.Meta[k])
	}
	return h.Sum64()
}

// isLinkKey reports whether a metadata key names a link or URL.
func isLinkKey(k string) bool {
	k = strings.ToLower(k)
	return strings.Contains(k, "link") || strings.Contains(k, "url")
}

// collapseSpace trims s and replaces each run of Unicode white space
// (unicode.IsSpace) with one ASCII space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// endOfFile queues the problems only visible at the end of a file.
func (r *Reader) endOfFile() {
	c := r.ctx
	if c == nil || c.gt == nil || len(c.gtSeen) == len(c.gt) {
		return
	}
	var missing []string
	for pmid := range c.gt {
		if !c.gtSeen[pmid] {
			missing = append(missing, pmid)
		}
	}
	slices.Sort(missing)
	first := missing
	if len(first) > 5 {
		first = first[:5]
	}
	r.pending = append(r.pending, &ParseError{Source: c.gtPath, Code: CodeSplit, Fatal: true, Msg: fmt.Sprintf(
		"%d PMIDs of the ground truth are not in %s (first: %s); the files do not belong together",
		len(missing), c.name, strings.Join(first, ", "))})
}

// LoadOptions control how Load, Stream, Check and Convert treat problems.
type LoadOptions struct {
	// SkipInvalid leaves invalid records out and goes on; by default any
	// problem refuses the dataset. A fatal problem (the file cannot be read
	// to its end) refuses it either way.
	SkipInvalid bool
	// MaxProblems is how many problems the report keeps (0:
	// DefaultMaxProblems; negative: all). All are counted in Reasons.
	MaxProblems int
}

// Stats describes one reading of a source.
type Stats struct {
	Source   string   // Source.String()
	Format   Format   // the format read
	Files    []string // the files read
	Records  int      // records read: valid, invalid or filtered out
	Valid    int      // valid questions read (all delivered, unless refused)
	Skipped  int      // invalid records left out (with SkipInvalid)
	Filtered int      // records outside Source.Split / Source.Filter
	// DuplicatesCollapsed counts exact duplicates left out (the first copy
	// is kept; see Reader.Next); a note names the first few.
	DuplicatesCollapsed int
	Problems            []*ParseError  // the first problems, in reading order
	TotalProblems       int            // all problems found
	Reasons             map[string]int // problem code → count, over all problems
	Notes               []string       // decisions taken from the data
}

// LoadResult is a loaded dataset and how it was read.
type LoadResult struct {
	Stats
	Questions []qa.Question
}

// Stream reads a source and calls fn with each valid question in order,
// holding one record at a time.
//
// By default the first problem stops the delivery (fn is not called again),
// reading goes on to collect the problems for the report, and the result is
// an *InvalidError; questions delivered before the problem cannot be taken
// back, so a caller that must not act on a bad file runs Check first or uses
// Load. With SkipInvalid, invalid records are counted and left out. If fn
// returns an error, reading stops and that error is returned as is.
func Stream(src Source, opts LoadOptions, fn func(qa.Question) error) (Stats, error) {
	st := Stats{Source: src.String(), Reasons: map[string]int{}}
	maxp := opts.MaxProblems
	if maxp == 0 {
		maxp = DefaultMaxProblems
	}
	addProblem := func(pe *ParseError) {
		st.TotalProblems++
		st.Reasons[pe.Code]++
		if maxp < 0 || len(st.Problems) < maxp {
			st.Problems = append(st.Problems, pe)
		}
	}
	r, err := Open(src)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) && pe.Fatal {
			addProblem(pe)
			return st, &InvalidError{Source: st.Source, Problems: st.Problems, Total: 1, Fatal: true}
		}
		return st, err
	}
	defer r.Close()
	deliver, fatal := true, false
	for {
		q, err := r.Next()
		if err == io.EOF {
			break
		}
		if pe, ok := err.(*ParseError); ok {
			addProblem(pe)
			if pe.Fatal {
				fatal = true
				break
			}
			if opts.SkipInvalid {
				st.Skipped++
			} else {
				deliver = false
			}
			continue
		}
		if err != nil {
			st.fill(r)
			return st, err
		}
		st.Valid++
		if deliver && fn != nil {
			if err := fn(q); err != nil {
				st.fill(r)
				return st, err
			}
		}
	}
	st.fill(r)
	if fatal || (!opts.SkipInvalid && st.TotalProblems > 0) {
		return st, &InvalidError{Source: st.Source, Problems: st.Problems, Total: st.TotalProblems, Fatal: fatal}
	}
	return st, nil
}

func (st *Stats) fill(r *Reader) {
	st.Format, st.Files, st.Records, st.Filtered, st.Notes = r.format, r.files, r.records, r.filtered, r.Notes()
	st.DuplicatesCollapsed = r.collapsed
}

// Load reads a whole source into memory. By default any problem refuses the
// dataset: the result then has no questions, its Stats list the problems,
// and the error is an *InvalidError. With SkipInvalid the invalid records are
// left out and counted (Stats.Skipped, Stats.Reasons) for the manifest.
func Load(src Source, opts LoadOptions) (LoadResult, error) {
	var qs []qa.Question
	st, err := Stream(src, opts, func(q qa.Question) error {
		qs = append(qs, q)
		return nil
	})
	if err != nil {
		return LoadResult{Stats: st}, err
	}
	return LoadResult{Stats: st, Questions: qs}, nil
}

// Check reads a whole source without keeping its questions and reports its
// problems: the error is an *InvalidError when there are any (with
// SkipInvalid, only when the file cannot be read to its end).
func Check(src Source, opts LoadOptions) (Stats, error) {
	return Stream(src, opts, nil)
}

// Summary formats the stats for a validate report or a log: the format and
// files, the counts, the reasons, the problems kept and the notes.
func (st Stats) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: format %s, %d file(s)\n", st.Source, st.Format, len(st.Files))
	fmt.Fprintf(&b, "records %d, valid %d, invalid %d", st.Records, st.Valid, st.TotalProblems)
	if st.Skipped > 0 {
		fmt.Fprintf(&b, " (skipped %d)", st.Skipped)
	}
	if st.Filtered > 0 {
		fmt.Fprintf(&b, ", outside the split/filter %d", st.Filtered)
	}
	if st.DuplicatesCollapsed > 0 {
		fmt.Fprintf(&b, ", exact duplicates collapsed %d", st.DuplicatesCollapsed)
	}
	b.WriteString("\n")
	if len(st.Reasons) > 0 {
		codes := slices.Sorted(maps.Keys(st.Reasons))
		parts := make([]string, len(codes))
		for i, c := range codes {
			parts[i] = fmt.Sprintf("%s %d", c, st.Reasons[c])
		}
		fmt.Fprintf(&b, "problems by kind: %s\n", strings.Join(parts, ", "))
	}
	for _, p := range st.Problems {
		fmt.Fprintf(&b, "  %v\n", p)
	}
	if len(st.Problems) < st.TotalProblems {
		fmt.Fprintf(&b, "  … and %d more\n", st.TotalProblems-len(st.Problems))
	}
	for _, n := range st.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}
