package view

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// rewritten writes, beside run dir, a run "runB" with the same questions
// whose calls.parquet holds the same kind of calls in reverse order (so a
// row offset of dir's file names another question's call in runB's).
func rewritten(t *testing.T, dir string) string {
	t.Helper()
	calls, err := results.ReadFile[results.CallRow](filepath.Join(dir, results.CallsFile))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := results.ReadQuestions(filepath.Join(dir, results.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(calls)
	for i := range calls {
		calls[i].RunID = "runB"
	}
	for i := range rows {
		rows[i].RunID = "runB"
	}
	b := filepath.Join(t.TempDir(), "runB")
	if err := os.MkdirAll(b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteCalls(filepath.Join(b, results.CallsFile), calls); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteQuestions(filepath.Join(b, results.QuestionsFile), rows); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRewrittenRunNeverMixesFiles: a run resumed while it is viewed gets
// calls.parquet (and questions.parquet) renamed over; the viewer must keep
// serving the files it opened (a snapshot), never the new file's rows at
// the old file's offsets (issue 35 item 3: another question's calls).
func TestRewrittenRunNeverMixesFiles(t *testing.T) {
	for _, tt := range []struct {
		name   string
		id     int
		arms   string
		before bool // open the question before the rename (index built on the old file)
	}{
		{"q1 full, opened before", 0, "1", true},
		{"q2 base, opened before", 1, "0", true},
		{"q3 both, first opened after", 2, "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixture(t, "runA", true)
			other := rewritten(t, dir)
			d := openData(t, dir)
			h := Handler(d)
			ask := func() Question {
				t.Helper()
				code, body, _ := get(t, h, http.MethodGet, "/api/question?id="+strconv.Itoa(tt.id)+"&arms="+tt.arms, "127.0.0.1")
				if code != http.StatusOK {
					t.Fatalf("status %d: %s", code, body)
				}
				var q Question
				if err := json.Unmarshal([]byte(body), &q); err != nil {
					t.Fatal(err)
				}
				return q
			}
			var first Question
			if tt.before {
				first = ask()
			}
			replaceRun(t, other, dir)
			q := ask()
			for _, a := range q.Arms {
				if len(a.Calls) == 0 {
					t.Fatalf("arm %d: no calls", a.Arm)
				}
				for _, c := range a.Calls {
					if c.QuestionID != q.Line.Q || c.Arm != d.Arms[a.Arm].Arm || c.RunID != "runA" {
						t.Errorf("arm %s of %s: served call of run %s, question %s, arm %s (seq %d): rows of one file at offsets of another",
							d.Arms[a.Arm].Arm, q.Line.Q, c.RunID, c.QuestionID, c.Arm, c.Seq)
					}
				}
			}
			if tt.before && !jsonEqual(t, first, q) {
				t.Errorf("the answer changed after the rename; want the snapshot opened at start")
			}
		})
	}
}

// replaceRun renames src's calls.parquet and questions.parquet over dst's,
// as a resumed run's export writes them (temp file, rename).
func replaceRun(t *testing.T, src, dst string) {
	t.Helper()
	for _, name := range []string{results.CallsFile, results.QuestionsFile} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(dst, name+".tmp")
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dst, name)); err != nil {
			t.Fatal(err)
		}
	}
}

func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	x, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(x) == string(y)
}
