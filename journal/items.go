package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/medteam-bench/medteam/results"
)

// itemsSchema is the table of the run's question texts: one row per
// (dataset, question id), written when the run directory is opened, so the
// units never carry the texts and an item is kept once however many arms,
// models and repeats answer it. A journal made before the table existed
// has none; export then writes no items.parquet.
const itemsSchema = `
CREATE TABLE IF NOT EXISTS items (
	dataset     TEXT NOT NULL,
	question_id TEXT NOT NULL,
	item        BLOB NOT NULL,
	PRIMARY KEY (dataset, question_id)
);
`

// PutItems records the question texts of the run, in one transaction; an
// item already recorded stays as it is (a resume puts the same items again).
func (j *Journal) PutItems(items []results.ItemRow) error {
	ctx := context.Background()
	if _, err := j.db.ExecContext(ctx, itemsSchema); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, "INSERT INTO items (dataset, question_id, item) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	defer st.Close()
	for i := range items {
		b, err := json.Marshal(&items[i])
		if err != nil {
			return err
		}
		if _, err := st.ExecContext(ctx, items[i].Dataset, items[i].QuestionID, b); err != nil {
			return fmt.Errorf("journal %s: recording question %s: %w", j.path, items[i].QuestionID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	return nil
}

// Items returns the recorded question texts by results.ItemKey (none for a
// journal made before they were recorded).
func (j *Journal) Items() (map[string]results.ItemRow, error) {
	ok, err := j.hasTable(context.Background(), "items")
	if err != nil || !ok {
		return nil, err
	}
	return readItems(j.db, j.path)
}

// readItems reads the items table of db (named path in errors).
func readItems(db *sql.DB, path string) (map[string]results.ItemRow, error) {
	rows, err := db.Query("SELECT item FROM items")
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	defer rows.Close()
	out := map[string]results.ItemRow{}
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, fmt.Errorf("journal %s: %w", path, err)
		}
		var it results.ItemRow
		if err := json.Unmarshal(b, &it); err != nil {
			return nil, fmt.Errorf("journal %s: an item: %w", path, err)
		}
		out[it.Key()] = it
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	return out, nil
}

// itemOrder collects the items of the question rows written, once each, in
// the order they first appear (plan order).
type itemOrder struct {
	seen map[string]bool
	keys []string
}

func (o *itemOrder) add(q *results.QuestionRow) {
	k := results.ItemKey(q.Dataset, q.QuestionID)
	if o.seen == nil {
		o.seen = map[string]bool{}
	}
	if !o.seen[k] {
		o.seen[k] = true
		o.keys = append(o.keys, k)
	}
}

// writeItems writes items.parquet into dir: the items of the question rows
// (order), once each, in plan order. Without recorded items (an older
// journal) nothing is written; a question whose item is missing is left
// out. It returns the number of rows written.
func writeItems(dir string, items map[string]results.ItemRow, order *itemOrder) (int, error) {
	if len(items) == 0 {
		return 0, nil
	}
	rows := make([]results.ItemRow, 0, len(order.keys))
	for _, k := range order.keys {
		if it, ok := items[k]; ok {
			rows = append(rows, it)
		}
	}
	if err := results.WriteItems(filepath.Join(dir, results.ItemsFile), rows); err != nil {
		return 0, err
	}
	return len(rows), nil
}
