package journal

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// transcriptUnits are units with texts, two tries of the last one failing
// first (the replace path), for the streaming tests.
func transcriptCalls(qid string, try int32) []results.CallRow {
	var calls []results.CallRow
	for s := range 3 {
		calls = append(calls, results.CallRow{QuestionID: qid, Seq: int32(s), UnitTry: try,
			Prompt:   fmt.Sprintf("prompt %s try %d seq %d %s", qid, try, s, strings.Repeat("p", 100)),
			Response: fmt.Sprintf("response %s try %d seq %d", qid, try, s)})
	}
	return calls
}

// streamed stores the calls' texts with j.Transcript and returns the calls
// carrying only their ids, as a streaming meter leaves them.
func streamed(t *testing.T, j *Journal, calls []results.CallRow) []results.CallRow {
	t.Helper()
	out := make([]results.CallRow, len(calls))
	for i, c := range calls {
		id, err := j.Transcript(c.Prompt, c.Response)
		if err != nil || id == 0 {
			t.Fatalf("Transcript: id %d, %v", id, err)
		}
		c.Prompt, c.Response, c.Transcript = "", "", id
		out[i] = c
	}
	return out
}

// TestTranscriptsStreamedExportIdentical (issue 28 item 10): texts stored
// apart as each call ends (Transcript) and referenced by id in the unit's
// calls export to the same calls.parquet, byte for byte, as texts kept
// inline in the unit — through a failed unit's retry too — and EachUnit
// (merge) hands the texts back with no ids left.
func TestTranscriptsStreamedExportIdentical(t *testing.T) {
	put := func(dir string, stream bool) {
		j, err := Open(dir, "h", []byte("{}"))
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		for i := range 5 {
			qid := fmt.Sprintf("q%d", i)
			calls := transcriptCalls(qid, 0)
			if stream {
				calls = streamed(t, j, calls)
			}
			q := results.QuestionRow{QuestionID: qid, Calls: 3, Tries: 1}
			if i == 4 {
				q.Error, q.ErrorClass = "boom", "server"
			}
			if err := j.Put("k"+qid, int64(4-i), q, calls); err != nil {
				t.Fatal(err)
			}
		}
		calls := transcriptCalls("q4", 1)[:2] // the retry (its unit_try is offset by Put)
		for i := range calls {
			calls[i].UnitTry = 0
		}
		if stream {
			calls = streamed(t, j, calls)
		}
		if err := j.Put("kq4", 0, results.QuestionRow{QuestionID: "q4", Calls: 2, Tries: 1}, calls); err != nil {
			t.Fatal(err)
		}
		if _, _, err := j.Export(dir); err != nil {
			t.Fatal(err)
		}
	}
	inline, stream := t.TempDir(), t.TempDir()
	put(inline, false)
	put(stream, true)
	a, err := os.ReadFile(filepath.Join(inline, results.CallsFile))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(stream, results.CallsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("calls.parquet differs: %d bytes inline, %d streamed", len(a), len(b))
	}
	rows, err := results.ReadCalls(filepath.Join(stream, results.CallsFile))
	if err != nil || len(rows) != 17 {
		t.Fatalf("calls.parquet: %d rows (%v), want 17", len(rows), err)
	}
	for _, r := range rows {
		if want := fmt.Sprintf("prompt %s try %d seq %d ", r.QuestionID, r.UnitTry, r.Seq); !strings.HasPrefix(r.Prompt, want) {
			t.Errorf("%s try %d seq %d: prompt %.40q, want %q…", r.QuestionID, r.UnitTry, r.Seq, r.Prompt, want)
		}
	}
	j, err := OpenExisting(stream)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	n := 0
	err = j.EachUnit(func(_ string, _ int64, _ results.QuestionRow, calls []results.CallRow) error {
		for _, c := range calls {
			if c.Transcript != 0 || c.Prompt == "" || c.Response == "" {
				t.Errorf("EachUnit gave %s seq %d with id %d, %d-byte prompt", c.QuestionID, c.Seq, c.Transcript, len(c.Prompt))
			}
			n++
		}
		return nil
	})
	if err != nil || n != 17 {
		t.Fatalf("EachUnit: %d calls, %v", n, err)
	}
}

// TestTranscriptsMissingFailsExport: a call whose stored texts are gone is
// an error naming the unit, not a row with empty texts.
func TestTranscriptsMissingFailsExport(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, "h", []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Put("k", 0, results.QuestionRow{QuestionID: "q"}, []results.CallRow{{QuestionID: "q", Transcript: 42}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := j.Export(dir); err == nil || !strings.Contains(err.Error(), "unit k") || !strings.Contains(err.Error(), "transcript 42") {
		t.Fatalf("export with a missing transcript: %v", err)
	}
}

// TestSalvageTruncatedJournalTranscripts: salvage of a truncated journal
// whose texts were streamed puts every recovered unit's texts back (a unit
// whose texts are past the cut is lost, never recovered without them), and
// the rebuilt journal keeps them.
func TestSalvageTruncatedJournalTranscripts(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, "h", []byte(`{"plan":1}`))
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	for i := range n {
		qid := fmt.Sprintf("q%03d", i)
		calls := streamed(t, j, transcriptCalls(qid, 0))
		if err := j.Put("k"+qid, int64(i), results.QuestionRow{QuestionID: qid}, calls); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	rep, err := Salvage(context.Background(), dir, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("salvage: %d recovered, %d lost, rebuilt %v", rep.Recovered, rep.Lost, rep.Rebuilt)
	if rep.Recovered == 0 || rep.Recovered >= n || !rep.Rebuilt {
		t.Fatalf("salvage %+v of %d units", rep, n)
	}
	check := func(what string) {
		rows, err := results.ReadCalls(filepath.Join(dir, results.CallsFile))
		if err != nil || len(rows) != 3*rep.Recovered {
			t.Fatalf("%s calls.parquet: %d rows (%v), want %d", what, len(rows), err, 3*rep.Recovered)
		}
		for _, r := range rows {
			if want := fmt.Sprintf("prompt %s try 0 seq %d ", r.QuestionID, r.Seq); !strings.HasPrefix(r.Prompt, want) || r.Response == "" {
				t.Fatalf("%s: %s seq %d: prompt %.40q, want %q…", what, r.QuestionID, r.Seq, r.Prompt, want)
			}
		}
	}
	check("salvaged")
	j2, err := OpenExisting(dir) // the rebuilt journal
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if _, _, err := j2.Export(dir); err != nil {
		t.Fatal(err)
	}
	check("rebuilt")
}
