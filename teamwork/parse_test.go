package teamwork

import (
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/answer"
)

func opts(texts ...string) []answer.Option {
	out := make([]answer.Option, len(texts))
	for i, t := range texts {
		out[i] = answer.Option{Letter: string(rune('A' + i)), Text: t}
	}
	return out
}

var (
	abx4 = opts("Tetracycline", "Doxycycline", "Ceftriaxone", "Azithromycin")
	ynm  = opts("yes", "no", "maybe")
	yn   = opts("yes", "no")
	ten  = opts("Aspirin", "Heparin", "Warfarin", "Clopidogrel", "Alteplase", "Metoprolol", "Nitroglycerin", "Morphine", "Oxygen", "Atorvastatin")
)

func close(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestParseAssessment(t *testing.T) {
	tests := []struct {
		name, text string
		agents     int
		analysis   string
		method     answer.Method
		err        bool
	}{
		{"json", `{"agents": 3, "analysis": "A diagnosis question."}`, 3, "A diagnosis question.", answer.MethodJSON, false},
		{"json string count", "```json\n{\"agents\": \"4\", \"analysis\": \"x\"}\n```", 4, "x", answer.MethodJSONEmbedded, false},
		{"labelled", "AGENTS: 2\nANALYSIS: Management question;\nstability decides.", 2, "Management question;\nstability decides.", answer.MethodLabelled, false},
		{"labelled markdown words", "**Agents:** three\n**Analysis:** x", 3, "x", answer.MethodLabelled, false},
		{"out of range kept", `{"agents": 7, "analysis": "x"}`, 7, "x", answer.MethodJSON, true},
		{"fraction", `{"agents": 2.5}`, 0, "", answer.MethodNone, true},
		{"missing", "ANALYSIS: only analysis", 0, "only analysis", answer.MethodNone, true},
		{"empty", "", 0, "", answer.MethodNone, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := ParseAssessment(tt.text)
			if a.Agents != tt.agents || a.Analysis != tt.analysis || a.Method != tt.method || (a.Err != "") != tt.err {
				t.Fatalf("got %+v", a)
			}
		})
	}
}

func TestParseRoster(t *testing.T) {
	tests := []struct {
		name, text string
		want       []RoleSpec
		method     answer.Method
	}{
		{"json", `{"roles": [{"name": "Cardiologist", "focus": "rhythm"}, {"name": "Nephrologist", "focus": "kidney"}]}`,
			[]RoleSpec{{"Cardiologist", "rhythm"}, {"Nephrologist", "kidney"}}, answer.MethodJSON},
		{"json other keys", `Team: {"Roles": [{"role": "Infectious disease", "description": "ticks"}, "Dermatologist - rash"]}`,
			[]RoleSpec{{"Infectious disease", "ticks"}, {"Dermatologist", "rash"}}, answer.MethodJSONEmbedded},
		{"labelled", "ROLE 1: Cardiologist - rhythm and ischaemia\nROLE 2: **Pharmacist**: dosing\nROLE 3: Radiologist (imaging)",
			[]RoleSpec{{"Cardiologist", "rhythm and ischaemia"}, {"Pharmacist", "dosing"}, {"Radiologist", "imaging"}}, answer.MethodLabelled},
		{"truncated json", `{"roles": [{"name": "Cardiologist", "focus": "rhythm"}, {"name": "Neph`,
			[]RoleSpec{{"Cardiologist", "rhythm"}}, answer.MethodJSONPartial},
		{"none", "I would recruit a cardiologist.", nil, answer.MethodNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ParseRoster(tt.text)
			if !slices.Equal(r.Roles, tt.want) || r.Method != tt.method || (r.Err != "") != (len(tt.want) == 0) {
				t.Fatalf("got %+v", r)
			}
		})
	}
}

func TestParseMediation(t *testing.T) {
	tests := []struct {
		name, text, summary, leaning string
		method                       answer.Method
	}{
		{"json", `{"summary": "Split between B and C.", "leaning": "B"}`, "Split between B and C.", "B", answer.MethodJSON},
		{"json text leaning", `{"summary": "s", "leaning": "Ceftriaxone"}`, "s", "C", answer.MethodJSON},
		{"json leaning not an option", `{"summary": "s", "leaning": "E"}`, "s", "", answer.MethodJSON},
		{"labelled", "SUMMARY: Most favour D.\nLEANING: D", "Most favour D.", "D", answer.MethodLabelled},
		{"labelled none", "SUMMARY: Split.\nLEANING: none", "Split.", "", answer.MethodLabelled},
		{"failure", "Keep discussing.", "", "", answer.MethodNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := ParseMediation(tt.text, abx4)
			if m.Summary != tt.summary || m.Leaning != tt.leaning || m.Method != tt.method || (m.Err != "") != (tt.method == answer.MethodNone) {
				t.Fatalf("got %+v", m)
			}
		})
	}
}

func TestParseConcern(t *testing.T) {
	tests := []struct {
		name, text string
		agent      int
		concern    string
		method     answer.Method
	}{
		{"json", `{"agent": 2, "concern": "Why not C?"}`, 1, "Why not C?", answer.MethodJSON},
		{"json string", `{"agent": "Agent 3 (Cardiologist)", "concern": "x"}`, 2, "x", answer.MethodJSON},
		{"labelled", "AGENT: 1\nCONCERN: The rash timing does not fit.", 0, "The rash timing does not fit.", answer.MethodLabelled},
		{"labelled target", "TARGET: agent 3\nCONCERN: x", 2, "x", answer.MethodLabelled},
		{"out of range", `{"agent": 4, "concern": "x"}`, -1, "x", answer.MethodJSON},
		{"zero", "AGENT: 0\nCONCERN: x", -1, "x", answer.MethodLabelled},
		{"failure", "All agents reasoned well.", -1, "", answer.MethodNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ParseConcern(tt.text, 3)
			if c.Agent != tt.agent || c.Text != tt.concern || c.Method != tt.method || (c.Err != "") != (tt.agent < 0) {
				t.Fatalf("got %+v", c)
			}
		})
	}
}

func TestParseConcernReply(t *testing.T) {
	tests := []struct {
		name, text, response string
		accepts              bool
		ranking              []string
		method               answer.Method
	}{
		{"json", `{"response": "Fair point.", "accepts": true, "ranking": ["C", "B"], "confidence": 0.6}`, "Fair point.", true, []string{"C", "B"}, answer.MethodJSON},
		{"json string bool", `{"response": "No.", "accepts": "no", "ranking": ["B"]}`, "No.", false, []string{"B"}, answer.MethodJSON},
		{"labelled", "RESPONSE: I keep B.\nACCEPTS: no\nRANKING: B, C\nCONFIDENCE: 0.7", "I keep B.", false, []string{"B", "C"}, answer.MethodLabelled},
		{"labelled accepts without ranking", "RESPONSE: Agreed.\nACCEPTS: yes", "Agreed.", true, nil, answer.MethodLabelled},
		{"yes/no item accepts line is not the answer", "RESPONSE: Fair.\nACCEPTS: yes", "Fair.", true, nil, answer.MethodLabelled},
		{"answer only", `{"ranking": ["D"], "confidence": 0.5}`, "", false, []string{"D"}, answer.MethodJSON},
		{"failure", "", "", false, nil, answer.MethodNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			options := abx4
			if strings.HasPrefix(tt.name, "yes/no") {
				options = ynm
			}
			r := ParseConcernReply(tt.text, options)
			if r.Response != tt.response || r.Accepts != tt.accepts || !slices.Equal(r.Answer.Ranking, tt.ranking) || r.Method != tt.method || (r.Err != "") != (tt.method == answer.MethodNone || tt.response == "" && !tt.accepts) {
				t.Fatalf("got %+v", r)
			}
		})
	}
}

func TestParseRating(t *testing.T) {
	tests := []struct {
		name, text string
		quality    float64
		debated    string
		method     answer.Method
	}{
		{"json", `{"quality": 0.7, "debated_point": "Timing of the rash."}`, 0.7, "Timing of the rash.", answer.MethodJSON},
		{"json camel percent string", `{"Quality": "85%", "debatedPoint": "x"}`, 0.85, "x", answer.MethodJSON},
		{"json out of range: noted, never clamped", `{"quality": 7, "debated_point": "x"}`, -1, "x", answer.MethodJSON},
		{"labelled out of range", "QUALITY: 1.7\nDEBATED: x", -1, "x", answer.MethodLabelled},
		{"labelled", "QUALITY: 0.4\nDEBATED: Whether the rash is petechial.", 0.4, "Whether the rash is petechial.", answer.MethodLabelled},
		{"labelled fraction", "Quality: 7/10\nDebated point: x", 0.7, "x", answer.MethodLabelled},
		{"failure", "QUALITY: good\nDEBATED: x", -1, "x", answer.MethodNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ParseRating(tt.text)
			outOfRange := tt.quality < 0 && tt.method != answer.MethodNone
			if !close(r.Quality, tt.quality) || r.DebatedPoint != tt.debated || r.Method != tt.method ||
				(r.Err != "") != (tt.quality < 0 && !outOfRange) || (len(r.Notes) > 0) != outOfRange {
				t.Fatalf("got %+v", r)
			}
		})
	}
}

func TestParseTieBreak(t *testing.T) {
	tied := []string{"A", "C"}
	tests := []struct {
		name, text, answer string
		method             answer.Method
	}{
		{"json", `{"answer": "C", "reasoning": "Timing."}`, "C", answer.MethodJSON},
		{"json not tied", `{"answer": "B", "reasoning": "x"}`, "", answer.MethodJSON},
		{"labelled", "ANSWER: A\nREASONING: Better supported.", "A", answer.MethodLabelled},
		{"labelled not tied", "ANSWER: D\nREASONING: x", "", answer.MethodLabelled},
		{"prose", "Between A and C, I would choose C.", "C", answer.MethodAnswerLine},
		{"lone", "a", "A", answer.MethodAnswerLine},
		{"failure", "Both are reasonable.", "", answer.MethodNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ParseTieBreak(tt.text, tied)
			if r.Answer != tt.answer || r.Method != tt.method || (r.Err != "") != (tt.answer == "") {
				t.Fatalf("got %+v", r)
			}
		})
	}
	if r := ParseTieBreak("ANSWER: A", nil); r.Err == "" || r.Answer != "" {
		t.Fatalf("no tied: got %+v", r)
	}
}

// TestParseTieBreakOverride: under the leader's correction authority any
// option is an answer, one outside the tie an override; a letter that is no
// option is still no answer.
func TestParseTieBreakOverride(t *testing.T) {
	tied := []string{"A", "C"}
	for _, tt := range []struct {
		text, answer string
		override     bool
		reason       string
	}{
		{`{"reasoning": "timing", "answer": "C"}`, "C", false, ""},
		{`{"reasoning": "both misread the ECG", "answer": "B"}`, "B", true, ""},
		{"REASONING: x\nANSWER: D", "D", true, ""},
		{"REASONING: x\nANSWER: E", "", false, answer.ReasonNotAnOption},
		{"Both are reasonable.", "", false, answer.ReasonNoAnswer},
	} {
		tb := ParseTieBreakOverride(tt.text, abx4, tied)
		if tb.Answer != tt.answer || tb.Override != tt.override || tb.Reason != tt.reason || (tb.Err != "") != (tt.answer == "") {
			t.Errorf("%q: %+v", tt.text, tb)
		}
	}
}

// TestParseNotes: what the parsers of the other kinds read but do not take
// as written is recorded, as answer.Parse records it.
func TestParseNotes(t *testing.T) {
	tb := ParseTieBreak("ANSWER: B\nREASONING: x", []string{"A", "C"})
	if tb.Answer != "" || tb.Reason != answer.ReasonNotAnOption || !slices.Contains(tb.Notes, `letter "B" is not a tied option (tied options A, C); ignored`) {
		t.Errorf("tie-break %+v", tb)
	}
	md := ParseMediation(`{"summary": "s", "leaning": "E"}`, abx4)
	if md.Leaning != "" || md.Reason != answer.ReasonNotAnOption || !slices.Contains(md.Notes, `letter "E" is not an option (options A–D); ignored`) {
		t.Errorf("mediation %+v", md)
	}
	cr := ParseConcernReply("RESPONSE: Fair.\nACCEPTS: partially\nRANKING: B, C", abx4)
	if cr.Accepts || !slices.Contains(cr.Notes, `acceptance "partially" read as no`) {
		t.Errorf("concern reply %+v", cr)
	}
}

func TestParseReasons(t *testing.T) {
	tied := []string{"A", "C"}
	for _, tt := range []struct {
		text, answer, reason string
	}{
		{"ANSWER: C", "C", ""},
		{"Between A and C, I would choose C.", "C", ""},
		{"A or C, both are reasonable.", "", answer.ReasonNoAnswer},
		{"ANSWER: A or C", "", answer.ReasonAmbiguous},
		{"The answer is A. The answer is C.", "", answer.ReasonAmbiguous},
		{"", "", answer.ReasonEmpty},
	} {
		if tb := ParseTieBreak(tt.text, tied); tb.Answer != tt.answer || tb.Reason != tt.reason {
			t.Errorf("tie-break %q: %+v", tt.text, tb)
		}
	}
	for _, tt := range []struct {
		text, leaning, reason string
	}{
		{"SUMMARY: s\nLEANING: B", "B", ""},
		{"SUMMARY: s\nLEANING: B, tentatively", "B", ""},
		{"SUMMARY: s\nLEANING: none", "", answer.ReasonNoAnswer},
		{"SUMMARY: s\nLEANING: B or C", "", answer.ReasonAmbiguous},
		{"SUMMARY: s\nLEANING: not B", "", answer.ReasonNoAnswer},
		{`{"summary": "s", "leaning": "I lean towards C"}`, "C", ""},
		{"Keep discussing.", "", answer.ReasonNoAnswer},
	} {
		if md := ParseMediation(tt.text, abx4); md.Leaning != tt.leaning || md.Reason != tt.reason {
			t.Errorf("mediation %q: %+v", tt.text, md)
		}
	}
}
