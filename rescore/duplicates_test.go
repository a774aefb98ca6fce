package rescore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/escape"
)

// TestContentDuplicatesKept: testdata/mmlupro_duplicates.json holds two
// pairs of content duplicates as MMLU-Pro's health results do (6036 and
// 6037; 6442 before 6441, as the deepseek file appends some questions out of
// order). Each record is a question of its own: the rows are built (not
// refused as "again"), the smallest question_id has the content id and the
// other the loader's "~question_id" — the very ids medteam's loader gives
// the file in question_id order (the order of the published test file).
func TestContentDuplicatesKept(t *testing.T) {
	recs, err := ReadFile("testdata/mmlupro_duplicates.json")
	if err != nil {
		t.Fatal(err)
	}
	run := Run{RunID: "r", Dataset: datasets.DatasetMMLUPro, Split: "test", Model: "gpt-4o"}
	sc := Score(recs)
	rows, err := run.Rows(sc)
	if err != nil {
		t.Fatalf("rows: %v", err)
	}
	if len(rows) != 10 {
		t.Fatalf("%d rows, want 10 (5 records, two arms)", len(rows))
	}
	ids := run.QuestionIDs(sc)
	base := func(i int) string { return run.QuestionID(recs[i]) }
	want := []string{base(0), base(0) + "~6037", base(2) + "~6442", base(3), base(2)}
	if !slices.Equal(ids, want) {
		t.Errorf("ids\n%q\nwant\n%q", ids, want)
	}
	if got := loaderIDs(t, "testdata/mmlupro_duplicates.json"); !slicesEqualSet(got, ids) {
		t.Errorf("loader's ids on the file in question_id order\n%q\nrescore's\n%q", got, ids)
	}
	dups := run.Duplicates(sc)
	if len(dups) != 2 || dups[0].ID != "6037" || dups[0].Of != "6036" || dups[1].ID != "6442" || dups[1].Of != "6441" {
		t.Errorf("duplicates %+v", dups)
	}
	items := run.Items(sc)
	if len(items) != 5 || items[1].QuestionID != ids[1] || items[1].Stem != recs[1].Question || items[1].Gold != "B" || len(items[1].Options) != 4 {
		t.Errorf("items: %d, %+v", len(items), items)
	}
	// The same question answered by a second model shares its id.
	other := slices.Clone(recs)
	for i := range other {
		other[i].Model = "other"
	}
	both := run.QuestionIDs(Score(append(slices.Clone(recs), other...)))
	if !slices.Equal(both[:5], ids) || !slices.Equal(both[5:], ids) {
		t.Errorf("two models: %q", both)
	}
	if d := run.Duplicates(Score(append(slices.Clone(recs), other...))); len(d) != 2 || d[0].Records != 2 {
		t.Errorf("two models: duplicates %+v", d)
	}
}

// TestWithheldReply: a record with withheld: true and response null is an
// abstention of the medteam arm with reason withheld — not a parse failure
// and not a reply read differently — while the published arm scores its
// extraction (here none: the random fill), as the published count does.
func TestWithheldReply(t *testing.T) {
	recs, err := ReadFile("testdata/mmlupro_duplicates.json")
	if err != nil {
		t.Fatal(err)
	}
	if !recs[1].Withheld || recs[0].Withheld {
		t.Fatalf("withheld: %v %v", recs[0].Withheld, recs[1].Withheld)
	}
	sc := Score(recs)
	w := sc[1]
	if w.Medteam != "" || w.Reason != ReasonWithheld || w.Published != "D" || !w.Filled || !w.Agree() {
		t.Errorf("withheld record: %+v", w)
	}
	run := Run{RunID: "r", Dataset: datasets.DatasetMMLUPro, Split: "test", Model: "gpt-4o"}
	rows, err := run.Rows(sc)
	if err != nil {
		t.Fatal(err)
	}
	med := rows[2]
	if med.Arm != ArmMedteam || !med.Abstained || med.AbstainReason != ReasonWithheld || med.Error != "" || !strings.Contains(med.MetaJSON, `"withheld":true`) {
		t.Errorf("medteam row of the withheld reply: %+v", med)
	}
	s := run.Summaries(sc)[0]
	// 6036 agree (B); 6037 withheld; 6442 agree (C); 6500 published none,
	// medteam B: the one disagreement; 6441 agree (C).
	if s.N != 5 || s.Withheld != 1 || s.Abstained != 1 || s.Disagree != 1 || s.Medteam != 4 || s.Published != 3 {
		t.Errorf("summary %+v", s)
	}
	var b strings.Builder
	WriteTable(&b, run.Summaries(sc), escape.Terminal)
	if !strings.Contains(b.String(), "| 1 (1 withheld) | 1 |") {
		t.Errorf("table lacks the withheld count:\n%s", b.String())
	}
	for _, tc := range []struct{ body, want string }{
		{`{"id":1,"options":["a","b"],"gold":"A","response":"x","withheld":true}`, "withheld: true but the record has a response"},
		{`{"id":1,"options":["a","b"],"gold":"A","response":null,"withheld":"yes"}`, "withheld: want true or false"},
	} {
		if _, err := Read("f.jsonl", strings.NewReader(tc.body)); err == nil || !strings.Contains(err.Error(), "f.jsonl:1: "+tc.want) {
			t.Errorf("%s: error %v, want %q", tc.body, err, tc.want)
		}
	}
}

// loaderIDs are the ids medteam's loader gives the records of a MMLU-Pro
// result file put in question_id order.
func loaderIDs(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(recs, func(a, b map[string]any) int { return int(a["question_id"].(float64) - b["question_id"].(float64)) })
	var lines []string
	for _, r := range recs {
		delete(r, "withheld")
		l, _ := json.Marshal(r)
		lines = append(lines, string(l))
	}
	sorted := filepath.Join(t.TempDir(), "sorted.jsonl")
	if err := os.WriteFile(sorted, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := datasets.Load(datasets.Source{Path: sorted, Format: datasets.FormatMMLUPro}, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.DuplicatesKept != 2 {
		t.Errorf("loader kept %d duplicates, want 2", res.DuplicatesKept)
	}
	var ids []string
	for _, q := range res.Questions {
		ids = append(ids, q.ID)
		if _, err := strconv.Atoi(q.SourceID); err != nil {
			t.Errorf("source id %q", q.SourceID)
		}
	}
	return ids
}

func slicesEqualSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
