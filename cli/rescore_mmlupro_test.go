package cli

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/view"
)

// TestRescorePublishedMMLUPro (issue 33, items 1 and 4): MMLU-Pro's own
// gpt-4o and deepseek health result files rescore as published — 818 and
// 812 replies, the content duplicates kept (95 and 94) as the published
// count keeps them, the withheld replies (35 and 37) abstentions of the
// medteam arm with reason withheld — and report.md shows the published
// 590/818 (72.13%) and 473/812 (58.25%) with medteam's reading beside them
// and the replies read differently. The run directory keeps the questions'
// text, which the viewer shows.
func TestRescorePublishedMMLUPro(t *testing.T) {
	root := sharedDir(t, "published/mmlu-pro", "gpt4o_health_result.json")
	dir := t.TempDir()
	for _, tc := range []struct{ file, model, dups string }{
		{"gpt4o_health_result.json", "gpt-4o", "95 content duplicate(s) kept"},
		{"deepseek_health_result.json", "deepseek-v2-chat", "94 content duplicate(s) kept"},
	} {
		code, stdout, stderr := runCLI(t, "rescore", filepath.Join(root, tc.file), "--model-name", tc.model, "--out", filepath.Join(dir, tc.model))
		if code != 0 {
			t.Fatalf("rescore %s: exit %d: %s", tc.file, code, stderr)
		}
		if !strings.Contains(stdout, tc.dups) {
			t.Errorf("rescore %s: stdout lacks %q:\n%s", tc.file, tc.dups, stdout)
		}
	}
	code, _, stderr := runCLI(t, "report", filepath.Join(dir, "gpt-4o"), filepath.Join(dir, "deepseek-v2-chat"), "--out", filepath.Join(dir, "report"))
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{
		"| mmlu-pro | deepseek-v2-chat | 812 | 473/812 (58.25%) | 83 (7) | 480/812 (59.11%) [55.7, 62.4] | 78 (37) | 70 |",
		"| mmlu-pro | gpt-4o | 818 | 590/818 (72.13%) | 62 (7) | 592/818 (72.37%) [69.2, 75.3] | 42 (35) | 53 |",
		"**Replies read differently**",
		"| mmlu-pro | deepseek-v2-chat | 6036 | none (filled G) | D | D | answer\\_line |",
		"Withheld replies: 72 (the files keep them apart as a test set)",
		"mmlu-pro (gpt4o\\_health\\_result.json): 95 content duplicate(s)",
		"mmlu-pro (deepseek\\_health\\_result.json): 94 content duplicate(s)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if strings.Contains(md, "INCOMPLETE") || strings.Contains(md, "--dedupe") {
		t.Errorf("report.md calls the rescore incomplete or offers --dedupe")
	}
	checkRescoreItems(t, filepath.Join(dir, "gpt-4o"))
}

// checkRescoreItems: the rescore's items.parquet has every question's stem,
// options and gold (818, content duplicates each under its own id), and
// the viewer's /api/question shows them.
func checkRescoreItems(t *testing.T, run string) {
	t.Helper()
	items, ok, err := results.ReadItems(run)
	if err != nil || !ok || len(items) != 818 {
		t.Fatalf("items.parquet: %d items, ok %v, %v", len(items), ok, err)
	}
	rows, err := results.ReadQuestions(filepath.Join(run, results.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]results.ItemRow{}
	for _, it := range items {
		if it.Stem == "" || len(it.Options) < 2 || it.Gold == "" {
			t.Errorf("item %s: stem %q, %d options, gold %q", it.QuestionID, it.Stem, len(it.Options), it.Gold)
		}
		byID[it.QuestionID] = it
	}
	for _, r := range rows {
		if it, ok := byID[r.QuestionID]; !ok || it.SourceID != r.SourceID || it.Gold != r.Gold {
			t.Fatalf("row %s (question_id %s) has no item of its own: %+v", r.QuestionID, r.SourceID, it)
		}
	}
	vr, err := view.OpenRun(run)
	if err != nil {
		t.Fatal(err)
	}
	h := view.Handler(view.NewData([]*view.Run{vr}))
	for _, id := range []string{"0", "35"} { // 6001, and 6037: the copy of 6036
		req := httptest.NewRequest("GET", "/api/question?id="+id, nil)
		req.Host = "127.0.0.1"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var got struct {
			Item *results.ItemRow `json:"item"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != 200 || got.Item == nil {
			t.Fatalf("/api/question?id=%s: %d %v %.300s", id, rec.Code, err, rec.Body.String())
		}
		if got.Item.Stem == "" || len(got.Item.Options) < 2 || got.Item.Gold == "" {
			t.Errorf("/api/question?id=%s: item %+v", id, got.Item)
		}
	}
}

// TestRescoreDuplicatesReport: a result file with content duplicates (6036
// and 6037; 6442 before 6441) and a withheld reply rescores (today: refused
// at 6037 as "again"), and report.md has the published replies section —
// the published figure as k/n (pp.pp%), medteam's reading with its interval,
// the withheld abstention, the reply read differently — and the duplicate
// note.
func TestRescoreDuplicatesReport(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "rescore", "../rescore/testdata/mmlupro_duplicates.json", "--model-name", "gpt-4o", "--out", filepath.Join(dir, "rs"))
	if code != 0 {
		t.Fatalf("rescore: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"| gpt-4o | 5 | 3/5 = 60.00% | 2 (0) | 4/5 = 80.00% [37.6, 96.4] | 1 (1 withheld) | 1 |", "2 content duplicate(s) kept"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	rs, err := os.ReadFile(filepath.Join(dir, "rs", "rescore.md"))
	if err != nil || !strings.Contains(string(rs), `| ../rescore/testdata/mmlupro\_duplicates.json | 6442 | 6441 | 1 |`) {
		t.Errorf("rescore.md lacks the duplicate 6442 of 6441: %v\n%s", err, rs)
	}
	m, err := results.ReadManifest(filepath.Join(dir, "rs", results.ManifestFile))
	if err != nil || len(m.Datasets) != 1 || m.Datasets[0].DuplicatesKept != 2 || !m.Status.Complete() {
		t.Errorf("manifest: %v %+v", err, m)
	}
	if code, _, stderr := runCLI(t, "report", filepath.Join(dir, "rs"), "--out", filepath.Join(dir, "rep")); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "rep", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## Published replies rescored",
		"| mmlu-pro | gpt-4o | 5 | 3/5 (60.00%) | 2 (0) | 4/5 (80.00%) [37.6, 96.4] | 1 (1) | 1 |",
		"| mmlu-pro | gpt-4o | 6500 | none (filled D) | B | B | answer\\_line |",
		"Withheld replies: 1",
		"mmlu-pro (mmlupro\\_duplicates.json): 2 content duplicate(s)",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
