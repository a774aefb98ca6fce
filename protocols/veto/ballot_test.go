package veto

import (
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/answer/answertest"
)

var abcd = []answer.Option{{Letter: "A", Text: "Aspirin"}, {Letter: "B", Text: "Heparin"}, {Letter: "C", Text: "Warfarin"}, {Letter: "D", Text: "Alteplase"}}

func TestParseBallot(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		first    string
		conf     float64
		risk     float64
		veto     bool
		vetoRead bool
		note     string
	}{
		{"json", `{"reasoning":"r","ranking":["B","A","C","D"],"confidence":0.7,"risk":0.2,"veto":false}`, "B", 0.7, 0.2, false, true, ""},
		{"json veto", `{"reasoning":"r","ranking":["C","A","B","D"],"confidence":0.3,"risk":0.8,"veto":true}`, "C", 0.3, 0.8, true, true, ""},
		{"fenced json, string veto", "Sure:\n```json\n{\"ranking\":[\"D\"],\"confidence\":0.9,\"risk\":\"10%\",\"veto\":\"no\"}\n```", "D", 0.9, 0.1, false, true, "read as 0.10"},
		{"labelled lines", "REASONING: r\nRANKING: B, A, C, D\nCONFIDENCE: 0.62\nRISK: 0.35\nVETO: no", "B", 0.62, 0.35, false, true, ""},
		{"labelled veto yes", "REASONING: r\nRANKING: A, B\nCONFIDENCE: 0.40\nRISK: 0.55\nVETO: yes", "A", 0.4, 0.55, true, true, ""},
		{"lower-case labels", "ranking: C\nconfidence: 0.5\nrisk: 0.5\nveto: No", "C", 0.5, 0.5, false, true, ""},
		{"missing veto is unread, not no", `{"ranking":["B"],"confidence":0.7,"risk":0.2}`, "B", 0.7, 0.2, false, false, "no veto flag"},
		{"unreadable veto", "RANKING: B\nCONFIDENCE: 0.7\nRISK: 0.1\nVETO: perhaps", "B", 0.7, 0.1, false, false, "not a yes or no"},
		{"risk out of range is unknown", `{"ranking":["B"],"confidence":0.7,"risk":35,"veto":false}`, "B", 0.7, -1, false, true, "outside [0,1]"},
		{"risk word is unknown", "RANKING: B\nCONFIDENCE: 0.7\nRISK: low\nVETO: no", "B", 0.7, -1, false, true, "not a number"},
		{"cut off before the veto", `{"reasoning":"r","ranking":["B","A"],"confidence":0.7,"ri`, "B", 0.7, -1, false, false, "no veto flag"},
		{"prose", "More history is needed before committing.", "", -1, -1, false, false, "no veto flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := ParseBallot(tt.text, abcd)
			if a.First() != tt.first || a.Confidence != tt.conf || a.Risk != tt.risk || a.Veto != tt.veto || a.VetoRead != tt.vetoRead {
				t.Fatalf("Parse = first %q conf %v risk %v veto %v/%v; want %q %v %v %v/%v (notes %q)",
					a.First(), a.Confidence, a.Risk, a.Veto, a.VetoRead, tt.first, tt.conf, tt.risk, tt.veto, tt.vetoRead, a.Notes)
			}
			if tt.note != "" && !slices.ContainsFunc(a.Notes, func(n string) bool { return strings.Contains(n, tt.note) }) {
				t.Fatalf("notes %q lack %q", a.Notes, tt.note)
			}
			if tt.note == "" && len(a.Notes) > 0 {
				t.Fatalf("unexpected notes %q", a.Notes)
			}
		})
	}
}

// FuzzParseBallot: the ballot parser never panics, reads only the options'
// letters, keeps a risk in [0,1] or -1, and reads a veto only with a flag.
func FuzzParseBallot(f *testing.F) {
	for _, s := range answertest.Seeds {
		f.Add(s, uint8(3), "x")
	}
	f.Add(`{"ranking":["B"],"risk":"1e309","veto":"yes"}`, uint8(3), "Heparin")
	f.Add("RISK: 85%\nVETO: true\nRANKING: A", uint8(0), "yes")
	f.Fuzz(func(t *testing.T, text string, n uint8, optText string) {
		opts := answertest.FuzzOptions(n, optText)
		a := ParseBallot(text, opts)
		for _, l := range a.Ranking {
			if !slices.ContainsFunc(opts, func(o answer.Option) bool { return o.Letter == l }) {
				t.Fatalf("letter %q not an option", l)
			}
		}
		if a.Risk != -1 && (a.Risk < 0 || a.Risk > 1) {
			t.Fatalf("risk %v", a.Risk)
		}
		if a.Veto && !a.VetoRead {
			t.Fatal("veto without a read flag")
		}
	})
}
