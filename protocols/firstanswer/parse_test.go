package firstanswer

import (
	"slices"
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/answer/answertest"
)

var abcd = []answer.Option{{Letter: "A", Text: "Aspirin"}, {Letter: "B", Text: "Heparin"}, {Letter: "C", Text: "Warfarin"}, {Letter: "D", Text: "Alteplase"}}

func TestParse(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		first     string
		conf      float64
		reasoning string
		facts     int
	}{
		{"json, reasoning first", `{"reasoning":"r","ranking":["B","A","C","D"],"confidence":0.7}`, "B", 0.7, "r", 0},
		{"json with facts", `{"reasoning":"r","ranking":["C","A"],"confidence":0.3,"facts":["f1","f2"]}`, "C", 0.3, "r", 2},
		{"fenced json", "Sure:\n```json\n{\"reasoning\":\"x\",\"ranking\":[\"D\"],\"confidence\":0.9}\n```", "D", 0.9, "x", 0},
		{"labelled lines", "REASONING: r\nRANKING: B, A, C, D\nCONFIDENCE: 0.62", "B", 0.62, "r", 0},
		{"labelled lines with facts", "REASONING: r\nRANKING: A, B\nCONFIDENCE: 0.40\nFACTS: f1; f2; f3", "A", 0.4, "r", 3},
		{"lower-case labels", "reasoning: q\nranking: C\nconfidence: 0.5", "C", 0.5, "q", 0},
		{"prose is an abstention", "More history is needed before committing.", "", -1, "More history is needed before committing.", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Parse(tt.text, abcd)
			if a.First() != tt.first || a.Confidence != tt.conf || a.Reasoning != tt.reasoning || len(a.Facts) != tt.facts {
				t.Fatalf("Parse = first %q conf %v reasoning %q facts %q; want %q %v %q %d (notes %q)",
					a.First(), a.Confidence, a.Reasoning, a.Facts, tt.first, tt.conf, tt.reasoning, tt.facts, a.Notes)
			}
			if tt.first == "" && a.Reason == "" {
				t.Fatal("an abstention without a reason")
			}
		})
	}
}

// FuzzParse: the first-answer parser never panics and reads only the
// options' letters.
func FuzzParse(f *testing.F) {
	for _, s := range answertest.Seeds {
		f.Add(s, uint8(3), "x")
	}
	f.Add(`{"reasoning":"r","ranking":["B"],"confidence":"1e309"}`, uint8(3), "Heparin")
	f.Add("REASONING: x\nRANKING: A\nCONFIDENCE: 85%", uint8(0), "yes")
	f.Fuzz(func(t *testing.T, text string, n uint8, optText string) {
		opts := answertest.FuzzOptions(n, optText)
		a := Parse(text, opts)
		for _, l := range a.Ranking {
			if !slices.ContainsFunc(opts, func(o answer.Option) bool { return o.Letter == l }) {
				t.Fatalf("letter %q not an option", l)
			}
		}
		if a.First() == "" && a.Reason == "" {
			t.Fatal("an abstention without a reason")
		}
	})
}
