package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/results"
)

func TestJournal(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, "plan-a", []byte(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	// Commit out of order from many goroutines; export follows ord.
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ord := int64(49 - i)
			q := results.QuestionRow{QuestionID: string(rune('a' + ord%26)), Calls: 2, PromptTokens: ord, Seed: ord}
			calls := []results.CallRow{{Seq: 0, Seed: ord}, {Seq: 1, Seed: ord}}
			if err := j.Put(keyOf(ord), ord, q, calls); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	// A second commit of the same unit is ignored.
	if err := j.Put(keyOf(3), 3, results.QuestionRow{Seed: 999}, nil); err != nil {
		t.Fatal(err)
	}
	done, err := j.Done(nil)
	if err != nil || len(done) != 50 || !done[keyOf(7)] {
		t.Fatalf("done = %d keys (%v)", len(done), err)
	}
	tot, err := j.Totals()
	if err != nil || tot.Units != 50 || tot.Calls != 100 || tot.PromptTokens != 49*50/2 {
		t.Fatalf("totals %+v (%v)", tot, err)
	}
	nq, nc, err := j.Export(dir)
	if err != nil || nq != 50 || nc != 100 {
		t.Fatalf("export %d %d %v", nq, nc, err)
	}
	qs, err := results.ReadQuestions(filepath.Join(dir, results.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		if q.Seed != int64(i) {
			t.Fatalf("row %d has ord %d: export is not in plan order", i, q.Seed)
		}
	}
	j.Close()

	// Reopening with the same plan resumes; another plan is refused.
	j, err = Open(dir, "plan-a", nil)
	if err != nil {
		t.Fatal(err)
	}
	done, _ = j.Done(nil)
	j.Close()
	if len(done) != 50 {
		t.Fatalf("reopened journal has %d units", len(done))
	}
	_, err = Open(dir, "plan-b", []byte(`{}`))
	var mm *PlanMismatchError
	if !errors.As(err, &mm) || mm.Have != "plan-a" {
		t.Fatalf("another plan: %v", err)
	}
	j, err = OpenExisting(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	body, hash, err := j.PlanBody()
	if err != nil || hash != "plan-a" || string(body) != `{"a":1}` {
		t.Fatalf("plan body %q %q %v", body, hash, err)
	}
}

func keyOf(ord int64) string { return "unit-" + string(rune('A'+ord/26)) + string(rune('a'+ord%26)) }

// TestRetriedUnitReplacesItsErrorRow (issue 9 item 1): on resume a unit that
// ended in a retryable error is offered again (Done), its new row replaces
// the error row, and the earlier try's calls stay, numbered as try 0.
func TestRetriedUnitReplacesItsErrorRow(t *testing.T) {
	j, err := Open(t.TempDir(), "h", []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	call := func(status string) results.CallRow { return results.CallRow{Status: status, Attempts: 2} }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(j.Put("ok", 0, results.QuestionRow{QuestionID: "ok", Tries: 1}, []results.CallRow{call("ok")}))
	must(j.Put("flaky", 1, results.QuestionRow{QuestionID: "flaky", Error: "503", ErrorClass: "server", Tries: 2},
		[]results.CallRow{call("error"), {Status: "error", UnitTry: 1}}))
	must(j.Put("bad", 2, results.QuestionRow{QuestionID: "bad", Error: "400", ErrorClass: "bad_request", Tries: 1}, []results.CallRow{call("error")}))
	retryable := func(c string) bool { return c == "server" }
	done, err := j.Done(retryable)
	must(err)
	if !done["ok"] || done["flaky"] || !done["bad"] {
		t.Fatalf("done %v: want ok and bad kept, flaky offered again", done)
	}
	if all, _ := j.Done(nil); len(all) != 3 {
		t.Fatalf("Done(nil) keeps every unit, got %v", all)
	}
	must(j.Put("flaky", 1, results.QuestionRow{QuestionID: "flaky", Tries: 1}, []results.CallRow{call("ok")}))
	// A repeated put of a successful unit changes nothing.
	must(j.Put("flaky", 1, results.QuestionRow{QuestionID: "flaky", Error: "x", Tries: 1}, nil))
	var got results.QuestionRow
	var calls []results.CallRow
	must(j.EachUnit(func(key string, _ int64, q results.QuestionRow, cs []results.CallRow) error {
		if key == "flaky" {
			got, calls = q, cs
		}
		return nil
	}))
	if got.Error != "" || got.Tries != 3 {
		t.Fatalf("replaced row %+v, want no error and 3 tries", got)
	}
	if len(calls) != 3 || calls[0].UnitTry != 0 || calls[1].UnitTry != 1 || calls[2].UnitTry != 2 || calls[2].Status != "ok" {
		t.Fatalf("calls after the retry %+v: want the two earlier tries' calls then try 2's", calls)
	}
	if d, _ := j.Done(retryable); !d["flaky"] {
		t.Fatal("a unit that succeeded on retry is offered again")
	}
}

// TestSalvageCorruptJournal (issue 9 item 4): a journal with a damaged page
// cannot be exported; Salvage recovers every unit outside the damage, in
// plan order, and says how many it lost.
func TestSalvageCorruptJournal(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, "h", []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	for i := range n {
		q := results.QuestionRow{QuestionID: fmt.Sprintf("q%03d", i), QuestionAnalysis: strings.Repeat("analysis ", 40)}
		calls := []results.CallRow{{QuestionID: q.QuestionID, Error: strings.Repeat("x", 200)}}
		if err := j.Put(fmt.Sprintf("k%03d", i), int64(n-i), q, calls); err != nil { // reverse plan order
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	mid := (len(b) / page / 2) * page
	for i := mid; i < mid+page; i++ { // one whole page in the middle of the table
		b[i] = 0xA5
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if j2, err := OpenExisting(dir); err == nil {
		if _, _, err := j2.Export(dir); err == nil {
			t.Fatal("Export of a corrupt journal succeeded; the test did not damage it")
		}
		j2.Close()
	}
	rep, err := Salvage(context.Background(), dir, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("salvaged %d of %d units, %d lost: %v", rep.Recovered, n, rep.Lost, rep.Problems)
	if rep.Recovered < n*3/4 || rep.Recovered >= n || rep.Lost == 0 && rep.Recovered+rep.Lost != n {
		t.Fatalf("salvage %+v of %d units", rep, n)
	}
	qs, err := results.ReadQuestions(filepath.Join(dir, results.QuestionsFile))
	if err != nil || len(qs) != rep.Recovered {
		t.Fatalf("questions.parquet: %d rows (%v), want %d", len(qs), err, rep.Recovered)
	}
	for i := 1; i < len(qs); i++ { // plan order: ord = n − i, so ids descend
		if qs[i].QuestionID >= qs[i-1].QuestionID {
			t.Fatalf("rows not in plan order at %d: %s after %s", i, qs[i].QuestionID, qs[i-1].QuestionID)
		}
	}
}

// TestSalvageTruncatedJournal (issue 28 item 3): a journal cut at half its
// size (MAX(rowid) fails on the damage, and so does every row past the cut)
// is salvaged in bounded time — before, a failed row read counted as found,
// so the scan never ended — and the journal is rebuilt with the recovered
// units: Done offers exactly the lost ones to a rerun. A canceled context
// ends the scan.
func TestSalvageTruncatedJournal(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, "h", []byte(`{"plan":1}`))
	if err != nil {
		t.Fatal(err)
	}
	const n = 400
	for i := range n {
		q := results.QuestionRow{QuestionID: fmt.Sprintf("q%03d", i), QuestionAnalysis: strings.Repeat("analysis ", 40)}
		if err := j.Put(fmt.Sprintf("k%03d", i), int64(i), q, []results.CallRow{{QuestionID: q.QuestionID}}); err != nil {
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
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Salvage(canceled, dir, true); !errors.Is(err, context.Canceled) {
		t.Fatalf("salvage under a canceled context: %v", err)
	}
	ctx, stop := context.WithTimeout(context.Background(), 60*time.Second)
	defer stop()
	start := time.Now()
	rep, err := Salvage(ctx, dir, true)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("salvage after %s: %v", took, err)
	}
	t.Logf("salvage of a 50%%-truncated journal (%d bytes): %s; %d recovered, %d lost, %d rowids scanned, rebuilt %v", st.Size()/2, took.Round(time.Millisecond), rep.Recovered, rep.Lost, rep.Scanned, rep.Rebuilt)
	if rep.Recovered == 0 || rep.Recovered >= n || !rep.Rebuilt {
		t.Fatalf("salvage %+v of %d units", rep, n)
	}
	if _, err := os.Stat(path + DamagedSuffix); err != nil {
		t.Fatalf("the damaged journal was not set aside: %v", err)
	}
	j2, err := Open(dir, "h", nil) // the rerun: same plan
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	done, err := j2.Done(nil)
	if err != nil || len(done) != rep.Recovered {
		t.Fatalf("the rebuilt journal has %d units done (%v), want the %d recovered", len(done), err, rep.Recovered)
	}
}
