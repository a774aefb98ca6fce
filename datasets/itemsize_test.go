package datasets

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSized writes a MedQA JSONL file whose second item's stem has stem2
// bytes.
func writeSized(t *testing.T, stem2 int) string {
	t.Helper()
	var b strings.Builder
	for i, stem := range []string{"A short question?", strings.Repeat("x", stem2), "Another question?"} {
		line, _ := json.Marshal(map[string]any{"question": stem + strings.Repeat(" ", i), "options": map[string]string{"A": "yes", "B": "no"}, "answer_idx": "A", "answer": "yes"})
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestItemSizeCap: an item whose text is over the cap (default 1 MiB) is a
// size problem at its file:line naming the flag; a raised cap loads it;
// with SkipInvalid it is skipped with reason size (issue 28, item 10: two
// 10 MB items were loaded and run).
func TestItemSizeCap(t *testing.T) {
	path := writeSized(t, DefaultMaxItemBytes+1)
	_, err := Load(Source{Path: path, Format: FormatMedQA}, LoadOptions{})
	var inv *InvalidError
	if !errors.As(err, &inv) || !strings.Contains(err.Error(), path+":2") || !strings.Contains(err.Error(), "is 1048583 bytes, over the cap of 1048576") ||
		!strings.Contains(err.Error(), "--max-item-bytes") {
		t.Fatalf("over the default cap: %v", err)
	}
	res, err := Load(Source{Path: path, Format: FormatMedQA, MaxItemBytes: 2 << 20}, LoadOptions{})
	if err != nil || len(res.Questions) != 3 {
		t.Fatalf("cap raised to 2 MiB: %d questions, %v", len(res.Questions), err)
	}
	res, err = Load(Source{Path: path, Format: FormatMedQA}, LoadOptions{SkipInvalid: true})
	if err != nil || len(res.Questions) != 2 || res.Reasons[CodeSize] != 1 {
		t.Fatalf("skip invalid: %d questions, reasons %v, %v", len(res.Questions), res.Reasons, err)
	}
	if _, err := Load(Source{Path: writeSized(t, DefaultMaxItemBytes-100), Format: FormatMedQA}, LoadOptions{}); err != nil {
		t.Errorf("under the cap: %v", err)
	}
}
