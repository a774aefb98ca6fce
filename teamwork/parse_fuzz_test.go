package teamwork

import (
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/answer/answertest"
)

// FuzzOptionParsers covers the parsers of the kinds that read the
// question's options (a concern reply's answer, a mediation's leaning) on
// the answers answer.FuzzParseAnswer fuzzes.
func FuzzOptionParsers(f *testing.F) {
	seeds := append(slices.Clip(answertest.Seeds), answertest.Outputs(f, corpus)...)
	for i, s := range seeds {
		f.Add(s, answertest.FuzzTexts[i%len(answertest.FuzzTexts)], uint8(i*7))
	}
	f.Fuzz(func(t *testing.T, text, optText string, n uint8) {
		options := answertest.FuzzOptions(n, optText)
		r := ParseConcernReply(text, options)
		answertest.CheckAnswer(t, r.Answer, options)
		answertest.CheckNotes(t, r.Notes)
		if r.Method == answer.MethodNone && r.Err == "" || !answertest.KnownMethod(r.Method) {
			t.Fatalf("concern reply %+v", r)
		}
		m := ParseMediation(text, options)
		if m.Leaning != "" && !strings.Contains("ABCDEFGHIJ"[:len(options)], m.Leaning) || len(m.Leaning) > 1 {
			t.Fatalf("leaning %q", m.Leaning)
		}
		if (m.Err != "") != (m.Method == answer.MethodNone) || (m.Leaning == "") != (m.Reason != "") || m.Reason != "" && !answertest.KnownReason(m.Reason) {
			t.Fatalf("mediation %+v", m)
		}
		answertest.CheckNotes(t, m.Notes)
	})
}

// FuzzParsers covers the parsers of the other kinds.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{
		`{"agents": 3, "analysis": "x"}`, "AGENTS: 2\nANALYSIS: y",
		`{"roles": [{"name": "Cardiologist", "focus": "x"}]}`, "ROLE 1: Cardiologist - x\nROLE 2: Nephrologist",
		`{"facts": ["a"], "report": "r", "quality": [0.8, "x", 7]}`, "FACTS: a; b\nREPORT: r\nQUALITY: 0.8, 0.6",
		`{"summary": "s", "leaning": "B"}`, "SUMMARY: s\nLEANING: C",
		`{"agent": 2, "concern": "c"}`, "AGENT: 9\nCONCERN: c",
		`{"quality": 0.7, "debated_point": "d"}`, "QUALITY: 85%\nDEBATED: d",
		`{"answer": "C", "reasoning": "r"}`, "ANSWER: B\nREASONING: r", `{"agents": 1e400}`, `{"quality": -1e308}`,
	} {
		f.Add(s, int8(3))
	}
	for _, s := range answertest.Outputs(f, corpus) {
		f.Add(s, int8(3))
	}
	f.Fuzz(func(t *testing.T, text string, n int8) {
		as := ParseAssessment(text)
		if as.Agents == 0 && as.Err == "" || as.Err == "" && (as.Agents < 2 || as.Agents > 4) || !answertest.KnownMethod(as.Method) {
			t.Fatalf("assessment %+v", as)
		}
		r := ParseRoster(text)
		if (len(r.Roles) == 0) != (r.Err != "") || (len(r.Roles) == 0) != (r.Method == answer.MethodNone) {
			t.Fatalf("roster %+v", r)
		}
		for _, rs := range r.Roles {
			if rs.Name == "" {
				t.Fatalf("roster with an empty name %+v", r)
			}
		}
		s := ParseSynthesis(text)
		if len(s.Quality) > maxScores {
			t.Fatalf("synthesis read %d scores (limit %d)", len(s.Quality), maxScores)
		}
		if (s.Err != "") != (s.Method == answer.MethodNone) {
			t.Fatalf("synthesis %+v", s)
		}
		c := ParseConcern(text, int(n))
		if c.Agent < -1 || c.Agent >= max(int(n), 0) || (c.Agent == -1) != (c.Err != "") {
			t.Fatalf("concern %+v for n=%d", c, n)
		}
		rt := ParseRating(text)
		// No usable rating: either nothing was read (Err) or a number out of range was (a note).
		if rt.Quality != -1 && !(rt.Quality >= 0 && rt.Quality <= 1) || (rt.Quality == -1) != (rt.Err != "" || len(rt.Notes) > 0) {
			t.Fatalf("rating %+v", rt)
		}
		tied := []string{"A", "C"}
		tb := ParseTieBreak(text, tied)
		if (tb.Answer == "") != (tb.Err != "") || (tb.Answer == "") != (tb.Reason != "") || tb.Answer != "" && tb.Answer != "A" && tb.Answer != "C" || tb.Reason != "" && !answertest.KnownReason(tb.Reason) {
			t.Fatalf("tiebreak %+v", tb)
		}
		answertest.CheckNotes(t, tb.Notes)
	})
}
