package rescore

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/qa"
)

// TestPublishedFill: MMLU-Pro's fill, random.seed(12345) then
// random.randint(0, n-1), for n options. Known answers from CPython 3:
// python3 -c 'import random
// for n in range(1, 11): random.seed(12345); print(n, random.randint(0, n-1))'
func TestPublishedFill(t *testing.T) {
	want := map[int]string{1: "A", 2: "B", 3: "B", 4: "D", 5: "D", 6: "D", 7: "D", 8: "G", 9: "G", 10: "G", 11: "", 0: ""}
	for n, L := range want {
		if got := PublishedFill(n); got != L {
			t.Errorf("PublishedFill(%d) = %q, want %q", n, got, L)
		}
	}
}

func TestReadLayouts(t *testing.T) {
	recs, err := ReadFile("testdata/mmlupro_result.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	r := recs[0]
	if r.ID != "70" || len(r.Options) != 4 || r.Dropped != 2 || r.Gold != "C" || r.Pred != "C" || !r.HasPred || r.Category != "health" || r.Line != 1 {
		t.Errorf("record 1: %+v", r)
	}
	if recs[1].Pred != "" || !recs[1].HasPred {
		t.Errorf("a null pred is no extraction: %+v", recs[1])
	}
	g, err := ReadFile("testdata/generic.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 3 || g[2].ID != "3" || g[2].Gold != "B" || g[2].HasPred || g[2].Line != 4 {
		t.Errorf("generic: %+v", g)
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"no id", `{"options":["a","b"],"gold":"A","response":"x"}`, "f.jsonl:1: no question id"},
		{"no gold", `{"id":1,"options":["a","b"],"response":"x"}`, "f.jsonl:1: no gold answer"},
		{"gold not an option", `{"id":1,"options":["a","b"],"gold":"C","response":"x"}`, `f.jsonl:1: gold: "C" is not one of the 2 option letters`},
		{"no response", "\n" + `{"id":1,"options":["a","b"],"gold":"A"}`, "f.jsonl:2: no response"},
		{"options not a list", `{"id":1,"options":"a,b","gold":"A","response":"x"}`, "f.jsonl:1: options: want a list"},
		{"padding first", `{"id":1,"options":["N/A","a","b"],"gold":"B","response":"x"}`, "padding text, before real options"},
		{"bad index", `[{"id":1,"options":["a","b"],"answer_index":5,"response":"x"}]`, "f.jsonl: element 1: answer_index: 5 is not an index"},
		{"not json", `{id: 1}`, "f.jsonl:1: not a JSON object"},
		{"empty", "  \n", "f.jsonl: empty file"},
	} {
		_, err := Read("f.jsonl", strings.NewReader(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestScoreAndRows(t *testing.T) {
	recs, err := ReadFile("testdata/mmlupro_result.json")
	if err != nil {
		t.Fatal(err)
	}
	sc := Score(recs)
	// 70: both C. 71: published none (fill D, wrong), medteam B (right).
	// 72: cut off: published none (fill D, wrong), medteam none. 73: several
	// options: published A (first letter, right), medteam none.
	want := []struct{ med, pub string }{{"C", "C"}, {"B", "D"}, {"", "D"}, {"", "A"}}
	for i, w := range want {
		if sc[i].Medteam != w.med || sc[i].Published != w.pub {
			t.Errorf("record %d: medteam %q published %q, want %q %q", i+1, sc[i].Medteam, sc[i].Published, w.med, w.pub)
		}
	}
	run := Run{RunID: "r", Dataset: datasets.DatasetMMLUPro, Split: "test", Model: "gpt-4o"}
	rows, err := run.Rows(sc)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 8 {
		t.Fatalf("%d rows, want 8 (two arms)", len(rows))
	}
	// The question id is the content id the dataset loader gives the question.
	id := datasets.ContentID(datasets.DatasetMMLUPro, "Which vitamin deficiency causes scurvy?", nil,
		[]qa.Option{{Letter: "A", Text: "Vitamin A"}, {Letter: "B", Text: "Vitamin B12"}, {Letter: "C", Text: "Vitamin C"}, {Letter: "D", Text: "Vitamin D"}})
	if rows[0].QuestionID != id || rows[0].SourceID != "70" || rows[0].Arm != ArmMedteam || rows[1].Arm != ArmPublished || rows[0].Protocol != Protocol {
		t.Errorf("row 1: %+v", rows[0])
	}
	if !rows[2].Correct || rows[3].Correct || !rows[4].Abstained || rows[4].AbstainReason == "" {
		t.Errorf("rows 3-5: %+v / %+v / %+v", rows[2], rows[3], rows[4])
	}
	sums := run.Summaries(sc)
	s := sums[0]
	if s.N != 4 || s.Published != 2 || s.Filled != 2 || s.Medteam != 2 || s.Abstained != 2 || s.Disagree != 2 {
		t.Errorf("summary %+v", s)
	}
	if _, err := run.Rows(append(sc, sc[0])); err == nil || !strings.Contains(err.Error(), "again (first at") {
		t.Errorf("a duplicate question: %v", err)
	}
	if _, err := (Run{Dataset: "x"}).Rows(sc); err == nil || !strings.Contains(err.Error(), "--model-name") {
		t.Errorf("no model: %v", err)
	}
}

// TestReproducePublished rescores the gpt-4o and deepseek health replies of
// ../shared/realoutputs. MMLU-Pro published 590/818 (72.13%) and 473/812
// (58.25%), scoring its extraction with its random fill over all replies.
// The corpus withholds 35 and 37 of those replies for independent checks:
// on the replies it holds the same scorer must give exactly 570/783 and
// 459/775. testdata/mmlupro_withheld_published.jsonl holds, for the 72
// withheld replies, only the fields the published scorer reads (the
// extraction, the gold letter, the number of options), copied from the
// published result files (TIGER-AI-Lab/MMLU-Pro eval_results/{gpt4o,
// deepseek}/health_result.json at ff991b5b; 561 entries of those files
// were checked against the corpus, 0 differ) — not the replies, which stay
// withheld. With them the scorer gives the published 590/818 and 473/812.
func TestReproducePublished(t *testing.T) {
	path := findCorpus(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := Read(path, bufio.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	keep := map[string]bool{"gpt-4o-2024-05-13": true, "deepseek-v2-chat(api)": true}
	var sel []Record
	nOpts := map[string]int{} // question id → its number of options, from any model's reply
	for _, r := range recs {
		nOpts[r.ID] = len(r.Options)
		if keep[r.Model] {
			sel = append(sel, r)
		}
	}
	run := Run{Dataset: datasets.DatasetMMLUPro}
	held := map[string][2]int{"deepseek-v2-chat(api)": {459, 775}, "gpt-4o-2024-05-13": {570, 783}}
	medteam := map[string][2]int{}
	for _, s := range run.Summaries(Score(sel)) {
		w := held[s.Model]
		if s.Published != w[0] || s.PublishedN != w[1] {
			t.Errorf("%s, replies the corpus holds: published scorer %d/%d, want %d/%d", s.Model, s.Published, s.PublishedN, w[0], w[1])
		}
		medteam[s.Model] = [2]int{s.Medteam, s.N}
	}
	withheld := readWithheld(t, "testdata/mmlupro_withheld_published.jsonl", nOpts)
	published := map[string][2]int{"deepseek-v2-chat(api)": {473, 812}, "gpt-4o-2024-05-13": {590, 818}}
	for _, s := range run.Summaries(Score(append(sel, withheld...))) {
		p := published[s.Model]
		if s.Published != p[0] || s.PublishedN != p[1] {
			t.Errorf("%s, all replies: published scorer %d/%d, want the published %d/%d", s.Model, s.Published, s.PublishedN, p[0], p[1])
		}
		m := medteam[s.Model]
		t.Logf("%s: published scorer %d/%d = %.2f%% over all replies (%d/%d on the replies the corpus holds); medteam's reading %d/%d",
			s.Model, s.Published, s.PublishedN, 100*float64(s.Published)/float64(s.PublishedN), held[s.Model][0], held[s.Model][1], m[0], m[1])
	}
}

// findCorpus returns the path of ../shared/realoutputs/mmlupro_health.jsonl.gz
// above the package, or skips the test.
func findCorpus(t *testing.T) string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "..", "shared", "realoutputs", "mmlupro_health.jsonl.gz")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			t.Skip("real-reply corpus ../shared/realoutputs/mmlupro_health.jsonl.gz not found above the package")
		}
	}
}

// readWithheld reads the published scorer's fields of the withheld replies
// as records without a reply (options as many as the question has).
func readWithheld(t *testing.T, path string, nOpts map[string]int) []Record {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []Record
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var w struct {
			Model    string  `json:"model"`
			QID      int     `json:"question_id"`
			Gold     string  `json:"gold"`
			Pred     *string `json:"mmlupro_pred"`
			NOptions int     `json:"n_options"`
		}
		if err := json.Unmarshal([]byte(line), &w); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		id := strconv.Itoa(w.QID)
		if nOpts[id] != w.NOptions {
			t.Fatalf("%s:%d: %d options, the corpus has %d for question %s", path, i+1, w.NOptions, nOpts[id], id)
		}
		r := Record{File: path, Line: i + 1, Model: w.Model, ID: id, Options: make([]string, w.NOptions), Gold: w.Gold, HasPred: true}
		if w.Pred != nil {
			r.Pred = *w.Pred
		}
		out = append(out, r)
	}
	return out
}

// TestItemsOncePerQuestion: the rescored run keeps each question's text
// once (two models answering it make one item), under the rows' question
// id; a record without a stem gives none.
func TestItemsOncePerQuestion(t *testing.T) {
	recs, err := ReadFile("testdata/mmlupro_result.json")
	if err != nil {
		t.Fatal(err)
	}
	other := slices.Clone(recs)
	for i := range other {
		other[i].Model = "other"
	}
	noStem := recs[0]
	noStem.Question, noStem.ID, noStem.Model = "", "999", "third"
	sc := Score(append(append(recs, other...), noStem))
	run := Run{RunID: "r", Dataset: datasets.DatasetMMLUPro, Split: "test", Model: "gpt-4o"}
	items := run.Items(sc)
	if len(items) != 4 {
		t.Fatalf("%d items, want 4 (one per question with a stem)", len(items))
	}
	rows, err := run.Rows(sc)
	if err != nil {
		t.Fatal(err)
	}
	if items[0].QuestionID != rows[0].QuestionID || items[0].Stem != "Which vitamin deficiency causes scurvy?" ||
		items[0].Gold != rows[0].Gold || len(items[0].Options) != 4 || items[0].Options[2] != "Vitamin C" {
		t.Errorf("item 1: %+v", items[0])
	}
}
