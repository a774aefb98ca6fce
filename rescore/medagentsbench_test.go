package rescore

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/qa"
)

const mabDir = "testdata/medagentsbench/medqa/"

// TestParseMABName: model, task, split and method come from the file name,
// the task found as a whole word (mmlu-pro before mmlu), methods with
// hyphens kept whole.
func TestParseMABName(t *testing.T) {
	for _, tc := range []struct{ path, model, task, split, method string }{
		{"output/medqa/gpt-4o-mini-medqa-test_hard-cot_sc-5.json", "gpt-4o-mini", "medqa", "test_hard", "cot_sc-5"},
		{"output/mmlu-pro/DeepSeek-V3-mmlu-pro-test_hard-multipersona-2.json", "DeepSeek-V3", "mmlu-pro", "test_hard", "multipersona-2"},
		{"x/Llama-3.3-70B-Instruct-Turbo-mmlu-test_hard-zero_shot.jsonl", "Llama-3.3-70B-Instruct-Turbo", "mmlu", "test_hard", "zero_shot"},
		{"o3-mini-pubmedqa-test-aflow.json", "o3-mini", "pubmedqa", "test", "aflow"},
	} {
		m, task, split, meth, err := ParseMABName(tc.path)
		if err != nil || m != tc.model || task != tc.task || split != tc.split || meth != tc.method {
			t.Errorf("%s: %q %q %q %q %v", tc.path, m, task, split, meth, err)
		}
	}
	for _, bad := range []string{"results.json", "gpt-4o-medqa.json", "gpt-4o-medqa-test_hard.json", "medqa-test_hard-cot.json"} {
		if _, _, _, _, err := ParseMABName(bad); err == nil || !strings.Contains(err.Error(), "<model>-<task>-<split>-<method>.json") {
			t.Errorf("%s: want an error naming the expected name, got %v", bad, err)
		}
	}
}

// TestReadMABFile: the publishers' rules on a fixture — the first record of
// a repeated realidx kept (the later, correct copy dropped and counted),
// NaN read as no prediction, a quoted letter not equal to the gold, token
// usage as a dict or its Python repr, MDAgents' appended options taken off
// the stem, its difficulty as the route.
func TestReadMABFile(t *testing.T) {
	f, err := ReadMABFile(mabDir + "gpt-4o-medqa-test_hard-mdagents.json")
	if err != nil {
		t.Fatal(err)
	}
	if f.Model != "gpt-4o" || f.Task != "medqa" || f.Method != "mdagents" || len(f.Records) != 4 || f.Dropped != 1 || f.DroppedIDs[0] != "0" {
		t.Fatalf("file %+v", f)
	}
	s := SummarizeMAB(f)
	if s.N != 4 || s.Correct != 1 || s.NoPrediction != 1 || s.NotALetter != 1 || s.PromptTokens != 10000 || s.CompletionTokens != 1500 || s.Seconds != 12 {
		t.Errorf("summary %+v", s)
	}
	r0 := f.Records[0]
	if r0.Stem != "Which organ makes insulin?" || r0.Route != "basic" || r0.Pred != "A" || r0.Prompt != 1000 {
		t.Errorf("record 0 %+v", r0)
	}
	if f.Records[1].Prompt != 2000 || f.Records[1].Completion != 300 || f.Records[2].PredState != "null" {
		t.Errorf("records 1, 2: %+v %+v", f.Records[1], f.Records[2])
	}
	rows := Run{RunID: "r"}.MABRows(f)
	want := []struct {
		pred, reason, route string
		correct             bool
		wall                float64
	}{
		{"A", "", "basic", false, 1500},
		{"B", "", "advanced", true, 2500},
		{"", "predicted_answer is null (NaN) in the published record", "intermediate", false, 3500},
		{"", `predicted_answer "'C'" is not an option letter`, "intermediate", false, 4500},
	}
	for i, w := range want {
		r := rows[i]
		if r.Predicted != w.pred || r.AbstainReason != w.reason || r.Abstained != (w.pred == "") || r.Correct != w.correct ||
			r.Route != w.route || r.WallMS != w.wall || r.Arm != "mdagents" || r.Model != "gpt-4o" || r.Protocol != Protocol || r.Dataset != "medqa" {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	id := datasets.ContentID("medqa", "Which organ makes insulin?", nil, []qa.Option{{Letter: "A", Text: "Liver"}, {Letter: "B", Text: "Pancreas"}, {Letter: "C", Text: "Spleen"}, {Letter: "D", Text: "Kidney"}})
	if rows[0].QuestionID != id || rows[0].SourceID != "0" {
		t.Errorf("row 0 id %s (source %s), want %s", rows[0].QuestionID, rows[0].SourceID, id)
	}
}

// TestReadMABFileCost: JSON Lines with the records' own cost (AFlow) and no
// token usage: the cost goes into protocol_json, the row is not marked as
// missing its usage; a null prediction is wrong.
func TestReadMABFileCost(t *testing.T) {
	f, err := ReadMABFile(mabDir + "gpt-4o-medqa-test_hard-aflow.json")
	if err != nil {
		t.Fatal(err)
	}
	rows := Run{}.MABRows(f)
	if len(rows) != 2 || rows[0].ProtocolJSON != `{"cost_usd":0.05}` || rows[1].ProtocolJSON != `{"cost_usd":0.07}` || rows[0].CallsUsageMissing != 0 ||
		!rows[0].Correct || rows[1].Correct || !rows[1].Abstained {
		t.Fatalf("rows %+v", rows)
	}
}

// TestMABQuestionIDsDuplicates: two realidx with the same content get the
// loader's ids: the smaller realidx the plain content id, the other
// "~realidx", whatever the order of the records.
func TestMABQuestionIDsDuplicates(t *testing.T) {
	rec := func(idx string) MABRecord {
		return MABRecord{RealIdx: idx, Stem: "Same?", Options: []string{"x", "y"}, Gold: "A"}
	}
	f := MABFile{Task: "mmlu-pro", Records: []MABRecord{rec("6062"), rec("6051"), {RealIdx: "7", Stem: "Other?", Options: []string{"x", "y"}}}}
	ids := MABQuestionIDs(f)
	base := datasets.ContentID("mmlu-pro", "Same?", nil, []qa.Option{{Letter: "A", Text: "x"}, {Letter: "B", Text: "y"}})
	if ids[0] != base+"~6062" || ids[1] != base || strings.Contains(ids[2], "~") {
		t.Errorf("ids %v (base %s)", ids, base)
	}
}

// TestMABRefused: what is not a MedAgentsBench record is refused naming the
// field.
func TestMABRefused(t *testing.T) {
	for _, tc := range []struct{ rec, want string }{
		{`{"question":"q","options":{"A":"x","B":"y"},"answer_idx":"A","predicted_answer":"A"}`, "no realidx"},
		{`{"realidx":1,"options":{"A":"x","C":"y"},"answer_idx":"A","predicted_answer":"A"}`, "letters A,C"},
		{`{"realidx":1,"options":{"A":"x","B":"y"},"answer_idx":"E","predicted_answer":"A"}`, "answer_idx"},
		{`{"realidx":1,"options":{"A":"x","B":"y"},"answer_idx":"A","predicted_answer":3}`, "predicted_answer: want a string or null"},
		{`{"realidx":1,"options":{"A":"x","B":"y"},"answer_idx":"A","predicted_answer":"A","token_usage":"{'prompt_tokens': 1}"}`, "want prompt_tokens and completion_tokens"},
		{`{"realidx":1,"options":{"A":"x","B":"y"},"answer_idx":"A","predicted_answer":"A","token_usage":"prompt 1"}`, "token_usage"},
		{`{"realidx":1,"options":{"A":"x","B":"y"},"answer_idx":"A","predicted_answer":"A","time_elapsed":"soon"}`, "time_elapsed: want a number"},
	} {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tc.rec), &raw); err != nil {
			t.Fatal(err)
		}
		if _, err := parseMABRecord(raw); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.rec, err, tc.want)
		}
	}
}

// TestPythonJSON: Python's NaN and Infinity outside strings become null;
// inside strings nothing changes.
func TestPythonJSON(t *testing.T) {
	for in, want := range map[string]string{
		`[NaN, -Infinity, Infinity]`:        `[null, null, null]`,
		`{"a": "NaN \" NaN", "b": NaN}`:     `{"a": "NaN \" NaN", "b": null}`,
		`{"a": 1}`:                          `{"a": 1}`,
		`{"a": "\\", "b": NaN}`:             `{"a": "\\", "b": null}`,
		`{"predicted_answer": NaN, "x": 1}`: `{"predicted_answer": null, "x": 1}`,
	} {
		if got := string(PythonJSON([]byte(in))); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}

// FuzzPythonJSON: valid JSON is left as it is; Python's constants in a
// JSON-like text become null so that it decodes.
func FuzzPythonJSON(f *testing.F) {
	for _, s := range []string{`[NaN]`, `{"a":"NaN"}`, `"\"NaN"`, `[1,-Infinity]`, `{"a":"\\"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := PythonJSON([]byte(s))
		if json.Valid([]byte(s)) && !bytes.Equal(got, []byte(s)) {
			t.Fatalf("valid JSON changed: %q → %q", s, got)
		}
		withNaN := "[" + string(mustJSON(s)) + ",NaN]"
		if !json.Valid(PythonJSON([]byte(withNaN))) {
			t.Fatalf("%q: not JSON after the replacement: %q", withNaN, PythonJSON([]byte(withNaN)))
		}
	})
}

func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// FuzzParseTokenUsage: any value is read or refused with an error naming
// token_usage; counts read are whole and not negative.
func FuzzParseTokenUsage(f *testing.F) {
	for _, s := range []string{`{"prompt_tokens":1,"completion_tokens":2}`, `"{'prompt_tokens': 17176, 'completion_tokens': 4063}"`,
		`"{'prompt_tokens': 1.0, 'completion_tokens': 2}"`, `"{}"`, `null`, `"{'a': 1, 'b'}"`, `[1]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, c, err := ParseTokenUsage(json.RawMessage(s))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "token_usage") {
				t.Fatalf("%q: error %v does not name token_usage", s, err)
			}
			return
		}
		if p < 0 || c < 0 {
			t.Fatalf("%q: negative counts %d %d", s, p, c)
		}
	})
}

// FuzzMABRecords: any text is decoded and read or refused with an error;
// every record read has a realidx, 2 to 26 options, a gold letter among
// them, non-negative token counts, and a prediction state of "", "missing"
// or "null"; its rows score it correct only when the prediction is the gold.
func FuzzMABRecords(f *testing.F) {
	for _, s := range []string{
		`[{"realidx":0,"question":"q Options: (A) x (B) y","options":{"A":"x","B":"y"},"answer_idx":"B","predicted_answer":NaN,"token_usage":"{'prompt_tokens': 3, 'completion_tokens': 4}","time_elapsed":1.5,"difficulty":"basic"}]`,
		`{"realidx":"7","options":["x","y","z"],"answer_idx":"c","predicted_answer":"C","cost":0.1}` + "\n" + `{"realidx":"7","options":["x","y"],"answer_idx":"A","predicted_answer":"A"}`,
		`[{"realidx":1}]`, `[`, `{}`, `[{"realidx":1,"options":{"A":"x","B":"y"},"answer_idx":"A","predicted_answer":"'A'"}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raws, err := decodeMAB("f", PythonJSON([]byte(s)), 0)
		if err != nil {
			return
		}
		for _, raw := range raws {
			rec, err := parseMABRecord(raw)
			if err != nil {
				continue
			}
			if rec.RealIdx == "" || len(rec.Options) < 2 || len(rec.Options) > maxOptions || len(rec.Gold) != 1 ||
				int(rec.Gold[0]-'A') >= len(rec.Options) || rec.Prompt < 0 || rec.Completion < 0 ||
				(rec.PredState != "" && rec.PredState != "missing" && rec.PredState != "null") {
				t.Fatalf("%q: record %+v", s, rec)
			}
			row := Run{}.MABRows(MABFile{Task: "medqa", Records: []MABRecord{rec}})[0]
			if row.Correct != rec.Hit() || (row.Correct && row.Abstained) || (row.Correct && row.Predicted != rec.Gold) {
				t.Fatalf("%q: row %+v of %+v", s, row, rec)
			}
		}
	})
}
