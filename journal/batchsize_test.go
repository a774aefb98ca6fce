package journal

import (
	"context"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// TestDecodeBatchesBoundedBySize: units with long transcripts are decoded
// in batches of at most decodeBatchBytes (plus the unit that crosses it),
// not 64 units at a time whatever their size, so an export's memory does
// not grow with the items' length (issue 28, item 10: transcripts of two
// 10 MB items took 2.27 GB). Each unit here holds about 1 MiB.
func TestDecodeBatchesBoundedBySize(t *testing.T) {
	for _, c := range []struct{ units, size int }{{63, 0}, {1, decodeBatchBytes - 1}} {
		if batchFull(c.units, c.size) {
			t.Errorf("batchFull(%d, %d): full too early", c.units, c.size)
		}
	}
	if !batchFull(decodeBatch, 0) || !batchFull(1, decodeBatchBytes) {
		t.Error("batchFull misses its bounds")
	}
	j, err := Open(t.TempDir(), "plan-a", []byte(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	text := strings.Repeat("transcript ", 1<<20/11)
	const n = 40
	for i := range n {
		calls := []results.CallRow{{Seq: 0, Prompt: text}}
		if err := j.Put(keyOf(int64(i)), int64(i), results.QuestionRow{Seed: int64(i)}, calls); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := j.db.Query("SELECT key, ord, question, calls FROM units ORDER BY ord")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	batches := make(chan chan decodedBatch, n)
	if err := j.scanBatches(context.Background(), rows, batches); err != nil {
		t.Fatal(err)
	}
	close(batches)
	total, count := 0, 0
	for out := range batches {
		b := <-out
		if b.err != nil {
			t.Fatal(b.err)
		}
		size := 0
		for _, u := range b.units {
			size += len(u.calls[0].Prompt)
		}
		if size > decodeBatchBytes+len(text)+1024 {
			t.Errorf("a batch of %d units holds %d bytes of transcripts, over %d", len(b.units), size, decodeBatchBytes)
		}
		total += len(b.units)
		count++
	}
	if total != n || count < 5 {
		t.Errorf("%d units in %d batches, want %d in at least 5", total, count, n)
	}
}
