package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/results"
)

const mabPrices = "../configs/prices-medagentsbench.yaml"

// TestRescoreMedAgentsBench: MedAgentsBench output files rescore into one
// arm per method with the model from the file name; the report's accuracy
// is the publishers' (first record of a realidx kept) and its cost their
// calculate_cost_from_token_usage: gpt-4o at 2.5/10 USD per 1M tokens over
// 10000 prompt and 1500 completion tokens on 4 questions = $0.0100; AFlow's
// own costs 0.05 and 0.07 = $0.0600 a question.
func TestRescoreMedAgentsBench(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "pub")
	code, stdout, stderr := runCLI(t, "rescore", "../rescore/testdata/medagentsbench/medqa/gpt-4o-medqa-test_hard-mdagents.json",
		"../rescore/testdata/medagentsbench/medqa/gpt-4o-medqa-test_hard-aflow.json", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"| medqa | gpt-4o | mdagents | 4 | 1 | 1 | 25.0% | 1 | 1 | 2500 | 375 | 0 | 3.0 |",
		"| medqa | gpt-4o | aflow | 2 | 0 | 1 | 50.0% | 1 | 0 | 0 | 0 | 2 | 50.0 |", "1 repeated records dropped over 2 files"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	rows, err := results.ReadQuestions(filepath.Join(out, results.QuestionsFile))
	if err != nil || len(rows) != 6 {
		t.Fatalf("rows %d: %v", len(rows), err)
	}
	if items, ok, err := results.ReadItems(out); err != nil || !ok || len(items) != 4 {
		t.Errorf("items %d %v %v", len(items), ok, err)
	}
	rep := filepath.Join(dir, "rep")
	code, stdout, stderr = runCLI(t, "report", out, "--prices", mabPrices, "--out", rep, "--bootstrap", "100")
	if code != 0 || strings.Contains(stdout, "INCOMPLETE") {
		t.Fatalf("report: exit %d: %s%s", code, stdout, stderr)
	}
	md := readText(t, filepath.Join(rep, "report.md"))
	for _, want := range []string{"| mdagents | 4 | 25.0% [", "| 2875 | $0.0100 |", "| aflow | 2 | 50.0% [", "| 0 | $0.0600 |", "cost/q of aflow (gpt-4o) counts the published records' own cost"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

// TestRescoreMedAgentsBenchRefused: a file of another layout among
// MedAgentsBench's, two files of one model × task × method, and a --model
// no file has are refused, naming what to do.
func TestRescoreMedAgentsBenchRefused(t *testing.T) {
	const mdag = "../rescore/testdata/medagentsbench/medqa/gpt-4o-medqa-test_hard-mdagents.json"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{mdag, "../rescore/testdata/mmlupro_result.json"}, "mmlupro_result.json is not a MedAgentsBench output"},
		{[]string{mdag, mdag}, "are both gpt-4o medqa mdagents: give one file per task, model and method"},
		{[]string{mdag, "--model", "gpt-4o-mini"}, "no file of --model gpt-4o-mini"},
	} {
		args := append([]string{"rescore", "--out", filepath.Join(t.TempDir(), "x")}, tc.args...)
		if code, _, se := runCLI(t, args...); code != 2 || !strings.Contains(se, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q: %s", tc.args, code, tc.want, se)
		}
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mabTable1 is MedAgentsBench's Table 1 for MedQA and MMLU-Pro (test_hard),
// as ../shared/published/README.md gives it: method → the cells of
// gpt-4o-mini, gpt-4o and DeepSeek-V3 on medqa, then on mmlu-pro.
var mabTable1 = map[string][6]float64{
	"zero_shot":      {19.0, 35.0, 15.0, 12.0, 15.0, 12.0},
	"few_shot":       {28.0, 27.0, 21.0, 9.0, 6.0, 26.0},
	"cot":            {23.0, 39.0, 30.0, 38.0, 42.0, 36.0},
	"cot_sc-5":       {20.0, 39.0, 25.0, 36.0, 42.0, 32.0},
	"multipersona-2": {30.0, 45.0, 32.0, 35.0, 40.0, 33.3},
	"self_refine-3":  {24.0, 42.0, 30.0, 39.0, 37.0, 36.0},
	"medprompt-3":    {31.0, 35.0, 15.0, 34.0, 23.0, 12.0},
	"medagents":      {24.0, 43.0, 32.0, 8.0, 8.0, 7.0},
	"mdagents":       {22.0, 36.0, 44.0, 9.0, 8.0, 11.0},
	"spo":            {19.0, 31.0, 22.0, 32.0, 36.0, 31.0},
	"aflow":          {30.0, 48.0, 28.0, 29.0, 37.0, 21.0},
}

// TestRescoreMedAgentsBenchTable1 (issue 33, item 2): the 80 published
// output files of MedQA and MMLU-Pro rescore into one run whose report
// gives every one of the 66 cells of MedAgentsBench's Table 1, and whose
// cost column is the publishers' (hand-computed from the files' token sums
// at their prices, or their own cost field).
func TestRescoreMedAgentsBenchTable1(t *testing.T) {
	root := sharedDir(t, "published/medagentsbench", "output/medqa")
	files, _ := filepath.Glob(root + "/output/medqa/*.json")
	more, _ := filepath.Glob(root + "/output/mmlu-pro/*.json")
	if files = append(files, more...); len(files) != 80 {
		t.Fatalf("%d files, want 40 per task", len(files))
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "pub")
	if code, _, stderr := runCLI(t, append([]string{"rescore", "--out", out}, files...)...); code != 0 {
		t.Fatalf("rescore: exit %d: %s", code, stderr)
	}
	rep := filepath.Join(dir, "rep")
	if code, _, stderr := runCLI(t, "report", out, "--prices", mabPrices, "--out", rep, "--bootstrap", "100"); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	md := readText(t, filepath.Join(rep, "report.md"))
	cells := 0
	for method, v := range mabTable1 {
		for i, model := range []string{"gpt-4o-mini", "gpt-4o", "DeepSeek-V3", "gpt-4o-mini", "gpt-4o", "DeepSeek-V3"} {
			task := []string{"medqa", "mmlu-pro"}[i/3]
			n := 100
			if task == "mmlu-pro" && model == "DeepSeek-V3" && method == "multipersona-2" {
				n = 99 // the published file has 99 records
			}
			want := fmt.Sprintf("| %s | %s | %s | %d | %.1f%% [", task, model, strings.ReplaceAll(method, "_", `\_`), n, v[i])
			if !strings.Contains(md, want) {
				t.Errorf("Table 1 cell %s %s %s: report.md lacks %q", task, model, method, want)
			}
			cells++
		}
	}
	if cells != 66 {
		t.Fatalf("%d cells checked, want 66", cells)
	}
	// Cost per question: prompt and completion token sums of the file at
	// the publishers' prices, over 100 questions; AFlow's own cost field.
	for _, c := range []struct{ row, cost string }{
		{"| medqa | gpt-4o | cot | 100 |", "$0.0056"},             // (31087×2.5 + 47795×10)/1e6/100 = 0.005557
		{"| medqa | gpt-4o | mdagents | 100 |", "$0.1101"},        // (3649802×2.5 + 188834×10)/1e6/100 = 0.110128
		{"| medqa | gpt-4o-mini | cot\\_sc-5 | 100 |", "$0.0019"}, // (192323×0.15 + 267238×0.6)/1e6/100 = 0.001892
		{"| medqa | DeepSeek-V3 | aflow | 100 |", "$0.0122"},      // mean of the records' cost: 0.012195
	} {
		line := lineWith(md, c.row)
		if !strings.HasSuffix(strings.TrimSpace(line), c.cost+" |") {
			t.Errorf("cost of %s: %q, want %s", c.row, line, c.cost)
		}
	}
	checkMABIDs(t, root, out)
}

// checkMABIDs: every question of the rescored rows but MedAgents' (whose
// records number the questions by position and hold others) has the id
// medteam's loader gives it in data/<task>/test_hard.jsonl with
// --dataset-name <task>, so the rows pair with a medteam run on that file.
func checkMABIDs(t *testing.T, root, out string) {
	t.Helper()
	ids := map[string]bool{}
	for _, task := range []string{"medqa", "mmlu-pro"} {
		res, err := datasets.Load(datasets.Source{Path: root + "/data/" + task + "/test_hard.jsonl", Dataset: task}, datasets.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range res.Questions {
			ids[q.ID] = true
		}
	}
	rows, err := results.ReadQuestions(filepath.Join(out, results.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	missing := 0
	for _, r := range rows {
		if r.Arm != "medagents" && !ids[r.QuestionID] {
			missing++
			t.Logf("%s %s %s realidx %s: id %s not in the data file", r.Dataset, r.Model, r.Arm, r.SourceID, r.QuestionID)
		}
	}
	if missing > 0 {
		t.Errorf("%d rows do not pair with the data files", missing)
	}
}

func lineWith(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
