package triage

import (
	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/task"
	"github.com/medteam-bench/medteam/tasks/choice"
)

// Task scores triage items (kind "triage"): as multiple choice (the
// levels are the options) and by the columns of Score.
var Task = &task.Task{
	Name: "triage",
	Kind: qa.KindTriage,
	Doc: "A case to route to a level of an ordinal urgency scale (the options), with the correct diagnosis and specialty " +
		"where the dataset gives them: correct as on multiple choice; under-triage, over-triage and safe by rank; the " +
		"team's stated diagnosis and specialty matched against the dataset's (normalised text, or the model with --diagnosis-judge).",
	Columns: append(append([]string(nil), choice.Columns...), Columns...),
	Metrics: []string{"under_triage", "over_triage", "safe", "kappa", "diagnosis_match"},
	Blank:   Blank,
	Score:   Score,
	Judge:   JudgeDiagnosis,
	Sim:     &Sim,
}

// Columns are the question-row columns the triage task fills besides the
// multiple-choice ones.
var Columns = []string{"item_kind", "urgency", "urgency_rank", "predicted_urgency", "predicted_rank", "urgency_levels",
	"under_triage", "over_triage", "safe", "diagnosis", "gold_diagnosis", "diagnosis_match", "diagnosis_method",
	"specialty", "gold_specialty", "specialty_match", "red_flag"}

// Blank gives the ranks of a row that is not a triage item's their
// not-applicable value, -1.
func Blank(r *results.QuestionRow) { r.UrgencyRank, r.PredictedRank = -1, -1 }

// Score scores a triage question as multiple choice (choice.Score), then
// fills the triage columns (those Columns lists).
func Score(r *results.QuestionRow, q qa.Question, out *protocol.Outcome) {
	choice.Score(r, q, out)
	fill(r, q, out)
}

// fill fills the triage columns of a triage question's row (a
// question of kind triage without a scale keeps the blank values):
//   - always: item_kind, the true level (urgency, urgency_rank), the
//     scale's size, the gold diagnosis and specialty;
//   - with an outcome (out not nil, no error): the predicted level
//     (predicted_urgency, predicted_rank; -1 and no flag set when the
//     protocol abstained), under_triage (predicted less urgent than the
//     truth), over_triage (more urgent), safe (at or above the truth), the
//     red-flag rule that fired, and the team's diagnosis and specialty with
//     their match against the gold (TeamDiagnosis; matched by
//     DiagnosisMatch and SpecialtyMatch, method
//     "normalized"; null when either side is empty).
//
// A row with an error (out nil) has predicted_rank -1 and none of
// under/over/safe set.
func fill(r *results.QuestionRow, q qa.Question, out *protocol.Outcome) {
	item := q.Item()
	if !item.IsTriage() {
		return
	}
	r.ItemKind = qa.KindTriage
	r.UrgencyLevels = int32(len(item.Triage.Scale))
	r.Urgency, r.UrgencyRank = item.Code(q.Gold), int32(item.Rank(q.Gold))
	if g := q.TriageGold; g != nil {
		r.GoldDiagnosis, r.GoldSpecialty = g.Diagnosis, g.Specialty
	}
	if out == nil {
		return
	}
	r.RedFlag = out.RedFlag
	if pr := item.Rank(out.Predicted); out.Predicted != "" && pr >= 0 && r.UrgencyRank >= 0 {
		r.PredictedUrgency, r.PredictedRank = item.Code(out.Predicted), int32(pr)
		r.UnderTriage = r.PredictedRank < r.UrgencyRank
		r.OverTriage = r.PredictedRank > r.UrgencyRank
		r.Safe = !r.UnderTriage
	}
	r.Diagnosis, r.Specialty = TeamDiagnosis(out)
	if m, ok := DiagnosisMatch(r.Diagnosis, r.GoldDiagnosis); ok {
		r.DiagnosisMatch, r.DiagnosisMethod = &m, Method
	}
	if m, ok := SpecialtyMatch(r.Specialty, r.GoldSpecialty); ok {
		r.SpecialtyMatch = &m
	}
}

// TeamDiagnosis is the team's diagnosis and specialty: the protocol's
// (Outcome.Diagnosis, Outcome.Specialty) when it set them, else each from
// the final answers — the most confident final answer whose first choice is
// the prediction and that states one, else the most confident answer that
// states one (an unknown confidence counts below any stated one; on equal
// confidence the earlier agent).
func TeamDiagnosis(out *protocol.Outcome) (diagnosis, specialty string) {
	final := out.Final()
	diagnosis, specialty = out.Diagnosis, out.Specialty
	if diagnosis == "" {
		diagnosis = mostConfident(final, out.Predicted, func(a answer.Answer) string { return a.Diagnosis })
	}
	if specialty == "" {
		specialty = mostConfident(final, out.Predicted, func(a answer.Answer) string { return a.Specialty })
	}
	return diagnosis, specialty
}

// mostConfident is the value (get) of the most confident answer that
// states one, preferring answers whose first choice is predicted.
func mostConfident(as []answer.Answer, predicted string, get func(answer.Answer) string) string {
	for _, onlyPredicted := range []bool{true, false} {
		best, bestConf := "", -2.0
		for _, a := range as {
			v := get(a)
			if v == "" || onlyPredicted && (predicted == "" || a.First() != predicted) {
				continue
			}
			if a.Confidence > bestConf {
				best, bestConf = v, a.Confidence
			}
		}
		if best != "" {
			return best
		}
	}
	return ""
}
