package view

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// folder makes a folder of runs: run-a (with a manifest), run-b (no
// manifest), run-c (a journal only, not exported) and a directory that is
// no run.
func folder(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, name := range []string{"run-a", "run-b"} {
		if err := os.Rename(fixture(t, name, false), filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	m := results.Manifest{SchemaVersion: results.SchemaVersion, RunID: "run-a", Status: results.NewStatus(6, 8, false),
		Datasets: []results.DatasetRef{{Name: "medqa", Questions: 4}}, Arms: []results.ArmRef{{Label: "base"}, {Label: "full"}}}
	if err := results.WriteManifest(filepath.Join(root, "run-a", results.ManifestFile), m); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"run-c", "notes"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "run-c", "journal.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestListRuns(t *testing.T) {
	root := folder(t)
	got, err := ListRuns(root)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range got {
		lines = append(lines, strings.Join([]string{e.Name, e.Status, strings.Join(e.Arms, ","), strconv.Itoa(e.Questions), map[bool]string{true: "view", false: e.Note}[e.Viewable]}, " | "))
	}
	want := []string{
		"run-a | incomplete: 6 of 8 units done | base,full | 4 | view",
		"run-b | no manifest yet (running, or stopped before its first export) |  | -1 | view",
		"run-c | no manifest yet (running, or stopped before its first export) |  | -1 | no questions.parquet yet: 'medteam export " + filepath.Join(root, "run-c") + "' writes it from the journal",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("ListRuns:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestCatalog: the folder's page lists the runs with links; each run's
// viewer answers under runs/NAME/ (its page, API and assets); an
// unexported or unknown run is a 404 that says what to do.
func TestCatalog(t *testing.T) {
	root := folder(t)
	entries, err := ListRuns(root)
	if err != nil {
		t.Fatal(err)
	}
	h := (&Catalog{Folder: root, Entries: entries, Open: OpenData}).Handler()
	code, body, _ := get(t, h, "GET", "/", "127.0.0.1")
	for _, want := range []string{`<a href="runs/run-a/">run-a</a>`, `<a href="runs/run-b/">run-b</a>`, "incomplete: 6 of 8 units done", "base, full", "medteam export"} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("list page lacks %q: %d\n%s", want, code, body)
		}
	}
	if strings.Contains(body, `href="runs/run-c/"`) || strings.Contains(body, "notes") {
		t.Errorf("list links an unexported run or lists a non-run:\n%s", body)
	}
	if code, body, _ := get(t, h, "GET", "/runs/run-a/", "127.0.0.1"); code != 200 || !strings.Contains(body, `src="static/app.js"`) {
		t.Errorf("run-a page: %d %.200s", code, body)
	}
	if code, body, _ := get(t, h, "GET", "/runs/run-b/api/meta", "127.0.0.1"); code != 200 || !strings.Contains(body, `"name":"run-b"`) {
		t.Errorf("run-b meta: %d %s", code, body)
	}
	if code, _, _ := get(t, h, "GET", "/runs/run-a/static/app.css", "127.0.0.1"); code != 200 {
		t.Errorf("run-a asset: %d", code)
	}
	if code, body, _ := get(t, h, "GET", "/runs/run-c/", "127.0.0.1"); code != 404 || !strings.Contains(body, "medteam export") {
		t.Errorf("run-c: %d %s", code, body)
	}
	if code, _, _ := get(t, h, "GET", "/runs/nope/", "127.0.0.1"); code != 404 {
		t.Errorf("unknown run: %d", code)
	}
	if code, _, _ := get(t, h, "POST", "/", "127.0.0.1"); code != 405 {
		t.Errorf("POST: %d, want 405", code)
	}
}
