package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTriageScorePublished: the published GPT-4o outputs on the Semigran
// vignettes (5 runs × 45, stats/testdata/triage) score 69.3% accuracy
// and 90.7% safe, as published.
func TestTriageScorePublished(t *testing.T) {
	files, err := filepath.Glob("../stats/testdata/triage/semigran_gpt4o_*.jsonl")
	if err != nil || len(files) != 5 {
		t.Fatalf("published files %v, %v", files, err)
	}
	code, so, se := runCLI(t, append([]string{"triage", "score"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, so, se)
	}
	t.Log("\n" + so)
	for _, want := range []string{
		"225 rows from 5 files; levels sc < ne < em",
		"accuracy                  69.3%  156/225  [55.6, 80.3]", // 45 cases × 5 files: the case is the unit (issue 24)
		"safe (at or above truth)  90.7%  204/225  [79.6, 96.0]",
		"under-triage              9.3%   21/225",
		"over-triage               21.3%  48/225",
		"quadratic-weighted kappa: 0.7229",
		"recall per level: sc 40.0% (30/75), ne 88.0% (66/75), em 80.0% (60/75)",
		"  em   0  15  60     0",
	} {
		if !strings.Contains(so, want) {
			t.Errorf("output lacks %q:\n%s", want, so)
		}
	}
}

func TestTriageScoreInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.jsonl", `{"true_urgency": "high", "llm_output": "I would say HIGH urgency."}`+"\n\n"+
		`{"true_urgency": "low", "llm_output": "low or high"}`+"\n"+
		`{"true_urgency": "low", "llm_output": " Low "}`+"\n")
	tests := []struct {
		args []string
		code ExitCode
		want string
	}{
		{[]string{"--levels", "low,high", good}, 0, "3 rows from 1 files; levels low < high (least urgent first); 1 with no level"},
		{[]string{"--levels", "low,high", good}, 0, "accuracy                  66.7%  2/3"},
		{[]string{good}, exitUsage, `good.jsonl:1: true_urgency "high" is not one of the levels sc, ne, em (set them with --levels)`},
		{[]string{write("bad.jsonl", `{"true_urgency": "em", "llm_output": "em"}`+"\n{oops\n")}, exitUsage, "bad.jsonl:2: not a JSON object"},
		{[]string{write("miss.jsonl", `{"true_urgency": "em"}`+"\n")}, exitUsage, "miss.jsonl:1: a line needs true_urgency and llm_output"},
		{[]string{write("empty.jsonl", "\n")}, exitUsage, "no rows"},
		{[]string{"--levels", "sc", good}, exitUsage, "at least two level codes"},
		{[]string{"--levels", "sc,SC", good}, exitUsage, "distinct level codes"},
		{[]string{filepath.Join(dir, "nope.jsonl")}, exitUsage, "nope.jsonl"},
		// 2 cases × 2 rows: too few cases to estimate the design effect; the note says the bound is used.
		{[]string{write("few.jsonl", `{"case_id": "a", "true_urgency": "em", "llm_output": "em"}`+"\n"+
			`{"case_id": "a", "true_urgency": "em", "llm_output": "ne"}`+"\n"+
			`{"case_id": "b", "true_urgency": "sc", "llm_output": "sc"}`+"\n"+
			`{"case_id": "b", "true_urgency": "sc", "llm_output": "sc"}`+"\n")}, 0,
			"fewer than 10 cases: the design effect is not estimated; the intervals use its conservative bound, rows per case"},
	}
	for _, tc := range tests {
		code, so, se := runCLI(t, append([]string{"triage", "score"}, tc.args...)...)
		if code != tc.code || !strings.Contains(so+se, tc.want) {
			t.Errorf("%v: exit %d\n%s%s\nwant exit %d and %q", tc.args, code, so, se, tc.code, tc.want)
		}
	}
}

// TestReadLevel: the answer's level, as the published benchmark reads it.
func TestReadLevel(t *testing.T) {
	levels := []string{"sc", "ne", "em"}
	word := levelWords(levels)
	for answer, want := range map[string]int{
		"em": 2, " NE\n": 1, "Answer: sc": 0, "em — go to the emergency room (em)": 2,
		"ne or em": -1, "scene": -1, "": -1, "emergency": -1,
	} {
		if got := readLevel(answer, levels, word); got != want {
			t.Errorf("readLevel(%q) = %d, want %d", answer, got, want)
		}
	}
}

// FuzzParseTriageLine: any line either fails or gives a truth on the scale
// and a prediction on it or -1.
func FuzzParseTriageLine(f *testing.F) {
	f.Add([]byte(`{"case_id": 1, "true_urgency": "em", "llm_output": "em", "correct": true}`))
	f.Add([]byte(`{"true_urgency": "sc", "llm_output": "ne or sc"}`))
	f.Add([]byte(`{"case_id": "x", "true_urgency": null, "llm_output": 3}`))
	levels := []string{"sc", "ne", "em"}
	word := levelWords(levels)
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := parseTriageLine(b, levels, word)
		if err != nil {
			return
		}
		if o.Truth < 0 || o.Truth >= len(levels) || o.Pred < -1 || o.Pred >= len(levels) {
			t.Fatalf("%q: %+v", b, o)
		}
	})
}

// triageCases is a small triage file: three emergencies (one with a seed
// 003 keyword, "chest pain"; two that only the semigran rules catch), two
// non-emergencies and a self-care case.
const triageCases = `{"case": "A 60-year-old man with crushing chest pain and sweating for an hour.", "urgency": "em"}
{"case": "Fever, headache and a stiff neck since yesterday; she is drowsy.", "urgency": "em"}
{"case": "Sudden severe abdominal pain; the abdomen is rigid with guarding.", "urgency": "em"}
{"case": "An itchy rash on the forearm for a week, no fever.", "urgency": "ne"}
{"case": "Knee pain after jogging for three weeks.", "urgency": "ne"}
{"case": "A runny nose and sneezing for two days.", "urgency": "sc"}
`

// TestTriageScoreRunDir: 'triage score RUN_DIR' prints each arm's triage
// metrics with the recall of the most urgent level and the red flags that
// fired by true level; with the semigran rules (--red-flags semigran) it
// says they were developed on the Semigran vignettes, and all three
// emergencies are caught by the rules (100%, known), against one with the
// seed's keywords.
func TestTriageScoreRunDir(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "cases.jsonl")
	if err := os.WriteFile(data, []byte(triageCases), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string, extra ...string) string {
		args := append([]string{"run", "--dataset", data, "--config", "judge,vote", "--out", dir, "--run-name", name, "--no-report", "--parallel", "2"}, extra...)
		if code, so, se := runCLI(t, args...); code != 0 {
			t.Fatalf("run %s: exit %d\n%s%s", name, code, so, se)
		}
		return filepath.Join(dir, name)
	}
	literal, semigran := run("literal"), run("semigran", "--red-flags", "semigran")
	code, so, se := runCLI(t, "triage", "score", literal)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, so, se)
	}
	t.Log("\n" + so)
	for _, want := range []string{
		"triage rows of 2 arm(s)",
		"most urgent recall  red flags fired", "red-flag rules\n",
		"== judge · triage · sim/default\nred-flag rules: seed003 (sha256 ",
		"judge output agrees with the algorithm computed in code: ",
		"6 rows; levels sc < ne < em (least urgent first); 0 with no level",
		"accuracy                  ",
		"most urgent level (em) recall: ",
		"/3) [", "red flags fired: em 1, ne 0, sc 0\n",
	} {
		if !strings.Contains(so, want) {
			t.Errorf("output lacks %q:\n%s", want, so)
		}
	}
	if strings.Contains(so, "in-sample") || strings.Contains(so, "em 0, ne 0, sc 0") {
		t.Errorf("the seed's keywords flagged as in-sample, or no red flag written as counts:\n%s", so)
	}
	code, so, _ = runCLI(t, "triage", "score", filepath.Join(semigran, "questions.parquet"))
	if code != 0 {
		t.Fatal(code)
	}
	t.Log("\n" + so)
	for _, want := range []string{
		"semigran*",
		"* semigran: developed on the 45 Semigran et al. (BMJ 2015) vignettes, the evaluation set of --dataset semigran — in-sample there",
		"NOTE: the red-flag rules semigran were developed on the 45 Semigran",
		"most urgent level (em) recall: 100.0% (3/3) [",
		"red flags fired: em 3, ne 0, sc 0\n",
	} {
		if !strings.Contains(so, want) {
			t.Errorf("semigran output lacks %q:\n%s", want, so)
		}
	}
	// The report says it too (and not of the seed's keywords).
	for run, want := range map[string]bool{semigran: true, literal: false} {
		if code, so, se := runCLI(t, "report", run, "--bootstrap", "100"); code != 0 {
			t.Fatalf("report: exit %d\n%s%s", code, so, se)
		}
		md, err := os.ReadFile(filepath.Join(run, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		note := "arm judge applies the red-flag rules semigran, developed on the 45 Semigran et al. (BMJ 2015) vignettes, the evaluation set of --dataset semigran: its triage figures on that data are in-sample"
		if strings.Contains(string(md), note) != want || strings.Contains(string(md), "in-sample") != want {
			t.Errorf("%s: report.md in-sample note %v, want %v", run, !want, want)
		}
	}
	// Runs and files are not mixed; a missing run is a usage error.
	files, _ := filepath.Glob("../stats/testdata/triage/semigran_gpt4o_1.jsonl")
	if code, so, se := runCLI(t, "triage", "score", literal, files[0]); code != exitUsage || !strings.Contains(so+se, "not both") {
		t.Errorf("mixed: exit %d %s%s", code, so, se)
	}
	if code, so, se := runCLI(t, "triage", "score", filepath.Join(dir, "nope")); code != exitUsage {
		t.Errorf("missing: exit %d %s%s", code, so, se)
	}
}
