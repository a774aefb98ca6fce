package judge

import (
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/answer/answertest"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
)

var abcd = []answer.Option{{Letter: "A", Text: "Aspirin"}, {Letter: "B", Text: "Heparin"}, {Letter: "C", Text: "Warfarin"}, {Letter: "D", Text: "Alteplase"}}

// TestDecisions: the judge's answer decides; its low-confidence flag falls
// back to the safe default; without a readable flag the harness applies the
// 0.70 rule; an unreadable answer is an abstention.
func TestDecisions(t *testing.T) {
	confident := []string{kittest.First("B", 0.8, 0.2, false), kittest.First("A", 0.75, 0.2, false), kittest.First("A", 0.8, 0.2, false)}
	hesitant := []string{kittest.First("B", 0.5, 0.5, false), kittest.First("A", 0.6, 0.4, false), kittest.First("A", 0.6, 0.4, false)}
	tests := []struct {
		name      string
		experts   []string
		judge     string
		predicted string
		rule      string
		reason    string
		agrees    bool
	}{
		{"the judge overrules the plurality", confident, `{"reasoning":"B is better argued.","answer":"B","average_confidence":0.78,"low_confidence":false}`, "B", RuleJudge, "", false},
		{"the judge follows the plurality", confident, "REASONING: r\nANSWER: A\nAVERAGE CONFIDENCE: 0.78\nLOW CONFIDENCE: no", "A", RuleJudge, "", true},
		{"the judge flags a weak consensus", hesitant, `{"reasoning":"r","answer":"A","average_confidence":0.57,"low_confidence":true}`, "", RuleJudgeLowConfidence, "low_confidence: the judge flagged", true},
		{"a flag the judge sets against the numbers still decides", confident, `{"reasoning":"r","answer":"A","average_confidence":0.78,"low_confidence":true}`, "", RuleJudgeLowConfidence, "low_confidence", true},
		{"no flag: the harness applies the rule", hesitant, `{"reasoning":"r","answer":"A"}`, "", RuleLowConfidence, "low_confidence: the judge's flag is unreadable and the experts' mean confidence 0.57 < 0.70", true},
		{"no flag, confident experts", confident, `{"reasoning":"r","answer":"A"}`, "A", RuleJudge, "", true},
		{"an answer that is not an option", confident, `{"reasoning":"r","answer":"E","average_confidence":0.78,"low_confidence":false}`, "", RuleJudgeUnparsed, "judge_unparsed: answer E is not one of the options", false},
		{"an answer naming two options", confident, "ANSWER: A or B\nLOW CONFIDENCE: no", "", RuleJudgeUnparsed, "judge_unparsed", false},
		{"an empty reply", confident, "", "", RuleJudgeUnparsed, "judge_unparsed: empty response", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &kittest.Script{Answers: map[string]string{kittest.Key(kit.KindJudge, 0, -1): tt.judge}}
			for i, a := range tt.experts {
				s.Answers[kittest.Key(kit.KindFirst, 0, i)] = a
			}
			out := kittest.Run(t, Protocol, "judge", kittest.Settings(3), s)
			det := out.Details.(Details)
			if out.Predicted != tt.predicted || out.Decision.Rule != tt.rule || !strings.HasPrefix(out.AbstainReason, tt.reason) || det.AgreesWithPlurality != tt.agrees {
				t.Fatalf("predicted %q rule %q reason %q agrees %v; want %q %q %q %v", out.Predicted, out.Decision.Rule, out.AbstainReason, det.AgreesWithPlurality, tt.predicted, tt.rule, tt.reason, tt.agrees)
			}
		})
	}
}

// TestJudgeSees: the judge's prompt shows every expert's position,
// confidence and reasoning, an unreadable expert as such.
func TestJudgeSees(t *testing.T) {
	s := &kittest.Script{Answers: map[string]string{
		kittest.Key(kit.KindFirst, 0, 0):  kittest.First("B", 0.8, 0.2, false),
		kittest.Key(kit.KindFirst, 0, 1):  "Hmm.",
		kittest.Key(kit.KindFirst, 0, 2):  kittest.First("A", 0.6, 0.4, false),
		kittest.Key(kit.KindJudge, 0, -1): `{"answer":"B","average_confidence":0.7,"low_confidence":false}`,
	}}
	out := kittest.Run(t, Protocol, "judge", kittest.Settings(3), s)
	p := s.User(t, kittest.Key(kit.KindJudge, 0, -1))
	for _, want := range []string{
		"POSITION agent 1: B > A > C > D (confidence 0.80)\nREASONING agent 1: B fits the findings.\n",
		"POSITION agent 2: (no readable answer)\n",
		"POSITION agent 3: A > B > C > D (confidence 0.60)\nREASONING agent 3: A fits the findings.\n",
	} {
		if !strings.Contains(p, want) {
			t.Fatalf("judge prompt lacks %q:\n%s", want, p)
		}
	}
	if c := len(s.Keys()); c != 4 || out.Predicted != "B" {
		t.Fatalf("%d calls, predicted %q", c, out.Predicted)
	}
	det := out.Details.(Details)
	if det.ComputedMeanConfidence < 0.4666 || det.ComputedMeanConfidence > 0.4667 || det.FlagConsistent == nil || *det.FlagConsistent {
		t.Fatalf("the flag (false) disagrees with the computed mean 0.47: %+v", det)
	}
}

func TestParseJudgement(t *testing.T) {
	for _, tt := range []struct {
		text           string
		answer, reason string
		avg            float64
		low, lowRead   bool
		note           string
	}{
		{`{"reasoning":"r","answer":"C","average_confidence":0.66,"low_confidence":true}`, "C", "", 0.66, true, true, ""},
		{"```json\n{\"answer\": \"Warfarin\", \"average_confidence\": \"72%\", \"low_confidence\": \"no\"}\n```", "C", "", 0.72, false, true, "read as 0.72"},
		{"REASONING: Two experts favour A.\nANSWER: A\nAVERAGE CONFIDENCE: 0.81\nLOW CONFIDENCE: No", "A", "", 0.81, false, true, ""},
		{"ANSWER: B\nAVERAGE CONFIDENCE: 81\nLOW CONFIDENCE: perhaps", "B", "", -1, false, false, "not a yes or no"},
		{"The consensus answer is D.", "D", "", -1, false, false, "no low-confidence flag"},
		{"Either A or B could be right.", "", answer.ReasonNoAnswer, -1, false, false, ""},
		{"ANSWER: A\nANSWER: C", "", answer.ReasonAmbiguous, -1, false, false, ""},
		{`{"answer":"E"}`, "", answer.ReasonNotAnOption, -1, false, false, ""},
		{"", "", answer.ReasonEmpty, -1, false, false, ""},
	} {
		j := ParseJudgement(tt.text, abcd)
		if j.Answer != tt.answer || (tt.reason != "" && j.Reason != tt.reason) || j.AverageConfidence != tt.avg || j.LowConfidence != tt.low || j.LowConfidenceRead != tt.lowRead {
			t.Fatalf("%q: %+v", tt.text, j)
		}
		if tt.note != "" && !slices.ContainsFunc(j.Notes, func(n string) bool { return strings.Contains(n, tt.note) }) {
			t.Fatalf("%q: notes %q lack %q", tt.text, j.Notes, tt.note)
		}
	}
}

// FuzzParseJudgement: never panics, never names a letter that is not an
// option, an abstention always has a reason, numbers stay in range.
func FuzzParseJudgement(f *testing.F) {
	for _, s := range answertest.Seeds {
		f.Add(s, uint8(3), "x")
	}
	f.Add(`{"answer":"B","average_confidence":1e400,"low_confidence":"yes"}`, uint8(3), "Heparin")
	f.Add("ANSWER: **C**\nLOW CONFIDENCE: yes\nAVERAGE CONFIDENCE: 7/10", uint8(2), "y")
	f.Fuzz(func(t *testing.T, text string, n uint8, optText string) {
		opts := answertest.FuzzOptions(n, optText)
		j := ParseJudgement(text, opts)
		if j.Answer != "" && !slices.ContainsFunc(opts, func(o answer.Option) bool { return o.Letter == j.Answer }) {
			t.Fatalf("answer %q not an option", j.Answer)
		}
		if j.Answer == "" && (j.Reason == "" || j.Err == "") {
			t.Fatalf("abstention without a reason: %+v", j)
		}
		if j.AverageConfidence != -1 && (j.AverageConfidence < 0 || j.AverageConfidence > 1) {
			t.Fatalf("average %v", j.AverageConfidence)
		}
		if j.LowConfidence && !j.LowConfidenceRead {
			t.Fatal("flag without a reading")
		}
	})
}
