package judge

import (
	"math"
	"slices"
	"testing"
)

var mcq = Task{Letters: []string{"A", "B", "C", "D"}}

var tri = Task{Letters: []string{"A", "B", "C"}, Levels: 3, Ranks: []int{0, 1, 2}}

func mc(answer string, conf float64) AgentOutput {
	return AgentOutput{Answer: answer, Urgency: -1, Confidence: conf}
}

func tr(rank int, conf float64, specialty string) AgentOutput {
	return AgentOutput{Urgency: rank, Confidence: conf, Specialty: specialty}
}

// TestConsensus: known answers of seed 003's algorithm — the plurality and
// its tie, the average confidence over all agents (a missing one as 0), the
// 0.70 threshold (reached at 0.70), the confidence-weighted urgency (half
// up, the middle level when Σc = 0, none named → -1), the specialty vote
// (tie, none, low confidence → General Practice, the urgency kept).
func TestConsensus(t *testing.T) {
	spec := tri
	spec.AskSpecialty = true
	for _, tc := range []struct {
		name      string
		task      Task
		outs      []AgentOutput
		answer    string
		urgency   int
		specialty string
		avg       float64
		low       bool
		branch    string
		spBranch  string
		mean      float64
	}{
		{"plurality", mcq, []AgentOutput{mc("A", 0.8), mc("A", 0.9), mc("B", 0.7)}, "A", -1, "", 0.8, false, "plurality", "", -1},
		{"two-way tie", mcq, []AgentOutput{mc("A", 0.9), mc("B", 0.9)}, "", -1, "", 0.9, false, "tie", "", -1},
		{"three-way tie", mcq, []AgentOutput{mc("A", 0.9), mc("B", 0.9), mc("C", 0.9)}, "", -1, "", 0.9, false, "tie", "", -1},
		{"low confidence", mcq, []AgentOutput{mc("A", 0.6), mc("A", 0.6), mc("B", 0.7)}, "", -1, "", 1.9 / 3, true, "low_confidence", "", -1},
		{"a tie with low confidence is a tie", mcq, []AgentOutput{mc("A", 0.5), mc("B", 0.5)}, "", -1, "", 0.5, true, "tie", "", -1},
		{"a missing confidence counts 0", mcq, []AgentOutput{mc("A", 0.9), mc("A", -1), mc("A", 0.9)}, "", -1, "", 0.6, true, "low_confidence", "", -1},
		{"an unreadable agent counts in the mean", mcq, []AgentOutput{mc("A", 0.9), mc("A", 0.9), mc("", -1)}, "", -1, "", 0.6, true, "low_confidence", "", -1},
		{"0.70 is not below 0.70", mcq, []AgentOutput{mc("C", 0.7), mc("C", 0.7), mc("D", 0.7)}, "C", -1, "", 0.7, false, "plurality", "", -1},
		{"a confidence above 1 counts 1", mcq, []AgentOutput{mc("B", 1.5), mc("B", 0.4)}, "B", -1, "", 0.7, false, "plurality", "", -1},
		{"no readable answer", mcq, []AgentOutput{mc("", -1), mc("", 0.9)}, "", -1, "", 0.45, true, "no_votes", "", -1},
		// (2·0.9 + 0·0.3 + 1·0.6) / 1.8 = 1.333 → ne; mean 0.6 < 0.70: low, urgency kept.
		{"weighted urgency, low confidence keeps it", tri, []AgentOutput{tr(2, 0.9, ""), tr(0, 0.3, ""), tr(1, 0.6, "")}, "", 1, "", 0.6, true, "weighted_urgency", "", 4.0 / 3},
		{"weighted urgency", tri, []AgentOutput{tr(2, 0.9, ""), tr(2, 0.8, ""), tr(0, 0.8, "")}, "", 1, "", 2.5 / 3, false, "weighted_urgency", "", 3.4 / 2.5},
		{"half rounds up", tri, []AgentOutput{tr(2, 0.8, ""), tr(1, 0.8, "")}, "", 2, "", 0.8, false, "weighted_urgency", "", 1.5},
		{"an agent without a level is left out of the urgency", tri, []AgentOutput{tr(0, 0.9, ""), tr(-1, 0.9, ""), tr(0, 0.9, "")}, "", 0, "", 0.9, false, "weighted_urgency", "", 0},
		{"zero confidence: the middle level", tri, []AgentOutput{tr(0, 0, ""), tr(2, -1, "")}, "", 1, "", 0, true, "zero_confidence_default", "", -1},
		{"no level named", tri, []AgentOutput{tr(-1, 0.9, ""), tr(-1, 0.9, "")}, "", -1, "", 0.9, false, "no_votes", "", -1},
		{"specialty plurality", spec, []AgentOutput{tr(2, 0.8, "Cardiology"), tr(2, 0.8, " cardiology"), tr(1, 0.8, "Neurology")}, "", 2, "Cardiology", 0.8, false, "weighted_urgency", "plurality", 4.0 / 2.4},
		{"specialty tie", spec, []AgentOutput{tr(2, 0.8, "Cardiology"), tr(2, 0.8, "Neurology")}, "", 2, "General Practice", 0.8, false, "weighted_urgency", "tie", 2},
		{"no specialty named", spec, []AgentOutput{tr(1, 0.8, ""), tr(1, 0.8, "")}, "", 1, "General Practice", 0.8, false, "weighted_urgency", "no_votes", 1},
		{"low confidence: General Practice, urgency kept", spec, []AgentOutput{tr(2, 0.5, "Cardiology"), tr(2, 0.5, "Cardiology")}, "", 2, "General Practice", 0.5, true, "weighted_urgency", "low_confidence", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Consensus(tc.outs, tc.task)
			if r.Answer != tc.answer || r.Urgency != tc.urgency || r.Specialty != tc.specialty || math.Abs(r.AverageConfidence-tc.avg) > 1e-9 ||
				r.LowConfidence != tc.low || r.Branch != tc.branch || r.SpecialtyBranch != tc.spBranch || math.Abs(r.UrgencyMean-tc.mean) > 1e-9 {
				t.Fatalf("got answer %q urgency %d specialty %q avg %v low %v branch %q/%q mean %v\nwant %q %d %q %v %v %q/%q %v",
					r.Answer, r.Urgency, r.Specialty, r.AverageConfidence, r.LowConfidence, r.Branch, r.SpecialtyBranch, r.UrgencyMean,
					tc.answer, tc.urgency, tc.specialty, tc.avg, tc.low, tc.branch, tc.spBranch, tc.mean)
			}
		})
	}
	// Votes are counts in option order (multiple choice) or rank order (triage).
	if v := Consensus([]AgentOutput{mc("B", 1), mc("B", 1), mc("D", 1)}, mcq).Votes; !slices.Equal(v, []float64{0, 2, 0, 1}) {
		t.Fatalf("votes %v", v)
	}
	if v := Consensus([]AgentOutput{tr(2, 1, ""), tr(0, 1, ""), tr(2, 1, "")}, tri).Votes; !slices.Equal(v, []float64{1, 0, 2}) {
		t.Fatalf("triage votes %v", v)
	}
}

// TestCompare: the agreement of a verdict with the code's result, field by
// field: the answer (NONE = the safe default), the urgency, the specialty
// (case and spaces ignored), the average (within 0.01) and the flag; an
// unread field disagrees.
func TestCompare(t *testing.T) {
	spec := tri
	spec.AskSpecialty = true
	code := Result{Answer: "A", Urgency: -1, AverageConfidence: 0.7667, LowConfidence: false}
	safe := Result{Answer: "", Urgency: -1, AverageConfidence: 0.5, LowConfidence: true}
	triage := Result{Urgency: 2, Specialty: "General Practice", AverageConfidence: 0.8}
	v := func(answer string, avg float64, low, read bool) Verdict {
		return Verdict{Answer: answer, Urgency: -1, AverageConfidence: avg, LowConfidence: low, LowConfidenceRead: read}
	}
	none := v("", 0.5, true, true)
	none.None = true
	for _, tc := range []struct {
		name string
		v    Verdict
		r    Result
		task Task
		want []string
	}{
		{"agree", v("A", 0.77, false, true), code, mcq, nil},
		{"average within 0.01", v("A", 0.76, false, true), code, mcq, nil},
		{"average off", v("A", 0.75, false, true), code, mcq, []string{FieldAverage}},
		{"another answer", v("B", 0.77, false, true), code, mcq, []string{FieldAnswer}},
		{"NONE for the safe default", none, safe, mcq, nil},
		{"NONE against an answer", none, code, mcq, []string{FieldAnswer, FieldAverage, FieldLowConfidence}},
		{"an answer against the safe default", v("A", 0.5, true, true), safe, mcq, []string{FieldAnswer}},
		{"unread answer, average and flag", v("", -1, false, false), code, mcq, []string{FieldAnswer, FieldAverage, FieldLowConfidence}},
		{"triage agree", Verdict{Urgency: 2, Specialty: "general  practice", AverageConfidence: 0.8, LowConfidenceRead: true}, triage, spec, nil},
		{"triage urgency and specialty", Verdict{Urgency: 1, Specialty: "Cardiology", AverageConfidence: 0.8, LowConfidenceRead: true}, triage, spec, []string{FieldUrgency, FieldSpecialty}},
		{"triage unread urgency", Verdict{Urgency: -1, Specialty: "General Practice", AverageConfidence: 0.8, LowConfidenceRead: true}, triage, spec, []string{FieldUrgency}},
		{"no specialty asked", Verdict{Urgency: 2, AverageConfidence: 0.8, LowConfidenceRead: true}, Result{Urgency: 2, AverageConfidence: 0.8}, tri, nil},
	} {
		if got := Compare(tc.v, tc.r, tc.task); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
