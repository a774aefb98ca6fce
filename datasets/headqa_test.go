package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/qa"
)

const headqaTest = "testdata/headqa/HEAD_EN/test_HEAD_EN.json"

// TestHeadQAPublishedLayout reads the authors' exams document: numeric
// strings and numbers for ra, 4 and 5 answers, the exam's fields given to
// its records, the split from the file name, a content duplicate in two
// exams kept under its two source ids.
func TestHeadQAPublishedLayout(t *testing.T) {
	if fm, err := Detect(headqaTest); err != nil || fm != FormatHeadQA {
		t.Fatalf("Detect: %q, %v", fm, err)
	}
	res := mustLoad(t, Source{Path: headqaTest})
	checkQuestions(t, res.Questions)
	type want struct{ src, gold, category, year, split string }
	wants := []want{
		{"Cuaderno_2016_1_M/1", "B", "medicine", "2016", "test"},
		{"Cuaderno_2016_1_M/2", "D", "medicine", "2016", "test"},
		{"Cuaderno_2016_1_M/3", "A", "medicine", "2016", "test"}, // ra " 1 "
		{"Cuaderno_2016_1_E/1", "C", "nursing", "2016", "test"},  // ra 3 (a number), 5 answers
		{"Cuaderno_2016_1_E/2", "B", "nursing", "2016", "test"},  // the same question as M/1, in another exam
	}
	if len(res.Questions) != len(wants) {
		t.Fatalf("%d questions, want %d", len(res.Questions), len(wants))
	}
	for i, w := range wants {
		q := res.Questions[i]
		if q.SourceID != w.src || q.Gold != w.gold || q.Meta["category"] != w.category || q.Meta["year"] != w.year || q.Split != w.split || q.Dataset != DatasetHeadQA {
			t.Errorf("question %d: %s gold %s %v split %q dataset %q; want %+v", i, q.SourceID, q.Gold, q.Meta, q.Split, q.Dataset, w)
		}
		if !strings.HasPrefix(q.ID, "headqa-") {
			t.Errorf("id %s", q.ID)
		}
	}
	if n := len(res.Questions[3].Options); n != 5 {
		t.Errorf("5-answer question has %d options", n)
	}
	if res.Questions[1].Meta["image"] != "images/2016_M_2.jpg" || res.Questions[0].Meta["image"] != "" {
		t.Errorf("image meta: %v / %v", res.Questions[1].Meta, res.Questions[0].Meta)
	}
	// The exam scopes the id: the question set in two exams is two
	// questions (as the published count has it), not a duplicate.
	if res.DuplicatesKept != 0 || res.Questions[4].ID == res.Questions[0].ID {
		t.Errorf("question in two exams: kept %d, ids %s %s", res.DuplicatesKept, res.Questions[0].ID, res.Questions[4].ID)
	}
	if want := ContentID(DatasetHeadQA, res.Questions[0].Stem, nil, res.Questions[0].Options, "Cuaderno_2016_1_M"); res.Questions[0].ID != want {
		t.Errorf("id %s, want %s", res.Questions[0].ID, want)
	}
}

// TestHeadQAHFLayout: the HF rows (numbers for qid, ra and aid; exam name,
// year and category on each row), as JSON Lines and as parquet, give the
// same ids, source ids and answers as the authors' file.
func TestHeadQAHFLayout(t *testing.T) {
	want := mustLoad(t, Source{Path: headqaTest, Split: AllSplits}).Questions
	jl := mustLoad(t, Source{Path: "testdata/headqa/headqa_en_test_hf.jsonl"})
	if jl.Format != FormatHeadQA {
		t.Fatalf("format %s", jl.Format)
	}
	dir := t.TempDir()
	pq := filepath.Join(dir, "test-00000-of-00001.parquet")
	writeParquetRows(t, pq, hfHeadQARows(t, "testdata/headqa/headqa_en_test_hf.jsonl"))
	pres := mustLoad(t, Source{Path: pq})
	for name, got := range map[string][]questionLike{"jsonl": like(jl.Questions), "parquet": like(pres.Questions)} {
		w := like(want)
		if len(got) != len(w) {
			t.Fatalf("%s: %d questions, want %d", name, len(got), len(w))
		}
		for i := range w {
			if got[i] != w[i] {
				t.Errorf("%s question %d: %+v, want %+v", name, i, got[i], w[i])
			}
		}
	}
}

type questionLike struct{ id, src, gold, exam, category string }

func like(qs []qa.Question) []questionLike {
	out := make([]questionLike, len(qs))
	for i, q := range qs {
		out[i] = questionLike{q.ID, q.SourceID, q.Gold, q.Meta["exam"], q.Meta["category"]}
	}
	return out
}

// hfHeadQARow has the columns of the HF head_qa parquet (without the image).
type hfHeadQARow struct {
	Name     *string `parquet:"name,optional"`
	Year     *string `parquet:"year,optional"`
	Category *string `parquet:"category,optional"`
	Qid      *int32  `parquet:"qid,optional"`
	Qtext    *string `parquet:"qtext,optional"`
	Ra       *int32  `parquet:"ra,optional"`
	Answers  []struct {
		Aid   *int32  `parquet:"aid,optional"`
		Atext *string `parquet:"atext,optional"`
	} `parquet:"answers,optional,list"`
}

func hfHeadQARows(tb testing.TB, path string) []hfHeadQARow {
	var rows []hfHeadQARow
	i32 := func(v any) *int32 { x := int32(v.(float64)); return &x }
	for _, r := range jsonLines(tb, path) {
		row := hfHeadQARow{Name: optStr(r["name"]), Year: optStr(r["year"]), Category: optStr(r["category"]),
			Qid: i32(r["qid"]), Qtext: optStr(r["qtext"]), Ra: i32(r["ra"])}
		for _, a := range r["answers"].([]any) {
			m := a.(map[string]any)
			row.Answers = append(row.Answers, struct {
				Aid   *int32  `parquet:"aid,optional"`
				Atext *string `parquet:"atext,optional"`
			}{i32(m["aid"]), optStr(m["atext"])})
		}
		rows = append(rows, row)
	}
	return rows
}

// TestHeadQAProblems: a wrong ra, a ra that the two published readings
// (aid, position) disagree on, a non-numeric ra, and a broken document are
// reported at their line, never guessed.
func TestHeadQAProblems(t *testing.T) {
	rec := func(ra, answers string) string {
		return `{"qid": "1", "qtext": "Q?", "ra": ` + ra + `, "answers": ` + answers + `}`
	}
	four := `[{"aid": 1, "atext": "a"}, {"aid": 2, "atext": "b"}, {"aid": 3, "atext": "c"}, {"aid": 4, "atext": "d"}]`
	doc := func(records ...string) string {
		return "{\"version\": \"1\",\n\"exams\": {\"E\": {\"name\": \"E\", \"year\": \"2016\", \"category\": \"medicine\", \"data\": [\n" + strings.Join(records, ",\n") + "\n]}}}\n"
	}
	cases := []struct {
		name, data, code, field string
		line                    int
		fatal                   bool
	}{
		{"ra not an aid", doc(rec(`"7"`, four)), CodeGold, "ra", 3, false},
		{"ra by aid and by position disagree", doc(rec(`"2"`, `[{"aid": 2, "atext": "a"}, {"aid": 1, "atext": "b"}]`)), CodeGold, "ra", 3, false},
		{"ra not a number", doc(rec(`"three"`, four)), CodeType, "ra", 3, false},
		{"ra missing", doc(`{"qid": "1", "qtext": "Q?", "answers": ` + four + `}`), CodeMissing, "ra", 3, false},
		{"aid repeated", doc(rec(`"1"`, `[{"aid": 1, "atext": "a"}, {"aid": 1, "atext": "b"}]`)), CodeOptions, "answers", 3, false},
		{"second record bad", doc(rec(`"1"`, four), rec(`"9"`, four)), CodeGold, "ra", 4, false},
		{"no exams", "{\"version\": \"1\",\n\"other\": {}}\n", CodeMissing, "exams", 0, true},
		{"exam without data", "{\"exams\": {\"E\": {\"name\": \"E\"}}}\n", CodeMissing, "", 1, true},
		{"truncated", strings.TrimSuffix(doc(rec(`"1"`, four)), "]}}}\n"), CodeTruncated, "", 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "test_HEAD_EN.json")
			if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Load(Source{Path: path, Format: FormatHeadQA}, LoadOptions{SkipInvalid: true})
			if !c.fatal && err != nil {
				t.Fatalf("non-fatal problem refused the file: %v", err)
			}
			var got *ParseError
			for _, p := range res.Problems {
				if p.Code == c.code {
					got = p
				}
			}
			if got == nil {
				t.Fatalf("no %s problem: %v (err %v)", c.code, res.Problems, err)
			}
			if got.Fatal != c.fatal || got.Field != c.field || (c.line > 0 && got.Line != c.line) {
				t.Errorf("problem %+v; want field %q line %d fatal %v", got, c.field, c.line, c.fatal)
			}
		})
	}
}
