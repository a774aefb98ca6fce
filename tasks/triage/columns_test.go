package triage

import (
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
)

// triageQ is a triage question with its options in shuffled order (A = em,
// B = sc, C = ne), so ranks, not positions, decide; the truth is ne (C).
func triageQ() qa.Question {
	scale := []qa.Level{{Code: "sc", Name: "Self-care"}, {Code: "ne", Name: "Non-emergency"}, {Code: "em", Name: "Emergency care"}}
	return qa.Question{ID: "semigran-1", Stem: "Case: x", Gold: "C", Kind: qa.KindTriage,
		Options:    []qa.Option{{Letter: "A", Text: "em"}, {Letter: "B", Text: "sc"}, {Letter: "C", Text: "ne"}},
		Triage:     &qa.Triage{Scale: scale, Ranks: []int{2, 0, 1}},
		TriageGold: &qa.TriageGold{Diagnosis: "Urinary tract infection", Specialty: "General Practice"}}
}

func ans(first string, conf float64, dx string) answer.Answer {
	return answer.Answer{Ranking: []string{first}, Confidence: conf, Diagnosis: dx}
}

func boolp(b bool) *bool { return &b }

// TestTriageColumns: known answers for each prediction, the diagnosis rule
// and the error row.
func TestTriageColumns(t *testing.T) {
	final := []answer.Answer{ans("A", 0.9, "Pyelonephritis"), ans("C", 0.6, "Cystitis"), ans("C", 0.8, ""), ans("B", -1, "Cold")}
	cases := []struct {
		name                 string
		out                  *protocol.Outcome
		code                 string
		rank                 int32
		under, over, safe    bool
		dx                   string
		match                *bool
		method, spec, redFlg string
	}{
		{"correct: the most confident agreeing answer with a diagnosis", &protocol.Outcome{Predicted: "C", Rounds: [][]answer.Answer{final}},
			"ne", 1, false, false, true, "Cystitis", boolp(true), "normalized", "", ""},
		{"over-triage: the agreeing answer's diagnosis", &protocol.Outcome{Predicted: "A", Rounds: [][]answer.Answer{final}, RedFlag: "sepsis"},
			"em", 2, false, true, true, "Pyelonephritis", boolp(false), "normalized", "", "sepsis"},
		{"under-triage", &protocol.Outcome{Predicted: "B", Rounds: [][]answer.Answer{final}},
			"sc", 0, true, false, false, "Cold", boolp(false), "normalized", "", ""},
		{"no agreeing answer states one: the most confident that does", &protocol.Outcome{Predicted: "B", Rounds: [][]answer.Answer{final[:3]}},
			"sc", 0, true, false, false, "Pyelonephritis", boolp(false), "normalized", "", ""},
		{"the protocol's own diagnosis and specialty win", &protocol.Outcome{Predicted: "C", Diagnosis: "UTI", Specialty: "general practice", Rounds: [][]answer.Answer{final}},
			"ne", 1, false, false, true, "UTI", boolp(true), "normalized", "general practice", ""},
		{"abstention: no prediction, no flag", &protocol.Outcome{Rounds: [][]answer.Answer{{ans("C", 0.5, "")}}},
			"", -1, false, false, false, "", nil, "", "", ""},
	}
	for _, tc := range cases {
		var r results.QuestionRow
		Blank(&r)
		Score(&r, triageQ(), tc.out)
		if r.ItemKind != "triage" || r.Urgency != "ne" || r.UrgencyRank != 1 || r.UrgencyLevels != 3 || r.GoldDiagnosis != "Urinary tract infection" || r.GoldSpecialty != "General Practice" {
			t.Errorf("%s: gold columns %+v", tc.name, r)
		}
		if r.PredictedUrgency != tc.code || r.PredictedRank != tc.rank || r.UnderTriage != tc.under || r.OverTriage != tc.over || r.Safe != tc.safe {
			t.Errorf("%s: predicted %q %d under %v over %v safe %v", tc.name, r.PredictedUrgency, r.PredictedRank, r.UnderTriage, r.OverTriage, r.Safe)
		}
		if r.Diagnosis != tc.dx || (r.DiagnosisMatch == nil) != (tc.match == nil) || tc.match != nil && *r.DiagnosisMatch != *tc.match || r.DiagnosisMethod != tc.method {
			t.Errorf("%s: diagnosis %q match %v method %q", tc.name, r.Diagnosis, r.DiagnosisMatch, r.DiagnosisMethod)
		}
		if r.Specialty != tc.spec || r.RedFlag != tc.redFlg || (tc.spec != "") != (r.SpecialtyMatch != nil) || r.SpecialtyMatch != nil && !*r.SpecialtyMatch {
			t.Errorf("%s: specialty %q match %v red flag %q", tc.name, r.Specialty, r.SpecialtyMatch, r.RedFlag)
		}
	}
}

// TestScoreTriage: the row of a failed question keeps the truth and no
// prediction; a prediction is scored as multiple choice too.
func TestScoreTriage(t *testing.T) {
	var r results.QuestionRow
	Blank(&r)
	Score(&r, triageQ(), nil)
	if r.ItemKind != "triage" || r.Urgency != "ne" || r.PredictedRank != -1 || r.UnderTriage || r.OverTriage || r.Safe || r.DiagnosisMatch != nil || r.Correct || r.Abstained {
		t.Errorf("error row: %+v", r)
	}
	r = results.QuestionRow{}
	Blank(&r)
	Score(&r, triageQ(), &protocol.Outcome{Predicted: "A"})
	if r.PredictedUrgency != "em" || !r.OverTriage || !r.Safe || r.Correct || r.Abstained {
		t.Errorf("over-triage row: %+v", r)
	}
	r = results.QuestionRow{}
	Blank(&r)
	Score(&r, triageQ(), &protocol.Outcome{Predicted: "C"})
	if r.PredictedUrgency != "ne" || r.OverTriage || r.UnderTriage || !r.Safe || !r.Correct {
		t.Errorf("correct row: %+v", r)
	}
}
