package datasets

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/medteam-bench/medteam/qa"
)

// HF-style parquet: every column optional, lists as optional LIST groups of
// optional elements, as pyarrow writes the exports of the datasets library.
// (Rows are structs with pointer fields: parquet-go writes a zero value from
// a map into an optional column as null.)

func sp(s string) *string { return &s }
func ip(i int64) *int64   { return &i }

// optStr returns a pointer to a JSON string value, nil for null or absence.
func optStr(v any) *string {
	if s, ok := v.(string); ok {
		return &s
	}
	return nil
}

func strs(v any) []string {
	items, _ := v.([]any)
	out := make([]string, len(items))
	for i, it := range items {
		out[i], _ = it.(string)
	}
	return out
}

// writeParquetRows writes rows of a struct type to path.
func writeParquetRows[T any](tb testing.TB, path string, rows []T) {
	tb.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, parquet.Compression(&parquet.Snappy))
	if _, err := w.Write(rows); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// jsonLines decodes a JSONL file into maps.
func jsonLines(tb testing.TB, path string) []map[string]any {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var out []map[string]any
	for _, line := range nonBlankLines(data) {
		var r map[string]any
		if err := json.Unmarshal(line, &r); err != nil {
			tb.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// hfMedMCQARow has the columns of the MedMCQA HF export (cop is a 0–3 class label).
type hfMedMCQARow struct {
	ID          *string `parquet:"id,optional"`
	Question    *string `parquet:"question,optional"`
	Opa         *string `parquet:"opa,optional"`
	Opb         *string `parquet:"opb,optional"`
	Opc         *string `parquet:"opc,optional"`
	Opd         *string `parquet:"opd,optional"`
	Cop         *int64  `parquet:"cop,optional"`
	ChoiceType  *string `parquet:"choice_type,optional"`
	Exp         *string `parquet:"exp,optional"`
	SubjectName *string `parquet:"subject_name,optional"`
	TopicName   *string `parquet:"topic_name,optional"`
}

func hfMedMCQA(tb testing.TB, dir string) string {
	tb.Helper()
	var rows []hfMedMCQARow
	for _, r := range jsonLines(tb, "testdata/medmcqa_dev.json") {
		rows = append(rows, hfMedMCQARow{
			ID: optStr(r["id"]), Question: optStr(r["question"]), Opa: optStr(r["opa"]), Opb: optStr(r["opb"]), Opc: optStr(r["opc"]), Opd: optStr(r["opd"]),
			Cop: ip(int64(r["cop"].(float64)) - 1), ChoiceType: optStr(r["choice_type"]), Exp: optStr(r["exp"]),
			SubjectName: optStr(r["subject_name"]), TopicName: optStr(r["topic_name"]),
		})
	}
	path := filepath.Join(dir, "validation-00000-of-00001.parquet")
	writeParquetRows(tb, path, rows)
	return path
}

// hfMedQARow has the columns of HF copies of MedQA (options as a struct).
type hfMedQARow struct {
	Question *string `parquet:"question,optional"`
	Answer   *string `parquet:"answer,optional"`
	Options  *struct {
		A *string `parquet:"A,optional"`
		B *string `parquet:"B,optional"`
		C *string `parquet:"C,optional"`
		D *string `parquet:"D,optional"`
	} `parquet:"options,optional"`
	MetaInfo       *string  `parquet:"meta_info,optional"`
	AnswerIdx      *string  `parquet:"answer_idx,optional"`
	MetamapPhrases []string `parquet:"metamap_phrases,optional,list" parquet-element:",optional"`
}

func hfMedQA(tb testing.TB, dir string) string {
	tb.Helper()
	var rows []hfMedQARow
	for _, r := range jsonLines(tb, realMedQATest) {
		row := hfMedQARow{Question: optStr(r["question"]), Answer: optStr(r["answer"]), MetaInfo: optStr(r["meta_info"]),
			AnswerIdx: optStr(r["answer_idx"]), MetamapPhrases: strs(r["metamap_phrases"])}
		o := r["options"].(map[string]any)
		row.Options = &struct {
			A *string `parquet:"A,optional"`
			B *string `parquet:"B,optional"`
			C *string `parquet:"C,optional"`
			D *string `parquet:"D,optional"`
		}{optStr(o["A"]), optStr(o["B"]), optStr(o["C"]), optStr(o["D"])}
		rows = append(rows, row)
	}
	path := filepath.Join(dir, "test-00000-of-00001.parquet")
	writeParquetRows(tb, path, rows)
	return path
}

// hfMMLURow has the columns of the MMLU HF export (answer is a 0-based class label).
type hfMMLURow struct {
	Question *string  `parquet:"question,optional"`
	Subject  *string  `parquet:"subject,optional"`
	Choices  []string `parquet:"choices,optional,list" parquet-element:",optional"`
	Answer   *int64   `parquet:"answer,optional"`
}

func hfMMLU(tb testing.TB, dir string) string {
	tb.Helper()
	var rows []hfMMLURow
	for _, subject := range mmluMedicalSubjects {
		f, err := os.Open(filepath.Join(realMMLUMedical, subject+"_test.csv"))
		if err != nil {
			tb.Fatal(err)
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			tb.Fatal(err)
		}
		for _, r := range recs {
			rows = append(rows, hfMMLURow{Question: sp(r[0]), Subject: sp(subject), Choices: r[1:5], Answer: ip(int64(r[5][0] - 'A'))})
		}
	}
	path := filepath.Join(dir, "test-00000-of-00001.parquet")
	writeParquetRows(tb, path, rows)
	return path
}

// hfMMLUProRow has the columns of the MMLU-Pro HF parquet.
type hfMMLUProRow struct {
	QuestionID  *int64   `parquet:"question_id,optional"`
	Question    *string  `parquet:"question,optional"`
	Options     []string `parquet:"options,optional,list" parquet-element:",optional"`
	Answer      *string  `parquet:"answer,optional"`
	AnswerIndex *int64   `parquet:"answer_index,optional"`
	CotContent  *string  `parquet:"cot_content,optional"`
	Category    *string  `parquet:"category,optional"`
	Src         *string  `parquet:"src,optional"`
}

func hfMMLUPro(tb testing.TB, dir string) string {
	tb.Helper()
	var rows []hfMMLUProRow
	for _, r := range jsonLines(tb, "testdata/mmlu_pro_test.jsonl") {
		rows = append(rows, hfMMLUProRow{
			QuestionID: ip(int64(r["question_id"].(float64))), Question: optStr(r["question"]), Options: strs(r["options"]),
			Answer: optStr(r["answer"]), AnswerIndex: ip(int64(r["answer_index"].(float64))),
			CotContent: optStr(r["cot_content"]), Category: optStr(r["category"]), Src: optStr(r["src"]),
		})
	}
	path := filepath.Join(dir, "test-00000-of-00001.parquet")
	writeParquetRows(tb, path, rows)
	return path
}

// hfPubMedQARow has the columns of the PubMedQA pqa_labeled HF parquet.
type hfPubMedQARow struct {
	Pubid    *int32  `parquet:"pubid,optional"`
	Question *string `parquet:"question,optional"`
	Context  *struct {
		Contexts []string `parquet:"contexts,optional,list" parquet-element:",optional"`
		Labels   []string `parquet:"labels,optional,list" parquet-element:",optional"`
		Meshes   []string `parquet:"meshes,optional,list" parquet-element:",optional"`
		RR       []string `parquet:"reasoning_required_pred,optional,list" parquet-element:",optional"`
		RF       []string `parquet:"reasoning_free_pred,optional,list" parquet-element:",optional"`
	} `parquet:"context,optional"`
	LongAnswer    *string `parquet:"long_answer,optional"`
	FinalDecision *string `parquet:"final_decision,optional"`
}

// hfPubMedQA writes the real ori_pqal.json as the HF parquet, with the
// ground-truth file beside it.
func hfPubMedQA(tb testing.TB, dir string) string {
	tb.Helper()
	data, err := os.ReadFile(realPubMedQA)
	if err != nil {
		tb.Fatal(err)
	}
	var doc map[string]map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		tb.Fatal(err)
	}
	// Keep the file's order, as the HF export does.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.Token()
	var rows []hfPubMedQARow
	for dec.More() {
		tok, _ := dec.Token()
		var skip json.RawMessage
		dec.Decode(&skip)
		pmid := tok.(string)
		r := doc[pmid]
		n, err := strconv.ParseInt(pmid, 10, 32)
		if err != nil {
			tb.Fatal(err)
		}
		id := int32(n)
		row := hfPubMedQARow{Pubid: &id, Question: optStr(r["QUESTION"]), LongAnswer: optStr(r["LONG_ANSWER"]), FinalDecision: optStr(r["final_decision"])}
		row.Context = &struct {
			Contexts []string `parquet:"contexts,optional,list" parquet-element:",optional"`
			Labels   []string `parquet:"labels,optional,list" parquet-element:",optional"`
			Meshes   []string `parquet:"meshes,optional,list" parquet-element:",optional"`
			RR       []string `parquet:"reasoning_required_pred,optional,list" parquet-element:",optional"`
			RF       []string `parquet:"reasoning_free_pred,optional,list" parquet-element:",optional"`
		}{strs(r["CONTEXTS"]), strs(r["LABELS"]), strs(r["MESHES"]), []string{r["reasoning_required_pred"].(string)}, []string{r["reasoning_free_pred"].(string)}}
		rows = append(rows, row)
	}
	path := filepath.Join(dir, "train-00000-of-00001.parquet")
	writeParquetRows(tb, path, rows)
	gt, err := os.ReadFile(realPubMedQAGT)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "test_ground_truth.json"), gt, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// TestHFParquet reads HF-style parquet exports and checks they give the same
// questions as the original files.
func TestHFParquet(t *testing.T) {
	tests := []struct {
		name   string
		need   string
		write  func(testing.TB, string) string
		format Format
		orig   Source // the same data in its original format
		n      int
		same   func(a, b qa.Question) string
	}{
		{"medmcqa", "testdata/medmcqa_dev.json", hfMedMCQA, FormatMedMCQA, Source{Path: "testdata/medmcqa_dev.json"}, 5,
			func(a, b qa.Question) string { b.Split = a.Split; return diffQuestion(a, b) }},
		{"medqa", realMedQATest, hfMedQA, FormatMedQA, Source{Path: realMedQATest}, 1273, nil},
		{"mmlu", realMMLUMedical, hfMMLU, FormatMMLU, Source{Path: realMMLUMedical, Split: "test"}, 1099, nil},
		{"mmlu-pro", "testdata/mmlu_pro_test.jsonl", hfMMLUPro, FormatMMLUPro, Source{Path: "testdata/mmlu_pro_test.jsonl"}, 6, nil},
		{"pubmedqa", realPubMedQA, hfPubMedQA, FormatPubMedQA, Source{Path: realPubMedQA}, 500,
			func(a, b qa.Question) string { delete(b.Meta, "year"); return diffQuestion(a, b) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			needFile(t, tc.need)
			path := tc.write(t, t.TempDir())
			if f, err := Detect(path); err != nil || f != tc.format {
				t.Fatalf("Detect = %s, %v; want %s", f, err, tc.format)
			}
			got := mustLoad(t, Source{Path: path}).Questions
			orig := mustLoad(t, tc.orig).Questions
			if len(got) != tc.n || len(orig) != tc.n {
				t.Fatalf("got %d questions from parquet, %d from the original; want %d", len(got), len(orig), tc.n)
			}
			checkQuestions(t, got)
			for i := range got {
				same := tc.same
				if same == nil {
					same = diffQuestion
				}
				if d := same(got[i], orig[i]); d != "" {
					t.Fatalf("question %d (%s): %s", i, got[i].ID, d)
				}
			}
			// Naming the container as "parquet" detects the schema the same way.
			again := mustLoad(t, Source{Path: path, Format: FormatParquet}).Questions
			if d := diffQuestions(got, again); d != "" {
				t.Errorf("--format parquet: %s", d)
			}
		})
	}
}

// TestConvertRoundTrip converts every real file and fixture to canonical
// parquet and JSONL and reads them back: the same questions (ids, stems,
// context, options, gold, split, dataset, metadata).
func TestConvertRoundTrip(t *testing.T) {
	sources := []Source{
		{Path: realMedQATest},
		{Path: realMedMCQA},
		{Path: realPubMedQA, Split: AllSplits},    // both splits: the split survives the round trip
		{Path: realMMLUMedical, Split: AllSplits}, // all six subjects, test and dev
		{Path: "testdata/medqa_5opt_test.jsonl"},
		{Path: "testdata/mmlu_pro_test.jsonl"},
		{Path: "testdata/medbullets_op4.csv"},
		{Path: "testdata/medbullets_op5.csv"},
		{Path: "testdata/medmcqa_dev.json"},
		{Path: "testdata/medmcqa_zero_based.json"},
		{Path: "testdata/mapped_items.jsonl", Format: FormatMapped, Split: AllSplits, Map: FieldMap{"question": "prompt", "options": "choices", "answer": "label", "context": "passage", "split": "fold"}},
		{Path: "testdata/mapped_quiz.csv", Format: FormatMapped, Map: FieldMap{"id": "qid", "question": "stem", "options": "choice_a|choice_b|choice_c|choice_d", "answer": "label", "meta.topic": "topic"}},
	}
	dir := t.TempDir()
	for i, src := range sources {
		t.Run(strings.ReplaceAll(src.Path, "/", "_")+"_"+string(src.Split), func(t *testing.T) {
			needFile(t, src.Path)
			want := mustLoad(t, src).Questions
			for _, ext := range []string{".parquet", ".jsonl"} {
				dst := filepath.Join(dir, "out"+string(rune('a'+i))+ext)
				st, err := Convert(src, dst, LoadOptions{})
				if err != nil {
					t.Fatalf("Convert to %s: %v", ext, err)
				}
				if st.Valid != len(want) {
					t.Errorf("Convert wrote %d questions, want %d", st.Valid, len(want))
				}
				if _, err := os.Stat(dst + ".tmp"); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("temporary file left behind: %v", err)
				}
				if f, err := Detect(dst); err != nil || f != FormatCanonical {
					t.Errorf("Detect(%s) = %s, %v", ext, f, err)
				}
				res := mustLoad(t, Source{Path: dst, Split: AllSplits})
				if res.Format != FormatCanonical {
					t.Errorf("read back as %s", res.Format)
				}
				if d := diffQuestions(res.Questions, want); d != "" {
					t.Errorf("%s round trip: %s", ext, d)
				}
			}
		})
	}
}

// TestConvertRefusesInvalid checks that an invalid source leaves no output
// unless invalid records are skipped.
func TestConvertRefusesInvalid(t *testing.T) {
	dir := t.TempDir()
	src := Source{Path: "testdata/medmcqa_multi.json"}
	dst := filepath.Join(dir, "out.parquet")
	_, err := Convert(src, dst, LoadOptions{})
	var inv *InvalidError
	if !errors.As(err, &inv) || inv.Total != 1 {
		t.Fatalf("got %v, want an InvalidError", err)
	}
	if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output written despite the problem")
	}
	if _, err := os.Stat(dst + ".tmp"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary file left behind")
	}
	st, err := Convert(src, dst, LoadOptions{SkipInvalid: true})
	if err != nil || st.Valid != 2 || st.Skipped != 1 {
		t.Fatalf("skip: %+v, %v", st, err)
	}
	qs := mustLoad(t, Source{Path: dst}).Questions
	if len(qs) != 2 {
		t.Errorf("read back %d questions", len(qs))
	}
	if _, err := Convert(src, filepath.Join(dir, "out.csv"), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "name it .jsonl") {
		t.Errorf("unknown extension: %v", err)
	}
}

// TestWriteJSONLShape pins the canonical JSONL line layout.
func TestWriteJSONLShape(t *testing.T) {
	q := qa.Question{ID: "x-1", Dataset: "x", Split: "test", Stem: "Is <b> & shown?", Context: []string{"p"},
		Options: []qa.Option{{Letter: "A", Text: "yes"}, {Letter: "B", Text: "no"}}, Gold: "A", Meta: map[string]string{"k": "v"}}
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, []qa.Question{q, {ID: "x-2", Stem: "S", Options: q.Options, Gold: "B"}}); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"x-1","dataset":"x","split":"test","stem":"Is <b> & shown?","context":["p"],"options":[{"letter":"A","text":"yes"},{"letter":"B","text":"no"}],"gold":"A","meta":{"k":"v"}}
{"id":"x-2","dataset":"","split":"","stem":"S","options":[{"letter":"A","text":"yes"},{"letter":"B","text":"no"}],"gold":"B"}
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	var pq bytes.Buffer
	if err := WriteParquet(&pq, []qa.Question{q}); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(pq.Bytes(), []byte("PAR1")) {
		t.Error("not a parquet file")
	}
}
