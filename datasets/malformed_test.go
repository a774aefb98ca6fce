package datasets

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/qa"
)

const (
	goodMedQA    = `{"question": "Q1?", "answer": "yes", "options": {"A": "yes", "B": "no"}, "meta_info": "step1", "answer_idx": "A"}`
	goodStandard = `{"question": "Q1?", "realidx": "x1", "options": {"A": "a", "B": "b", "C": "c", "D": "d"}, "answer_idx": "B", "answer": "b"}`
	goodMedMCQA  = `{"id": "m1", "question": "Q1?", "opa": "a", "opb": "b", "opc": "c", "opd": "d", "cop": 4, "choice_type": "single", "subject_name": "Anatomy", "topic_name": null}`
	goodMMLUPro  = `{"question_id": 70, "question": "Q?", "options": ["a", "b", "c", "d", "e"], "answer": "E", "answer_index": 4, "category": "health", "src": "x"}`
	goodMMLURow  = "What is 2+2?,3,4,5,6,B\n"
	mbHeader     = "link,question,opa,opb,opc,opd,answer_idx,answer,explanation\n"
	goodCanon    = `{"id": "c-1", "dataset": "c", "split": "test", "stem": "S?", "options": [{"letter": "A", "text": "x"}, {"letter": "B", "text": "y"}], "gold": "B"}`
)

// pubmedDoc builds a pretty-printed ori_pqal.json-style document.
func pubmedDoc(records ...string) string {
	return "{\n" + strings.Join(records, ",\n") + "\n}\n"
}

func pubmedRecord(pmid, decision string) string {
	return `    "` + pmid + `": {
        "QUESTION": "Does it work?",
        "CONTEXTS": ["Background passage.", "Results passage."],
        "LABELS": ["BACKGROUND", "RESULTS"],
        "MESHES": ["Humans"],
        "YEAR": "2001",
        "final_decision": "` + decision + `"
    }`
}

// canonicalParquet writes questions (valid or not) as canonical parquet.
func canonicalParquet(qs ...qa.Question) func(testing.TB) []byte {
	return func(tb testing.TB) []byte {
		var buf bytes.Buffer
		if err := WriteParquet(&buf, qs); err != nil {
			tb.Fatal(err)
		}
		return buf.Bytes()
	}
}

var twoOpts = []qa.Option{{Letter: "A", Text: "x"}, {Letter: "B", Text: "y"}}

// TestMalformed feeds malformed inputs of every format and checks that the
// first problem names the right place (file, line or row, field), carries
// the right code and says what is wrong.
func TestMalformed(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string
		gen     func(testing.TB) []byte // parquet content
		src     Source                  // Format, Map… (Path is set by the test)
		line    int
		row     int
		field   string
		code    string
		msg     string
		fatal   bool
	}{
		// MedQA and standardised JSONL
		{name: "medqa empty stem", file: "q_test.jsonl", content: goodMedQA + "\n" + `{"question": "  ", "options": {"A": "x", "B": "y"}, "answer_idx": "A"}` + "\n",
			line: 2, field: "question", code: CodeStem, msg: "empty question stem"},
		{name: "medqa one option", file: "q.jsonl", content: `{"question": "Q", "options": {"A": "x"}, "answer_idx": "A"}`,
			line: 1, field: "options", code: CodeOptions, msg: "1 option(s); need 2 to 10"},
		{name: "medqa duplicate letter", file: "q.jsonl", content: goodMedQA + "\n\n" + `{"question": "Q", "options": {"A": "x", "B": "y", "A": "z"}, "answer_idx": "A"}`,
			line: 3, field: "options", code: CodeOptions, msg: `duplicate option letter "A"`},
		{name: "medqa gold missing", file: "q.jsonl", content: `{"question": "Q", "options": {"A": "x", "B": "y"}}`, src: Source{Format: FormatMedQA},
			line: 1, field: "answer_idx", code: CodeGold, msg: "missing; every record needs the gold option letter"},
		{name: "medqa gold not among options", file: "q.jsonl", content: `{"question": "Q", "options": {"A": "a", "B": "b", "C": "c", "D": "d"}, "answer_idx": "E"}`,
			line: 1, field: "answer_idx", code: CodeGold, msg: `q.jsonl:1: field "answer_idx": "E" is not among the options A,B,C,D`},
		{name: "medqa same question, other answer", file: "q.jsonl",
			content: goodMedQA + "\n" + strings.Replace(goodMedQA, "Q1?", "Q2?", 1) + "\n" + goodMedQA + "\n" + strings.NewReplacer(`"answer": "yes"`, `"answer": "no"`, `"answer_idx": "A"`, `"answer_idx": "B"`).Replace(goodMedQA) + "\n",
			line:    4, field: "answer_idx", code: CodeDuplicate, msg: "same question (stem and options) as line 1 (id "},
		{name: "medqa same question, other step", file: "q.jsonl", content: goodMedQA + "\n" + strings.Replace(goodMedQA, "step1", "step2&3", 1) + "\n",
			line: 2, code: CodeDuplicate, msg: "but a different split, context or metadata"},
		{name: "invalid UTF-8", file: "q.jsonl", content: goodMedQA + "\n" + `{"question": "Q` + "\xff" + `", "options": {"A": "x", "B": "y"}, "answer_idx": "A"}` + "\n",
			src: Source{Format: FormatMedQA}, line: 2, code: CodeEncoding, msg: "invalid UTF-8 at byte 16 of the line; re-encode the file as UTF-8"},
		{name: "truncated final line", file: "q.jsonl", content: goodMedQA + "\n" + `{"question": "Q", "options": {"A": "x", "B"`,
			line: 2, code: CodeTruncated, msg: "the line looks truncated"},
		{name: "cut line mid-file", file: "q.jsonl", content: goodMedQA + "\n" + `{"question": "Q", "options": {"A": "x", "B"` + "\n" + goodMedQA,
			src: Source{Format: FormatMedQA}, line: 2, code: CodeSyntax, msg: "unexpected end of input"},
		{name: "repeated field", file: "q.jsonl", content: `{"question": "Q", "options": {"A": "x", "B": "y"}, "answer_idx": "A", "answer_idx": "B"}`, src: Source{Format: FormatMedQA},
			line: 1, field: "answer_idx", code: CodeSyntax, msg: "the field appears more than once in the record"},
		{name: "standard duplicate realidx", file: "medmcqa/test.jsonl", content: goodStandard + "\n" + strings.Replace(goodStandard, "Q1?", "Q2?", 1) + "\n",
			line: 2, field: "realidx", code: CodeDuplicate, msg: "duplicate realidx x1: already used at line 1 for a different question"},
		{name: "standard eleven options", file: "s.jsonl", content: `{"question": "Q", "realidx": 7, "options": {"A":"a","B":"b","C":"c","D":"d","E":"e","F":"f","G":"g","H":"h","I":"i","J":"j","K":"k"}, "answer_idx": "A"}`,
			line: 1, field: "options", code: CodeOptions, msg: "11 option(s); need 2 to 10"},
		// original MedMCQA
		{name: "medmcqa missing option", file: "dev.json", content: goodMedMCQA + "\n" + `{"id": "m2", "question": "Q2?", "opa": "a", "opb": "b", "opd": "d", "cop": 1}`,
			line: 2, field: "opc", code: CodeMissing, msg: "missing; MedMCQA records have the four options"},
		{name: "medmcqa cop out of range", file: "dev.json", content: goodMedMCQA + "\n" + strings.Replace(strings.Replace(goodMedMCQA, `"cop": 4`, `"cop": 7`, 1), "m1", "m2", 1),
			line: 2, field: "cop", code: CodeGold, msg: "7 is not an option index; this file counts options from 1 (1–4)"},
		{name: "medmcqa multi-answer", file: "dev.json", content: strings.Replace(goodMedMCQA, `"single"`, `"multi"`, 1),
			line: 1, field: "choice_type", code: CodeMulti, msg: `multi-answer item (choice_type "multi")`},
		{name: "medmcqa hidden test answer", file: "test.json", content: strings.Replace(goodMedMCQA, `"cop": 4`, `"cop": -1`, 1),
			line: 1, field: "cop", code: CodeGold, msg: "the answer is withheld"},
		{name: "medmcqa empty option", file: "dev.json", content: strings.Replace(goodMedMCQA, `"opb": "b"`, `"opb": " "`, 1),
			line: 1, field: "opb", code: CodeOptions, msg: "option B is empty"},
		// PubMedQA
		{name: "pubmedqa bad decision", file: "ori_pqal.json", content: pubmedDoc(pubmedRecord("101", "yes"), pubmedRecord("102", "perhaps")),
			line: 10, field: "final_decision", code: CodeGold, msg: `"perhaps" is not yes, no or maybe`},
		{name: "pubmedqa truncated document", file: "ori_pqal.json", content: pubmedDoc(pubmedRecord("101", "yes"), pubmedRecord("102", "no"))[:420],
			line: 14, code: CodeTruncated, msg: "the JSON document ends early", fatal: true},
		{name: "pubmedqa syntax error", file: "ori_pqal.json", content: strings.Replace(pubmedDoc(pubmedRecord("101", "yes"), pubmedRecord("102", "no")), `"MESHES": ["Humans"],`+"\n        \"YEAR\": \"2001\",\n        \"final_decision\": \"no\"", `"MESHES": ["Humans"] "YEAR": "2001"`, 1),
			line: 14, code: CodeSyntax, msg: "invalid character", fatal: true},
		{name: "pubmedqa record not an object", file: "ori_pqal.json", content: "{\n" + pubmedRecord("101", "yes") + ",\n  \"102\": [1, 2]\n}\n", src: Source{Format: FormatPubMedQA},
			line: 10, code: CodeType, msg: `the value of "102" is an array, not a record object`},
		{name: "pubmedqa missing contexts", file: "ori_pqal.json", content: pubmedDoc(strings.Replace(pubmedRecord("101", "yes"), `"CONTEXTS": ["Background passage.", "Results passage."],`, "", 1)),
			line: 2, field: "CONTEXTS", code: CodeMissing, msg: "PubMedQA items need their abstract passages"},
		// MMLU CSV
		{name: "mmlu wrong field count", file: "anatomy_test.csv", content: goodMMLURow + "What is 3+3?,5,6,7,B\n",
			line: 2, code: CodeFields, msg: "row has 5 fields but the first row has 6"},
		{name: "mmlu answer not a letter of the options", file: "anatomy_test.csv", content: goodMMLURow + "What is 3+3?,5,6,7,8,E\n", src: Source{Format: FormatMMLU},
			line: 2, field: "last column (answer)", code: CodeGold, msg: `"E" is not among the options A,B,C,D`},
		{name: "mmlu empty option", file: "anatomy_test.csv", content: goodMMLURow + "What is 3+3?,5,6,,8,B\n",
			line: 2, field: "columns 2–5 (options)", code: CodeOptions, msg: "option C is empty"},
		{name: "mmlu empty stem", file: "anatomy_test.csv", content: goodMMLURow + "\" \",5,6,7,8,B\n",
			line: 2, field: "column 1 (question)", code: CodeStem, msg: "empty question stem"},
		{name: "mmlu unterminated quote", file: "anatomy_test.csv", content: goodMMLURow + "\"What is 3+3?,5,6,7,8,B\n" + goodMMLURow,
			line: 2, code: CodeSyntax, msg: "extraneous or missing \" in quoted-field", fatal: true},
		{name: "mmlu invalid UTF-8", file: "anatomy_test.csv", content: goodMMLURow + "Caf\xe9?,5,6,7,8,B\n",
			line: 2, field: "column 1", code: CodeEncoding, msg: "invalid UTF-8 at byte 4 of the field"},
		{name: "mmlu same question, other answer, in one subject", file: "anatomy_test.csv", content: goodMMLURow + goodMMLURow + strings.Replace(goodMMLURow, ",B", ",C", 1),
			line: 3, field: "last column (answer)", code: CodeDuplicate, msg: "but gold C here and B there"},
		// MedBullets CSV
		{name: "medbullets answer text disagrees", file: "medbullets_op4.csv", content: mbHeader + "l1,Q?,a,b,c,d,B,c,\"why\nbecause\",,,,\n",
			line: 2, field: "answer", code: CodeGold, msg: `text "c" does not match option B "b"`},
		{name: "medbullets record line after a multi-line field", file: "medbullets_op4.csv", content: mbHeader + "l1,Q?,a,b,c,d,B,b,\"why\n\nbecause\",,,,\nl2,Q2?,a,b,c,d,F,,x\n",
			line: 5, field: "answer_idx", code: CodeGold, msg: `"F" is not among the options A,B,C,D`},
		{name: "medbullets extra non-empty field", file: "medbullets_op4.csv", content: mbHeader + "l1,Q?,a,b,c,d,B,b,why,oops\n",
			line: 2, code: CodeFields, msg: "row has 10 fields but the header has 9, and field 10 is not empty"},
		{name: "medbullets gap in options", file: "medbullets_op4.csv", content: mbHeader + "l1,Q?,a,b,,d,B,b,why\n",
			line: 2, field: "opc", code: CodeOptions, msg: "option C is empty but a later option is not"},
		{name: "medbullets same question under two links, other answer", file: "medbullets_op4.csv",
			content: mbHeader + "https://example.org/1,Q?,a,b,c,d,B,b,why,,,,\nhttps://example.org/2,Q?,a,b,c,d,C,c,why,,,,\n",
			line:    3, field: "answer_idx", code: CodeDuplicate, msg: "same question (stem and options) as line 2"},
		{name: "medbullets missing fields", file: "medbullets_op4.csv", content: mbHeader + "l1,Q?,a,b,c\n",
			line: 2, code: CodeFields, msg: "row has 5 fields but the header has 9"},
		// MMLU-Pro
		{name: "mmlu-pro answer and index disagree", file: "mmlu_pro.jsonl", content: strings.Replace(goodMMLUPro, `"answer_index": 4`, `"answer_index": 3`, 1),
			line: 1, field: "answer_index", code: CodeGold, msg: `3 (0-based) disagrees with answer "E"`},
		{name: "mmlu-pro duplicate question_id", file: "mmlu_pro.jsonl", content: goodMMLUPro + "\n" + strings.Replace(goodMMLUPro, `"Q?"`, `"Q2?"`, 1),
			line: 2, field: "question_id", code: CodeDuplicate, msg: "duplicate question_id 70: already used at line 1 for a different question"},
		{name: "mmlu-pro option not a string", file: "mmlu_pro.jsonl", content: strings.Replace(goodMMLUPro, `"c", "d"`, `"c", 4`, 1),
			line: 1, field: "options", code: CodeType, msg: "option D must be a string, got a number"},
		// canonical
		{name: "canonical letters out of order", file: "c.jsonl", content: goodCanon + "\n" + strings.Replace(strings.Replace(goodCanon, `"B", "text"`, `"C", "text"`, 1), "c-1", "c-2", 1),
			line: 2, field: "options", code: CodeOptions, msg: `option 2 has letter "C"; want "B"`},
		{name: "canonical duplicate letters", file: "c.jsonl", content: strings.Replace(goodCanon, `"B", "text"`, `"A", "text"`, 1),
			line: 1, field: "options", code: CodeOptions, msg: `duplicate option letter "A"`},
		{name: "canonical empty id", file: "c.jsonl", content: strings.Replace(goodCanon, `"c-1"`, `""`, 1),
			line: 1, field: "id", code: CodeID, msg: "empty id"},
		// canonical parquet: rows, not lines
		{name: "parquet gold not among options", file: "c.parquet",
			gen: canonicalParquet(qa.Question{ID: "p-1", Stem: "S", Options: twoOpts, Gold: "A"}, qa.Question{ID: "p-2", Stem: "S2", Options: twoOpts, Gold: "C"}),
			row: 2, field: "gold", code: CodeGold, msg: `c.parquet: row 2: field "gold": gold answer "C" is not among the options A,B`},
		{name: "parquet few options", file: "c.parquet",
			gen: canonicalParquet(qa.Question{ID: "p-1", Stem: "S", Options: twoOpts[:1], Gold: "A"}),
			row: 1, field: "options", code: CodeOptions, msg: "1 options; need 2 to 10"},
		{name: "parquet truncated file", file: "c.parquet",
			gen: func(tb testing.TB) []byte {
				b := canonicalParquet(qa.Question{ID: "p-1", Stem: "S", Options: twoOpts, Gold: "A"})(tb)
				return b[:len(b)-20]
			},
			code: CodeFile, msg: "not a readable parquet file", fatal: true},
		// mapped
		{name: "mapped answer not an option", file: "quiz.csv", content: "stem,a,b,label\nQ?,x,y,maybe\n",
			src:  Source{Format: FormatMapped, Map: FieldMap{"question": "stem", "options": "a|b", "answer": "label"}},
			line: 2, field: "label", code: CodeGold, msg: `"maybe" is neither an option letter (A,B), an index, nor the text of an option`},
		{name: "mapped index out of range", file: "items.jsonl", content: `{"q": "Q?", "choices": ["x", "y"], "label": 0}` + "\n" + `{"q": "Q2?", "choices": ["x", "y"], "label": 5}`,
			src:  Source{Format: FormatMapped, Map: FieldMap{"question": "q", "options": "choices", "answer": "label"}},
			line: 2, field: "label", code: CodeGold, msg: "index 5 is not among the 2 options (counted from 0)"},
	}
	if len(tests) < 20 {
		t.Fatalf("only %d malformed inputs", len(tests))
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sub := filepath.Join(dir, string(rune('a'+i%26))+strings.Repeat("x", i/26))
			path := filepath.Join(sub, filepath.FromSlash(tc.file))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			data := []byte(tc.content)
			if tc.gen != nil {
				data = tc.gen(t)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			src := tc.src
			src.Path = path
			res, err := Load(src, LoadOptions{MaxProblems: -1})
			var inv *InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("got %v (%T), want an *InvalidError", err, err)
			}
			if len(res.Questions) != 0 {
				t.Errorf("refused dataset returned %d questions", len(res.Questions))
			}
			p := inv.Problems[0]
			if p.Source != path || p.Line != tc.line || p.Row != tc.row || p.Field != tc.field || p.Code != tc.code || p.Fatal != tc.fatal {
				t.Errorf("got %s line %d row %d field %q code %q fatal %v; want line %d row %d field %q code %q fatal %v\n%v",
					p.Source, p.Line, p.Row, p.Field, p.Code, p.Fatal, tc.line, tc.row, tc.field, tc.code, tc.fatal, p)
			}
			if !strings.Contains(p.Error(), tc.msg) {
				t.Errorf("problem %q does not contain %q", p.Error(), tc.msg)
			}
			if !strings.Contains(err.Error(), p.Error()) {
				t.Errorf("the refusal %q does not list the problem", err)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe != p {
				t.Errorf("errors.As does not find the first problem")
			}
			// Skipping: a fatal problem still refuses; otherwise the rest runs
			// and the reasons are counted.
			skip, err := Load(src, LoadOptions{SkipInvalid: true})
			if tc.fatal {
				if err == nil {
					t.Errorf("fatal problem accepted with SkipInvalid")
				}
				return
			}
			if err != nil {
				t.Fatalf("SkipInvalid: %v", err)
			}
			if skip.Skipped < 1 || skip.Reasons[tc.code] < 1 || skip.Skipped != skip.TotalProblems || len(skip.Questions) != skip.Valid {
				t.Errorf("SkipInvalid: %d skipped, reasons %v", skip.Skipped, skip.Reasons)
			}
			checkQuestions(t, skip.Questions)
		})
	}
}

func TestSkipInvalidReport(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mixed_test.jsonl")
	lines := []string{
		goodMedQA,
		`{"question": "", "options": {"A": "x", "B": "y"}, "answer_idx": "A"}`,
		strings.Replace(goodMedQA, "Q1?", "Q3?", 1),
		`{"question": "Q4", "options": {"A": "x", "B": "y"}, "answer_idx": "Z"}`,
		`not json`,
		strings.Replace(goodMedQA, "Q1?", "Q6?", 1),
		strings.Replace(goodMedQA, "step1", "step2&3", 1), // line 1 with other metadata: a problem
		goodMedQA, // line 1 again: collapsed
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(Source{Path: path}, LoadOptions{MaxProblems: 2})
	var inv *InvalidError
	if !errors.As(err, &inv) || inv.Total != 4 || len(inv.Problems) != 2 {
		t.Fatalf("got %v", err)
	}
	for _, want := range []string{"refusing the dataset: 4 invalid records (the first 2 below)", "mixed_test.jsonl:2: field \"question\": empty question stem",
		"mixed_test.jsonl:4: field \"answer_idx\"", "--skip-invalid"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("report %q lacks %q", err, want)
		}
	}
	res, err := Load(Source{Path: path}, LoadOptions{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{CodeStem: 1, CodeGold: 1, CodeSyntax: 1, CodeDuplicate: 1}
	if len(res.Questions) != 3 || res.Skipped != 4 || res.Records != 8 || res.DuplicatesCollapsed != 1 || len(res.Reasons) != len(want) {
		t.Fatalf("got %d questions, %d skipped and %d collapsed of %d records, reasons %v", len(res.Questions), res.Skipped, res.DuplicatesCollapsed, res.Records, res.Reasons)
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "1 exact duplicate record(s) collapsed, the first copy kept (line 8 = line 1)") {
		t.Errorf("notes %q", notes)
	}
	for k, v := range want {
		if res.Reasons[k] != v {
			t.Errorf("reason %s: %d, want %d", k, res.Reasons[k], v)
		}
	}
	// Stream stops delivering at the first problem but still reports all.
	var got []string
	st, err := Stream(Source{Path: path}, LoadOptions{}, func(q qa.Question) error {
		got = append(got, q.Stem)
		return nil
	})
	if !errors.As(err, &inv) || len(got) != 1 || st.TotalProblems != 4 || st.Valid != 3 {
		t.Errorf("Stream delivered %v, stats %+v, err %v", got, st, err)
	}
	// Check reads everything and keeps nothing.
	st, err = Check(Source{Path: path}, LoadOptions{MaxProblems: -1})
	if !errors.As(err, &inv) || len(st.Problems) != 4 || st.Valid != 3 {
		t.Errorf("Check: %+v, %v", st, err)
	}
}

// TestReaderAPI exercises Open/Next/Close directly.
func TestReaderAPI(t *testing.T) {
	r, err := Open(Source{Path: "testdata/medmcqa_multi.json"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	problems := 0
	for {
		q, err := r.Next()
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) && !pe.Fatal {
				problems++
				continue
			}
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		ids = append(ids, q.ID)
	}
	if len(ids) != 2 || problems != 1 || r.Records() != 3 || r.Format() != FormatMedMCQA {
		t.Errorf("ids %v, %d problems, %d records, format %s", ids, problems, r.Records(), r.Format())
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}
	if _, err := r.Next(); err == nil {
		t.Error("Next after Close succeeded")
	}
	if _, err := Open(Source{Path: "testdata/absent.jsonl"}); !os.IsNotExist(err) {
		t.Errorf("absent file: %v", err)
	}
	if _, err := Open(Source{Path: "testdata/mapped_quiz.csv", Format: FormatMapped}); err == nil || !strings.Contains(err.Error(), "lacks question, options, answer") {
		t.Errorf("mapped without a map: %v", err)
	}
	if _, err := Open(Source{Path: "testdata/mapped_quiz.csv", Format: "nonsense"}); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := Open(Source{Path: "testdata/medqa_5opt_test.jsonl", Format: FormatParquet}); err == nil || !strings.Contains(err.Error(), "not a parquet file") {
		t.Errorf("not parquet: %v", err)
	}
}

func TestParseFieldMap(t *testing.T) {
	m, err := ParseFieldMap("question=stem, answer=label,options=choices,meta.subject=subj,gold=")
	if err == nil {
		t.Errorf("empty value accepted: %v", m)
	}
	m, err = ParseFieldMap("stem=q,gold=label,options=a|b|c,id=uid,context=ctx.contexts,split=fold,meta.subject=subj")
	if err != nil {
		t.Fatal(err)
	}
	if m["question"] != "q" || m["answer"] != "label" || m["options"] != "a|b|c" || m["meta.subject"] != "subj" {
		t.Errorf("got %v", m)
	}
	if again, err := ParseFieldMap(m.String()); err != nil || again.String() != m.String() {
		t.Errorf("String round trip: %v %v", again, err)
	}
	for _, bad := range []string{"", "question=a", "question=a,options=b", "question=a,options=b,answer=c,colour=d", "question=a,question=b,options=c,answer=d", "question"} {
		if _, err := ParseFieldMap(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestDetectErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"empty.jsonl", "", "the file is empty"},
		{"header.csv", "stem,a,b,label\nQ,x,y,A\n", "a CSV file with the header a, b, label, stem, which matches no known format; name the format with --format"},
		{"other.jsonl", `{"prompt": "Q"}`, "the record on line 1 has the fields prompt"},
		{"doc.json", "{\n \"1\": {\"q\": \"x\"}\n}\n", "only PubMedQA's ori_pqal.json is read in this form"},
		{"arr.json", `[1, 2]`, "a JSON array whose first element is not a record"},
		{"text.txt", "hello\n", "line 1 is neither JSON nor a CSV row"},
		{"short.csv", "a,b,c\n", "is neither JSON nor a recognised CSV row"},
	} {
		p := filepath.Join(dir, tc.name)
		os.WriteFile(p, []byte(tc.content), 0o644)
		if _, err := Detect(p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	// A directory whose files disagree.
	mixed := filepath.Join(dir, "mixed")
	os.Mkdir(mixed, 0o755)
	os.WriteFile(filepath.Join(mixed, "a.jsonl"), []byte(goodMedQA+"\n"), 0o644)
	os.WriteFile(filepath.Join(mixed, "b_test.csv"), []byte(goodMMLURow), 0o644)
	if _, err := Detect(mixed); err == nil || !strings.Contains(err.Error(), "mixes formats") {
		t.Errorf("mixed directory: %v", err)
	}
	if _, err := Load(Source{Path: mixed}, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "one source must have one format") {
		t.Errorf("loading a mixed directory: %v", err)
	}
}

func TestStatsSummary(t *testing.T) {
	st, err := Check(Source{Path: "testdata/medmcqa_multi.json"}, LoadOptions{})
	if err == nil {
		t.Fatal("no error")
	}
	s := st.Summary()
	for _, want := range []string{"format medmcqa, 1 file(s)", "records 3, valid 2, invalid 1", "problems by kind: multi 1",
		`medmcqa_multi.json:2: field "choice_type": multi-answer item`, "note: testdata/medmcqa_multi.json: cop counted from 1"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}
