// Package cache is a persistent response cache for model calls, stored in
// SQLite (modernc.org/sqlite, pure Go) in WAL mode so that several processes
// (parallel sweeps) can share one file.
//
// A Cache wraps a backend client as the outermost middleware:
//
//	cache ▸ meter ▸ limiter ▸ retry ▸ backend
//
// A hit is answered from the file with Cached: true and Attempts: 0 and never
// reaches the meter's inner layers. Only successful responses are stored.
// Within one process identical requests in flight at the same time are
// collapsed: one (the leader) goes to the backend, the others share its
// answer and are reported as cached. The leader's call runs under the
// leader's own context and the leader always waits for it, so the attempts
// of a call canceled in flight come back with its error (Response.Attempts)
// instead of being lost; a follower that gives up made no request.
//
// The key is a SHA-256 over the Identity (provider, base URL without
// userinfo, model, model digest), llm.RequestHash (model, messages,
// temperature, top_p, max tokens, seed, schema) and Meta.Repeat. Other call
// metadata (arm, question ID, phase, kind, agent ...) does not enter the key:
// identical prompts in different arms are the same request.
//
// No credentials are stored: Identity has no key field, BaseURL userinfo is
// removed before hashing, and the base URL itself is not stored; the
// backends redact answer texts before they reach the cache (llm.Redactor).
// Only successful responses are stored, so an oversize answer (an error)
// never is. An answer whose usage the API did not report is stored with
// token counts -1 and comes back with Usage.Missing.
package cache

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/medteam-bench/medteam/llm"
)

// keyVersion changes whenever the key derivation changes, so old entries
// are simply never hit again.
const keyVersion = "medteam-cache-v1"

// busyTimeout is how long (ms) a connection waits for another writer.
const busyTimeout = 30000

// Mode says how a wrapped client uses the cache.
type Mode string

// Modes.
const (
	ModeReadWrite Mode = "rw"   // serve hits, store successful misses
	ModeRead      Mode = "read" // serve hits, never write
	ModeOff       Mode = "off"  // bypass the cache entirely
)

// ParseMode parses "rw", "read" or "off" (case-insensitive; "" is rw).
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case ModeReadWrite, ModeRead, ModeOff:
		return m, nil
	case "":
		return ModeReadWrite, nil
	}
	return "", fmt.Errorf("cache mode %q: want rw, read or off", s)
}

// String returns the mode's name.
func (m Mode) String() string { return string(m) }

// Identity names the model endpoint answering the requests. It deliberately
// has no field for credentials.
type Identity struct {
	Provider string // e.g. "ollama", "openai"
	BaseURL  string // endpoint; userinfo is stripped before use
	Model    string // model name as sent to the backend
	Digest   string // model weights digest when known (e.g. Ollama's), else ""
}

// CleanBaseURL normalises a base URL for the key: userinfo
// (https://user:secret@host) removed, scheme and host lower-cased, trailing
// slashes trimmed. A string that does not parse as a URL is returned with
// any "userinfo@" prefix of its authority removed.
func CleanBaseURL(s string) string {
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if err != nil || u.Host == "" && u.User == nil {
		// Not an absolute URL (or unparsable): drop anything up to an '@'
		// in what looks like the authority.
		rest := s
		scheme := ""
		if i := strings.Index(s, "://"); i >= 0 {
			scheme, rest = s[:i+3], s[i+3:]
		}
		auth := rest
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			auth = rest[:i]
		}
		if i := strings.LastIndex(auth, "@"); i >= 0 {
			rest = rest[i+1:]
		}
		return strings.TrimRight(scheme+rest, "/")
	}
	u.User = nil
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	return strings.TrimRight(u.String(), "/")
}

// Key is the cache key of req sent to the endpoint id (hex SHA-256).
func Key(id Identity, req llm.Request) string {
	h := sha256.New()
	writeStr(h, keyVersion)
	writeStr(h, id.Provider)
	writeStr(h, CleanBaseURL(id.BaseURL))
	writeStr(h, id.Model)
	writeStr(h, id.Digest)
	writeStr(h, llm.HashOf(&req))
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(int64(req.Meta.Repeat)))
	h.Write(b[:])
	return hex.EncodeToString(h.Sum(nil))
}

func writeStr(h hash.Hash, s string) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(len(s)))
	h.Write(b[:])
	h.Write([]byte(s))
}

// Stats counts cache traffic since Open.
type Stats struct {
	Hits   int64 // served from the file
	Shared int64 // served from an identical call in flight in this process
	Misses int64 // went to the backend
	Writes int64 // responses stored
	Errors int64 // cache read/write failures (the call itself went on)
	// Queued counts the answers offered for storage, Unstored those of
	// them a failed write lost (a full disk, a read-only file): the run went
	// on, but they are not in the cache for the next one. Each failed
	// write counts its answers in Errors too.
	Queued, Unstored int64
}

// Entry is one stored response.
type Entry struct {
	Key       string
	Provider  string
	Model     string
	Digest    string
	CreatedAt time.Time
	Text      string
	Finish    string // the response's finish reason
	Served    string // the model name the server echoed
	Refusal   string // the model's refusal message
	Usage     llm.Usage
	Latency   time.Duration // latency of the original backend call
}

// Cache is an open cache file. It is safe for concurrent use, and several
// Caches (in one or many processes) may share a file.
type Cache struct {
	db  *sql.DB
	get *sql.Stmt
	put *sql.Stmt
	w   *writer

	mu      sync.Mutex
	flights map[string]*flight // identical calls in flight, by key and write mode
	pending map[string]Entry   // stored answers the writer has not committed yet

	hits, shared, misses, writes, errs atomic.Int64
	fileLookups, commits               atomic.Int64 // reads of the file; batches committed
	queued, unstored                   atomic.Int64 // answers offered for storage; lost to failed writes

	onWriteFailure func(lost int64, err error) // under mu; see OnWriteFailure
	warned         bool                        // under mu: onWriteFailure was called
}

// OnWriteFailure sets fn to be called once, from the writer, at the first
// write that fails, with the number of answers it lost and the error; the
// total is Stats().Unstored. Set it before the cache is used.
func (c *Cache) OnWriteFailure(fn func(lost int64, err error)) {
	c.mu.Lock()
	c.onWriteFailure = fn
	c.mu.Unlock()
}

const schema = `
CREATE TABLE IF NOT EXISTS responses (
	key               TEXT PRIMARY KEY,
	provider          TEXT NOT NULL,
	model             TEXT NOT NULL,
	digest            TEXT NOT NULL,
	created_at        TEXT NOT NULL,
	text              TEXT NOT NULL,
	prompt_tokens     INTEGER NOT NULL,
	completion_tokens INTEGER NOT NULL,
	latency_ms        REAL NOT NULL,
	finish_reason     TEXT NOT NULL DEFAULT '',
	served_model      TEXT NOT NULL DEFAULT '',
	refusal           TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID`

// addFinish adds the finish_reason column to a cache file written before it
// existed (its entries read as "": no reason recorded).
const addFinish = `ALTER TABLE responses ADD COLUMN finish_reason TEXT NOT NULL DEFAULT ''`

// addColumns are the columns added to the responses table after its first
// version, in order: a cache file written before one existed gains it on
// open, its entries reading as "" (nothing recorded).
var addColumns = [...]string{
	addFinish,
	`ALTER TABLE responses ADD COLUMN served_model TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE responses ADD COLUMN refusal TEXT NOT NULL DEFAULT ''`,
}

// DefaultPath is os.UserCacheDir()/medteam/responses.db.
func DefaultPath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("response cache: %w", err)
	}
	return filepath.Join(dir, "medteam", "responses.db"), nil
}

// Open opens (creating if needed, with its directory) the cache file at path.
func Open(path string) (*Cache, error) {
	if path == "" {
		return nil, errors.New("response cache: empty path")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("response cache %s: path must not contain '?' or '#'", path)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("response cache: %w", err)
		}
	}
	// A new cache is readable by its owner only (SQLite gives the WAL the
	// database's mode): it holds prompts and answers.
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err == nil {
		f.Close()
	} else {
		return nil, fmt.Errorf("response cache %s: %w (set --cache-path to a writable file, or --cache off)", path, err)
	}
	dsn := fmt.Sprintf("%s?_busy_timeout=%d&_journal_mode=WAL&_synchronous=NORMAL", path, busyTimeout)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("response cache %s: %w", path, err)
	}
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	c := &Cache{db: db, flights: map[string]*flight{}, pending: map[string]Entry{}}
	if err := c.init(); err != nil {
		db.Close()
		return nil, fmt.Errorf("response cache %s: %w", path, err)
	}
	c.w = newWriter(c)
	return c, nil
}

func (c *Cache) init() error {
	ctx := context.Background()
	if _, err := c.db.ExecContext(ctx, schema); err != nil {
		return err
	}
	for _, add := range addColumns {
		if _, err := c.db.ExecContext(ctx, add); err != nil && !strings.Contains(err.Error(), "duplicate column") {
			return err
		}
	}
	var mode string
	if err := c.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %q, want wal", mode)
	}
	var err error
	if c.get, err = c.db.PrepareContext(ctx, `SELECT provider, model, digest, created_at, text,
		prompt_tokens, completion_tokens, latency_ms, finish_reason, served_model, refusal FROM responses WHERE key = ?`); err != nil {
		return err
	}
	if c.put, err = c.db.PrepareContext(ctx, `INSERT INTO responses (key, provider, model, digest,
		created_at, text, prompt_tokens, completion_tokens, latency_ms, finish_reason, served_model, refusal)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING`); err != nil {
		return err
	}
	return nil
}

// Close commits the queued writes and closes the file. Clients from Wrap
// must not be used afterwards.
func (c *Cache) Close() error {
	c.w.close()
	var errs []error
	for _, s := range []*sql.Stmt{c.get, c.put} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	errs = append(errs, c.db.Close())
	return errors.Join(errs...)
}

// Flush returns once the answers stored so far are committed to the file
// (so that another process sees them).
func (c *Cache) Flush() { c.w.flush() }

// Stats returns the counters, once the writes queued so far are committed.
func (c *Cache) Stats() Stats {
	c.Flush()
	return Stats{
		Hits: c.hits.Load(), Shared: c.shared.Load(), Misses: c.misses.Load(),
		Writes: c.writes.Load(), Errors: c.errs.Load(),
		Queued: c.queued.Load(), Unstored: c.unstored.Load(),
	}
}

// Lookup returns the entry stored under key (committed to the file, or
// queued for it by this Cache).
func (c *Cache) Lookup(ctx context.Context, key string) (Entry, bool, error) {
	c.mu.Lock()
	e, ok := c.pending[key]
	c.mu.Unlock()
	if ok {
		return e, true, nil
	}
	return c.lookupFile(ctx, key)
}

// lookupFile reads the entry committed under key.
func (c *Cache) lookupFile(ctx context.Context, key string) (Entry, bool, error) {
	c.fileLookups.Add(1)
	e := Entry{Key: key}
	var created string
	var lat float64
	err := c.get.QueryRowContext(ctx, key).Scan(&e.Provider, &e.Model, &e.Digest, &created, &e.Text,
		&e.Usage.PromptTokens, &e.Usage.CompletionTokens, &lat, &e.Finish, &e.Served, &e.Refusal)
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, false, nil
	}
	if err != nil {
		return Entry{}, false, err
	}
	if e.Usage.PromptTokens <= 0 {
		// Stored as -1 (or, by older versions, as 0): the API did not report
		// the usage. A prompt is never 0 tokens.
		e.Usage = llm.Usage{Missing: true}
	}
	e.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
	e.Latency = time.Duration(lat * float64(time.Millisecond))
	return e, true, nil
}

// entry is what store queues for a successful response.
func entry(key string, id Identity, req llm.Request, resp llm.Response) Entry {
	model := id.Model
	if model == "" {
		model = req.Model
	}
	return Entry{Key: key, Provider: id.Provider, Model: model, Digest: id.Digest, CreatedAt: time.Now().UTC(),
		Text: resp.Text, Finish: resp.FinishReason,
		Served: resp.ServedModel, Refusal: resp.Refusal, Usage: resp.Usage, Latency: resp.Latency}
}

// insert writes e in tx; an existing entry is kept. It reports whether a
// row was written.
func (c *Cache) insert(ctx context.Context, tx *sql.Tx, e Entry) (bool, error) {
	prompt, completion := e.Usage.PromptTokens, e.Usage.CompletionTokens
	if e.Usage.Missing {
		prompt, completion = -1, -1 // not reported; see Lookup
	}
	res, err := tx.StmtContext(ctx, c.put).ExecContext(ctx, e.Key, e.Provider, e.Model, e.Digest,
		e.CreatedAt.Format(time.RFC3339Nano), e.Text, prompt, completion,
		float64(e.Latency)/float64(time.Millisecond), e.Finish, e.Served, e.Refusal)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// Wrap returns next behind the cache for the endpoint id. ModeOff returns
// next itself.
func (c *Cache) Wrap(next llm.Client, id Identity, mode Mode) llm.Client {
	if mode == ModeOff {
		return next
	}
	id.BaseURL = CleanBaseURL(id.BaseURL)
	_, shares := next.(identicalSharer)
	return &client{c: c, next: next, id: id, write: mode != ModeRead, noFlights: shares}
}

// identicalSharer is a client that shares identical concurrent requests
// itself (batch mode's collector): the cache starts no flights in front of
// it. A caller waiting for another's flight would wait outside that client,
// unseen by it: the collector's stage barrier, which waits for every unit to
// park its calls in it, would never be reached.
type identicalSharer interface {
	SharesIdenticalRequests()
}

// flight is one backend call that identical calls share.
type flight struct {
	done   chan struct{} // closed when resp, err and stored are set
	resp   llm.Response
	err    error
	stored bool // found in the file, not asked of the backend
}

type client struct {
	c     *Cache
	next  llm.Client
	id    Identity
	write bool
	// noFlights: identical concurrent misses all go to next, which shares
	// them (identicalSharer)
	noFlights bool
}

func hit(e Entry) llm.Response {
	return llm.Response{Text: e.Text, FinishReason: e.Finish, ServedModel: e.Served, Refusal: e.Refusal, Usage: e.Usage, Cached: true}
}

func (cl *client) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	c := cl.c
	key := Key(cl.id, req)
	// rw and read clients do not share flights: a read-only leader would
	// leave a rw follower's answer unstored.
	fkey := key + "/" + strconv.FormatBool(cl.write)
	looked := false // the file was read once: later rounds look in memory only
	for {
		if err := ctx.Err(); err != nil {
			return llm.Response{}, &llm.Error{Class: llm.ClassCanceled, Provider: cl.id.Provider, Model: req.Model, Err: context.Cause(ctx)}
		}
		c.mu.Lock()
		if e, ok := c.pending[key]; ok {
			c.mu.Unlock()
			c.hits.Add(1)
			return hit(e), nil
		}
		if f, ok := c.flights[fkey]; ok && !cl.noFlights {
			c.mu.Unlock()
			if resp, err, again := cl.follow(ctx, f); !again {
				return resp, err
			}
			continue
		}
		if !looked {
			c.mu.Unlock()
			looked = true
			if e, ok, err := c.lookupFile(ctx, key); err != nil {
				if ctx.Err() != nil {
					continue // reported as canceled above
				}
				c.errs.Add(1)
			} else if ok {
				c.hits.Add(1)
				return hit(e), nil
			}
			continue // a flight may have started, or ended and queued its answer, meanwhile
		}
		f := &flight{done: make(chan struct{})}
		if cl.noFlights {
			c.mu.Unlock()
			cl.lead(ctx, key, req, f)
			return f.resp, f.err
		}
		c.flights[fkey] = f
		c.mu.Unlock()
		cl.lead(ctx, key, req, f)
		c.mu.Lock()
		delete(c.flights, fkey)
		c.mu.Unlock()
		close(f.done)
		return f.resp, f.err
	}
}

// follow waits for another caller's flight; again says the caller should
// look once more (the flight failed for a reason that is not ours, or ctx
// ended: a follower made no request, nothing to account for).
func (cl *client) follow(ctx context.Context, f *flight) (resp llm.Response, err error, again bool) {
	select {
	case <-f.done:
	case <-ctx.Done():
		return llm.Response{}, nil, true
	}
	if f.err != nil {
		if llm.ClassOf(f.err) == llm.ClassCanceled && ctx.Err() == nil {
			return llm.Response{}, nil, true // the leader's caller gave up; ours has not: try again
		}
		return llm.Response{}, f.err, false
	}
	cl.c.shared.Add(1)
	return llm.Response{Text: f.resp.Text, FinishReason: f.resp.FinishReason,
		ServedModel: f.resp.ServedModel, Refusal: f.resp.Refusal, Usage: f.resp.Usage, Cached: true}, nil, false
}

// lead makes the call for a flight (the file and memory were looked at
// already) and queues a success for the writer: in memory at once, so
// identical calls hit it, and in the file within a writer's batch.
func (cl *client) lead(ctx context.Context, key string, req llm.Request, f *flight) {
	c := cl.c
	c.misses.Add(1)
	f.resp, f.err = cl.next.Chat(ctx, req)
	if f.err == nil && cl.write {
		c.w.queue(entry(key, cl.id, req, f.resp))
	}
}
