package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContentDuplicatesKept: MMLU-Pro publishes some questions twice under
// two question_ids; the dataset counts both (health: 818, not 724), so the
// loader keeps both by default, the later copy with an id of its own, and a
// note says so. --dedupe (Source.Dedupe) merges them. A record repeated
// with its own id (an exact duplicate) is still collapsed, as MedBullets'
// copies under two links are.
func TestContentDuplicatesKept(t *testing.T) {
	src := Source{Path: "testdata/mmlu_pro_dups.jsonl"}
	res, err := Load(src, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Questions) != 3 || res.DuplicatesKept != 1 || res.DuplicatesCollapsed != 1 {
		t.Fatalf("%d questions, %d kept, %d collapsed; want 3, 1, 1", len(res.Questions), res.DuplicatesKept, res.DuplicatesCollapsed)
	}
	a, b := res.Questions[0], res.Questions[1]
	if a.SourceID != "6074" || b.SourceID != "6075" || b.ID != a.ID+"~6075" || a.ID == b.ID {
		t.Errorf("ids %s (%s) and %s (%s)", a.ID, a.SourceID, b.ID, b.SourceID)
	}
	if s := res.Summary(); !strings.Contains(s, "content duplicates kept 1 (--dedupe merges them)") {
		t.Errorf("summary lacks the duplicates kept:\n%s", s)
	}
	notes := strings.Join(res.Notes, "\n")
	if !strings.Contains(notes, "1 content duplicate(s) kept as distinct questions") || !strings.Contains(notes, "line 2 (id 6075) = line 1") ||
		!strings.Contains(notes, "1 exact duplicate record(s) collapsed") {
		t.Errorf("notes:\n%s", notes)
	}
	src.Dedupe = true
	res, err = Load(src, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Questions) != 2 || res.DuplicatesKept != 0 || res.DuplicatesCollapsed != 2 {
		t.Fatalf("--dedupe: %d questions, %d kept, %d collapsed; want 2, 0, 2", len(res.Questions), res.DuplicatesKept, res.DuplicatesCollapsed)
	}
}

// TestPaddingOptionsDropped: MMLU-Pro's "N/A" padding options are not
// options: dropped before the model sees them, counted in the question's
// metadata; a gold pointing at one is refused.
func TestPaddingOptionsDropped(t *testing.T) {
	const line = `{"question_id": 1, "question": "Which vitamin deficiency causes scurvy?", "options": ["Vitamin A", "Vitamin C", "N/A", "N/A"], "answer": "B", "answer_index": 1, "category": "health"}`
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	qs, err := LoadFile(write("ok.jsonl", line))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || len(qs[0].Options) != 2 || qs[0].Meta["padding_options_dropped"] != "2" {
		t.Fatalf("%+v", qs)
	}
	bad := strings.Replace(strings.Replace(line, `"answer": "B"`, `"answer": "C"`, 1), `"answer_index": 1`, `"answer_index": 2`, 1)
	if _, err := LoadFile(write("bad.jsonl", bad)); err == nil || !strings.Contains(err.Error(), `bad.jsonl:1: field "answer": "C" is option C "N/A", a padding option`) {
		t.Errorf("gold on a padding option: %v", err)
	}
}
