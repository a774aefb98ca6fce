package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

func TestSummarize(t *testing.T) {
	rows := []results.QuestionRow{
		{Arm: "base", Correct: true, Predicted: "A", AgreementInitial: 0.5, AgreementFinal: 1, Unanimous: true, Calls: 11, PromptTokens: 100, CompletionTokens: 10},
		{Arm: "base", Predicted: "B", AgreementInitial: 1, AgreementFinal: 1, Unanimous: true, Calls: 11, PromptTokens: 100, CompletionTokens: 10, Tie: true},
		{Arm: "base", Abstained: true, AgreementInitial: 0, AgreementFinal: 0, Calls: 11, PromptTokens: 100, CompletionTokens: 10, ParseFailures: 6},
		{Arm: "base", Error: "boom", ErrorClass: "context_length", Calls: 3, PromptTokens: 30},
		{Arm: "full", Correct: true, Predicted: "C", AgreementInitial: 2.0 / 3, AgreementFinal: 1, Calls: 17, PromptTokens: 200, CompletionTokens: 20},
	}
	sums := Summarize(rows)
	if len(sums) != 2 || sums[0].Arm != "base" || sums[1].Arm != "full" {
		t.Fatalf("arms %+v", sums)
	}
	b := sums[0]
	checks := []struct {
		name      string
		got, want float64
	}{
		{"questions", float64(b.Questions), 4},
		{"accuracy (errors and abstentions in the denominator)", b.Accuracy(), 0.25},
		{"coverage", b.Coverage(), 0.5},
		{"selective accuracy", b.SelectiveAccuracy(), 0.5},
		{"abstained", float64(b.Abstained), 1},
		{"errors", float64(b.Errors), 1},
		{"ties", float64(b.Ties), 1},
		{"agreement initial (answered rows)", b.AgreementInitial, 0.5},
		{"agreement final", b.AgreementFinal, 2.0 / 3},
		{"convergence gain", b.ConvergenceGain(), 2.0/3 - 0.5},
		{"calls/q", b.CallsPerQuestion, 36.0 / 4},
		{"tokens/q", b.TokensPerQuestion, 360.0 / 4},
		{"parse failures", float64(b.ParseFailures), 6},
		{"context_length errors", float64(b.ErrorClasses["context_length"]), 1},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, sums); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"25.0%", "100.0%", "errors in base: context_length 1"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, buf.String())
		}
	}
	if got := Summarize(nil); len(got) != 0 {
		t.Fatalf("empty input: %+v", got)
	}
}
