package teamwork

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/qa"
)

var fuzzTexts = []string{"yes", "no", "maybe", "Tetracycline", "Doxycycline", "A and B", "None of the above", "Vitamin A", "I", "b"}

// fuzzOptions builds 2..10 options; optText replaces one option's text.
func fuzzOptions(n uint8, optText string) []qa.Option {
	k := 2 + int(n%9)
	out := make([]qa.Option, k)
	for i := range out {
		out[i] = qa.Option{Letter: string(rune('A' + i)), Text: fuzzTexts[i]}
	}
	out[int(n/9)%k].Text = optText
	return out
}

var knownMethods = map[ParseMethod]bool{
	MethodJSON: true, MethodJSONEmbedded: true, MethodJSONPartial: true, MethodRankingLine: true,
	MethodAnswerLine: true, MethodLatex: true, MethodBold: true, MethodParen: true,
	MethodOptionText: true, MethodLabelled: true, MethodRankTable: true, MethodProseRanking: true, MethodNone: true,
}

var knownReasons = map[string]bool{
	ReasonEmpty: true, ReasonNoAnswer: true, ReasonAmbiguous: true, ReasonNotAnOption: true,
	ReasonRefusal: true, ReasonTruncated: true, ReasonNoOptions: true,
}

// checkNotes: notes are short sentences, each once.
func checkNotes(t *testing.T, notes []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, n := range notes {
		if n == "" || seen[n] || len(n) > 300 {
			t.Fatalf("notes %q", notes)
		}
		seen[n] = true
	}
}

func checkAnswer(t *testing.T, a Answer, options []qa.Option) {
	t.Helper()
	allowed := map[string]bool{}
	for _, o := range options {
		allowed[o.Letter] = true
	}
	seen := map[string]bool{}
	for _, l := range a.Ranking {
		if !allowed[l] || seen[l] {
			t.Fatalf("ranking %v: %q repeated or not an option", a.Ranking, l)
		}
		seen[l] = true
	}
	if (len(a.Ranking) == 0) != (a.Err != "") {
		t.Fatalf("ranking %v with err %q", a.Ranking, a.Err)
	}
	if (len(a.Ranking) == 0) != (a.Method == MethodNone) || !knownMethods[a.Method] {
		t.Fatalf("ranking %v with method %q", a.Ranking, a.Method)
	}
	if (len(a.Ranking) == 0) != (a.Reason != "") || a.Reason != "" && !knownReasons[a.Reason] {
		t.Fatalf("ranking %v with reason %q", a.Ranking, a.Reason)
	}
	checkNotes(t, a.Notes)
	if a.Confidence != -1 && !(a.Confidence >= 0 && a.Confidence <= 1) {
		t.Fatalf("confidence %v", a.Confidence)
	}
}

func FuzzParseAnswer(f *testing.F) {
	seeds := []string{
		`{"reasoning": "x", "ranking": ["B","A","C","D"], "confidence": 0.7, "facts": ["f"]}`,
		"```json\n{\"ranking\": \"B > A\", \"confidence\": \"80%\"}\n```",
		`{"reasoning": "cut`, `{"ranking": ["B", "A`, `{'ranking': ['D', 'B']}`,
		"REASONING: r\nRANKING: B, A, C, D\nCONFIDENCE: 0.70\nFACTS: a; b",
		"**Final ranking:**\n1. B) Doxycycline\n2. A\n\nConfidence: 75%",
		"ANSWER: $B$", `\boxed{C}`, "**B**", "(B)", "The answer is D.", "A 45-year-old man.", "yes",
		"ANSWER: B\nANSWER: C", "<think>x</think>\nFinal answer: (C)", "I would choose J.", "b.",
		"**A.** x\n**B.** y", "{{{{{{{{", `{"a":{"a":{"a":{"a":[[[[[[`, "\xff\xfe{\"ranking\":[\"\xff\"]}",
		"The answer is C. Option A is the best alternative.", "Options A, B and D can be excluded. C.",
		"Option B, insulin glargine, is not indicated here.", "No clear conclusion can be drawn.",
		`{"ranking": {"1": "C", "2": "A"}}`, `{"A": 2, "C": 1, "B": 3}`, "答案：Ｃ", "Die richtige Antwort ist C",
		"| Rank | Option |\n|---|---|\n| 1 | C |\n| 2 | A |", "C first, followed by A and B.",
		"I think it's C.", "RANKING: B, E, A\nCONFIDENCE: 85", "The answer could be B or C.",
		"Final answer: B\n\nOn reflection, the answer is C.", "Confidence: high",
	}
	for i, s := range append(seeds, corpusOutputs(f)...) {
		f.Add(s, fuzzTexts[i%len(fuzzTexts)], uint8(i*7))
	}
	f.Fuzz(func(t *testing.T, text, optText string, n uint8) {
		options := fuzzOptions(n, optText)
		checkAnswer(t, ParseAnswer(text, options), options)
		// Whatever the reasoning says, a valid JSON ranking is read as written.
		q, _ := json.Marshal(text)
		js := `{"reasoning": ` + string(q) + `, "ranking": ["B", "A"], "confidence": 0.5}`
		if a := ParseAnswer(js, options); !slices.Equal(a.Ranking, []string{"B", "A"}) || a.Method != MethodJSON || a.Confidence != 0.5 {
			t.Fatalf("json %q read %+v", js, a)
		}
		// ... and so is the last RANKING line of the plain-text form (unless
		// the reasoning holds a JSON object, which comes first).
		flat := strings.NewReplacer("\n", " ", "\r", " ").Replace(text)
		if a := ParseAnswer("REASONING: "+flat+"\nRANKING: B, A", options); !strings.Contains(flat, "{") && (!slices.Equal(a.Ranking, []string{"B", "A"}) || a.Method != MethodRankingLine) {
			t.Fatalf("plain reasoning %q read %+v", flat, a)
		}
		if L := StatedAnswer(text, options); L != "" && !slices.ContainsFunc(options, func(o qa.Option) bool { return o.Letter == L }) {
			t.Fatalf("stated answer %q not an option", L)
		}
		r := ParseConcernReply(text, options)
		checkAnswer(t, r.Answer, options)
		checkNotes(t, r.Notes)
		if r.Method == MethodNone && r.Err == "" || !knownMethods[r.Method] {
			t.Fatalf("concern reply %+v", r)
		}
		m := ParseMediation(text, options)
		if m.Leaning != "" && !strings.Contains("ABCDEFGHIJ"[:len(options)], m.Leaning) || len(m.Leaning) > 1 {
			t.Fatalf("leaning %q", m.Leaning)
		}
		if (m.Err != "") != (m.Method == MethodNone) || (m.Leaning == "") != (m.Reason != "") || m.Reason != "" && !knownReasons[m.Reason] {
			t.Fatalf("mediation %+v", m)
		}
		checkNotes(t, m.Notes)
	})
}

func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{
		`{"a": 1}`, "x ```json\n{\"a\": [1]}\n``` y", `pre {"a": "}"} post`, `\boxed{B} {"a": 2}`,
		`{"a": [1, 2`, `{"a": "b\`, `{"a": {"b": [1, {"c": tr`, `{"a" 1}`, "", "{", `{"`, `{"a":"\u12`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		obj, embedded, ok := ExtractJSON(text)
		if ok {
			if !json.Valid(obj) || obj[0] != '{' || !strings.Contains(text, string(obj)) {
				t.Fatalf("obj %q from %q", obj, text)
			}
			if !embedded && string(obj) != strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "\ufeff")) {
				t.Fatalf("not embedded but %q != %q", obj, text)
			}
		} else if obj != nil || embedded {
			t.Fatalf("failure with %q %v", obj, embedded)
		}
		for _, keep := range []bool{false, true} {
			if b, ok := repairJSON(text, keep); ok && (!json.Valid(b) || b[0] != '{') {
				t.Fatalf("repair %q of %q", b, text)
			}
		}
	})
}

// corpusOutputs are the outputs of the answer corpus, as fuzzing seeds.
func corpusOutputs(f *testing.F) []string {
	files, _ := filepath.Glob(filepath.Join("testdata", "answers", "*.txtar"))
	var out []string
	for _, path := range files {
		c, err := loadCorpusCase(path)
		if err != nil {
			f.Fatalf("%s: %v", path, err)
		}
		out = append(out, c.output)
	}
	return out
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
	for _, s := range corpusOutputs(f) {
		f.Add(s, int8(3))
	}
	f.Fuzz(func(t *testing.T, text string, n int8) {
		as := ParseAssessment(text)
		if as.Agents == 0 && as.Err == "" || as.Err == "" && (as.Agents < 2 || as.Agents > 4) || !knownMethods[as.Method] {
			t.Fatalf("assessment %+v", as)
		}
		r := ParseRoster(text)
		if (len(r.Roles) == 0) != (r.Err != "") || (len(r.Roles) == 0) != (r.Method == MethodNone) {
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
		if (s.Err != "") != (s.Method == MethodNone) {
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
		if (tb.Answer == "") != (tb.Err != "") || (tb.Answer == "") != (tb.Reason != "") || tb.Answer != "" && tb.Answer != "A" && tb.Answer != "C" || tb.Reason != "" && !knownReasons[tb.Reason] {
			t.Fatalf("tiebreak %+v", tb)
		}
		checkNotes(t, tb.Notes)
	})
}
