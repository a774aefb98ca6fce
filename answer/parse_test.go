package answer

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func opts(texts ...string) []Option {
	out := make([]Option, len(texts))
	for i, t := range texts {
		out[i] = Option{Letter: string(rune('A' + i)), Text: t}
	}
	return out
}

var (
	abx4 = opts("Tetracycline", "Doxycycline", "Ceftriaxone", "Azithromycin")
	ynm  = opts("yes", "no", "maybe")
	yn   = opts("yes", "no")
	ten  = opts("Aspirin", "Heparin", "Warfarin", "Clopidogrel", "Alteplase", "Metoprolol", "Nitroglycerin", "Morphine", "Oxygen", "Atorvastatin")
)

func TestParseAnswer(t *testing.T) {
	const noConf = -2 // do not check confidence
	tests := []struct {
		name    string
		text    string
		options []Option
		want    []string
		method  Method
		conf    float64
	}{
		{"clean json", `{"reasoning": "Tick-borne; doxycycline first line.", "ranking": ["B","A","C","D"], "confidence": 0.7, "facts": ["Rash"]}`, abx4, []string{"B", "A", "C", "D"}, MethodJSON, 0.7},
		{"json in fences", "```json\n{\"reasoning\": \"x\", \"ranking\": [\"C\", \"B\"], \"confidence\": 0.6}\n```", abx4, []string{"C", "B"}, MethodJSONEmbedded, 0.6},
		{"json with prose around", "Here is my answer:\n\n{\"reasoning\": \"A 45-year-old man...\", \"ranking\": [\"D\"], \"confidence\": 0.9}\nHope this helps.", abx4, []string{"D"}, MethodJSONEmbedded, 0.9},
		{"json after latex braces in prose", `Using \boxed{thinking} first. {"ranking": ["B", "C"], "confidence": 0.5}`, abx4, []string{"B", "C"}, MethodJSONEmbedded, 0.5},
		{"truncated json after ranking", `{"reasoning": "Doxycycline covers Rickettsia.", "ranking": ["B", "A"`, abx4, []string{"B", "A"}, MethodJSONPartial, noConf},
		{"truncated json inside confidence", `{"reasoning": "x", "ranking": ["C","A","B","D"], "confidence": 0.`, abx4, []string{"C", "A", "B", "D"}, MethodJSONPartial, -1},
		{"truncated json before ranking abstains", `{"reasoning": "The key findings point to B; A is the closest alt`, abx4, nil, MethodNone, -1},
		{"python dict", `{'reasoning': 'x', 'ranking': ['D', 'B'], 'confidence': 0.4}`, abx4, []string{"D", "B"}, MethodJSONPartial, 0.4},
		{"python dict multi-line", "{'ranking': [\n  'C',\n  'A'\n], 'confidence': 0.5}", abx4, []string{"C", "A"}, MethodJSONPartial, 0.5},
		{"stray ranking key in prose", "REASONING: \"rAnking\":[\nRANKING: B, A", abx4, []string{"B", "A"}, MethodRankingLine, -1},
		{"json ranking as string", `{"ranking": "B > A > C", "confidence": "80%"}`, abx4, []string{"B", "A", "C"}, MethodJSON, 0.8},
		{"json ranking comma string", `{"ranking": "B, A", "confidence": 85}`, abx4, []string{"B", "A"}, MethodJSON, -1},
		{"json labelled elements", `{"ranking": ["B) Doxycycline", "1. Option A", "Ceftriaxone"], "confidence": 0.55}`, abx4, []string{"B", "A", "C"}, MethodJSON, 0.55},
		{"json lower-case letters", `{"ranking": ["c", "a"], "confidence": 1}`, abx4, []string{"C", "A"}, MethodJSON, 1},
		{"json answer key only", `{"answer": "(D)", "reasoning": "x"}`, abx4, []string{"D"}, MethodJSON, -1},
		{"json empty ranking falls back to reasoning", `{"reasoning": "Rickettsial disease; the answer is B.", "ranking": [], "confidence": 0.6}`, abx4, []string{"B"}, MethodAnswerLine, 0.6},
		{"json ranking with duplicates", `{"ranking": ["B", "B", "a", "A", "D"]}`, abx4, []string{"B", "A", "D"}, MethodJSON, -1},
		{"json ranking outside options", `{"ranking": ["E", "F"], "reasoning": "none fit"}`, abx4, nil, MethodNone, -1},
		{"bold", "After weighing the findings: **B**", abx4, []string{"B"}, MethodBold, -1},
		{"bold with text", "I would go for **C. Ceftriaxone** here.", abx4, []string{"C"}, MethodBold, -1},
		{"bold option analysis ignored", "**A.** Tetracycline - stains teeth.\n**B.** Doxycycline - fine.\n**C.** Ceftriaxone - wrong bug.", abx4, nil, MethodNone, -1},
		{"dollar", "The letter is $B$ given the rash.", abx4, []string{"B"}, MethodLatex, -1},
		{"answer dollar", "ANSWER: $B$", abx4, []string{"B"}, MethodAnswerLine, -1},
		{"boxed", `Therefore \boxed{C}`, abx4, []string{"C"}, MethodLatex, -1},
		{"dollar boxed text", `$\boxed{\text{D}}$`, abx4, []string{"D"}, MethodAnswerLine, -1},
		{"numbered options list", "1. Option B\n2. Option A", abx4, []string{"B", "A"}, MethodRankingLine, -1},
		{"ranking chain", "RANKING: B > A > C > D\nCONFIDENCE: 0.70", abx4, []string{"B", "A", "C", "D"}, MethodRankingLine, 0.7},
		{"labelled plain text", "REASONING: Fever and rash after a hike.\nRANKING: B, A, C, D\nCONFIDENCE: 0.65\nFACTS: tick bite; petechial rash", abx4, []string{"B", "A", "C", "D"}, MethodRankingLine, 0.65},
		{"ranking list under header", "**Final ranking:**\n1. B) Doxycycline\n2. A) Tetracycline\n3. D\n\nConfidence: 75%", abx4, []string{"B", "A", "D"}, MethodRankingLine, 0.75},
		{"ranking with trailing note", "My ranking is B (most likely), A, C, D because of the rash.", abx4, []string{"B", "A", "C", "D"}, MethodRankingLine, -1},
		{"final answer paren", "Final answer: (C)", abx4, []string{"C"}, MethodAnswerLine, -1},
		{"the answer is", "The answer is D.", abx4, []string{"D"}, MethodAnswerLine, -1},
		{"article then real answer", "A 45-year-old man presents with fever after a tick bite. A rash spreads centripetally. The correct answer is B because doxycycline covers Rickettsia.", abx4, []string{"B"}, MethodAnswerLine, -1},
		{"article only abstains", "A 45-year-old man presents with fever. A careful history is needed before deciding.", abx4, nil, MethodNone, -1},
		{"A is unlikely abstains", "A is unlikely.", abx4, nil, MethodNone, -1},
		{"answer A because", "The answer is A because tetracycline is cheap.", abx4, []string{"A"}, MethodAnswerLine, -1},
		{"answer is a phrase abstains", "The answer is a matter of judgement here.", abx4, nil, MethodNone, -1},
		{"option text only", "ceftriaxone", abx4, []string{"C"}, MethodOptionText, -1},
		{"yes for ynm", "Yes.", ynm, []string{"A"}, MethodOptionText, -1},
		{"answer maybe", "Answer: maybe", ynm, []string{"C"}, MethodAnswerLine, -1},
		{"no for yes/no", "no", yn, []string{"B"}, MethodOptionText, -1},
		{"yes and no abstain", "Some say yes, others say no.", ynm, nil, MethodNone, -1},
		{"two answer lines last wins", "ANSWER: B\nOn reflection the rash pattern fits better with something else.\nANSWER: C", abx4, []string{"C"}, MethodAnswerLine, -1},
		{"revision phrase last wins", "At first the answer is B. Wait — the final answer is (D).", abx4, []string{"D"}, MethodAnswerLine, -1},
		{"letter outside options ignored", "ANSWER: E", abx4, nil, MethodNone, -1},
		{"ranking drops outside letters", "RANKING: E, B, A", abx4, []string{"B", "A"}, MethodRankingLine, -1},
		{"empty", "", abx4, nil, MethodNone, -1},
		{"whitespace only", " \r\n\t ", abx4, nil, MethodNone, -1},
		{"cannot determine", "I cannot determine the answer from the information given.", abx4, nil, MethodNone, -1},
		{"cannot determine ten options", "I cannot determine the answer from the information given.", ten, nil, MethodNone, -1},
		{"percent confidence", "ANSWER: C\nConfidence: 85%", abx4, []string{"C"}, MethodAnswerLine, 0.85},
		{"bad confidence", "ANSWER: C\nConfidence: high", abx4, []string{"C"}, MethodAnswerLine, -1},
		{"J on ten options", `{"ranking": ["J", "A"], "confidence": 0.4}`, ten, []string{"J", "A"}, MethodJSON, 0.4},
		{"J answer line on ten options", "Final answer: J", ten, []string{"J"}, MethodAnswerLine, -1},
		{"I pronoun not an answer", "I think atorvastatin is wise long term. I would choose I.", ten, []string{"I"}, MethodAnswerLine, -1},
		{"lone letter", "B", abx4, []string{"B"}, MethodAnswerLine, -1},
		{"lone lower letter", "b.", abx4, []string{"B"}, MethodAnswerLine, -1},
		{"lone letter paren", "B)", abx4, []string{"B"}, MethodAnswerLine, -1},
		{"lone letter with text", "C) Ceftriaxone", abx4, []string{"C"}, MethodAnswerLine, -1},
		{"letter first line then explanation", "D\n\nAzithromycin is preferred in pregnancy for this organism.", abx4, []string{"D"}, MethodAnswerLine, -1},
		{"crlf labelled", "REASONING: x\r\nRANKING: C, B\r\nCONFIDENCE: 0.5\r\n", abx4, []string{"C", "B"}, MethodRankingLine, 0.5},
		{"crlf json", "{\r\n  \"ranking\": [\"A\", \"D\"],\r\n  \"confidence\": 0.3\r\n}\r\n", abx4, []string{"A", "D"}, MethodJSON, 0.3},
		{"paren marker", "Considering everything, (B) stands out.", abx4, []string{"B"}, MethodParen, -1},
		{"several parens abstain", "Tetracycline (A) stains teeth, while ceftriaxone (C) misses it.", abx4, nil, MethodNone, -1},
		{"reversed phrase", "Option C is the best answer here.", abx4, []string{"C"}, MethodAnswerLine, -1},
		{"hepatitis B is not an answer", "Hepatitis B is the most likely diagnosis in this carrier.", opts("HAV", "HBV", "HCV", "HDV"), nil, MethodNone, -1},
		{"negation does not crash", "The answer is not B.", abx4, nil, MethodNone, -1},
		{"answer markdown bold label", "**Answer:** **B. Doxycycline**\n\nExplanation: A is wrong because...", abx4, []string{"B"}, MethodAnswerLine, -1},
		{"answer on next line", "Final answer:\n\n(C)", abx4, []string{"C"}, MethodAnswerLine, -1},
		{"think block", "<think>The answer is A? No.</think>\nANSWER: B", abx4, []string{"B"}, MethodAnswerLine, -1},
		{"choose phrase", "Between these, I'd go with option D.", abx4, []string{"D"}, MethodAnswerLine, -1},
		{"answer as option text", "The answer is doxycycline.", abx4, []string{"B"}, MethodAnswerLine, -1},
		{"X-linked is not an answer", "The answer is X-linked inheritance.", ten, nil, MethodNone, -1},
		{"B-cell is not an answer", "The answer is B-cell lymphoma.", abx4, nil, MethodNone, -1},
		{"sim prose abstains", "More history would be needed before committing to one of these options; the findings are not specific enough.", ynm, nil, MethodNone, -1},
		{"compact ranking", "RANKING: BADC", abx4, []string{"B", "A", "D", "C"}, MethodRankingLine, -1},
		{"no options", "ANSWER: B", nil, nil, MethodNone, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Parse(tt.text, tt.options)
			if !slices.Equal(a.Ranking, tt.want) {
				t.Fatalf("ranking %v, want %v (method %s, err %q)", a.Ranking, tt.want, a.Method, a.Err)
			}
			if a.Method != tt.method {
				t.Errorf("method %s, want %s", a.Method, tt.method)
			}
			if (len(a.Ranking) == 0) != (a.Err != "") {
				t.Errorf("ranking %v with err %q", a.Ranking, a.Err)
			}
			if tt.conf != noConf && !close(a.Confidence, tt.conf) {
				t.Errorf("confidence %v, want %v", a.Confidence, tt.conf)
			}
		})
	}
}

func close(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestParseAnswerFields(t *testing.T) {
	a := Parse(`{"reasoning": "Tick bite.", "ranking": ["B"], "confidence": 0.7, "facts": ["Rash on palms", "Fever"]}`, abx4)
	if a.Reasoning != "Tick bite." || !slices.Equal(a.Facts, []string{"Rash on palms", "Fever"}) || a.First() != "B" {
		t.Fatalf("got %+v", a)
	}
	a = Parse("REASONING: Tick bite\nand a rash.\nRANKING: B, A\nCONFIDENCE: 0.70\nFACTS: tick bite; petechial rash", abx4)
	if a.Reasoning != "Tick bite\nand a rash." || !slices.Equal(a.Facts, []string{"tick bite", "petechial rash"}) || a.Confidence != 0.7 {
		t.Fatalf("got %+v", a)
	}
	if a := Parse("nothing", abx4); a.First() != "" || a.Err == "" || a.Method != MethodNone {
		t.Fatalf("got %+v", a)
	}
}

func TestLetterOf(t *testing.T) {
	os := NewSet(abx4)
	tests := map[string]string{
		"B": "B", "b": "B", "B)": "B", "(B)": "B", "**B**": "B", "Option B": "B", "1. Option B": "B",
		"B) Doxycycline": "B", "B. Doxycycline": "B", "B) Tetracycline": "", "B. Ceftriaxone": "", "doxycycline": "B", "Doxycycline (B)": "B",
		"$B$": "B", `\boxed{B}`: "B", "B - first line": "B", "B because of the rash": "B",
		"Option": "", "O": "", "A patient": "", "A is unlikely": "", "Amoxicillin": "", "E": "",
		"B-cell": "", "": "", "1.": "", "Tetracycline (B)": "",
	}
	for in, want := range tests {
		if got := letterOf(in, os); got != want {
			t.Errorf("letterOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkParseAnswerJSON(b *testing.B) {
	text := `{"reasoning": "The key findings point to B; A is the closest alternative. Fever, headache and a centripetal petechial rash after a hike in the southeastern United States suggest Rocky Mountain spotted fever.", "ranking": ["B","A","D","C"], "confidence": 0.72, "facts": ["Finding 3 of the case supports the leading diagnosis.", "Risk factor 2 raises the pre-test probability."]}`
	b.ReportAllocs()
	for b.Loop() {
		a := Parse(text, abx4)
		if len(a.Ranking) != 4 {
			b.Fatal(a)
		}
	}
}

func BenchmarkParseAnswerText(b *testing.B) {
	text := strings.Repeat("A 45-year-old man presents with fever and a rash after a hike. ", 20) + "\nRANKING: B, A, D, C\nCONFIDENCE: 0.70"
	b.ReportAllocs()
	for b.Loop() {
		if a := Parse(text, abx4); len(a.Ranking) != 4 {
			b.Fatal(fmt.Sprint(a))
		}
	}
}

// TestTruncationNeverMisreads cuts answers of the simulator's shapes at every
// byte: the parse must abstain or read the true first choice, never another
// letter taken from the reasoning.
func TestTruncationNeverMisreads(t *testing.T) {
	sentences := [][3]string{
		{"The key findings point to ", "; ", " is the closest alternative."},
		{"Weighing the presentation, ", " fits best and ", " is less likely."},
		{"", " best explains the case, with ", " a distant second."},
		{"The mechanism described favours ", " over ", "."},
		{"On reflection ", " fits better than ", "; I revise my ranking."},
		{"I keep ", " first; the arguments for ", " do not outweigh the findings."},
		{"I have considered it, but ", " remains ahead of ", "."},
		{"I accept the point and now rank ", " above ", "."},
	}
	for _, sent := range sentences {
		reasoning := sent[0] + "C" + sent[1] + "A" + sent[2]
		full := fmt.Sprintf(`{"reasoning":%q,"ranking":["C","A","D","B"],"confidence":0.70,"facts":["Finding 3 of the case supports the leading diagnosis."]}`, reasoning)
		plain := "REASONING: " + reasoning + "\nRANKING: C, A, D, B\nCONFIDENCE: 0.70\nFACTS: Finding 3 of the case supports the leading diagnosis."
		for _, text := range []string{full, plain, "```json\n" + full + "\n```"} {
			for cut := 0; cut <= len(text); cut++ {
				a := Parse(text[:cut], abx4)
				if len(a.Ranking) > 0 && a.Ranking[0] != "C" {
					t.Fatalf("cut %q read %v by %s", text[:cut], a.Ranking, a.Method)
				}
				if a.Method == MethodJSONPartial && slices.Contains(a.Facts, "Finding 3 of the") {
					t.Fatalf("cut fact kept: %q", a.Facts)
				}
			}
			if a := Parse(text, abx4); !slices.Equal(a.Ranking, []string{"C", "A", "D", "B"}) || a.Confidence != 0.7 {
				t.Fatalf("full %q read %+v", text, a)
			}
		}
	}
}

var diabetes4 = opts("Metformin", "Insulin glargine", "Sitagliptin", "Empagliflozin")

// TestParseAnswerNeverMisreads holds answers that an earlier parser misread:
// a passing mention, an exclusion or a negation taken for the answer.
func TestParseAnswerNeverMisreads(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		options []Option
		want    []string
		reason  string
	}{
		{"answer then best alternative", "The answer is C. Option A is the best alternative, but the timing fits C better.", abx4, []string{"C"}, ""},
		{"exclusion then bare letter", "Options A, B and D can be excluded. C.", abx4, []string{"C"}, ""},
		{"option not indicated", "Option B, insulin glargine, is not indicated here.", diabetes4, nil, ReasonNoAnswer},
		{"no clear conclusion on yes/no/maybe", "No clear conclusion can be drawn from the data presented.", ynm, nil, ReasonNoAnswer},
		{"two different answers", "The answer is B. Looking again at the timing, the answer is C.", abx4, nil, ReasonAmbiguous},
		{"final answer then a different pick", "Final answer: B.\n\nOn balance I'd go with C.", abx4, nil, ReasonAmbiguous},
		{"label then a different conclusion", "ANSWER: B\nExplanation: the rash spares the palms, so the answer is C.", abx4, nil, ReasonAmbiguous},
		{"pick then final answer", "I'd go with B at first glance. Final answer: C", abx4, []string{"C"}, ""},
		{"hedged alternatives", "The answer could be B or C; the stem does not say.", abx4, nil, ReasonAmbiguous},
		{"negated belief", "I don't think the answer is B.", abx4, nil, ReasonNoAnswer},
		{"question is not a commitment", "Is the answer B? The timing argues against it.", abx4, nil, ReasonNoAnswer},
		{"paren contraindicated", "Tetracycline (A) is contraindicated in young children.", abx4, nil, ReasonNoAnswer},
		{"not the option text", "Not doxycycline.", abx4, nil, ReasonNoAnswer},
		{"answer not B but C", "The answer is C, not B.", abx4, []string{"C"}, ""},
		{"bold excluded and bold chosen", "**C** is wrong here; **B** is right.", abx4, []string{"B"}, ""},
		{"bold rather than", "I prefer **C** rather than **B**.", abx4, []string{"C"}, ""},
		{"two bold letters", "**B**\n\n**C**", abx4, nil, ReasonAmbiguous},
		{"letter outside options", "The answer is F.", abx4, nil, ReasonNotAnOption},
		{"second-best is not the answer", "The second-best answer is A; I am not sure about the rest.", abx4, nil, ReasonNoAnswer},
		{"yes then explanation", "Yes, the data support a benefit.", ynm, []string{"A"}, ""},
		{"no then explanation", "No. The trial was underpowered.", ynm, []string{"B"}, ""},
		{"answer no longer", "The answer is no longer obvious once the biopsy is considered.", ynm, nil, ReasonNoAnswer},
		{"refusal", "I'm sorry, but I can't provide medical advice. Please consult a doctor.", abx4, nil, ReasonRefusal},
		{"truncated before ranking", `{"reasoning": "The rash and the tick bite point to`, abx4, nil, ReasonTruncated},
		{"empty", "  ", abx4, nil, ReasonEmpty},
		{"no options", "ANSWER: B", nil, nil, ReasonNoOptions},
		{"letter with another option's text", "The answer is B) Ceftriaxone.", abx4, nil, ReasonAmbiguous},
		{"bare letter with another option's text", "B) Ceftriaxone", abx4, nil, ReasonAmbiguous},
		{"json letter with another option's text", `{"ranking": ["B) Ceftriaxone", "A"], "reasoning": "the answer is C"}`, abx4, nil, ReasonAmbiguous},
		{"json ranking cut at an unknown element", `{"ranking": ["C) Ceftriaxone", "A", "D) Doxycycline", "B"]}`, abx4, []string{"C", "A"}, ""},
		{"restated options are no ranking", "The options are:\n- A) Tetracycline\n- B) Doxycycline\n- C) Ceftriaxone\n- D) Azithromycin\n\nAnswer: B", abx4, []string{"B"}, ""},
		{"opening list of letters", "Options: A, B, C, D. Let me think about each.", abx4, nil, ReasonNoAnswer},
		{"several letters as the answer", "Final answer: B, C", abx4, nil, ReasonAmbiguous},
		{"answer then a remark on another letter", "The answer is B, C is wrong because it misses rickettsiae.", abx4, []string{"B"}, ""},
		{"switch without a conclusion", "Maybe B. Hmm, or C. I'd go with B. No, C is better.", abx4, nil, ReasonAmbiguous},
		{"hedged certainty is no rejection", "Best guess: D (not confident)", abx4, []string{"D"}, ""},
		{"no with a spaced dash", "No — the biopsy comes first.", yn, []string{"B"}, ""},
		{"conditional pick", "B would be correct in a non-pregnant adult.", abx4, nil, ReasonNoAnswer},
		{"conditional answer", "The answer would be B if the patient were not pregnant.", abx4, nil, ReasonNoAnswer},
		{"two options called correct", "B is correct, C is also correct.", abx4, nil, ReasonAmbiguous},
		{"pronoun after no", "No, I don't think so.", ynm, []string{"B"}, ""},
		{"only one correct", "Only B is correct.", abx4, []string{"B"}, ""},
		{"arrow label", "Correct answer → B", abx4, []string{"B"}, ""},
		{"so it's", "The answer can't be A, so it's B.", abx4, []string{"B"}, ""},
		{"I would answer", `Based on the evidence, I would answer "no".`, ynm, []string{"B"}, ""},
		{"leaning towards", "Not sure between B and C. Leaning towards C.", abx4, []string{"C"}, ""},
		{"ranking object shared best rank", `{"ranking": {"A": 1, "C": 1, "B": 2}}`, abx4, nil, ReasonAmbiguous},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Parse(tt.text, tt.options)
			if !slices.Equal(a.Ranking, tt.want) || a.Reason != tt.reason {
				t.Fatalf("ranking %v reason %q, want %v %q (method %s, err %q)", a.Ranking, a.Reason, tt.want, tt.reason, a.Method, a.Err)
			}
		})
	}
}

// TestParseAnswerReadsMore holds clear answers an earlier parser abstained
// on: JSON ranking objects, full-width letters, answer labels in other
// languages, first-person picks, rank tables and prose rankings.
func TestParseAnswerReadsMore(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		want   []string
		method Method
	}{
		{"json positions", `{"reasoning": "x", "ranking": {"1": "C", "2": "A", "3": "B", "4": "D"}, "confidence": 0.6}`, []string{"C", "A", "B", "D"}, MethodJSON},
		{"json ranks", `{"ranking": {"A": 2, "C": 1, "B": 3, "D": 4}}`, []string{"C", "A", "B", "D"}, MethodJSON},
		{"json ranks as strings", `{"ranking": {"A": "2", "C": "1"}}`, []string{"C", "A"}, MethodJSON},
		{"json object is the ranking", "```json\n{\"1\": \"C\", \"2\": \"A\"}\n```", []string{"C", "A"}, MethodJSONEmbedded},
		{"json object of ranks with reasoning", `{"reasoning": "x", "C": 1, "A": 2, "confidence": 0.5}`, []string{"C", "A"}, MethodJSON},
		{"full-width label", "答案：Ｃ", []string{"C"}, MethodAnswerLine},
		{"full-width english", "ＡＮＳＷＥＲ： Ｂ", []string{"B"}, MethodAnswerLine},
		{"full-width json", `{"ranking": ["Ｃ", "Ａ"]}`, []string{"C", "A"}, MethodJSON},
		{"chinese final", "综合分析，最终答案是C。", []string{"C"}, MethodAnswerLine},
		{"chinese correct", "正确答案是C，因为多西环素覆盖立克次体。", []string{"C"}, MethodAnswerLine},
		{"german label", "Antwort: C", []string{"C"}, MethodAnswerLine},
		{"german sentence", "Die richtige Antwort ist C, da das Exanthem typisch ist.", []string{"C"}, MethodAnswerLine},
		{"spanish label", "Respuesta: C", []string{"C"}, MethodAnswerLine},
		{"spanish sentence", "La respuesta correcta es la C.", []string{"C"}, MethodAnswerLine},
		{"french label", "Réponse : C", []string{"C"}, MethodAnswerLine},
		{"french sentence", "La bonne réponse est C.", []string{"C"}, MethodAnswerLine},
		{"portuguese", "A resposta correta é a C.", []string{"C"}, MethodAnswerLine},
		{"italian", "La risposta corretta è C.", []string{"C"}, MethodAnswerLine},
		{"japanese", "正解はCです。", []string{"C"}, MethodAnswerLine},
		{"korean", "정답: C", []string{"C"}, MethodAnswerLine},
		{"dutch", "Het juiste antwoord is C.", []string{"C"}, MethodAnswerLine},
		{"my pick", "My pick: C", []string{"C"}, MethodAnswerLine},
		{"I think it's", "I think it's C.", []string{"C"}, MethodAnswerLine},
		{"I'd go with", "I'd go with C", []string{"C"}, MethodAnswerLine},
		{"I choose", "I choose C", []string{"C"}, MethodAnswerLine},
		{"rank table", "| Rank | Option | Reason |\n|---|---|---|\n| 1 | C | fits |\n| 2 | A | close |\n| 3 | B | less likely |", []string{"C", "A", "B"}, MethodRankTable},
		{"rank table reversed columns", "Here is my ranking:\n\n| Option | Rank |\n|:--|:--:|\n| A | 2 |\n| C | 1 |\n| D | 3 |", []string{"C", "A", "D"}, MethodRankTable},
		{"prose then", "C, then A, then B.", []string{"C", "A", "B"}, MethodProseRanking},
		{"prose followed by", "I'd rank them C first, followed by A and B.", []string{"C", "A", "B"}, MethodProseRanking},
		{"prose ordinals", "C first, A second, B third.", []string{"C", "A", "B"}, MethodProseRanking},
		{"prose chain in a sentence", "My order is C > A > B given the rash.", []string{"C", "A", "B"}, MethodProseRanking},
		{"inline numbered ranking", "RANKING: 1. C 2. A 3. B", []string{"C", "A", "B"}, MethodRankingLine},
		{"most likely label", "Most likely: C", []string{"C"}, MethodAnswerLine},
		{"xml answer tag", "<reasoning>Tick bite.</reasoning>\n<answer>B</answer>", []string{"B"}, MethodAnswerLine},
		{"most likely diagnosis is", "Given the leukopenia, the most likely diagnosis in this patient is C.", []string{"C"}, MethodAnswerLine},
		{"best next step is", "The best next step in management is D.", []string{"D"}, MethodAnswerLine},
		{"not but", "Not A, not B, but C.", []string{"C"}, MethodAnswerLine},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Parse(tt.text, abx4)
			if !slices.Equal(a.Ranking, tt.want) || a.Method != tt.method {
				t.Fatalf("ranking %v by %s, want %v by %s (err %q)", a.Ranking, a.Method, tt.want, tt.method, a.Err)
			}
		})
	}
}

// TestParseNotes: letters outside the options and confidences not taken as
// written are recorded, never silently dropped or rescaled.
func TestParseNotes(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		want   []string
		reason string
		conf   float64
		note   string
	}{
		{"ranking letter outside", "RANKING: B, E, A", []string{"B", "A"}, "", -1, `letter "E" is not an option (options A–D); ignored`},
		{"json letter outside", `{"ranking": ["B", "E", "A"], "confidence": 0.6}`, []string{"B", "A"}, "", 0.6, `letter "E" is not an option (options A–D); ignored`},
		{"json only letters outside", `{"ranking": ["E", "F"], "reasoning": "The answer is B."}`, nil, ReasonNotAnOption, -1, `letter "F" is not an option (options A–D); ignored`},
		{"answer outside", "The answer is F.", nil, ReasonNotAnOption, -1, `letter "F" is not an option (options A–D); ignored`},
		{"ranking line only outside", "RANKING: E\nThe answer is B.", nil, ReasonNotAnOption, -1, `letter "E" is not an option (options A–D); ignored`},
		{"confidence 85", `{"ranking": ["C"], "confidence": 85}`, []string{"C"}, "", -1, "confidence 85 is outside [0,1]; recorded as unknown"},
		{"confidence 1.7", "RANKING: C\nCONFIDENCE: 1.7", []string{"C"}, "", -1, "confidence 1.7 is outside [0,1]; recorded as unknown"},
		{"confidence negative", `{"ranking": ["C"], "confidence": -0.2}`, []string{"C"}, "", -1, "confidence -0.2 is outside [0,1]; recorded as unknown"},
		{"confidence word", "ANSWER: C\nConfidence: high", []string{"C"}, "", -1, `confidence "high" is not a number; recorded as unknown`},
		{"confidence word json", `{"ranking": ["C"], "confidence": "high"}`, []string{"C"}, "", -1, `confidence "high" is not a number; recorded as unknown`},
		{"confidence percent", "ANSWER: C\nConfidence: 95%", []string{"C"}, "", 0.95, "confidence 95% is a percentage; read as 0.95"},
		{"confidence percent json", `{"ranking": ["C"], "confidence": "80%"}`, []string{"C"}, "", 0.8, "confidence 80% is a percentage; read as 0.8"},
		{"confidence percent word", "RANKING: C\nConfidence: 70 percent", []string{"C"}, "", 0.7, "confidence 70 percent is a percentage; read as 0.7"},
		{"confidence percent over 100", "RANKING: C\nConfidence: 150%", []string{"C"}, "", -1, "confidence 150% is outside 0–100%; recorded as unknown"},
		{"confidence fraction", `{"ranking": ["C"], "confidence": "7/10"}`, []string{"C"}, "", 0.7, "confidence 7/10 is a fraction; read as 0.7"},
		{"ranking contradicts reasoning", `{"reasoning": "Weighing it all, the final answer is A.", "ranking": ["C", "A"]}`, []string{"C", "A"}, "", -1, "the text states A as the answer but the ranking puts C first; the ranking is used"},
		{"ranking object tie", `{"ranking": {"A": 1, "C": 1}}`, nil, ReasonAmbiguous, -1, "the ranking object gives the same best rank to A and C; ignored"},
		{"ranking object fractions", `{"ranking": {"A": 0.7, "C": 0.2}}`, nil, ReasonNoAnswer, -1, "ranking object gives A the rank 0.7, not a whole number; ignored"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Parse(tt.text, abx4)
			if !slices.Equal(a.Ranking, tt.want) || a.Reason != tt.reason || !close(a.Confidence, tt.conf) || !slices.Contains(a.Notes, tt.note) {
				t.Fatalf("got ranking %v reason %q confidence %v notes %q", a.Ranking, a.Reason, a.Confidence, a.Notes)
			}
		})
	}
	if a := Parse(`{"reasoning": "x", "ranking": ["B", "A"], "confidence": 0.7}`, abx4); a.Notes != nil {
		t.Errorf("clean answer has notes %q", a.Notes)
	}
}

func TestStatedAnswer(t *testing.T) {
	tests := []struct{ text, want string }{
		{"The answer is B.", "B"},
		{"Answer: B", "B"},
		{"So the correct option is B, given the rash.", "B"},
		{"B is correct.", "B"},
		{"Option B is the best answer here.", "B"},
		{"I'd go with B.", "B"},
		{"The answer is doxycycline.", "B"},
		{"Die richtige Antwort ist B.", "B"},
		{"La respuesta correcta es B.", "B"},
		{"答案：B", "B"},
		{"正确答案是Ｂ", "B"},
		{"Final answer: $\\boxed{B}$", "B"},
		{"Option B is a distractor.", ""},
		{"Consider whether B or C fits the timing better.", ""},
		{"The key qualifier is 'most likely'.", ""},
		{"The question asks for the most likely diagnosis; the key discriminators are the presentation, its timing and the laboratory pattern.", ""},
		{"This is a next-step management question; the stability of the patient and the first-line test decide it.", ""},
		{"The answer hinges on the timing of the rash.", ""},
		{"Whether the answer is B or C depends on the ECG.", ""},
		{"The answer is not B.", ""},
		{"A is the best alternative if the patient is pregnant.", ""},
		{"B", ""},
		{"Options B and C both cover Rickettsia; the stem must separate them.", ""},
		{"The answer must be a drug that covers intracellular organisms.", ""},
		{"The answer is B. The answer is C.", ""},
		{"The answer is F.", ""},
	}
	for _, tt := range tests {
		if got := Stated(tt.text, abx4); got != tt.want {
			t.Errorf("Stated(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	if got := Stated("The answer is B.", nil); got != "" {
		t.Errorf("no options: %q", got)
	}
}

// TestFirstPersonPicks pins the first-person forms (read by firstPerson and
// posPredicate rather than regular expressions, to keep the parser's static
// heap small).
func TestFirstPersonPicks(t *testing.T) {
	tests := map[string]string{
		"I choose D.": "D", "I'd go with option C.": "C", "We prefer C.": "C", "I would still choose B.": "B",
		"I am going to pick A.": "A", "I'll select D": "D", "Let's go with B.": "B", "Going with C.": "C",
		"I believe it is B because of the rash.": "B", "I'd say C.": "C", "I think it's probably D.": "D",
		"So, it's B.": "B", "I would answer D.": "D", "I lean towards C.": "C", "My pick: D": "D",
		"I think C is unlikely.": "", "We think it's C.": "", "I would not choose B.": "", "Is it B?": "",
		"B fits best.": "B", "C explains the findings better than A.": "C", "D is the treatment of choice.": "D",
		"B is the best alternative.": "", "B is better tolerated.": "", "A is clearly the correct answer.": "A",
	}
	for text, want := range tests {
		if got := Parse(text, abx4).First(); got != want {
			t.Errorf("%q read %q, want %q", text, got, want)
		}
	}
}

// TestParseListsAndClosingMarks holds the shapes of issue 33: a numbered
// list of facts or option texts is no ranking beside an explicit answer
// statement naming another option (the statement outranks it); a statement
// of several options abstains whatever list precedes it; a closing
// sentence "… would be to give X (option B)." names B. The last rows are
// guards: a list the statement agrees with stays the ranking, and a
// closing mark under a condition or a negation, or before another
// sentence, names nothing.
func TestParseListsAndClosingMarks(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
		reason     string
	}{
		{"list of option texts then answer", "Tetracyclines that cover Rickettsia:\n1. Tetracycline\n2. Doxycycline\n\nIn a child under eight both stain teeth, and the rash is meningococcal. The answer is (C).", []string{"C"}, ""},
		{"answer then list of option texts", "Final answer: (D)\n\nOther drugs used for tick-borne disease:\n1. Doxycycline\n2. Tetracycline", []string{"D"}, ""},
		{"list then several letters", "The drugs active against Rickettsia:\n1. Tetracycline\n2. Doxycycline\n\nThe answer is (B), (C), (D).", nil, ReasonAmbiguous},
		{"lettered list then several letters", "1. (B) Doxycycline\n2. (C) Ceftriaxone\n3. (D) Azithromycin\n\nThe answer is (B), (C), (D).", nil, ReasonAmbiguous},
		{"list then answer cut mid-sentence", "1. Tetracycline\n2. Doxycycline\n\nThe answer is (C). Ceftriaxone covers the", []string{"C"}, ""},
		{"closing mark after weighing", "Ceftriaxone (C) misses Rickettsia, and azithromycin (D) is second line.\n\nThe best treatment would be to give doxycycline for seven days (option B).", []string{"B"}, ""},
		{"closing mark course of action", "Tetracycline (A) stains teeth. The best course of action is to start doxycycline at once (B).", []string{"B"}, ""},
		{"guard: list the statement agrees with", "1. Doxycycline\n2. Tetracycline\n\nThe answer is (B).", []string{"B", "A"}, ""},
		{"guard: closing mark under a condition", "The best treatment would be to give doxycycline if the child were older (option B).", nil, ReasonNoAnswer},
		{"guard: closing mark negated", "The best treatment is not to give doxycycline (option B).", nil, ReasonNoAnswer},
		{"guard: closing mark with alternatives", "The best treatment would be to give doxycycline or ceftriaxone (option C).", nil, ReasonNoAnswer},
		{"guard: closing mark names another letter", "The best treatment would be to add ceftriaxone to the drug in B (option C).", nil, ReasonNoAnswer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Parse(tt.text, abx4)
			if !slices.Equal(a.Ranking, tt.want) || a.Reason != tt.reason {
				t.Fatalf("ranking %v reason %q, want %v %q (method %s, err %q)", a.Ranking, a.Reason, tt.want, tt.reason, a.Method, a.Err)
			}
		})
	}
}
