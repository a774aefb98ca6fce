package view

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// withItems adds an items.parquet to a fixture run: q1 and q2 have texts
// (q1's stem is long), q3 has none.
func withItems(t *testing.T, dir string) string {
	t.Helper()
	long := "A 45-year-old man presents to the emergency department with crushing chest pain radiating to the left arm and jaw since this morning. What is the next step?"
	items := []results.ItemRow{
		{SchemaVersion: results.SchemaVersion, Dataset: "medqa", QuestionID: "q1", Stem: long, Options: []string{"ECG", "<b>discharge</b>"}, Gold: "A", Context: []string{}},
		{SchemaVersion: results.SchemaVersion, Dataset: "medqa", QuestionID: "q2", Stem: "Short\nstem?", Options: []string{"yes", "no"}, Gold: "A", Context: []string{"An abstract."}},
	}
	if err := results.WriteItems(filepath.Join(dir, results.ItemsFile), items); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestExcerpt(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Short\n  stem?", "Short stem?"},
		{strings.Repeat("word ", 30), "word word word word word word word word word word word word word word word word…"},
		{strings.Repeat("é", 100), strings.Repeat("é", 80) + "…"},
	} {
		if got := excerpt(tt.in); got != tt.want {
			t.Errorf("excerpt(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestQuestionShowsItem: a question's record has its text, its options
// with the gold, and every arm's answer; the grid line carries a stem
// excerpt; a question without a recorded text says so and how to get it.
func TestQuestionShowsItem(t *testing.T) {
	d := openData(t, withItems(t, fixture(t, "r", true)))
	if got := d.Lines[0].Stem; !strings.HasPrefix(got, "A 45-year-old man presents") || !strings.HasSuffix(got, "…") || len([]rune(got)) > 81 {
		t.Errorf("grid stem excerpt = %q", got)
	}
	if d.Lines[1].Stem != "Short stem?" || d.Lines[2].Stem != "" {
		t.Errorf("stems %q, %q", d.Lines[1].Stem, d.Lines[2].Stem)
	}
	q, err := d.Question(1, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if q.Item == nil || q.Item.Stem != "Short\nstem?" || q.Item.Gold != "A" || !reflect.DeepEqual(q.Item.Options, []string{"yes", "no"}) || q.ItemNote != "" {
		t.Fatalf("item %+v, note %q", q.Item, q.ItemNote)
	}
	want := []Answer{{Col: 0, Arm: "base", Line: 1, S: StatusCorrect, P: "A"}, {Col: 1, Arm: "full", Line: 1, S: StatusWrong, P: "B"}}
	if !reflect.DeepEqual(q.Answers, want) {
		t.Fatalf("answers %+v, want %+v", q.Answers, want)
	}
	q3, err := d.Question(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q3.Item != nil || q3.ItemNote != NoItemNote || !strings.Contains(q3.ItemNote, "medteam run --resume") {
		t.Fatalf("q3: item %+v, note %q", q3.Item, q3.ItemNote)
	}
}

// TestOldRunWithoutItems: a run directory without items.parquet opens;
// every question says its text was not recorded.
func TestOldRunWithoutItems(t *testing.T) {
	d := openData(t, fixture(t, "old", false))
	code, body, _ := get(t, Handler(d), "GET", "/api/question?id=0", "127.0.0.1")
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	var q Question
	if err := json.Unmarshal([]byte(body), &q); err != nil {
		t.Fatal(err)
	}
	if q.Item != nil || q.ItemNote != NoItemNote || len(q.Answers) != 2 {
		t.Fatalf("item %+v note %q answers %v", q.Item, q.ItemNote, q.Answers)
	}
}

// TestAnswersOverRepeats: with several repeats the question lists each
// arm's answer per repeat, arm by arm.
func TestAnswersOverRepeats(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reps")
	row := func(arm string, rep int32, pred string) results.QuestionRow {
		return results.QuestionRow{SchemaVersion: results.SchemaVersion, Dataset: "d", QuestionID: "q", Arm: arm, Repeat: rep,
			Gold: "A", Predicted: pred, Correct: pred == "A"}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rows := []results.QuestionRow{row("a", 0, "A"), row("b", 0, "B"), row("a", 1, "C"), row("b", 1, "A")}
	if err := results.WriteQuestions(filepath.Join(dir, results.QuestionsFile), rows); err != nil {
		t.Fatal(err)
	}
	d := openData(t, dir)
	q, err := d.Question(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range q.Answers {
		got = append(got, a.Arm+":"+string(rune('0'+a.Rep))+":"+a.P+":"+a.S)
	}
	if want := "a:0:A:correct a:1:C:wrong b:0:B:wrong b:1:A:correct"; strings.Join(got, " ") != want {
		t.Fatalf("answers %v, want %s", got, want)
	}
}

// TestShownRoundsAsTheReport: the page's numbers are the report's
// roundings (percent with one decimal, scores 3 decimals, seconds 2).
func TestShownRoundsAsTheReport(t *testing.T) {
	r := &results.QuestionRow{NAgents: 3, Scores: []float64{2.0 / 3, 1}, Confidences: []float64{0.875, -1},
		Rounds: []string{"A,B,A", "A,A,A"}, AgreementInitial: 2.0 / 3, AgreementFinal: 1, CallLatencyMS: 1234.5}
	got := shown(r, []results.CallRow{{LatencyMS: 12}})
	want := Shown{Scores: "A 0.667, B 1.000", Confidences: "0.88, –", Agreement: "66.7% → 100.0%", Latency: "1.23 s", CallLatency: []string{"0.01 s"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("shown\n got %+v\nwant %+v", got, want)
	}
	if got := shown(&results.QuestionRow{NAgents: 1, Rounds: []string{"A"}, AgreementInitial: 1}, nil).Agreement; got != "— (one agent)" {
		t.Errorf("a lone agent's agreement = %q", got)
	}
}
