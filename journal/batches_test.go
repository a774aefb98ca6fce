package journal

import (
	"slices"
	"testing"
)

// TestBatchesReadOnly: listing a journal's batches never writes (a run that
// sent none gets no table); saved batches list back in order, once each.
func TestBatchesReadOnly(t *testing.T) {
	j, err := Open(t.TempDir(), "plan-a", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	bs, err := j.Batches()
	var n int
	if qerr := j.db.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = 'batches'").Scan(&n); err != nil || qerr != nil || len(bs) != 0 || n != 0 {
		t.Fatalf("fresh journal: %d batches, err %v/%v, batches table created: %v", len(bs), err, qerr, n != 0)
	}
	for _, b := range []struct{ id, file string }{{"batch_1", "file-1"}, {"batch_2", "file-2"}, {"batch_1", "file-1"}} {
		if err := j.SaveBatch(b.id, b.file, []string{"h1", "h2"}); err != nil {
			t.Fatal(err)
		}
	}
	bs, err = j.Batches()
	if err != nil || len(bs) != 2 || bs[0].ID != "batch_1" || bs[1].InputFileID != "file-2" || !slices.Equal(bs[0].CustomIDs, []string{"h1", "h2"}) {
		t.Fatalf("batches %+v, err %v", bs, err)
	}
}

// TestPendingBatches: a batch journaled before its creation lists back
// with its tag, file and lines until dropped; reading a journal without
// the table finds none and creates nothing.
func TestPendingBatches(t *testing.T) {
	j, err := Open(t.TempDir(), "plan-a", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	type p struct {
		tag, file string
		ids       []string
	}
	load := func() []p {
		var out []p
		if err := j.LoadPending(func(tag, file string, ids []string) { out = append(out, p{tag, file, ids}) }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := load(); len(got) != 0 || j.DropPending("x") != nil {
		t.Fatalf("fresh journal: %v", got)
	}
	if err := j.SavePending("t1", "file-1", []string{"h1", "h2"}); err != nil {
		t.Fatal(err)
	}
	if err := j.SavePending("t2", "file-2", []string{"h3"}); err != nil {
		t.Fatal(err)
	}
	if got := load(); len(got) != 2 || got[0].tag != "t1" || got[0].file != "file-1" || !slices.Equal(got[0].ids, []string{"h1", "h2"}) {
		t.Fatalf("pending: %+v", got)
	}
	if err := j.DropPending("t1"); err != nil {
		t.Fatal(err)
	}
	if got := load(); len(got) != 1 || got[0].tag != "t2" {
		t.Fatalf("after dropping t1: %+v", got)
	}
}
