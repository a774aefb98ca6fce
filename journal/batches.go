package journal

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// The batches a batch-mode run submitted (runner/batchmode): recorded when
// submitted, before they are polled, so a rerun polls them instead of
// submitting their requests again.
const batchesSchema = `
CREATE TABLE IF NOT EXISTS batches (
	seq        INTEGER PRIMARY KEY AUTOINCREMENT,
	id         TEXT NOT NULL UNIQUE,
	input_file TEXT NOT NULL,
	custom_ids TEXT NOT NULL,
	n_lines    INTEGER NOT NULL,
	created    TEXT NOT NULL
);`

// Batch is a journaled provider batch.
type Batch struct {
	ID          string
	InputFileID string
	CustomIDs   []string
	Created     time.Time
}

func (j *Journal) batchesTable(ctx context.Context) error {
	if _, err := j.db.ExecContext(ctx, batchesSchema); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	return nil
}

// SaveBatch records a submitted batch with the custom ids of its lines.
func (j *Journal) SaveBatch(id, inputFileID string, customIDs []string) error {
	ctx := context.Background()
	if err := j.batchesTable(ctx); err != nil {
		return err
	}
	_, err := j.db.ExecContext(ctx, `INSERT INTO batches (id, input_file, custom_ids, n_lines, created)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		id, inputFileID, strings.Join(customIDs, "\n"), len(customIDs), time.Now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("journal %s: recording batch %s: %w", j.path, id, err)
	}
	return nil
}

// Batches lists the journaled batches, oldest first. It only reads: a
// journal without the table (a run that never sent a batch) has none.
func (j *Journal) Batches() ([]Batch, error) {
	ctx := context.Background()
	var n int
	if err := j.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'batches'").Scan(&n); err != nil {
		return nil, fmt.Errorf("journal %s: %w", j.path, err)
	} else if n == 0 {
		return nil, nil
	}
	rows, err := j.db.QueryContext(ctx, "SELECT id, input_file, custom_ids, created FROM batches ORDER BY seq")
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", j.path, err)
	}
	defer rows.Close()
	var out []Batch
	for rows.Next() {
		var b Batch
		var ids, created string
		if err := rows.Scan(&b.ID, &b.InputFileID, &ids, &created); err != nil {
			return nil, fmt.Errorf("journal %s: %w", j.path, err)
		}
		if ids != "" {
			b.CustomIDs = strings.Split(ids, "\n")
		}
		b.Created, _ = time.Parse(time.RFC3339Nano, created)
		out = append(out, b)
	}
	return out, rows.Err()
}

// LoadBatches calls fn with every journaled batch, oldest first (the
// journal of runner/batchmode).
func (j *Journal) LoadBatches(fn func(id, inputFileID string, customIDs []string)) error {
	bs, err := j.Batches()
	if err != nil {
		return err
	}
	for _, b := range bs {
		fn(b.ID, b.InputFileID, b.CustomIDs)
	}
	return nil
}

// A batch being submitted (runner/batchmode, batch.Tagger): its input file
// is uploaded and the batch about to be created with tag in its metadata.
// SaveBatch clears it; one left over (the run was killed in between) is
// looked for by its tag at the provider on resume.
const pendingSchema = `
CREATE TABLE IF NOT EXISTS batches_pending (
	tag        TEXT PRIMARY KEY,
	input_file TEXT NOT NULL,
	custom_ids TEXT NOT NULL,
	created    TEXT NOT NULL
);`

// SavePending records a batch about to be created: its client tag, its
// uploaded input file and the custom ids of its lines.
func (j *Journal) SavePending(tag, inputFileID string, customIDs []string) error {
	ctx := context.Background()
	if _, err := j.db.ExecContext(ctx, pendingSchema); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	_, err := j.db.ExecContext(ctx, `INSERT OR REPLACE INTO batches_pending (tag, input_file, custom_ids, created) VALUES (?, ?, ?, ?)`,
		tag, inputFileID, strings.Join(customIDs, "\n"), time.Now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("journal %s: recording the batch of file %s before creating it: %w", j.path, inputFileID, err)
	}
	return nil
}

// DropPending forgets the pending batch of tag (created and journaled, or
// never created).
func (j *Journal) DropPending(tag string) error {
	ctx := context.Background()
	if ok, err := j.hasTable(ctx, "batches_pending"); err != nil || !ok {
		return err
	}
	if _, err := j.db.ExecContext(ctx, `DELETE FROM batches_pending WHERE tag = ?`, tag); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	return nil
}

// LoadPending calls fn with every pending batch, oldest first.
func (j *Journal) LoadPending(fn func(tag, inputFileID string, customIDs []string)) error {
	ctx := context.Background()
	if ok, err := j.hasTable(ctx, "batches_pending"); err != nil || !ok {
		return err
	}
	rows, err := j.db.QueryContext(ctx, "SELECT tag, input_file, custom_ids FROM batches_pending ORDER BY created")
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	defer rows.Close()
	type pending struct {
		tag, file string
		ids       []string
	}
	var ps []pending
	for rows.Next() {
		var p pending
		var ids string
		if err := rows.Scan(&p.tag, &p.file, &ids); err != nil {
			return fmt.Errorf("journal %s: %w", j.path, err)
		}
		if ids != "" {
			p.ids = strings.Split(ids, "\n")
		}
		ps = append(ps, p)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	for _, p := range ps {
		fn(p.tag, p.file, p.ids)
	}
	return nil
}

// hasTable says whether the journal has the table name.
func (j *Journal) hasTable(ctx context.Context, name string) (bool, error) {
	var n int
	if err := j.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", name).Scan(&n); err != nil {
		return false, fmt.Errorf("journal %s: %w", j.path, err)
	}
	return n > 0, nil
}
