package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// TestRescoreWritesRunDirectory: rescore writes a run directory that report
// reads (two arms of protocol rescore), prints both readings per model and
// lists the replies read differently.
func TestRescoreWritesRunDirectory(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rs")
	code, stdout, stderr := runCLI(t, "rescore", "../rescore/testdata/mmlupro_result.json", "--model-name", "gpt-4o", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"| gpt-4o | 4 | 2/4 = 50.00% | 2 (0) | 2/4 = 50.00% [", "2 replies read differently"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "rescore.md"))
	if err != nil || !strings.Contains(string(md), "| gpt-4o | 71 | none (filled D) | B | B | answer\\_line |") {
		t.Errorf("rescore.md: %v\n%s", err, md)
	}
	rows, err := results.ReadQuestions(filepath.Join(out, results.QuestionsFile))
	if err != nil || len(rows) != 8 || rows[0].Protocol != "rescore" || rows[0].Dataset != "mmlu-pro" {
		t.Fatalf("rows %d, %v", len(rows), err)
	}
	m, err := results.ReadManifest(filepath.Join(out, results.ManifestFile))
	if err != nil || len(m.Arms) != 2 || m.Counts.Questions != 8 || m.Files[results.QuestionsFile] == "" {
		t.Fatalf("manifest %+v, %v", m, err)
	}
	runs, err := loadRuns([]string{out}, out)
	if err != nil || len(runs) != 1 || strings.Join(runs[0].armOrder, ",") != "published,medteam" {
		t.Fatalf("report cannot load the run: %v %+v", err, runs)
	}
	// Again into the same directory: refused.
	if code, _, stderr := runCLI(t, "rescore", "../rescore/testdata/mmlupro_result.json", "--model-name", "gpt-4o", "--out", out); code == 0 || !strings.Contains(stderr, "already holds a run") {
		t.Errorf("second rescore into %s: exit %d %s", out, code, stderr)
	}
	// A generic file without a model: --model-name is asked for.
	if code, _, stderr := runCLI(t, "rescore", "../rescore/testdata/generic.jsonl", "--out", filepath.Join(t.TempDir(), "g")); code == 0 || !strings.Contains(stderr, "--model-name") {
		t.Errorf("no model: exit %d %s", code, stderr)
	}
}

// TestRescoreEscapesPublishedText: a published file's model, id, gold and
// prediction reach rescore.md escaped for Markdown (no raw tag, no cell
// or row break, no fence, no control byte) and the terminal without an ESC.
func TestRescoreEscapesPublishedText(t *testing.T) {
	hostile := "<script>alert(1)</script>|x\n```\n\x1b[31mred\x1b]8;;http://x\x07link"
	in := filepath.Join(t.TempDir(), "hostile.jsonl")
	rec := map[string]any{"id": hostile, "model": hostile, "options": []string{"a", "b"}, "gold": "A", "pred": "B", "response": "The answer is A. " + hostile}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "rs")
	code, stdout, stderr := runCLI(t, "rescore", in, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.ContainsRune(stdout, 0x1b) || strings.ContainsRune(stdout, 0x07) {
		t.Errorf("terminal output holds a raw control byte:\n%q", stdout)
	}
	md, err := os.ReadFile(filepath.Join(out, "rescore.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"<script>", "\x1b", "\x07", "```", ">|x", "\n```"} {
		if strings.Contains(string(md), raw) {
			t.Errorf("rescore.md holds raw %q:\n%s", raw, md)
		}
	}
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(line, "| ") && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") != 7 && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") != 8 {
			t.Errorf("table row with a broken cell count: %q", line)
		}
	}
}
