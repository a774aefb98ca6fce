package results

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestScanFileAndReadRowsAt(t *testing.T) {
	path := filepath.Join(t.TempDir(), CallsFile)
	var rows []CallRow
	for i := 0; i < 1000; i++ {
		rows = append(rows, CallRow{SchemaVersion: SchemaVersion, QuestionID: "q" + strconv.Itoa(i/10), Seq: int32(i % 10), Prompt: "p" + strconv.Itoa(i)})
	}
	if err := WriteCalls(path, rows); err != nil {
		t.Fatal(err)
	}
	type key struct {
		QuestionID string `parquet:"question_id"`
		Seq        int32  `parquet:"seq"`
	}
	var n int64
	err := ScanFile(path, func(i int64, k *key) error {
		if i != n || k.QuestionID != rows[i].QuestionID || k.Seq != rows[i].Seq {
			t.Fatalf("row %d (want %d): %+v", i, n, k)
		}
		n++
		return nil
	})
	if err != nil || n != 1000 {
		t.Fatalf("scanned %d rows: %v", n, err)
	}
	stop := errors.New("stop")
	if err := ScanFile(path, func(i int64, _ *key) error {
		if i == 5 {
			return stop
		}
		return nil
	}); err != stop {
		t.Errorf("callback error: %v", err)
	}
	got, err := ReadRowsAt[CallRow](path, []int64{999, 3, 500, 4, 501, 0})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{0, 3, 4, 500, 501, 999}
	if len(got) != len(want) {
		t.Fatalf("got %d rows", len(got))
	}
	for i, w := range want {
		if got[i].Prompt != "p"+strconv.Itoa(w) {
			t.Errorf("row %d: %q, want p%d", i, got[i].Prompt, w)
		}
	}
	if _, err := ReadRowsAt[CallRow](path, []int64{1000}); err == nil {
		t.Error("a row past the end read without error")
	}
	if r, err := ReadRowsAt[CallRow](path, nil); err != nil || r != nil {
		t.Errorf("no rows: %v %v", r, err)
	}
	if err := ScanFile(filepath.Join(t.TempDir(), "missing"), func(int64, *key) error { return nil }); err == nil {
		t.Error("missing file scanned")
	}
}

// TestOpenHandleOutlivesRename: ScanOpen and ReadRowsAtOpen read the file
// the handle opened even after WriteCalls renames another over its path.
func TestOpenHandleOutlivesRename(t *testing.T) {
	path := filepath.Join(t.TempDir(), CallsFile)
	write := func(prefix string) {
		var rows []CallRow
		for i := 0; i < 20; i++ {
			rows = append(rows, CallRow{SchemaVersion: SchemaVersion, QuestionID: prefix + strconv.Itoa(i)})
		}
		if err := WriteCalls(path, rows); err != nil {
			t.Fatal(err)
		}
	}
	write("old")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	write("new")
	got, err := ReadRowsAtOpen[CallRow](path, f, []int64{7})
	if err != nil || len(got) != 1 || got[0].QuestionID != "old7" {
		t.Fatalf("ReadRowsAtOpen after rename: %+v %v, want old7", got, err)
	}
	type key struct {
		QuestionID string `parquet:"question_id"`
	}
	if err := ScanOpen(path, f, func(i int64, k *key) error {
		if want := "old" + strconv.Itoa(int(i)); k.QuestionID != want {
			t.Errorf("ScanOpen row %d: %s, want %s", i, k.QuestionID, want)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadRowsAt[CallRow](path, []int64{7}); err != nil || got[0].QuestionID != "new7" {
		t.Fatalf("ReadRowsAt by path: %+v %v, want new7", got, err)
	}
}
