package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportPairsPubMedQALayouts: the same three PubMedQA questions run
// from the official layout (ori_pqal.json, the abstract as context) and
// from MedAgentsBench's copy (the abstract inside the question) have
// different question ids; report pairs the two runs on the PMID.
func TestReportPairsPubMedQALayouts(t *testing.T) {
	out := t.TempDir()
	for name, data := range map[string]string{
		"official": "../datasets/testdata/pubmedqa/ori_pqal.json",
		"copy":     "../datasets/testdata/pubmedqa_medagents_test.jsonl",
	} {
		if code, so, se := runCLI(t, "run", "--config", "cot", "--dataset", data, "--dataset-name", "pubmedqa",
			"--out", out, "--run-name", name, "--no-report"); code != 0 {
			t.Fatalf("run %s: exit %d\n%s\n%s", name, code, so, se)
		}
	}
	rep := filepath.Join(out, "report")
	code, so, se := runCLI(t, "report", "--out", rep, filepath.Join(out, "official"), filepath.Join(out, "copy"))
	if code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, so, se)
	}
	md, err := os.ReadFile(filepath.Join(rep, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(md), "100.0 [100.0, 100.0]") {
		t.Errorf("a zero-width interval in report.md (a lone agent's agreement is undefined):\n%s", md)
	}
	if !strings.Contains(string(md), "paired on the dataset's own id (source\\_id, e.g. the PMID) with the same gold answer in every pair: 3 pairs") {
		t.Errorf("report.md does not pair the layouts on the PMID:\n%s", md)
	}
}
