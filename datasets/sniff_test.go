package datasets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// longLine returns a valid MedQA record of more than n bytes: the stem
// (stem=true) or the metamap_phrases list (a field the loader ignores) is
// padded.
func longLine(n int, stem bool) string {
	pad := strings.Repeat("word ", n/5+1)
	if stem {
		return `{"question": "` + pad + `Which drug?", "answer": "x", "options": {"A": "x", "B": "y"}, "meta_info": "step1", "answer_idx": "A"}`
	}
	phrases := `"` + strings.Repeat(`phrase", "`, n/10+1) + `end"`
	return `{"question": "Which drug?", "answer": "x", "options": {"A": "x", "B": "y"}, "meta_info": "step1", "answer_idx": "A", "metamap_phrases": [` + phrases + `]}`
}

// TestLongFirstLine: a valid JSON Lines file whose first line is longer than
// any sniffing window is recognised and read in full.
func TestLongFirstLine(t *testing.T) {
	const big = 17 << 20 // over the former 16 MiB window
	dir := t.TempDir()
	tests := []struct {
		name    string
		content string
		stemLen int // of the first question (0: short)
	}{
		{"long stem", longLine(big, true) + "\n" + okLine2 + "\n", big},
		{"long ignored field, CRLF, BOM", "\xEF\xBB\xBF" + longLine(big, false) + "\r\n" + okLine2 + "\r\n", 0},
		{"leading blank lines, no final newline", "\n\n" + longLine(big, true) + "\n" + okLine2, big},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if first := strings.SplitN(strings.TrimLeft(tc.content, "\n"), "\n", 2)[0]; len(first) <= 16<<20 {
				t.Fatalf("the first line has %d bytes; the test needs more than 16 MiB", len(first))
			}
			path := filepath.Join(dir, fmt.Sprintf("long%d_test.jsonl", i))
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if f, err := Detect(path); err != nil || f != FormatMedQA {
				t.Fatalf("Detect = %q, %v; want medqa", f, err)
			}
			res := mustLoad(t, Source{Path: path, MaxItemBytes: -1}) // reading long lines, not the item cap
			if len(res.Questions) != 2 || res.Format != FormatMedQA {
				t.Fatalf("got %d questions, format %s", len(res.Questions), res.Format)
			}
			if tc.stemLen > 0 && len(res.Questions[0].Stem) < tc.stemLen {
				t.Errorf("first stem has %d bytes, want over %d", len(res.Questions[0].Stem), tc.stemLen)
			}
			if res.Questions[1].Stem != "Q2?" {
				t.Errorf("second question %+v", res.Questions[1])
			}
		})
	}
}

// TestRecordTooLong: a JSON Lines record over the per-record cap is one
// problem (size) at its file:line; the records after it are read.
func TestRecordTooLong(t *testing.T) {
	defer func(old int) { maxRecordBytes = old }(maxRecordBytes)
	maxRecordBytes = 1 << 20
	path := filepath.Join(t.TempDir(), "q_test.jsonl")
	content := okLine + "\n" + longLine(2<<20, true) + "\n" + okLine2 + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(Source{Path: path}, LoadOptions{})
	var inv *InvalidError
	if !errors.As(err, &inv) || inv.Total != 1 {
		t.Fatalf("got %v, want one problem", err)
	}
	p := inv.Problems[0]
	if p.Line != 2 || p.Code != CodeSize || p.Fatal || !strings.Contains(p.Error(), path+":2: ") || !strings.Contains(p.Msg, "1 MiB") {
		t.Errorf("problem %+v: %v", p, p)
	}
	res, err := Load(Source{Path: path}, LoadOptions{SkipInvalid: true})
	if err != nil || len(res.Questions) != 2 || res.Skipped != 1 || res.Reasons[CodeSize] != 1 {
		t.Errorf("SkipInvalid: %d questions, %d skipped, %v", len(res.Questions), res.Skipped, err)
	}
}
