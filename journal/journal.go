// Package journal is the crash-safe record of a run: each finished unit of
// work (one question × arm × model × repeat, failures included) is committed
// to SQLite (WAL) as it completes, so killing the process at any moment loses
// at most the units in flight, and re-running the same plan continues where
// it stopped. The parquet files are produced from the journal (Export), in
// the plan's canonical order, so they are identical whether or not the run
// was interrupted; Salvage writes them from whatever units of a damaged
// journal can still be read.
package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"sync"

	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	gojson "github.com/goccy/go-json"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver ("sqlite")

	"github.com/medteam-bench/medteam/results"
)

// FileName is the journal's name inside a run directory.
const FileName = "journal.db"

const schema = `
CREATE TABLE IF NOT EXISTS plan (
	id        INTEGER PRIMARY KEY CHECK (id = 1),
	hash      TEXT NOT NULL,
	body      TEXT NOT NULL,
	created   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS units (
	key       TEXT PRIMARY KEY,
	ord       INTEGER NOT NULL,
	question  BLOB NOT NULL,
	calls     BLOB NOT NULL,
	prompt_tokens     INTEGER NOT NULL,
	completion_tokens INTEGER NOT NULL,
	n_calls   INTEGER NOT NULL,
	failed    INTEGER NOT NULL,
	finished  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS units_ord ON units (ord);
CREATE TABLE IF NOT EXISTS transcripts (
	id        INTEGER PRIMARY KEY,
	prompt    TEXT NOT NULL,
	response  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS invocations (
	started   TEXT NOT NULL,
	pid       INTEGER NOT NULL
);
`

// PlanMismatchError is returned when a run directory holds another plan.
type PlanMismatchError struct {
	Path       string
	Have, Want string // plan hashes
}

func (e *PlanMismatchError) Error() string {
	return fmt.Sprintf("%s belongs to a different plan (hash %.12s, this command's plan is %.12s); "+
		"use another --out/--run-name for the new plan, or rerun the original command to resume it", e.Path, e.Have, e.Want)
}

// Journal is an open run journal. It is safe for concurrent use.
type Journal struct {
	db   *sql.DB
	path string
	put  *sql.Stmt
	text *sql.Stmt // inserts a transcript
}

// Open opens or creates the journal in dir for the plan with the given hash;
// body (the resolved plan, JSON) is stored on creation. An existing journal
// for a different plan is refused with a *PlanMismatchError. Open writes (it
// records the invocation), so a journal or directory that cannot be written
// fails here, before any work. A new journal and its WAL are readable by the
// owner only (0600; SQLite gives the WAL the database's mode): they may hold
// transcripts.
func Open(dir, planHash string, body []byte) (*Journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	path := filepath.Join(dir, FileName)
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err == nil {
		f.Close()
	} else {
		return nil, fmt.Errorf("journal %s: %w (is the run directory writable?)", path, err)
	}
	db, err := sql.Open("sqlite", path+"?_busy_timeout=30000&_journal_mode=WAL&_synchronous=NORMAL")
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // one writer; commits are small and sequential
	j := &Journal{db: db, path: path}
	if err := j.init(planHash, body); err != nil {
		db.Close()
		return nil, err
	}
	return j, nil
}

// OpenExisting opens the journal of an existing run directory whatever its
// plan (to read the plan back, or to export).
func OpenExisting(dir string) (*Journal, error) {
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	db, err := sql.Open("sqlite", path+"?_busy_timeout=30000&_journal_mode=WAL&_synchronous=NORMAL")
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return &Journal{db: db, path: path}, nil
}

func (j *Journal) init(planHash string, body []byte) error {
	ctx := context.Background()
	if _, err := j.db.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	var mode string
	if err := j.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		return fmt.Errorf("journal %s: journal mode %q (%v), want wal", j.path, mode, err)
	}
	var have string
	err := j.db.QueryRowContext(ctx, "SELECT hash FROM plan WHERE id = 1").Scan(&have)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := j.db.ExecContext(ctx, "INSERT INTO plan (id, hash, body, created) VALUES (1, ?, ?, ?)",
			planHash, string(body), time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
			return fmt.Errorf("journal %s: %w", j.path, err)
		}
	case err != nil:
		return fmt.Errorf("journal %s: %w", j.path, err)
	case have != planHash:
		return &PlanMismatchError{Path: filepath.Dir(j.path), Have: have, Want: planHash}
	}
	if _, err := j.db.ExecContext(ctx, "INSERT INTO invocations (started, pid) VALUES (?, ?)",
		time.Now().UTC().Format(time.RFC3339Nano), os.Getpid()); err != nil {
		return fmt.Errorf("journal %s: cannot write: %w (is the run directory writable?)", j.path, err)
	}
	j.put, err = j.db.PrepareContext(ctx, `INSERT INTO units (key, ord, question, calls, prompt_tokens,
		completion_tokens, n_calls, failed, finished) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (key) DO NOTHING`)
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	j.text, err = j.db.PrepareContext(ctx, "INSERT INTO transcripts (prompt, response) VALUES (?, ?)")
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	return nil
}

// Transcript stores one call's prompt and response texts at once (a run
// with --transcripts streams them here as each call ends, so they do not
// stay in memory until their unit is committed) and returns their id, which
// the call's row keeps (results.CallRow.Transcript) in the texts' stead.
// Reading the units back (Each, EachUnit, Salvage) puts the texts back into
// the rows. Texts of a unit never committed (killed in flight) stay unused.
func (j *Journal) Transcript(prompt, response string) (int64, error) {
	if j.text == nil {
		return 0, fmt.Errorf("journal %s: opened read-only, cannot store transcripts", j.path)
	}
	res, err := j.text.Exec(prompt, response)
	if err != nil {
		return 0, fmt.Errorf("journal %s: storing a transcript: %w", j.path, err)
	}
	return res.LastInsertId()
}

// transcriptQuery reads one transcript back.
const transcriptQuery = "SELECT prompt, response FROM transcripts WHERE id = ?"

// fillTranscripts puts the texts stored under the calls' transcript ids back
// into the calls, reading them with read (which returns sql.ErrNoRows, or
// another error, when it cannot).
func fillTranscripts(calls []results.CallRow, read func(id int64) (prompt, response string, err error)) error {
	for i := range calls {
		c := &calls[i]
		if c.Transcript == 0 {
			continue
		}
		p, r, err := read(c.Transcript)
		if err != nil {
			return fmt.Errorf("call %d (try %d) transcript %d: %w", c.Seq, c.UnitTry, c.Transcript, err)
		}
		c.Prompt, c.Response, c.Transcript = p, r, 0
	}
	return nil
}

// hasTranscriptIDs reports whether any call keeps its texts in the
// transcripts table.
func hasTranscriptIDs(calls []results.CallRow) bool {
	for _, c := range calls {
		if c.Transcript != 0 {
			return true
		}
	}
	return false
}

// Close closes the journal.
func (j *Journal) Close() error {
	if j.put != nil {
		j.put.Close()
	}
	if j.text != nil {
		j.text.Close()
	}
	return j.db.Close()
}

// PlanBody returns the stored plan.
func (j *Journal) PlanBody() ([]byte, string, error) {
	var body, hash string
	err := j.db.QueryRow("SELECT body, hash FROM plan WHERE id = 1").Scan(&body, &hash)
	return []byte(body), hash, err
}

// Done returns the keys of the units a resumed run skips: every committed
// unit except those whose row ended in an error that retry (given the row's
// error_class) says is worth another try; nil retry keeps them all.
func (j *Journal) Done(retry func(errorClass string) bool) (map[string]bool, error) {
	rows, err := j.db.Query("SELECT key, failed, CASE WHEN failed = 1 THEN question END FROM units")
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", j.path, err)
	}
	defer rows.Close()
	done := map[string]bool{}
	for rows.Next() {
		var k string
		var failed int
		var qb []byte
		if err := rows.Scan(&k, &failed, &qb); err != nil {
			return nil, err
		}
		if failed == 1 && retry != nil {
			var q struct {
				ErrorClass string
			}
			if json.Unmarshal(qb, &q) == nil && retry(q.ErrorClass) {
				continue
			}
		}
		done[k] = true
	}
	return done, rows.Err()
}

// Totals sums what the committed units spent.
type Totals struct {
	Units, Failed, Calls           int64
	PromptTokens, CompletionTokens int64
}

// Totals sums the committed units.
func (j *Journal) Totals() (Totals, error) {
	var t Totals
	err := j.db.QueryRow(`SELECT COUNT(*), COALESCE(SUM(failed),0), COALESCE(SUM(n_calls),0),
		COALESCE(SUM(prompt_tokens),0), COALESCE(SUM(completion_tokens),0) FROM units`).
		Scan(&t.Units, &t.Failed, &t.Calls, &t.PromptTokens, &t.CompletionTokens)
	return t, err
}

// Put commits one finished unit. A unit already committed without error is
// left as it was (the first success wins, so a repeated put is harmless). A
// unit committed with an error and run again (a resume retrying errors) is
// replaced by the new row, and the earlier calls are kept before the new
// ones: the new calls' unit_try and the row's tries continue the count, so
// every request that reached the endpoint stays recorded.
func (j *Journal) Put(key string, ord int64, q results.QuestionRow, calls []results.CallRow) error {
	var oldQ, oldC []byte
	var oldFailed int
	err := j.db.QueryRow("SELECT question, calls, failed FROM units WHERE key = ?", key).Scan(&oldQ, &oldC, &oldFailed)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("journal %s: reading %s: %w", j.path, key, err)
	case oldFailed == 0:
		return nil
	default:
		return j.replace(key, oldQ, oldC, q, calls)
	}
	qb, err := json.Marshal(q)
	if err != nil {
		return err
	}
	cb, err := json.Marshal(calls)
	if err != nil {
		return err
	}
	failed := 0
	if q.Error != "" {
		failed = 1
	}
	_, err = j.put.Exec(key, ord, qb, cb, q.PromptTokens, q.CompletionTokens, q.Calls, failed,
		time.Now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("journal %s: committing %s: %w", j.path, key, err)
	}
	return nil
}

// replace supersedes a failed unit's row with a new try (see Put). Puts of
// one key come from one goroutine of one process (the run directory is
// locked), so read-then-write needs no transaction.
func (j *Journal) replace(key string, oldQ, oldC []byte, q results.QuestionRow, calls []results.CallRow) error {
	var prev results.QuestionRow
	var prevCalls []results.CallRow
	if err := json.Unmarshal(oldQ, &prev); err != nil {
		return fmt.Errorf("journal %s: %s: %w", j.path, key, err)
	}
	if err := json.Unmarshal(oldC, &prevCalls); err != nil {
		return fmt.Errorf("journal %s: %s: %w", j.path, key, err)
	}
	tries := max(prev.Tries, 1)
	merged := append(prevCalls, calls...)
	for i := len(prevCalls); i < len(merged); i++ {
		merged[i].UnitTry += tries
	}
	q.Tries = tries + max(q.Tries, 1)
	qb, err := json.Marshal(q)
	if err != nil {
		return err
	}
	cb, err := json.Marshal(merged)
	if err != nil {
		return err
	}
	failed := 0
	if q.Error != "" {
		failed = 1
	}
	_, err = j.db.Exec(`UPDATE units SET question = ?, calls = ?, prompt_tokens = ?, completion_tokens = ?,
		n_calls = ?, failed = ?, finished = ? WHERE key = ?`, qb, cb, q.PromptTokens, q.CompletionTokens, q.Calls, failed,
		time.Now().UTC().Format(time.RFC3339Nano), key)
	if err != nil {
		return fmt.Errorf("journal %s: replacing %s: %w", j.path, key, err)
	}
	return nil
}

// Each calls fn for every committed unit in plan order.
func (j *Journal) Each(fn func(q results.QuestionRow, calls []results.CallRow) error) error {
	return j.EachUnit(func(_ string, _ int64, q results.QuestionRow, calls []results.CallRow) error { return fn(q, calls) })
}

// EachUnit calls fn for every committed unit in plan order, with its key
// and position. The rows are decoded from JSON on every core (decoding is
// most of an export's time), in batches handed back in order. Texts stored
// apart (Transcript) are put back into each unit's calls just before fn
// sees it, one unit at a time, so only one unit's texts are in memory.
func (j *Journal) EachUnit(fn func(key string, ord int64, q results.QuestionRow, calls []results.CallRow) error) error {
	texts := &textReader{path: j.path}
	defer texts.close()
	rows, err := j.db.Query("SELECT key, ord, question, calls FROM units ORDER BY ord")
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	defer rows.Close()
	// On an early return: stop the scanner, wait for it, then close rows
	// (deferred calls run in reverse order).
	var scanning sync.WaitGroup
	defer scanning.Wait()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	batches := make(chan chan decodedBatch, runtime.GOMAXPROCS(0)+1)
	var scanErr error
	scanning.Go(func() {
		defer close(batches)
		scanErr = j.scanBatches(ctx, rows, batches)
	})
	for out := range batches {
		b := <-out
		if b.err != nil {
			return b.err
		}
		for i := range b.units {
			u := &b.units[i]
			if err := texts.fill(u.key, u.calls); err != nil {
				return err
			}
			if err := fn(u.key, u.ord, u.q, u.calls); err != nil {
				return err
			}
			b.units[i] = decodedUnit{} // its texts leave with it
		}
	}
	if scanErr != nil {
		return scanErr
	}
	return rows.Err()
}

// textReader reads transcripts back for EachUnit over a connection of its
// own (the journal's one connection is busy with the units query), opened
// only when a unit needs it.
type textReader struct {
	path string
	db   *sql.DB
	stmt *sql.Stmt
}

func (t *textReader) fill(key string, calls []results.CallRow) error {
	if !hasTranscriptIDs(calls) {
		return nil
	}
	if t.db == nil {
		db, err := sql.Open("sqlite", t.path+"?_busy_timeout=30000")
		if err != nil {
			return fmt.Errorf("journal %s: %w", t.path, err)
		}
		db.SetMaxOpenConns(1)
		t.db = db
		if t.stmt, err = db.Prepare(transcriptQuery); err != nil {
			return fmt.Errorf("journal %s: %w", t.path, err)
		}
	}
	err := fillTranscripts(calls, func(id int64) (p, r string, err error) {
		err = t.stmt.QueryRow(id).Scan(&p, &r)
		return p, r, err
	})
	if err != nil {
		return fmt.Errorf("journal %s: unit %s: %w", t.path, key, err)
	}
	return nil
}

func (t *textReader) close() {
	if t.stmt != nil {
		t.stmt.Close()
	}
	if t.db != nil {
		t.db.Close()
	}
}

// decodeBatch is how many units one decoding goroutine takes at a time, and
// decodeBatchBytes how many bytes of stored units at most: with
// transcripts a unit holds every prompt and answer of its calls, so a batch
// closes by size as well as by count, and the export's memory stays near
// (GOMAXPROCS+2) × decodeBatchBytes, however long the items are.
const (
	decodeBatch      = 64
	decodeBatchBytes = 8 << 20
)

// batchFull reports whether a batch of units holding size bytes is full.
func batchFull(units, size int) bool { return units >= decodeBatch || size >= decodeBatchBytes }

type rawUnit struct {
	key    string
	ord    int64
	qb, cb []byte
}

type decodedUnit struct {
	key   string
	ord   int64
	q     results.QuestionRow
	calls []results.CallRow
}

type decodedBatch struct {
	units []decodedUnit
	err   error
}

// scanBatches reads rows in batches and starts decoding each on its own
// goroutine, sending the channel of its result in order; the bounded
// channel limits the batches in flight to about one per core.
func (j *Journal) scanBatches(ctx context.Context, rows *sql.Rows, batches chan<- chan decodedBatch) error {
	send := func(raw []rawUnit) bool {
		out := make(chan decodedBatch, 1)
		go func() { out <- j.decode(raw) }()
		select {
		case batches <- out:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var raw []rawUnit
	size := 0
	for rows.Next() {
		var u rawUnit
		if err := rows.Scan(&u.key, &u.ord, &u.qb, &u.cb); err != nil {
			return err
		}
		raw, size = append(raw, u), size+len(u.qb)+len(u.cb)
		if batchFull(len(raw), size) {
			if !send(raw) {
				return nil
			}
			raw, size = nil, 0
		}
	}
	if len(raw) > 0 {
		send(raw)
	}
	return nil
}

func (j *Journal) decode(raw []rawUnit) decodedBatch {
	b := decodedBatch{units: make([]decodedUnit, len(raw))}
	for i, r := range raw {
		u := &b.units[i]
		u.key, u.ord = r.key, r.ord
		if err := gojson.Unmarshal(r.qb, &u.q); err != nil {
			b.err = fmt.Errorf("journal %s: unit %s: %w", j.path, r.key, err)
			return b
		}
		if err := gojson.Unmarshal(r.cb, &u.calls); err != nil {
			b.err = fmt.Errorf("journal %s: unit %s: %w", j.path, r.key, err)
			return b
		}
	}
	return b
}

// Export writes questions.parquet and calls.parquet into dir from the
// journal, in plan order, streaming (memory does not grow with the run).
// With the question rows it writes items.parquet, the text of each of
// their questions once, when the journal recorded them (PutItems).
func (j *Journal) Export(dir string) (questions, calls int64, err error) {
	items, err := j.Items()
	if err != nil {
		return 0, 0, err
	}
	var order itemOrder
	if questions, calls, err = writeParquet(dir, j.Each, &order); err != nil {
		return 0, 0, err
	}
	if _, err := writeItems(dir, items, &order); err != nil {
		return 0, 0, err
	}
	return questions, calls, nil
}

// writeParquet writes questions.parquet and calls.parquet into dir from the
// units each gives, in the order it gives them, and returns the row counts;
// order collects the questions' items. Each file appears whole or not at
// all (results.Create).
func writeParquet(dir string, each func(func(results.QuestionRow, []results.CallRow) error) error, order *itemOrder) (questions, calls int64, err error) {
	qw, err := results.Create[results.QuestionRow](filepath.Join(dir, results.QuestionsFile))
	if err != nil {
		return 0, 0, err
	}
	defer qw.Abort()
	cw, err := results.Create[results.CallRow](filepath.Join(dir, results.CallsFile))
	if err != nil {
		return 0, 0, err
	}
	defer cw.Abort()
	err = each(func(q results.QuestionRow, cs []results.CallRow) error {
		if err := qw.Write(q); err != nil {
			return err
		}
		order.add(&q)
		return cw.Write(cs...)
	})
	if err != nil {
		return 0, 0, err
	}
	if err := qw.Close(); err != nil {
		return 0, 0, err
	}
	if err := cw.Close(); err != nil {
		return 0, 0, err
	}
	return qw.Rows(), cw.Rows(), nil
}
