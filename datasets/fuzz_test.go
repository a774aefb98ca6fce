package datasets

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/medteam-bench/medteam/qa"
)

// fuzzRead reads data as the file name through the whole pipeline (format
// sniffing, container, schema, validation, duplicate check) and checks the
// invariants: no panic, every delivered question validates, every problem is
// a *ParseError with a source, a code, a message and a location (or is
// fatal), a fatal problem ends reading for good, and reading terminates.
func fuzzRead(t *testing.T, name string, data []byte, src Source) {
	if data == nil {
		data = []byte{}
	}
	src.Path = name
	src.embedded = data
	r, err := Open(src)
	if err != nil {
		return // refused up front (unrecognised, empty, unreadable): fine, as long as it did not panic
	}
	defer r.Close()
	ids := map[string]bool{}
	for i := 0; ; i++ {
		if i > len(data)+10 {
			t.Fatalf("%d results from %d bytes", i, len(data))
		}
		q, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			pe, ok := err.(*ParseError)
			if !ok {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			if pe.Msg == "" || pe.Code == "" || pe.Source == "" {
				t.Fatalf("incomplete problem %#v", pe)
			}
			if !pe.Fatal && pe.Line < 1 && pe.Row < 1 {
				t.Fatalf("problem without a location: %v", pe)
			}
			if pe.Fatal {
				if _, again := r.Next(); again != err {
					t.Fatalf("after a fatal problem Next returned %v", again)
				}
				return
			}
			continue
		}
		if err := q.Validate(); err != nil {
			t.Fatalf("invalid question delivered: %v\n%+v", err, q)
		}
		if ids[q.ID] {
			t.Fatalf("duplicate id %s delivered", q.ID)
		}
		ids[q.ID] = true
	}
}

// seedFile adds the first n bytes of a file as a seed, if it exists.
func seedFile(f *testing.F, path string, n int) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	if len(data) > n {
		data = data[:n]
	}
	f.Add(data)
}

func FuzzLoadStandard(f *testing.F) {
	f.Add([]byte(goodStandard + "\n" + goodMedQA + "\n"))
	f.Add([]byte(`{"question": "Q", "realidx": 3, "options": {"A": "a", "B": "b"}, "answer_idx": "B"}`))
	seedFile(f, realMedMCQA, 2000)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "medmcqa/test.jsonl", data, Source{})
		fuzzRead(t, "s.jsonl", data, Source{Format: FormatStandard})
	})
}

func FuzzLoadMedMCQA(f *testing.F) {
	f.Add([]byte(goodMedMCQA + "\n"))
	f.Add([]byte(`{"id": "z", "question": "Q", "opa": "a", "opb": "b", "opc": "c", "opd": "d", "cop": 0}` + "\n" + goodMedMCQA))
	seedFile(f, "testdata/medmcqa_dev.json", 4000)
	seedFile(f, "testdata/medmcqa_multi.json", 4000)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "dev.json", data, Source{Format: FormatMedMCQA})
	})
}

func FuzzLoadPubMedQA(f *testing.F) {
	f.Add([]byte(pubmedDoc(pubmedRecord("1", "yes"), pubmedRecord("2", "maybe"))))
	f.Add([]byte(`{"pubid": 5, "question": "Q?", "context": {"contexts": ["c"]}, "final_decision": "no"}`))
	f.Add([]byte("{\n \"1\": [1]\n}"))
	seedFile(f, realPubMedQA, 3000)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "ori_pqal.json", data, Source{Format: FormatPubMedQA})
		fuzzRead(t, "x.json", data, Source{})
	})
}

func FuzzLoadMMLU(f *testing.F) {
	f.Add([]byte(goodMMLURow + "\"Quoted, with comma\",\"a\"\"b\",c,d,e,D\n"))
	f.Add([]byte("Q?,a,b,B\r\nR?,c,d,A\r\n"))
	seedFile(f, realMMLUMedical+"/anatomy_dev.csv", 2000)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "anatomy_test.csv", data, Source{Format: FormatMMLU})
		fuzzRead(t, "anatomy_test.csv", data, Source{})
	})
}

func FuzzLoadMMLUPro(f *testing.F) {
	f.Add([]byte(goodMMLUPro + "\n"))
	seedFile(f, "testdata/mmlu_pro_test.jsonl", 3000)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "mmlu_pro.jsonl", data, Source{Format: FormatMMLUPro})
	})
}

func FuzzLoadMedBullets(f *testing.F) {
	f.Add([]byte(mbHeader + "l,Q?,a,b,c,d,B,b,\"x\ny\",,,,\n"))
	seedFile(f, "testdata/medbullets_op5.csv", 3000)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "medbullets_op4.csv", data, Source{Format: FormatMedBullets})
	})
}

// FuzzLoadColumns reads column-oriented JSON (pandas to_json), as MedBullets
// is published besides its CSV.
func FuzzLoadColumns(f *testing.F) {
	seedFile(f, "testdata/medbullets_op5.json", 4000)
	f.Add([]byte(`{"question": {"0": "Q?", "1": "R?"}, "opa": {"0": "a", "1": "a"}, "opb": {"0": "b", "1": "b"}, "answer_idx": {"0": "A", "1": null}}`))
	f.Add([]byte("{\n \"question\": {\"0\": \"Q?\"},\n \"opa\": [1],\n \"answer_idx\": {\"0\": \"A\", \"0\": \"B\"}\n}"))
	m := FieldMap{"question": "question", "options": "opa|opb", "answer": "answer_idx"}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "medbullets_op4.json", data, Source{})
		fuzzRead(t, "mb.json", data, Source{Format: FormatMedBullets})
		fuzzRead(t, "m.json", data, Source{Format: FormatMapped, Map: m})
	})
}

func FuzzLoadCanonical(f *testing.F) {
	f.Add([]byte(goodCanon + "\n"))
	f.Add([]byte(`{"id": "c", "stem": "S", "options": {"A": "x", "B": "y"}, "gold": "A", "meta": "{\"k\": \"v\"}"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "c.jsonl", data, Source{Format: FormatCanonical})
	})
}

func FuzzLoadMapped(f *testing.F) {
	f.Add([]byte("stem,a,b,label,id\nQ?,x,y,B,1\nR?,x,y,0,2\n"))
	f.Add([]byte(`{"stem": "Q?", "a": "x", "b": "y", "label": "y", "id": 1, "ctx": ["p"]}`))
	f.Add([]byte(`[{"stem": "Q?", "a": "x", "b": "y", "label": 1}]`))
	m := FieldMap{"question": "stem", "options": "a|b", "answer": "label", "id": "id", "context": "ctx", "meta.k": "k"}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "m.csv", data, Source{Format: FormatMapped, Map: m})
		fuzzRead(t, "m.jsonl", data, Source{Format: FormatMapped, Map: FieldMap{"question": "stem", "options": "opts", "answer": "label"}, IndexBase: IndexOne})
	})
}

func FuzzLoadParquet(f *testing.F) {
	var buf bytes.Buffer
	if err := WriteParquet(&buf, []qa.Question{{ID: "p-1", Stem: "S", Options: twoOpts, Gold: "A", Meta: map[string]string{"k": "v"}}, {ID: "p-2", Stem: "T", Context: []string{"c"}, Options: twoOpts, Gold: "C"}}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "c.parquet", data, Source{})
		fuzzRead(t, "c.parquet", data, Source{Format: FormatMedMCQA})
	})
}

// FuzzDetect feeds arbitrary bytes to format detection and the loaders it
// picks.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{goodMedQA, goodStandard, goodMedMCQA, goodMMLUPro, goodMMLURow, mbHeader + "l,Q,a,b,c,d,A,a,e\n", goodCanon, "[" + goodCanon + "]", pubmedDoc(pubmedRecord("9", "no"))} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "any", data, Source{})
	})
}

// TestFuzzHelper checks that fuzzRead does see problems (it is not vacuous).
func TestFuzzHelper(t *testing.T) {
	src := Source{Path: "x.jsonl", embedded: []byte(goodMedQA + "\n{bad\n")}
	r, err := Open(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	var pe *ParseError
	if _, err := r.Next(); !errors.As(err, &pe) || pe.Line != 2 {
		t.Errorf("got %v", err)
	}
	fuzzRead(t, "x.jsonl", []byte(goodMedQA+"\n{bad\n"), Source{})
}

// FuzzLoadHeadQA reads HEAD-QA's exams document (and HF rows) as the
// pipeline does, detected and named.
func FuzzLoadHeadQA(f *testing.F) {
	seedFile(f, headqaTest, 1<<16)
	seedFile(f, "testdata/headqa/HEAD_EN/dev_HEAD_EN.json", 1<<16)
	seedFile(f, "testdata/headqa/headqa_en_test_hf.jsonl", 1<<16)
	f.Add([]byte(`{"exams": [{"name": "E", "data": [{"qid": 1, "qtext": "Q", "ra": "2", "answers": [{"aid": "1", "atext": "a"}, {"aid": 2, "atext": "b"}]}]}]}`))
	f.Add([]byte("{\"exams\": {\"E\": {\"data\": [1, {}, null]}}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "test_HEAD_EN.json", data, Source{})
		fuzzRead(t, "test_HEAD_EN.json", data, Source{Format: FormatHeadQA})
	})
}
