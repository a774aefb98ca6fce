package answer_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/answer/answertest"
)

func FuzzParseAnswer(f *testing.F) {
	seeds := append(slices.Clip(answertest.Seeds), answertest.Outputs(f, corpus)...)
	for i, s := range seeds {
		f.Add(s, answertest.FuzzTexts[i%len(answertest.FuzzTexts)], uint8(i*7))
	}
	f.Fuzz(func(t *testing.T, text, optText string, n uint8) {
		options := answertest.FuzzOptions(n, optText)
		answertest.CheckAnswer(t, answer.Parse(text, options), options)
		// Whatever the reasoning says, a valid JSON ranking is read as written.
		q, _ := json.Marshal(text)
		js := `{"reasoning": ` + string(q) + `, "ranking": ["B", "A"], "confidence": 0.5}`
		if a := answer.Parse(js, options); !slices.Equal(a.Ranking, []string{"B", "A"}) || a.Method != answer.MethodJSON || a.Confidence != 0.5 {
			t.Fatalf("json %q read %+v", js, a)
		}
		// ... and so is the last RANKING line of the plain-text form (unless
		// the reasoning holds a JSON object, which comes first).
		flat := strings.NewReplacer("\n", " ", "\r", " ").Replace(text)
		if a := answer.Parse("REASONING: "+flat+"\nRANKING: B, A", options); !strings.Contains(flat, "{") && (!slices.Equal(a.Ranking, []string{"B", "A"}) || a.Method != answer.MethodRankingLine) {
			t.Fatalf("plain reasoning %q read %+v", flat, a)
		}
		if L := answer.Stated(text, options); L != "" && !slices.ContainsFunc(options, func(o answer.Option) bool { return o.Letter == L }) {
			t.Fatalf("stated answer %q not an option", L)
		}
	})
}
