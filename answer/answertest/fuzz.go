package answertest

import (
	"testing"

	"github.com/medteam-bench/medteam/answer"
)

// FuzzTexts are option texts for fuzzing: words that are also answers
// ("yes", "no"), letters ("I", "b") and texts that start with a letter.
var FuzzTexts = []string{"yes", "no", "maybe", "Tetracycline", "Doxycycline", "A and B", "None of the above", "Vitamin A", "I", "b"}

// FuzzOptions builds 2..10 options from FuzzTexts; optText replaces one
// option's text.
func FuzzOptions(n uint8, optText string) []answer.Option {
	k := 2 + int(n%9)
	out := make([]answer.Option, k)
	for i := range out {
		out[i] = answer.Option{Letter: string(rune('A' + i)), Text: FuzzTexts[i]}
	}
	out[int(n/9)%k].Text = optText
	return out
}

// Seeds are answers of many shapes, as fuzzing seeds: JSON whole, fenced,
// cut off and Python-style; labelled lines; marks; prose; negations;
// ranking objects and tables; other languages; bad confidences.
var Seeds = []string{
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

var knownMethods = map[answer.Method]bool{
	answer.MethodJSON: true, answer.MethodJSONEmbedded: true, answer.MethodJSONPartial: true, answer.MethodRankingLine: true,
	answer.MethodAnswerLine: true, answer.MethodLatex: true, answer.MethodBold: true, answer.MethodParen: true,
	answer.MethodOptionText: true, answer.MethodLabelled: true, answer.MethodRankTable: true, answer.MethodProseRanking: true,
	answer.MethodNone: true,
}

// KnownMethod reports whether m is one of the Method constants.
func KnownMethod(m answer.Method) bool { return knownMethods[m] }

var knownReasons = map[string]bool{
	answer.ReasonEmpty: true, answer.ReasonNoAnswer: true, answer.ReasonAmbiguous: true, answer.ReasonNotAnOption: true,
	answer.ReasonRefusal: true, answer.ReasonTruncated: true, answer.ReasonNoOptions: true,
}

// KnownReason reports whether r is one of the Reason constants.
func KnownReason(r string) bool { return knownReasons[r] }

// CheckNotes fails unless the notes are short sentences, each once.
func CheckNotes(t *testing.T, notes []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, n := range notes {
		if n == "" || seen[n] || len(n) > 300 {
			t.Fatalf("notes %q", notes)
		}
		seen[n] = true
	}
}

// CheckAnswer fails unless a keeps the invariants of a parsed answer: a
// ranking of distinct option letters; an error, the method none and a known
// reason exactly when it abstains; notes as CheckNotes; a confidence in
// [0,1] or -1.
func CheckAnswer(t *testing.T, a answer.Answer, options []answer.Option) {
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
	if (len(a.Ranking) == 0) != (a.Method == answer.MethodNone) || !knownMethods[a.Method] {
		t.Fatalf("ranking %v with method %q", a.Ranking, a.Method)
	}
	if (len(a.Ranking) == 0) != (a.Reason != "") || a.Reason != "" && !knownReasons[a.Reason] {
		t.Fatalf("ranking %v with reason %q", a.Ranking, a.Reason)
	}
	CheckNotes(t, a.Notes)
	if a.Confidence != -1 && !(a.Confidence >= 0 && a.Confidence <= 1) {
		t.Fatalf("confidence %v", a.Confidence)
	}
}
