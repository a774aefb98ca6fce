package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// readManifestMap reads a run's manifest.json as generic JSON, so that tests
// see exactly the keys written.
func readManifestMap(t *testing.T, dir string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRunMedBulletsDuplicates: a MedBullets file with exact duplicates (as
// published) runs, and the manifest records how many were collapsed.
func TestRunMedBulletsDuplicates(t *testing.T) {
	dir := t.TempDir()
	code, so, se := runCLI(t, "run", "--dataset", "../datasets/testdata/medbullets_op4.csv", "--config", "base", "--agents", "2",
		"--out", dir, "--run-name", "mb")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	d := readManifestMap(t, filepath.Join(dir, "mb"))["datasets"].([]any)[0].(map[string]any)
	if d["duplicates_collapsed"] != 2.0 || d["records"] != 4.0 || d["questions"] != 4.0 {
		t.Errorf("manifest dataset: duplicates_collapsed %v, records %v, questions %v; want 2, 4, 4", d["duplicates_collapsed"], d["records"], d["questions"])
	}
	notes, _ := json.Marshal(d["notes"])
	if !strings.Contains(string(notes), "2 exact duplicate record(s) collapsed") {
		t.Errorf("manifest notes %s", notes)
	}
}

// TestManifestDatasetSHA256: the manifest's dataset sha256 is what
// `sha256sum FILE` prints for a file; for a folder (or a registry entry of
// several files), the SHA-256 of the `sha256sum` lines "HEX  NAME\n" of its
// files in name order, with each file's hash listed.
func TestManifestDatasetSHA256(t *testing.T) {
	tmp := t.TempDir()
	copyTo := func(from, to string) []byte {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		to = filepath.Join(tmp, to)
		os.MkdirAll(filepath.Dir(to), 0o755)
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return data
	}
	hexSum := func(b []byte) string {
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:])
	}
	single := copyTo("../datasets/testdata/medqa_5opt_test.jsonl", "medqa5_test.jsonl")
	// A folder of MMLU files: sha256sum prints them in name order.
	anat := []byte("Which bone?,Femur,Tibia,Ulna,Radius,A\nWhich organ?,Liver,Lung,Heart,Skin,C\n")
	bio := []byte("Which base?,Adenine,Uracil,Ribose,Glucose,A\n")
	os.MkdirAll(filepath.Join(tmp, "mmlu"), 0o755)
	os.WriteFile(filepath.Join(tmp, "mmlu", "college_biology_test.csv"), bio, 0o644)
	os.WriteFile(filepath.Join(tmp, "mmlu", "anatomy_test.csv"), anat, 0o644)
	sample, err := os.ReadFile("../datasets/sample/medqa_test_sample50.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	folderLines := hexSum(anat) + "  anatomy_test.csv\n" + hexSum(bio) + "  college_biology_test.csv\n"
	tests := []struct {
		name, dataset, want string
		files               [][2]string // name, sha256
	}{
		{"file", filepath.Join(tmp, "medqa5_test.jsonl"), hexSum(single), [][2]string{{"medqa5_test.jsonl", hexSum(single)}}},
		{"folder", filepath.Join(tmp, "mmlu"), hexSum([]byte(folderLines)),
			[][2]string{{"anatomy_test.csv", hexSum(anat)}, {"college_biology_test.csv", hexSum(bio)}}},
		{"embedded sample", "medqa-sample", hexSum(sample), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			code, so, se := runCLI(t, "run", "--dataset", tc.dataset, "--limit", "2", "--config", "base", "--agents", "2", "--out", out, "--run-name", "r")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, so, se)
			}
			d := readManifestMap(t, filepath.Join(out, "r"))["datasets"].([]any)[0].(map[string]any)
			if d["sha256"] != tc.want {
				t.Errorf("manifest sha256 %v, want %s", d["sha256"], tc.want)
			}
			var got [][2]string
			list, _ := d["file_sha256"].([]any)
			for _, e := range list {
				m := e.(map[string]any)
				got = append(got, [2]string{m["name"].(string), m["sha256"].(string)})
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.files) {
				t.Errorf("file_sha256 %v, want %v", got, tc.files)
			}
		})
	}
}

// TestFlagMessages: a bad team setting names its own flag and the allowed
// values, not --config.
func TestFlagMessages(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--turns", "5"}, []string{"--turns 5", "2 or 3"}},
		{[]string{"--agents", "7"}, []string{"--agents 7", "0 for a dynamic team", "2 to 4"}},
		{[]string{"--agents", "1", "--config", "base,full"}, []string{"--agents 1"}},
		{[]string{"--discussion", "chaos"}, []string{`--discussion "chaos"`, "round_robin or parallel"}},
		{[]string{"--agent-temperature", "3"}, []string{"--agent-temperature 3", "0 to 2"}},
		{[]string{"--leader-temperature", "-1"}, []string{"--leader-temperature -1", "0 to 2"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out := t.TempDir()
			code, _, se := runCLI(t, append([]string{"run", "--out", out}, tc.args...)...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr %s", code, exitUsage, se)
			}
			for _, w := range tc.want {
				if !strings.Contains(se, w) {
					t.Errorf("stderr %q lacks %q", se, w)
				}
			}
			if strings.Contains(se, "--config") {
				t.Errorf("stderr %q names --config", se)
			}
		})
	}
}

// TestSkipInvalidNoValidRecord: --skip-invalid over a file without one
// valid record is bad input (exit 2), said before any run directory exists.
func TestSkipInvalidNoValidRecord(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "bad_test.jsonl")
	bad := `{"question": "Q?", "options": {"A": "x", "B": "y"}, "answer_idx": "Z"}` + "\n" + `{"question": "", "options": {"A": "x", "B": "y"}, "answer_idx": "A"}` + "\n"
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results")
	code, so, se := runCLI(t, "run", "--dataset", path, "--skip-invalid", "--config", "base", "--out", out)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitUsage, so, se)
	}
	if !strings.Contains(se, "no valid record was found in "+path) || !strings.Contains(se, "2 records") || !strings.Contains(se, "bad_test.jsonl:1") {
		t.Errorf("stderr %q", se)
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 || err != nil && !os.IsNotExist(err) {
		t.Errorf("run directory left behind: %v %v", entries, err)
	}
}

// TestValidateListsProblemsOnce: the validate report names each problem once.
func TestValidateListsProblemsOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "q_test.jsonl")
	content := `{"question": "Q1?", "options": {"A": "x", "B": "y"}, "answer_idx": "A"}` + "\n" +
		`{"question": "Q2?", "options": {"A": "x", "B": "y"}, "answer_idx": "Z"}` + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	code, so, se := runCLI(t, "datasets", "validate", path)
	if code != exitError {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	if n := strings.Count(so+se, path+":2:"); n != 1 {
		t.Errorf("the problem is named %d times:\n%s\n%s", n, so, se)
	}
}

// TestSweepFileMessages: sweep-file errors say file:line and the key as
// written in the file, never a Go type.
func TestSweepFileMessages(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, body string
		want       []string
	}{
		{"unknown key", "arms: [base]\nturnz: 3\n", []string{"s.yaml:2: unknown key \"turnz\"", "turns"}},
		{"not an integer", "arms: [base]\nturns: three\n", []string{"s.yaml:2: turns must be an integer", "three"}},
		{"list expected", "arms: [base]\ndatasets: medqa\n", []string{"s.yaml:2: datasets must be a list", "[medqa]"}},
		{"temperature not a mapping", "arms: [base]\ntemperature: 5\n", []string{"s.yaml:2: temperature must be a mapping", "agent"}},
		{"unknown temperature key", "arms: [base]\ntemperature:\n  agnt: 1\n", []string{"s.yaml:3: unknown key \"agnt\" under temperature", "agent, leader"}},
		{"temperature out of range", "arms: [base]\ntemperature:\n  leader: 4\n", []string{"s.yaml:3: temperature.leader: 4", "0 to 2"}},
		{"turns out of range", "arms: [base]\nturns: 5\n", []string{"s.yaml:2: turns: 5", "2 or 3"}},
		{"agents out of range", "arms: [base]\n\nagents: 7\n", []string{"s.yaml:3: agents: 7", "2 to 4"}},
		{"discussion", "arms: [base]\ndiscussion: chaos\n", []string{`s.yaml:2: discussion: "chaos"`, "round_robin or parallel"}},
		{"key twice", "arms: [base]\nturns: 2\nturns: 3\n", []string{"s.yaml:3: key \"turns\" given twice (first at line 2)"}},
		{"empty", "", []string{"s.yaml: the file is empty"}},
		{"not a mapping", "- base\n- full\n", []string{"s.yaml:1: a sweep file is a mapping"}},
		{"yaml syntax", "arms: [base\n", []string{"s.yaml:", "not valid YAML"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "s.yaml")
			if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, se := runCLI(t, "sweep", p, "--dry-run", "--out", dir)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr %s", code, exitUsage, se)
			}
			se = strings.ReplaceAll(se, p, "s.yaml")
			for _, w := range tc.want {
				if !strings.Contains(se, w) {
					t.Errorf("stderr %q lacks %q", se, w)
				}
			}
			for _, bad := range []string{"main.", "struct {", "!!", "--config"} {
				if strings.Contains(se, bad) {
					t.Errorf("stderr %q shows %q", se, bad)
				}
			}
		})
	}
}

// TestRunSourceID: questions.parquet carries the content-derived question_id
// and the dataset's own id in source_id (here MedAgentsBench's realidx); a
// standardised copy named a copy of MedQA (--dataset-name medqa) gets the
// official file's ids, whatever the file is called.
func TestRunSourceID(t *testing.T) {
	out := t.TempDir()
	code, so, se := runCLI(t, "run", "--dataset", "../datasets/testdata/medqa_medagentsbench_test.jsonl", "--dataset-name", "medqa", "--config", "base", "--agents", "2",
		"--out", out, "--run-name", "src")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	rows, err := results.ReadQuestions(filepath.Join(out, "src", results.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows {
		got[r.SourceID] = r.QuestionID
	}
	// The ids of the official file's lines 1 and 1273 (computed outside Go:
	// sha256 of the stem and NUL-prefixed options, white space collapsed).
	want := map[string]string{"0": "medqa-a7f49257f5ef7f64", "1272": "medqa-93be4894c087d967"}
	if len(got) != 4 {
		t.Errorf("source ids %v, want 4 (0, 2, 5, 1272)", got)
	}
	for src, id := range want {
		if got[src] != id {
			t.Errorf("source_id %s: question_id %q, want %s", src, got[src], id)
		}
	}
}
