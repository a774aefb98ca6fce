package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

func TestViewRefusesNonLoopbackAndExports(t *testing.T) {
	out := t.TempDir()
	if code, so, se := runCLI(t, "run", "--config", "base,full", "--limit", "2", "--transcripts", "--out", out, "--run-name", "v", "--no-report"); code != exitOK {
		t.Fatalf("run: %d\n%s\n%s", code, so, se)
	}
	run := filepath.Join(out, "v")
	for _, addr := range []string{"0.0.0.0:8080", ":0", "192.168.0.1:80"} {
		code, _, se := runCLI(t, "view", "--addr", addr, run)
		if code != exitUsage || !strings.Contains(se, "not a loopback address") {
			t.Errorf("--addr %s: exit %d, %q; want exit 2 naming the loopback rule", addr, code, se)
		}
	}
	if code, _, se := runCLI(t, "view"); code != exitUsage || !strings.Contains(se, "give at least one run directory") {
		t.Errorf("no run: exit %d %q", code, se)
	}
	if code, _, se := runCLI(t, "view", t.TempDir()); code != exitUsage || !strings.Contains(se, "no questions.parquet") {
		t.Errorf("not a run: exit %d %q", code, se)
	}
	exp := filepath.Join(t.TempDir(), "site")
	code, so, se := runCLI(t, "view", "--export", exp, run)
	if code != exitOK || !strings.Contains(so, "2 questions × repeats, 2 arms") {
		t.Fatalf("export: exit %d %q %q", code, so, se)
	}
	for _, f := range []string{"index.html", "static/app.js", "data/grid.js", "data/q/0.js", "data/q/1.js"} {
		if _, err := os.Stat(filepath.Join(exp, f)); err != nil {
			t.Error(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(exp, "data", "q", "0.js"))
	if !strings.Contains(string(b), `"transcripts":true`) || !strings.Contains(string(b), `"Prompt":"`) {
		t.Errorf("q/0.js lacks the transcripts: %.300s", b)
	}
	checkExportRefusals(t, run, exp)
}

// checkExportRefusals: a second --export into the non-empty exp is refused
// (exit 2, naming it and --force), passes with --force, and never writes
// through a symbolic link: neither a file in the directory nor the
// directory itself being one.
func checkExportRefusals(t *testing.T, run, exp string) {
	t.Helper()
	if code, _, se := runCLI(t, "view", "--export", exp, run); code != exitUsage || !strings.Contains(se, exp) || !strings.Contains(se, "--force") {
		t.Errorf("export into a non-empty directory: exit %d %q; want exit 2 naming it and --force", code, se)
	}
	if code, _, se := runCLI(t, "view", "--export", exp, "--force", run); code != exitOK {
		t.Errorf("export --force: exit %d %q", code, se)
	}
	victim := filepath.Join(t.TempDir(), "victim.txt")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	grid := filepath.Join(exp, "data", "grid.js")
	if err := os.Remove(grid); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, grid); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if code, _, se := runCLI(t, "view", "--export", exp, "--force", run); code != exitUsage || !strings.Contains(se, grid) || !strings.Contains(se, "symbolic link") {
		t.Errorf("export over a link: exit %d %q; want exit 2 naming the link", code, se)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the export wrote through the link: victim holds %.80q", b)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	for _, force := range []string{"--force=false", "--force"} {
		if code, _, se := runCLI(t, "view", "--export", link, force, run); code != exitUsage || !strings.Contains(se, "symbolic link") {
			t.Errorf("export into a linked directory (%s): exit %d %q; want exit 2", force, code, se)
		}
	}
}

// TestRunKeepsItemsAndViewShowsThem: a run writes items.parquet, one row
// per question (not per arm or repeat) with the gold of its question rows;
// the viewer's copy carries each question's text; view on a folder of runs
// lists them (here: --export refuses a folder and names a run to give).
func TestRunKeepsItemsAndViewShowsThem(t *testing.T) {
	out := t.TempDir()
	for _, name := range []string{"a", "b"} {
		if code, so, se := runCLI(t, "run", "--config", "base,full", "--limit", "3", "--repeats", "2", "--out", out, "--run-name", name, "--no-report"); code != exitOK {
			t.Fatalf("run: %d\n%s\n%s", code, so, se)
		}
	}
	run := filepath.Join(out, "a")
	items, ok, err := results.ReadItems(run)
	if err != nil || !ok || len(items) != 3 {
		t.Fatalf("items.parquet: %d rows, ok %v, %v; want 3 (one per question)", len(items), ok, err)
	}
	rows, err := results.ReadQuestions(filepath.Join(run, results.QuestionsFile))
	if err != nil || len(rows) != 12 {
		t.Fatalf("questions.parquet: %d rows, %v", len(rows), err)
	}
	gold := map[string]string{}
	for _, it := range items {
		if it.Stem == "" || len(it.Options) < 2 || it.Gold == "" {
			t.Errorf("item %s: stem %q, %d options, gold %q", it.QuestionID, it.Stem, len(it.Options), it.Gold)
		}
		gold[it.QuestionID] = it.Gold
	}
	for _, r := range rows {
		if gold[r.QuestionID] != r.Gold {
			t.Errorf("%s %s: row gold %q, item gold %q", r.QuestionID, r.Arm, r.Gold, gold[r.QuestionID])
		}
	}
	exp := filepath.Join(t.TempDir(), "site")
	if code, so, se := runCLI(t, "view", "--export", exp, run); code != exitOK {
		t.Fatalf("export: exit %d %q %q", code, so, se)
	}
	b, _ := os.ReadFile(filepath.Join(exp, "data", "q", "0.js"))
	if !strings.Contains(string(b), `"item":{`) || !strings.Contains(string(b), `"Stem":"`+items[0].Stem[:20]) || !strings.Contains(string(b), `"answers":[`) {
		t.Errorf("q/0.js lacks the question's text or answers: %.400s", b)
	}
	code, _, se := runCLI(t, "view", "--export", exp, out)
	if code != exitUsage || !strings.Contains(se, "folder of 2 runs") || !strings.Contains(se, filepath.Join(out, "a")) {
		t.Errorf("view --export FOLDER: exit %d %q", code, se)
	}
}
