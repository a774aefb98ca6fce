package journal

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// TestExportWritesEachItemOnce: the question texts recorded with PutItems
// are exported to items.parquet once per question however many arms and
// repeats answered it, in the order of the question rows, and only for
// questions with rows; a second PutItems (a resume) keeps the first.
func TestExportWritesEachItemOnce(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, "plan-a", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	item := func(id, stem string) results.ItemRow {
		return results.ItemRow{SchemaVersion: results.SchemaVersion, Dataset: "medqa", QuestionID: id, Stem: stem,
			Options: []string{"yes", "no"}, Gold: "B", Context: []string{}}
	}
	// q3 is in the plan but has no row yet (a mid-run export).
	if err := j.PutItems([]results.ItemRow{item("q1", "first?"), item("q2", "second?"), item("q3", "third?")}); err != nil {
		t.Fatal(err)
	}
	if err := j.PutItems([]results.ItemRow{item("q1", "changed")}); err != nil {
		t.Fatal(err)
	}
	ord := int64(0)
	for _, q := range []string{"q2", "q1"} { // plan order: q2 first
		for _, arm := range []string{"base", "full"} {
			for rep := range 2 {
				row := results.QuestionRow{Dataset: "medqa", QuestionID: q, Arm: arm, Repeat: int32(rep)}
				if err := j.Put(q+arm+string(rune('0'+rep)), ord, row, nil); err != nil {
					t.Fatal(err)
				}
				ord++
			}
		}
	}
	if _, _, err := j.Export(dir); err != nil {
		t.Fatal(err)
	}
	got, ok, err := results.ReadItems(dir)
	if err != nil || !ok {
		t.Fatalf("items.parquet: ok %v, %v", ok, err)
	}
	want := []results.ItemRow{item("q2", "second?"), item("q1", "first?")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("items.parquet:\n got %+v\nwant %+v", got, want)
	}
}

// TestExportWithoutItems: a journal that recorded no texts (made before
// they were kept) exports without items.parquet, and ReadItems says so.
func TestExportWithoutItems(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, "plan-a", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Put("u", 0, results.QuestionRow{Dataset: "medqa", QuestionID: "q1"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := j.Export(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, results.ItemsFile)); !os.IsNotExist(err) {
		t.Fatalf("items.parquet written without items: %v", err)
	}
	if rows, ok, err := results.ReadItems(dir); ok || err != nil || rows != nil {
		t.Fatalf("ReadItems = %v, %v, %v; want none", rows, ok, err)
	}
}

// TestSalvageKeepsItems: a salvage writes items.parquet from the damaged
// journal's texts and the rebuilt journal keeps them.
func TestSalvageKeepsItems(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, "plan-a", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := j.PutItems([]results.ItemRow{{Dataset: "medqa", QuestionID: "q1", Stem: "the stem"}}); err != nil {
		t.Fatal(err)
	}
	if err := j.Put("u", 0, results.QuestionRow{Dataset: "medqa", QuestionID: "q1"}, nil); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if _, err := Salvage(context.Background(), dir, true); err != nil {
		t.Fatal(err)
	}
	got, ok, err := results.ReadItems(dir)
	if err != nil || !ok || len(got) != 1 || got[0].Stem != "the stem" {
		t.Fatalf("items.parquet after salvage: %+v, %v, %v", got, ok, err)
	}
}
