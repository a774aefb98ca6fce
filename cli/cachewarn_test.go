package cli

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// TestCacheWriteFailuresReported: a cache file that refuses every write
// (a trigger standing in for a full disk) warns once, with the count, and
// the summary gives the total of answers not stored; the run still ends
// well (issue 28, item 6: 94 of 1,035 answers were lost without a word).
func TestCacheWriteFailuresReported(t *testing.T) {
	path := filepath.Join(t.TempDir(), "responses.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE responses (key TEXT PRIMARY KEY, provider TEXT NOT NULL, model TEXT NOT NULL, digest TEXT NOT NULL,
			created_at TEXT NOT NULL, text TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
			latency_ms REAL NOT NULL) WITHOUT ROWID`,
		`CREATE TRIGGER full BEFORE INSERT ON responses BEGIN SELECT RAISE(FAIL, 'database or disk is full (simulated)'); END`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	out := t.TempDir()
	code, so, se := runCLI(t, "run", "--config", "base", "--limit", "4", "--out", out, "--run-name", "c", "--no-report",
		"--cache", "rw", "--cache-path", path)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	if n := strings.Count(se, "warning: the response cache"); n != 1 || !strings.Contains(se, "could not store") || !strings.Contains(se, "disk is full (simulated)") {
		t.Errorf("%d warnings on stderr, want 1:\n%s", n, se)
	}
	// base: 11 calls per question, all distinct requests.
	if !strings.Contains(so, "response cache "+path+": 44 of 44 answers could not be stored") {
		t.Errorf("summary lacks the total:\n%s", so)
	}
}
