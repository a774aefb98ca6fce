package teamwork

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/answer"
)

func TestParseSynthesis(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name, text string
		facts      []string
		report     string
		quality    []AgentScore // Raw is not compared
		method     answer.Method
	}{
		{"json keyed", `{"facts": ["Fever", "Rash"], "report": "Leans to B.", "quality": [{"agent": 1, "score": 0.8}, {"agent": 3, "score": 0.4}]}`,
			[]string{"Fever", "Rash"}, "Leans to B.", []AgentScore{{Agent: 1, Score: 0.8}, {Agent: 3, Score: 0.4}}, answer.MethodJSON},
		{"json keyed, other key names", `{"quality": [{"expert": "2", "rating": "70%"}]}`,
			nil, "", []AgentScore{{Agent: 2, Score: 0.7}}, answer.MethodJSON},
		{"json object map", `{"report": "r", "quality": {"agent 2": 0.5, "Expert 1": 0.9}}`,
			nil, "r", []AgentScore{{Agent: 1, Score: 0.9}, {Agent: 2, Score: 0.5}}, answer.MethodJSON},
		{"json bare list, never clamped", `{"facts": [], "quality": [0.8, 1.4, -0.2, "n/a"]}`,
			[]string{}, "", []AgentScore{{Score: 0.8}, {Score: 1.4}, {Score: -0.2}, {Score: nan}}, answer.MethodJSON},
		{"labelled keyed", "FACTS: Fever; Rash\nREPORT: Leans to B.\nQUALITY: agent 1: 0.8; agent 3: 0.7",
			[]string{"Fever", "Rash"}, "Leans to B.", []AgentScore{{Agent: 1, Score: 0.8}, {Agent: 3, Score: 0.7}}, answer.MethodLabelled},
		{"labelled bare", "QUALITY: 0.8, 0.6, 0.7", nil, "", []AgentScore{{Score: 0.8}, {Score: 0.6}, {Score: 0.7}}, answer.MethodLabelled},
		{"labelled lists", "FACTS:\n- Fever\n- Rash\nREPORT: x\nQUALITY:\n- Expert 1 (Cardiologist): 0.9\n- agent 2: 80%\n- 3: 0.5",
			[]string{"Fever", "Rash"}, "x", []AgentScore{{Agent: 1, Score: 0.9}, {Agent: 2, Score: 0.8}, {Agent: 3, Score: 0.5}}, answer.MethodLabelled},
		{"none", "The team did well.", nil, "", nil, answer.MethodNone},
	}
	same := func(a, b []AgentScore) bool {
		return slices.EqualFunc(a, b, func(x, y AgentScore) bool {
			return x.Agent == y.Agent && (x.Score == y.Score || math.IsNaN(x.Score) && math.IsNaN(y.Score))
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ParseSynthesis(tt.text)
			if !slices.Equal(s.Facts, tt.facts) || s.Report != tt.report || !same(s.Quality, tt.quality) || s.Method != tt.method || (s.Err != "") != (tt.method == answer.MethodNone) {
				t.Fatalf("got %+v", s)
			}
		})
	}
}

// TestKeyQuality: every score lands on the expert it names, whichever
// expert abstained; what cannot be attributed or is out of range is a note,
// never a score for someone else and never clamped.
func TestKeyQuality(t *testing.T) {
	yes3 := []bool{true, true, true}
	tests := []struct {
		name     string
		scores   string // the text form, parsed by ParseSynthesis
		answered []bool
		want     []float64
		notes    []string // substrings, one per expected note
	}{
		{"keyed, all answered", "agent 1: 0.9; agent 2: 0.5; agent 3: 0.1", yes3, []float64{0.9, 0.5, 0.1}, nil},
		{"keyed, any order", "agent 3: 0.1; agent 1: 0.9", yes3, []float64{0.9, -1, 0.1}, nil},
		{"agent 1 abstains", "agent 2: 0.5; agent 3: 0.1", []bool{false, true, true}, []float64{-1, 0.5, 0.1}, nil},
		{"agent 2 abstains", "agent 1: 0.9; agent 3: 0.1", []bool{true, false, true}, []float64{0.9, -1, 0.1}, nil},
		{"agent 3 abstains", "agent 1: 0.9; agent 2: 0.5", []bool{true, true, false}, []float64{0.9, 0.5, -1}, nil},
		{"score for an abstainer", "agent 1: 0.9; agent 2: 0.4", []bool{true, false, true}, []float64{0.9, -1, -1}, []string{"expert 2, who gave no readable answer"}},
		{"bare list of the team size", "0.9, 0.5, 0.1", yes3, []float64{0.9, 0.5, 0.1}, nil},
		{"bare list shorter than the team: the positional trap", "0.9, 0.1", []bool{true, false, true}, []float64{-1, -1, -1}, []string{"2 unnumbered quality scores for a team of 3"}},
		{"unknown expert", "agent 4: 0.9; agent 1: 0.3", yes3, []float64{0.3, -1, -1}, []string{"names no expert of the team (1 to 3)"}},
		{"out of range, not clamped", "agent 1: 1.7; agent 2: 85; agent 3: -0.2", yes3, []float64{-1, -1, -1}, []string{"1.7 for expert 1 is outside [0,1]", "85 for expert 2 is outside", "-0.2 for expert 3 is outside"}},
		{"a percentage is explicit", "agent 1: 85%", yes3, []float64{0.85, -1, -1}, nil},
		{"not a number", "agent 2: high", yes3, []float64{-1, -1, -1}, []string{`"high" for expert 2 is not a number`}},
		{"duplicate", "agent 1: 0.9; agent 1: 0.2", yes3, []float64{0.9, -1, -1}, []string{"second quality score for expert 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ParseSynthesis("QUALITY: " + tt.scores)
			got, notes := KeyQuality(s.Quality, tt.answered)
			if !slices.Equal(got, tt.want) {
				t.Errorf("scores %v, want %v (parsed %+v)", got, tt.want, s.Quality)
			}
			if len(notes) != len(tt.notes) {
				t.Fatalf("notes %q, want %d", notes, len(tt.notes))
			}
			for i, w := range tt.notes {
				if !strings.Contains(notes[i], w) {
					t.Errorf("note %d = %q, want it to contain %q", i, notes[i], w)
				}
			}
		})
	}
}
