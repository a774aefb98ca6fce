package datasets

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/qa"
)

// realMedQATest is the official MedQA USMLE 4-option test split.
const realMedQATest = "../../shared/datasets/medqa/phrases_no_exclude_test.jsonl"

// readReal returns the bytes of the real MedQA test file, skipping the test
// when it is absent.
func readReal(tb testing.TB) []byte {
	tb.Helper()
	data, err := os.ReadFile(realMedQATest)
	if errors.Is(err, os.ErrNotExist) {
		tb.Skipf("real MedQA file %s not present", realMedQATest)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// nonBlankLines splits data into its non-blank lines, without line endings.
func nonBlankLines(data []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}

func readAll(t *testing.T, input string) ([]qa.Question, error) {
	t.Helper()
	var qs []qa.Question
	err := ReadMedQA(strings.NewReader(input), "medqa.jsonl", func(q qa.Question) error {
		qs = append(qs, q)
		return nil
	})
	return qs, err
}

func TestLoadRealMedQA(t *testing.T) {
	readReal(t)
	qs, err := LoadMedQAFile(realMedQATest)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1273 {
		t.Fatalf("got %d questions, want 1273", len(qs))
	}
	ids := map[string]bool{}
	steps := map[string]int{}
	for i, q := range qs {
		if err := q.Validate(); err != nil {
			t.Errorf("question %d: %v", i, err)
		}
		if len(q.Options) != 4 {
			t.Errorf("question %d: %d options, want 4", i, len(q.Options))
		}
		if q.Dataset != "medqa" || q.Split != "test" {
			t.Errorf("question %d: dataset/split %q/%q", i, q.Dataset, q.Split)
		}
		steps[q.Meta["step"]]++
		if ids[q.ID] {
			t.Errorf("question %d: duplicate id %s", i, q.ID)
		}
		ids[q.ID] = true
	}
	// meta_info is kept verbatim, including the source's one typo.
	if want := map[string]int{"step1": 679, "step2&3": 593, "stfep2&3": 1}; !maps.Equal(steps, want) {
		t.Errorf("steps %v, want %v", steps, want)
	}
	known := []struct {
		index      int
		id, gold   string
		stemPrefix string
	}{
		{0, "medqa-a7f49257f5ef7f64", "B", "A junior orthopaedic surgery resident is completing a carpal tunnel repair"},
		{1272, "medqa-93be4894c087d967", "C", "A 79-year-old man presents to the office due to shortness of"},
	}
	for _, k := range known {
		q := qs[k.index]
		if q.ID != k.id || q.Gold != k.gold || !strings.HasPrefix(q.Stem, k.stemPrefix) {
			t.Errorf("question %d: id %s gold %s stem %.60q; want %s %s %q", k.index, q.ID, q.Gold, q.Stem, k.id, k.gold, k.stemPrefix)
		}
	}
	if got := qs[0].Options[1].Text; got != "Tell the attending that he cannot fail to disclose this mistake" {
		t.Errorf("question 0 option B = %q", got)
	}
}

const (
	okLine  = `{"question": "Q1?", "answer": "yes", "options": {"A": "yes", "B": "no"}, "meta_info": "step1", "answer_idx": "A"}`
	okLine2 = `{"question": "Q2?", "options": {"A": "x", "B": "y", "C": "z"}, "answer_idx": "C"}`
)

func TestReadMedQAMalformed(t *testing.T) {
	tests := []struct {
		name      string
		input     string
		wantN     int    // questions delivered before the error (or in all)
		wantLine  int    // 0: no error expected
		wantField string // checked when wantLine > 0
		wantMsg   string // substring of Error()
	}{
		{"blank lines OK", "\n" + okLine + "\n\n  \t\n" + okLine2 + "\n\n", 2, 0, "", ""},
		{"CRLF and BOM OK", "\xEF\xBB\xBF" + okLine + "\r\n" + okLine2 + "\r\n", 2, 0, "", ""},
		{"no final newline OK", okLine + "\n" + okLine2, 2, 0, "", ""},
		{"five options OK", `{"question": "Q", "answer": "e", "options": {"A": "a", "B": "b", "C": "c", "D": "d", "E": "e"}, "meta_info": "step1", "answer_idx": "E"}`, 1, 0, "", ""},
		{"empty input OK", "", 0, 0, "", ""},
		{"empty stem", `{"question": "  ", "options": {"A": "x", "B": "y"}, "answer_idx": "A"}`, 0, 1, "question", "empty question stem"},
		{"missing question", `{"options": {"A": "x", "B": "y"}, "answer_idx": "A"}`, 0, 1, "question", "missing"},
		{"question not a string", `{"question": 7, "options": {"A": "x", "B": "y"}, "answer_idx": "A"}`, 0, 1, "question", "must be a string, got a number"},
		{"one option", okLine + "\n" + `{"question": "Q", "options": {"A": "x"}, "answer_idx": "A"}`, 1, 2, "options", "1 option(s); need 2 to 10"},
		{"eleven options", `{"question": "Q", "options": {"A":"a","B":"b","C":"c","D":"d","E":"e","F":"f","G":"g","H":"h","I":"i","J":"j","K":"k"}, "answer_idx": "A"}`, 0, 1, "options", "11 option(s); need 2 to 10"},
		{"gap in letters", `{"question": "Q", "options": {"A": "x", "B": "y", "D": "z"}, "answer_idx": "A"}`, 0, 1, "options", "option letters A,B,D are not contiguous from A (missing C)"},
		{"lower-case letter", `{"question": "Q", "options": {"A": "x", "b": "y"}, "answer_idx": "A"}`, 0, 1, "options", `option key "b" is not a capital letter A–J`},
		{"option not a string", `{"question": "Q", "options": {"A": "x", "B": ["y"]}, "answer_idx": "A"}`, 0, 1, "options", "option B must be a string, got an array"},
		{"empty option", `{"question": "Q", "options": {"A": "x", "B": " "}, "answer_idx": "A"}`, 0, 1, "options", "option B is empty"},
		{"options not an object", `{"question": "Q", "options": ["x", "y"], "answer_idx": "A"}`, 0, 1, "options", "must be an object mapping letters to option texts, got an array"},
		{"missing options", `{"question": "Q", "answer_idx": "A"}`, 0, 1, "options", "missing"},
		{"gold not in options", okLine + "\n\n" + `{"question": "Q", "options": {"A": "a", "B": "b", "C": "c", "D": "d"}, "answer_idx": "E"}`, 1, 3, "answer_idx",
			`medqa.jsonl:3: field "answer_idx": "E" is not among the options A,B,C,D`},
		{"missing answer_idx", `{"question": "Q", "options": {"A": "x", "B": "y"}}`, 0, 1, "answer_idx", "missing"},
		{"null answer_idx", `{"question": "Q", "options": {"A": "x", "B": "y"}, "answer_idx": null}`, 0, 1, "answer_idx", "missing"},
		{"answer_idx not a string", `{"question": "Q", "options": {"A": "x", "B": "y"}, "answer_idx": 1}`, 0, 1, "answer_idx", "must be a string"},
		{"answer text mismatch", `{"question": "Q", "answer": "y", "options": {"A": "x", "B": "y"}, "answer_idx": "A"}`, 0, 1, "answer",
			`text "y" does not match option A "x"; correct answer or answer_idx`},
		{"answer text matches after trimming", `{"question": "Q", "answer": " y ", "options": {"A": "x", "B": "y"}, "answer_idx": "B"}`, 1, 0, "", ""},
		{"meta_info not a string", `{"question": "Q", "options": {"A": "x", "B": "y"}, "answer_idx": "B", "meta_info": {}}`, 0, 1, "meta_info", "must be a string, got an object"},
		{"exact duplicate left out", okLine + "\n" + okLine2 + "\n\n" + okLine + "\n", 2, 0, "", ""},
		{"same question, other answer", okLine + "\n" + okLine2 + "\n\n" + strings.NewReplacer(`"answer": "yes"`, `"answer": "no"`, `"answer_idx": "A"`, `"answer_idx": "B"`).Replace(okLine) + "\n", 2, 4, "answer_idx",
			"same question (stem and options) as line 1 (id medqa-"},
		{"truncated final line", okLine + "\n" + `{"question": "Q", "options": {"A": "x", "B"`, 1, 2, "", "looks truncated"},
		{"invalid UTF-8", okLine + "\n" + `{"question": "Q` + "\xff\xfe" + `", "options": {"A": "x", "B": "y"}, "answer_idx": "A"}` + "\n", 1, 2, "", "invalid UTF-8 at byte 16"},
		{"non-JSON line", okLine + "\nhello world\n" + okLine2, 1, 2, "", "invalid JSON at byte 1"},
		{"trailing garbage", okLine + "} x\n", 0, 1, "", "invalid JSON"},
		{"top-level array", `["question", "options"]`, 0, 1, "", "line is a JSON array, not an object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			qs, err := readAll(t, tc.input)
			if len(qs) != tc.wantN {
				t.Errorf("delivered %d questions, want %d", len(qs), tc.wantN)
			}
			if tc.wantLine == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				for _, q := range qs {
					if err := q.Validate(); err != nil {
						t.Errorf("invalid question delivered: %v", err)
					}
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			if pe.Source != "medqa.jsonl" || pe.Line != tc.wantLine || pe.Field != tc.wantField {
				t.Errorf("got source %q line %d field %q; want medqa.jsonl line %d field %q", pe.Source, pe.Line, pe.Field, tc.wantLine, tc.wantField)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tc.wantMsg)
			}
		})
	}
}

func TestReadMedQAFields(t *testing.T) {
	qs, err := readAll(t, okLine+"\n"+okLine2)
	if err != nil {
		t.Fatal(err)
	}
	q := qs[0]
	want := qa.Question{
		ID:      MedQAID("Q1?", []qa.Option{{Letter: "A", Text: "yes"}, {Letter: "B", Text: "no"}}),
		Dataset: "medqa",
		Stem:    "Q1?",
		Options: []qa.Option{{Letter: "A", Text: "yes"}, {Letter: "B", Text: "no"}},
		Gold:    "A",
		Meta:    map[string]string{"step": "step1"},
	}
	if q.ID != want.ID || q.Dataset != want.Dataset || q.Split != "" || q.Stem != want.Stem || q.Gold != want.Gold ||
		len(q.Options) != 2 || q.Options[0] != want.Options[0] || q.Options[1] != want.Options[1] || q.Meta["step"] != "step1" {
		t.Errorf("got %+v, want %+v", q, want)
	}
	if !strings.HasPrefix(q.ID, "medqa-") || len(q.ID) != len("medqa-")+16 {
		t.Errorf("id %q is not medqa- and 16 hex digits", q.ID)
	}
	if qs[1].Meta != nil {
		t.Errorf("meta without meta_info = %v, want nil", qs[1].Meta)
	}
	// The ID depends on the stem and on every option, up to white space.
	base := MedQAID("Q", []qa.Option{{Letter: "A", Text: "x"}, {Letter: "B", Text: "y"}})
	for _, same := range []string{
		MedQAID("Q ", []qa.Option{{Letter: "A", Text: "x"}, {Letter: "B", Text: "y"}}),
		MedQAID("\tQ", []qa.Option{{Letter: "A", Text: "x\u00a0"}, {Letter: "B", Text: " y"}}),
	} {
		if same != base {
			t.Errorf("white space changed the id: %s vs %s", same, base)
		}
	}
	if got := MedQAID("a  b\nc", []qa.Option{{Letter: "A", Text: "x"}, {Letter: "B", Text: "y"}}); got != MedQAID("a b c", []qa.Option{{Letter: "A", Text: "x"}, {Letter: "B", Text: "y"}}) {
		t.Errorf("inner white space changed the id")
	}
	for _, other := range []string{
		MedQAID("q", []qa.Option{{Letter: "A", Text: "x"}, {Letter: "B", Text: "y"}}),
		MedQAID("Q", []qa.Option{{Letter: "A", Text: "x"}, {Letter: "B", Text: "z"}}),
		MedQAID("Q", []qa.Option{{Letter: "A", Text: "y"}, {Letter: "B", Text: "x"}}),
		MedQAID("Q", []qa.Option{{Letter: "A", Text: "x"}, {Letter: "B", Text: "y"}, {Letter: "C", Text: "z"}}),
	} {
		if other == base {
			t.Errorf("id collision %s", base)
		}
	}
}

func TestReadMedQALongLine(t *testing.T) {
	stem := strings.Repeat("very long stem ", 20000) // ~300 KB
	input := `{"question": "` + stem + `", "options": {"A": "x", "B": "y"}, "answer_idx": "B"}` + "\n" + okLine
	qs, err := readAll(t, input)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].Stem != stem {
		t.Fatalf("got %d questions; long stem intact: %v", len(qs), len(qs) > 0 && qs[0].Stem == stem)
	}
}

func TestReadMedQACallbackError(t *testing.T) {
	errStop := errors.New("stop")
	calls := 0
	err := ReadMedQA(strings.NewReader(okLine+"\n"+okLine2+"\nnot json\n"), "x", func(qa.Question) error {
		calls++
		if calls == 2 {
			return errStop
		}
		return nil
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("got %v, want errStop", err)
	}
	if calls != 2 {
		t.Errorf("fn called %d times, want 2", calls)
	}
}

type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

func TestReadMedQAReaderError(t *testing.T) {
	errDisk := errors.New("disk on fire")
	err := ReadMedQA(&failingReader{strings.NewReader(okLine + "\n"), errDisk}, "x", func(qa.Question) error { return nil })
	if !errors.Is(err, errDisk) {
		t.Fatalf("got %v, want wrapped errDisk", err)
	}
}

func TestParseErrorFormat(t *testing.T) {
	tests := []struct {
		err  ParseError
		want string
	}{
		{ParseError{Source: "medqa.jsonl", Line: 17, Field: "answer_idx", Msg: `"E" is not among the options A,B,C,D`}, `medqa.jsonl:17: field "answer_idx": "E" is not among the options A,B,C,D`},
		{ParseError{Source: "f", Line: 2, Msg: "bad"}, "f:2: bad"},
		{ParseError{Source: "f", Msg: "bad"}, "f: bad"},
		{ParseError{Field: "x", Msg: "bad"}, `field "x": bad`},
		{ParseError{Source: "t.parquet", Row: 7, Field: "cop", Msg: "bad"}, `t.parquet: row 7: field "cop": bad`},
		{ParseError{Source: "t.csv", Line: 3, Row: 2, Msg: "bad"}, `t.csv:3: bad`},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func TestLoadMedQAFileSplit(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, split string }{
		{"phrases_no_exclude_test.jsonl", "test"},
		{"US_dev.jsonl", "dev"},
		{"TRAIN.jsonl", "train"},
		{"medqa.jsonl", ""},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(okLine+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		qs, err := LoadMedQAFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(qs) != 1 {
			t.Fatalf("%s: got %d questions", tc.name, len(qs))
		}
		if qs[0].Split != tc.split {
			t.Errorf("%s: split %q, want %q", tc.name, qs[0].Split, tc.split)
		}
	}
	bad := filepath.Join(dir, "bad_test.jsonl")
	if err := os.WriteFile(bad, []byte(okLine+"\n{"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadMedQAFile(bad)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Source != bad || pe.Line != 2 {
		t.Errorf("got %v, want ParseError at %s:2", err, bad)
	}
	if _, err := LoadMedQAFile(filepath.Join(dir, "absent.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent file: got %v", err)
	}
}

func FuzzReadMedQA(f *testing.F) {
	f.Add([]byte(okLine + "\n" + okLine2))
	f.Add([]byte(`{"question": "Q", "options": {"A": "x", "B"`))
	f.Add([]byte("\n\n{}\n"))
	f.Add([]byte(`{"question": "Q", "options": {"A": "x", "C": "y"}, "answer_idx": "A"}`))
	if data, err := os.ReadFile(realMedQATest); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for i := 0; i < 3 && sc.Scan(); i++ {
			f.Add(bytes.Clone(sc.Bytes()))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := ReadMedQA(bytes.NewReader(data), "fuzz", func(q qa.Question) error {
			if err := q.Validate(); err != nil {
				t.Fatalf("invalid question delivered: %v", err)
			}
			if q.ID != MedQAID(q.Stem, q.Options) {
				t.Fatalf("id %s does not match content", q.ID)
			}
			return nil
		})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Msg == "" {
				t.Fatalf("error %v (%T) is not a ParseError with a line", err, err)
			}
		}
	})
}

func BenchmarkReadMedQA(b *testing.B) {
	data := readReal(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	items := 0
	for b.Loop() {
		err := ReadMedQA(bytes.NewReader(data), "bench", func(qa.Question) error {
			items++
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(items)/b.Elapsed().Seconds(), "items/s")
}
