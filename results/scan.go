package results

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// checked opens the open file f (named name in errors) as a parquet file
// of this package's schema version, with ReadFile's checks.
func checked(name string, f *os.File) (pf *parquet.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			pf, err = nil, fmt.Errorf("results: read %s: %v", name, r)
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("results: read %s: %w", name, err)
	}
	if err := checkFooter(f, st.Size()); err != nil {
		return nil, fmt.Errorf("results: read %s: %w", name, err)
	}
	pf, err = parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("results: read %s: %w", name, err)
	}
	if v, ok := pf.Lookup(SchemaVersionKey); ok && v != strconv.Itoa(SchemaVersion) {
		return nil, fmt.Errorf("results: read %s: schema version %s, this build reads version %d", name, v, SchemaVersion)
	}
	return pf, nil
}

// ScanFile calls fn with every row of the parquet file at path, in file
// order, with its row index, reading a batch at a time so that memory does
// not grow with the file. T may name a subset of the file's columns (a
// struct with only the key fields of CallRow reads an index of
// calls.parquet without its texts). An error from fn stops the scan and is
// returned as is.
func ScanFile[T any](path string, fn func(i int64, row *T) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("results: read %s: %w", path, err)
	}
	defer f.Close()
	return ScanOpen(path, f, fn)
}

// ScanOpen is ScanFile on a file already open (named path in errors): a
// reader that keeps the handle keeps reading the file it opened even when
// another file is renamed over its path.
func ScanOpen[T any](path string, f *os.File, fn func(i int64, row *T) error) (err error) {
	pf, err := checked(path, f)
	if err != nil {
		return err
	}
	var cbErr error
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("results: read %s: %v", path, r)
		}
	}()
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	buf := make([]T, 256)
	var i int64
	for {
		n, rerr := r.Read(buf)
		for k := 0; k < n; k++ {
			if cbErr = fn(i, &buf[k]); cbErr != nil {
				return cbErr
			}
			i++
		}
		if errors.Is(rerr, io.EOF) {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("results: read %s: row %d: %w", path, i, rerr)
		}
		if n == 0 {
			return fmt.Errorf("results: read %s: no progress at row %d", path, i)
		}
		clear(buf)
	}
}

// ReadRowsAt reads the rows of the parquet file at path whose row indices
// are given (in any order, each at most once), returning them in ascending
// index order. It seeks to each run of consecutive indices, so reading one
// question's calls out of a large calls.parquet touches only their pages.
func ReadRowsAt[T any](path string, idx []int64) ([]T, error) {
	if len(idx) == 0 {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("results: read %s: %w", path, err)
	}
	defer f.Close()
	return ReadRowsAtOpen[T](path, f, idx)
}

// ReadRowsAtOpen is ReadRowsAt on a file already open (named path in
// errors); see ScanOpen. Concurrent calls on one handle are safe (reads
// are positioned).
func ReadRowsAtOpen[T any](path string, f *os.File, idx []int64) (rows []T, err error) {
	if len(idx) == 0 {
		return nil, nil
	}
	pf, err := checked(path, f)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			rows, err = nil, fmt.Errorf("results: read %s: %v", path, r)
		}
	}()
	sorted := slices.Clone(idx)
	slices.Sort(sorted)
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	rows = make([]T, 0, len(sorted))
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j] == sorted[j-1]+1 {
			j++
		}
		buf, err := readRun(r, sorted[i], j-i)
		if err != nil {
			return nil, fmt.Errorf("results: read %s: %w", path, err)
		}
		rows = append(rows, buf...)
		i = j
	}
	return rows, nil
}

// readRun reads n consecutive rows from row start.
func readRun[T any](r *parquet.GenericReader[T], start int64, n int) ([]T, error) {
	if total := r.NumRows(); start < 0 || start+int64(n) > total {
		return nil, fmt.Errorf("rows %d..%d outside the file's %d rows", start, start+int64(n)-1, total)
	}
	if err := r.SeekToRow(start); err != nil {
		return nil, fmt.Errorf("seek to row %d: %w", start, err)
	}
	buf := make([]T, n)
	got := 0
	for got < n {
		k, err := r.Read(buf[got:])
		got += k
		if err != nil && !(errors.Is(err, io.EOF) && got == n) {
			return nil, fmt.Errorf("row %d: %w", start+int64(got), err)
		}
		if k == 0 && got < n {
			return nil, fmt.Errorf("no progress at row %d", start+int64(got))
		}
	}
	return buf, nil
}
