package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content string
		wantN         int
		wantErr       string
	}{
		{"ok_test.jsonl", "\n" + okLine + "\n" + okLine2 + "\n", 2, ""},
		{"bom_dev.jsonl", "\xEF\xBB\xBF" + okLine + "\n", 1, ""},
		{"bad_record.jsonl", okLine + "\n" + `{"question": "Q", "options": {"A": "x"}, "answer_idx": "A"}`, 0, `bad_record.jsonl:2: field "options": 1 option(s)`},
		{"empty.jsonl", "\n\n", 0, "unrecognised dataset format in " + filepath.Join(dir, "empty.jsonl") + ": the file is empty; name the format with --format"},
		{"data.csv", "question,a,b\n", 0, "a CSV file with the header a, b, question, which matches no known format"},
		{"other.jsonl", `{"id": 1, "question": "Q", "choices": ["a", "b"]}` + "\n", 0, "the record on line 1 has the fields choices, id, question, which match no known format"},
		{"medmcqa_test.jsonl", `{"question": "Q", "realidx": "x", "options": {"A": "a", "B": "b"}, "answer_idx": "A"}`, 1, ""},
		{"array.json", `[{"question": "Q"}]`, 0, "unrecognised dataset format"},
		{"broken.jsonl", `{"question": "Q", "options"`, 0, "line 1 is not one JSON object"},
		{"mmlu_x_test.csv", "Q?,a,b,c,d,B\n", 1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			qs, err := LoadFile(path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(qs) != tc.wantN || len(qs) == 0 || qs[0].Split != SplitFromName(path) {
				t.Errorf("got %d questions, want %d with split %q", len(qs), tc.wantN, SplitFromName(path))
			}
		})
	}
	if _, err := LoadFile(filepath.Join(dir, "absent.jsonl")); !os.IsNotExist(err) {
		t.Errorf("absent file: got %v", err)
	}
}

func TestLoadFileRealMedMCQA(t *testing.T) {
	const path = "../../shared/datasets/medmcqa/test.jsonl"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not present", path)
	}
	// The standardised copy (realidx) is no longer mistaken for MedQA: it is
	// read as the standardised format; realidx is kept as SourceID.
	qs, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// by path alone: the label from the folder's name, the ids of a
	// standardised file (never from a name)
	if len(qs) != 2816 || qs[0].Dataset != "medmcqa" || qs[0].ID != "standard-ba6739851cdd6ff5" || qs[0].SourceID != "b64a9cd7-d076-4c55-8be1-f9c44fece6cc" {
		t.Errorf("got %d questions, first %s (source id %s) dataset %q", len(qs), qs[0].ID, qs[0].SourceID, qs[0].Dataset)
	}
}

func TestLoadFileReal(t *testing.T) {
	readReal(t)
	qs, err := LoadFile(realMedQATest)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1273 || qs[0].Split != "test" || qs[0].ID != "medqa-a7f49257f5ef7f64" {
		t.Errorf("got %d questions, first %s split %q", len(qs), qs[0].ID, qs[0].Split)
	}
}
