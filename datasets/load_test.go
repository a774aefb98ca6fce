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
		{"empty.jsonl", "\n\n", 0, "unrecognised dataset format in " + filepath.Join(dir, "empty.jsonl") + ": the file is empty; supported: MedQA JSONL"},
		{"data.csv", "question,a,b\n", 0, "line 1 does not start a JSON object; supported: MedQA JSONL"},
		{"other.jsonl", `{"id": 1, "question": "Q", "choices": ["a", "b"]}` + "\n", 0, `lacks the MedQA field(s) "options", "answer_idx"`},
		{"medmcqa.jsonl", `{"question": "Q", "realidx": "x", "options": {"A": "a", "B": "b"}, "answer_idx": "A"}`, 0, `"realidx" field, as in the standardised MedMCQA export`},
		{"array.json", `[{"question": "Q"}]`, 0, "unrecognised dataset format"},
		{"broken.jsonl", `{"question": "Q", "options"`, 0, "line 1 is not one JSON object"},
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
	if _, err := LoadFile(path); err == nil || !strings.Contains(err.Error(), "unrecognised dataset format") {
		t.Errorf("MedMCQA file: got %v, want an unrecognised-format error rather than loading it as MedQA", err)
	}
}

func TestLoadFileReal(t *testing.T) {
	readReal(t)
	qs, err := LoadFile(realMedQATest)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1273 || qs[0].Split != "test" || qs[0].ID != "medqa-a16a1788e57f3d91" {
		t.Errorf("got %d questions, first %s split %q", len(qs), qs[0].ID, qs[0].Split)
	}
}
