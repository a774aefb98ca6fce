package council

import (
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/answer/answertest"
)

var abcd = []answer.Option{{Letter: "A", Text: "Aspirin"}, {Letter: "B", Text: "Heparin"}, {Letter: "C", Text: "Warfarin"}, {Letter: "D", Text: "Alteplase"}}

var shown = []string{"Alpha", "Bravo", "Charlie"}

func TestParseReview(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		ranking []int
		method  answer.Method
		reason  string
		note    string
	}{
		{"json", `{"reviews":[{"response":"Response Bravo","strengths":"s","weaknesses":"w"}],"final_ranking":["Response Bravo","Response Charlie","Response Alpha"]}`, []int{1, 2, 0}, answer.MethodJSON, "", ""},
		{"json string ranking", `{"final_ranking":"Charlie > Alpha"}`, []int{2, 0}, answer.MethodJSON, "", ""},
		{"fenced json", "My review:\n```json\n{\"final_ranking\": [\"bravo\", \"alpha\"]}\n```", []int{1, 0}, answer.MethodJSONEmbedded, "", ""},
		{"numbered block", "REVIEW Response Alpha: STRENGTHS: x WEAKNESSES: y\n\nFINAL RANKING:\n1. Response Charlie\n2. Response Alpha\n3. Response Bravo", []int{2, 0, 1}, answer.MethodRankingLine, "", ""},
		{"markdown block with comments", "**Final Ranking:**\n1. **Response Bravo** - clearer than Response Alpha\n2. Response Alpha (thin)\n", []int{1, 0}, answer.MethodRankingLine, "", ""},
		{"inline", "FINAL RANKING: Response Alpha, Response Charlie", []int{0, 2}, answer.MethodRankingLine, "", ""},
		{"an unknown label is skipped", "FINAL RANKING:\n1. Response Delta\n2. Response Alpha", []int{0}, answer.MethodRankingLine, "", "names no response shown"},
		{"a repeat is noted", "FINAL RANKING:\n1. Alpha\n2. Alpha\n3. Bravo", []int{0, 1}, answer.MethodRankingLine, "", "ranked twice"},
		{"two labels in one entry are ambiguous", "FINAL RANKING:\n1. Response Alpha or Response Bravo\n2. Response Charlie", nil, answer.MethodNone, answer.ReasonAmbiguous, ""},
		{"no ranking in prose", "Response Bravo is the best, then Response Alpha.", nil, answer.MethodNone, answer.ReasonNoAnswer, ""},
		{"ranking of option letters is not of responses", "FINAL RANKING:\n1. B\n2. A", nil, answer.MethodNone, answer.ReasonNoAnswer, ""},
		{"empty", "  ", nil, answer.MethodNone, answer.ReasonEmpty, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rv := ParseReview(tt.text, shown)
			if !slices.Equal(rv.Ranking, tt.ranking) || rv.Method != tt.method || rv.Reason != tt.reason {
				t.Fatalf("ParseReview = %+v", rv)
			}
			if tt.note != "" && !slices.ContainsFunc(rv.Notes, func(n string) bool { return strings.Contains(n, tt.note) }) {
				t.Fatalf("notes %q lack %q", rv.Notes, tt.note)
			}
		})
	}
	rv := ParseReview("REVIEW Response Bravo: STRENGTHS: Good timing. WEAKNESSES: Ignores the ECG.\nFINAL RANKING:\n1. Bravo", shown)
	if rv.Strengths[1] != "Good timing." || rv.Weaknesses[1] != "Ignores the ECG." {
		t.Fatalf("review lines: %q %q", rv.Strengths, rv.Weaknesses)
	}
}

func TestParseChairman(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		answer  string
		contrib []Contribution
		attrErr string
		note    string
	}{
		{"json", `{"answer":"B","reasoning":"r","contributors":[{"id":2,"weight":0.7,"reason":"x"},{"id":1,"weight":0.3,"reason":"y"}]}`,
			"B", []Contribution{{2, 0.7, "x"}, {1, 0.3, "y"}}, "", ""},
		{"plain with a fenced block", "ANSWER: C\nREASONING: r\n```json\n{\"contributors\": [{\"id\": \"expert 3\", \"weight\": 1, \"reason\": \"z\"}]}\n```",
			"C", []Contribution{{3, 1, "z"}}, "", ""},
		{"credits nobody", `{"answer":"A","contributors":[]}`, "A", []Contribution{}, "", ""},
		{"no block", "ANSWER: D\nREASONING: r", "D", nil, "no contributors block (no JSON object decodes)", ""},
		{"object without contributors", "ANSWER: D\n```json\n{\"weights\": [0.5, 0.5]}\n```", "D", nil, "no contributors block", ""},
		{"cut off", `{"answer":"A","reasoning":"r","contributors":[{"id":1,"weight":0.6},{"id":2,"wei`, "A", nil, "does not decode (cut off or malformed)", ""},
		{"not a list", `{"answer":"A","contributors":"experts 1 and 2"}`, "A", nil, "contributors is not a list", ""},
		{"bad entries are left out", `{"answer":"A","contributors":[{"id":9,"weight":0.5},{"id":1,"weight":1.5},{"id":2,"weight":"60%"},{"id":3,"weight":0.4},{"id":3,"weight":0.6}]}`,
			"A", []Contribution{{3, 0.4, ""}}, "", "credited twice"},
		{"every entry bad", `{"answer":"A","contributors":[{"name":"x"}]}`, "A", nil, "no usable contributors entry", ""},
		{"weights off 1 are noted, not rescaled", `{"answer":"A","contributors":[{"id":1,"weight":0.5},{"id":2,"weight":0.2}]}`, "A", []Contribution{{1, 0.5, ""}, {2, 0.2, ""}}, "", "sum to 0.70"},
		{"unreadable answer, attribution still read", `{"answer":"A or B","contributors":[{"id":1,"weight":1}]}`, "", []Contribution{{1, 1, ""}}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ParseChairman(tt.text, abcd, 3)
			if c.Answer != tt.answer || !slices.Equal(c.Contributors, tt.contrib) || (c.Contributors == nil) != (tt.contrib == nil) || !strings.Contains(c.AttributionErr, tt.attrErr) || (tt.attrErr == "") != (c.AttributionErr == "") {
				t.Fatalf("ParseChairman = %+v", c)
			}
			if tt.note != "" && !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, tt.note) }) {
				t.Fatalf("notes %q lack %q", c.Notes, tt.note)
			}
		})
	}
}

// FuzzParseReview: never panics; the ranking holds distinct indexes of the
// labels shown; no ranking has a reason.
func FuzzParseReview(f *testing.F) {
	for _, s := range answertest.Seeds {
		f.Add(s, uint8(3))
	}
	f.Add("FINAL RANKING:\n1. Response Alpha\n2. **Bravo** — x\n3. Charlie or Delta", uint8(4))
	f.Add(`{"final_ranking":["Response Bravo",3,null,{"a":1},"Alpha > Bravo"]}`, uint8(2))
	f.Add("final ranking: alpha > bravo > alpha", uint8(3))
	f.Fuzz(func(t *testing.T, text string, n uint8) {
		labels := Labels[:1+int(n)%len(Labels)]
		rv := ParseReview(text, labels)
		seen := map[int]bool{}
		for _, k := range rv.Ranking {
			if k < 0 || k >= len(labels) || seen[k] {
				t.Fatalf("ranking %v over %d labels", rv.Ranking, len(labels))
			}
			seen[k] = true
		}
		if len(rv.Ranking) == 0 && rv.Reason == "" {
			t.Fatalf("no ranking without a reason: %+v", rv)
		}
	})
}

// FuzzParseChairman: never panics; the answer is an option or an
// abstention with a reason; every contribution names an expert 1…n with a
// weight in [0,1]; a failed attribution keeps no contributions.
func FuzzParseChairman(f *testing.F) {
	for _, s := range answertest.Seeds {
		f.Add(s, uint8(3), "x")
	}
	f.Add(`{"answer":"B","contributors":[{"id":"agent 2","weight":"0.5"},{"id":-1,"weight":0.5}]}`, uint8(3), "Heparin")
	f.Add("ANSWER: C\n```json\n{\"contributors\": [{\"id\": 1e99, \"weight\": 1e-400}]}\n```", uint8(2), "y")
	f.Fuzz(func(t *testing.T, text string, n uint8, optText string) {
		opts := answertest.FuzzOptions(n, optText)
		experts := 1 + int(n)%8
		c := ParseChairman(text, opts, experts)
		if c.Answer != "" && !slices.ContainsFunc(opts, func(o answer.Option) bool { return o.Letter == c.Answer }) {
			t.Fatalf("answer %q not an option", c.Answer)
		}
		if c.Answer == "" && c.Reason == "" {
			t.Fatalf("abstention without a reason: %+v", c)
		}
		if c.AttributionErr != "" && c.Contributors != nil {
			t.Fatalf("failed attribution with contributions: %+v", c)
		}
		for _, e := range c.Contributors {
			if e.Agent < 1 || e.Agent > experts || e.Weight < 0 || e.Weight > 1 {
				t.Fatalf("contribution %+v", e)
			}
		}
	})
}
