package datasets

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

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
	// DuplicatesKept counts content duplicates kept as distinct questions
	// because the source gives them distinct ids (see Source.Dedupe).
	DuplicatesKept int
	// PaddingDropped counts the padding options ("n/a" after the last real
	// option) dropped from the valid questions read (see dropPadding).
	PaddingDropped int
	Problems       []*ParseError  // the first problems, in reading order
	TotalProblems  int            // all problems found
	Reasons        map[string]int // problem code → count, over all problems
	Notes          []string       // decisions taken from the data
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
	r, err := Open(src)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) && pe.Fatal {
			st.addProblem(pe, maxp)
			return st, &InvalidError{Source: st.Source, Problems: st.Problems, Total: 1, Fatal: true}
		}
		return st, err
	}
	defer r.Close()
	fatal, err := st.read(r, opts.SkipInvalid, maxp, fn)
	st.fill(r)
	if err != nil {
		return st, err
	}
	if fatal || (!opts.SkipInvalid && st.TotalProblems > 0) {
		return st, &InvalidError{Source: st.Source, Problems: st.Problems, Total: st.TotalProblems, Fatal: fatal}
	}
	return st, nil
}

// read reads r to its end, counting the questions and the problems and
// calling fn with each valid question until the first problem (with
// skipInvalid, with all of them). It stops early at a fatal problem (fatal
// true), at an I/O error and at an error of fn, which it returns.
func (st *Stats) read(r *Reader, skipInvalid bool, maxp int, fn func(qa.Question) error) (fatal bool, err error) {
	deliver := true
	for {
		q, err := r.Next()
		if err == io.EOF {
			return false, nil
		}
		if pe, ok := err.(*ParseError); ok {
			st.addProblem(pe, maxp)
			if pe.Fatal {
				return true, nil
			}
			if skipInvalid {
				st.Skipped++
			} else {
				deliver = false
			}
			continue
		}
		if err != nil {
			return false, err
		}
		st.Valid++
		if deliver && fn != nil {
			if err := fn(q); err != nil {
				return false, err
			}
		}
	}
}

// addProblem counts a problem, and keeps it while fewer than maxp are kept
// (all with a negative maxp).
func (st *Stats) addProblem(pe *ParseError, maxp int) {
	st.TotalProblems++
	st.Reasons[pe.Code]++
	if maxp < 0 || len(st.Problems) < maxp {
		st.Problems = append(st.Problems, pe)
	}
}

func (st *Stats) fill(r *Reader) {
	st.Format, st.Files, st.Records, st.Filtered, st.Notes = r.format, r.files, r.records, r.filtered, r.Notes()
	st.DuplicatesCollapsed, st.DuplicatesKept, st.PaddingDropped = r.collapsed, r.kept, r.padding
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

// LoadFile reads a dataset file (or a directory of files of one format) in
// any supported format, recognised from its content (see Detect). Split is
// set from the file name as in LoadMedQAFile (MMLU: from the _test/_dev/_val
// suffix; PubMedQA with test_ground_truth.json beside it: the test split
// only). Any invalid record refuses the file: the error is an *InvalidError
// listing the first problems with their file:line. A missing file gives the
// os error unwrapped (os.IsNotExist works on it).
//
// Use Load for options (skipping invalid records, a named format, a field
// map, a split or metadata filter).
func LoadFile(path string) ([]qa.Question, error) {
	res, err := Load(Source{Path: path}, LoadOptions{})
	if err != nil {
		return nil, err
	}
	return res.Questions, nil
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
	if st.DuplicatesKept > 0 {
		fmt.Fprintf(&b, ", content duplicates kept %d (--dedupe merges them)", st.DuplicatesKept)
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
