package rescore

import (
	"strings"
	"testing"
)

// FuzzRead: any input is read or refused with an error naming the file;
// every record read has an id, 2 to 26 options, a gold letter among them
// and a published extraction that is "" or one capital letter; scoring it
// never fails.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"options":["a","b"],"gold":"A","response":"The answer is (A)."}`,
		`[{"question_id":7,"options":["x","y","N/A"],"answer_index":1,"pred":null,"model_outputs":"B"}]`,
		`{"question_id":"q","options":["x","y"],"answer":"b","mmlupro_pred":"J","response":"","model":"m"}`,
		`[{"question_id":6037,"question":"q","options":["x","y"],"answer":"B","pred":null,"response":null,"withheld":true},{"question_id":6036,"question":"q","options":["x","y"],"answer":"B","pred":"B","response":"B"}]`,
		"\n\n{\"id\":2}\n", `[`, `[{}]`, `{"options":[]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		recs, err := Read("f", strings.NewReader(in))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, r := range recs {
			n := len(r.Options)
			if r.Withheld && r.Response != "" {
				t.Fatalf("withheld record with a response: %+v", r)
			}
			if r.ID == "" || n < 2 || n > maxOptions || len(r.Gold) != 1 || int(r.Gold[0]-'A') >= n ||
				r.Pred != "" && (len(r.Pred) != 1 || r.Pred[0] < 'A' || r.Pred[0] > 'Z') {
				t.Fatalf("record %+v", r)
			}
		}
		run := Run{Dataset: "d", Model: "m"}
		sc := Score(recs)
		run.Summaries(sc)
		ids := run.QuestionIDs(sc)
		for i, s := range sc {
			if s.Withheld && (s.Medteam != "" || s.Reason != ReasonWithheld) {
				t.Fatalf("withheld record read: %+v", s)
			}
			if !strings.HasPrefix(ids[i], run.QuestionID(s.Record)) {
				t.Fatalf("id %q is not its content id %q", ids[i], run.QuestionID(s.Record))
			}
		}
		run.Duplicates(sc)
	})
}
