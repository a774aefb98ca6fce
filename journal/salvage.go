package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/medteam-bench/medteam/results"
)

// SalvageReport says what Salvage recovered.
type SalvageReport struct {
	Recovered int      // units written to the parquet files
	Lost      int      // rows that could not be read or decoded
	Problems  []string // the first few reasons, for the user
	// Scanned is the rowids looked at; Truncated says the scan ended at a
	// run of maxSalvageGap rowids that were missing or unreadable (the
	// table's end could not be read).
	Scanned   int64
	Truncated bool
	// Rebuilt says the damaged journal was set aside (Damaged) and a fresh
	// one holding the recovered units put in its place, so that rerunning
	// the run's command redoes the units salvage could not recover.
	Rebuilt bool
	Damaged string
	// NotRebuilt says why the journal was not rebuilt (its plan unreadable).
	NotRebuilt string
}

// maxSalvageGap is how many rowids in a row that are missing or cannot be
// read end the scan when the table's largest rowid cannot be read.
const maxSalvageGap = 10_000

// DamagedSuffix is appended to a damaged journal's name by Salvage.
const DamagedSuffix = ".damaged"

// Salvage writes questions.parquet and calls.parquet into dir from whatever
// units of a damaged journal can still be read. It reads the units table one
// row at a time by rowid (not through its index, nor in one query that the
// first bad page would end), skips rows that fail to read or decode, and
// writes the rest in plan order. The scan is bounded (by the largest rowid,
// or, when that cannot be read, by a run of maxSalvageGap rowids that are
// missing or unreadable) and ends when ctx does. It never writes to the
// damaged journal: it renames it to journal.db.damaged and puts in its
// place a fresh journal with the plan and the recovered units, so that
// rerunning the same command redoes only the units salvage lost. It does so
// only with rebuild (the caller holds the run directory) and when it met
// damage; when the plan itself cannot be read, the journal is left as it
// is and NotRebuilt says why.
func Salvage(ctx context.Context, dir string, rebuild bool) (SalvageReport, error) {
	var rep SalvageReport
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); err != nil {
		return rep, fmt.Errorf("journal: %w", err)
	}
	// writable_schema lets SQLite read a file shorter than its header says
	// (cut short): without it every query of such a file fails as corrupt,
	// with it only those reaching the missing pages do. The file is still
	// opened read-only.
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_busy_timeout=30000&_pragma=writable_schema(1)")
	if err != nil {
		return rep, fmt.Errorf("journal %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	units, err := salvageUnits(ctx, db, &rep)
	if err != nil {
		return rep, err
	}
	sort.Slice(units, func(i, j int) bool { return units[i].ord < units[j].ord })
	items := salvageItems(db, path)
	var order itemOrder
	_, _, err = writeParquet(dir, func(write func(results.QuestionRow, []results.CallRow) error) error {
		for _, u := range units {
			if err := write(u.q, u.calls); err != nil {
				return err
			}
		}
		return nil
	}, &order)
	if err != nil {
		return rep, err
	}
	if _, err := writeItems(dir, items, &order); err != nil {
		return rep, err
	}
	rep.Recovered = len(units)
	switch {
	case rep.Lost == 0 && !rep.Truncated:
		return rep, nil // nothing lost: the journal stays
	case !rebuild:
		rep.NotRebuilt = "the run directory is in use by another process"
		return rep, nil
	}
	var hash, body string
	if err := db.QueryRowContext(ctx, "SELECT hash, body FROM plan WHERE id = 1").Scan(&hash, &body); err != nil {
		rep.NotRebuilt = fmt.Sprintf("its plan cannot be read (%v): a rerun of the command starts a new journal elsewhere (another --out or --run-name)", err)
		return rep, nil
	}
	db.Close()
	if err := rebuildJournal(dir, hash, body, units, items); err != nil {
		return rep, err
	}
	rep.Rebuilt, rep.Damaged = true, path+DamagedSuffix
	return rep, nil
}

// rebuildJournal writes a fresh journal of the plan and units beside the damaged
// one, then renames the damaged one (and its WAL) aside and the fresh one
// into its place.
func rebuildJournal(dir, hash, body string, units []salvaged, items map[string]results.ItemRow) error {
	tmp, err := os.MkdirTemp(dir, ".salvage-")
	if err != nil {
		return fmt.Errorf("journal: rebuilding from the salvaged units: %w", err)
	}
	defer os.RemoveAll(tmp)
	j, err := Open(tmp, hash, []byte(body))
	if err != nil {
		return fmt.Errorf("journal: rebuilding from the salvaged units: %w", err)
	}
	if len(items) > 0 {
		if err := j.PutItems(slices.Collect(maps.Values(items))); err != nil {
			j.Close()
			return fmt.Errorf("journal: rebuilding from the salvaged units: %w", err)
		}
	}
	for _, u := range units {
		if err := j.Put(u.key, u.ord, u.q, u.calls); err != nil {
			j.Close()
			return fmt.Errorf("journal: rebuilding from the salvaged units: %w", err)
		}
	}
	if err := j.Close(); err != nil {
		return fmt.Errorf("journal: rebuilding from the salvaged units: %w", err)
	}
	path := filepath.Join(dir, FileName)
	for _, ext := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(path+ext, path+DamagedSuffix+ext); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("journal: setting the damaged journal aside: %w", err)
		}
	}
	for _, ext := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(filepath.Join(tmp, FileName)+ext, path+ext); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("journal: putting the rebuilt journal in place: %w", err)
		}
	}
	return nil
}

// salvaged is a unit read back from a damaged journal.
type salvaged struct {
	ord   int64
	key   string
	q     results.QuestionRow
	calls []results.CallRow
}

// salvageUnits reads every unit of db that can be read, one row at a time
// by rowid up to the largest (when it cannot be read, until maxSalvageGap
// rowids in a row are missing or unreadable), the first of each key, in
// rowid order. A row that cannot be read or decoded is counted in rep as
// lost; unreadable rowids at the end of an unbounded scan (past the data)
// are not. It returns ctx's error when ctx ends.
func salvageUnits(ctx context.Context, db *sql.DB, rep *SalvageReport) ([]salvaged, error) {
	var maxID int64 = -1
	if err := db.QueryRowContext(ctx, "SELECT MAX(rowid) FROM units").Scan(&maxID); err != nil {
		maxID = -1 // unknown: scan until a long run of missing or unreadable rowids
	}
	var units []salvaged
	seen := map[string]bool{}
	gap := 0
	var trailing []error // unreadable rows since the last good one
	for id := int64(1); maxID < 0 && gap < maxSalvageGap || id <= maxID; id++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("salvage stopped at rowid %d: %w", id, err)
		}
		rep.Scanned++
		u, found, err := salvageRow(ctx, db, id)
		if !found {
			gap++
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("salvage stopped at rowid %d: %w", id, ctx.Err())
			}
			gap++ // an unreadable rowid is no sign of more rows
			trailing = append(trailing, err)
			continue
		}
		gap = 0
		for _, e := range trailing {
			rep.lose(e)
		}
		trailing = nil
		if seen[u.key] {
			continue
		}
		seen[u.key] = true
		units = append(units, u)
	}
	if maxID >= 0 { // within the table: every unreadable row is a lost one
		for _, e := range trailing {
			rep.lose(e)
		}
	} else {
		rep.Truncated = true
	}
	return units, nil
}

// salvageRow reads the unit at rowid id; found is false when there is no
// such row. A row that is there but cannot be read or decoded is an error
// saying why.
func salvageRow(ctx context.Context, db *sql.DB, id int64) (u salvaged, found bool, err error) {
	var qb, cb []byte
	err = db.QueryRowContext(ctx, "SELECT key, ord, question, calls FROM units WHERE rowid = ?", id).Scan(&u.key, &u.ord, &qb, &cb)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return u, false, nil
	case err != nil:
		return u, true, fmt.Errorf("row %d: %v", id, err)
	}
	if err := json.Unmarshal(qb, &u.q); err != nil {
		return u, true, fmt.Errorf("row %d (%s): question does not decode: %v", id, u.key, err)
	}
	if err := json.Unmarshal(cb, &u.calls); err != nil {
		return u, true, fmt.Errorf("row %d (%s): calls do not decode: %v", id, u.key, err)
	}
	err = fillTranscripts(u.calls, func(id int64) (p, r string, err error) {
		err = db.QueryRowContext(ctx, transcriptQuery, id).Scan(&p, &r)
		return p, r, err
	})
	if err != nil {
		return u, true, fmt.Errorf("row %d (%s): %v", id, u.key, err)
	}
	return u, true, nil
}

// lose counts a row that could not be salvaged, keeping the first few
// reasons.
func (r *SalvageReport) lose(why error) {
	r.Lost++
	if len(r.Problems) < 10 {
		r.Problems = append(r.Problems, why.Error())
	}
}

// salvageItems reads the question texts of a damaged journal, all or
// none: they are a convenience for reading the run (the viewer shows the
// question without them), so damage there costs them and nothing else.
func salvageItems(db *sql.DB, path string) map[string]results.ItemRow {
	var n int
	if err := db.QueryRow("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'items'").Scan(&n); err != nil || n == 0 {
		return nil
	}
	items, err := readItems(db, path)
	if err != nil {
		return nil
	}
	return items
}
