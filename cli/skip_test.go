package cli

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// TestSkipInvalid: a file with an invalid item is refused with its location;
// --skip-invalid runs the rest and records the skipped count and reason.
func TestSkipInvalid(t *testing.T) {
	f, err := os.Open(medqaSample)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var lines []string
	for len(lines) < 4 && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	lines[2] = strings.Replace(lines[2], `"answer_idx": "`, `"answer_idx": "Z`, 1) // gold not among the options
	dir := t.TempDir()
	path := filepath.Join(dir, "test.jsonl")
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)

	code, _, se := runCLI(t, "run", "--dataset", path, "--config", "base", "--out", dir)
	if code != exitUsage || !strings.Contains(se, "test.jsonl:3") || !strings.Contains(se, "--skip-invalid") {
		t.Fatalf("exit %d, stderr %s", code, se)
	}
	code, so, se := runCLI(t, "run", "--dataset", path, "--config", "base", "--out", dir, "--skip-invalid", "--run-name", "skip")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	m, err := results.ReadManifest(filepath.Join(dir, "skip", results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	d := m.Datasets[0]
	if d.Questions != 3 || d.Skipped != 1 || len(d.SkipReasons) != 1 {
		t.Fatalf("manifest dataset %+v: want 3 questions, 1 skipped with its reason", d)
	}
}
