package triage

import (
	"fmt"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/llm/sim/simtest"
)

// TestSimJudgesTheStatedDiagnosis: the task's simulated diagnosis judge
// (Task.Sim) answers "MATCH: yes" exactly when the request's stated
// diagnosis is the item's gold one, white space aside, reading the request
// the task's Judge writes; the simulator's core alone refuses the kind, so
// a simulated run that asks for the judge needs the task's behaviour.
func TestSimJudgesTheStatedDiagnosis(t *testing.T) {
	items := map[string]sim.Item{"t1": {Letters: []string{"A", "B", "C"}, Gold: "B", Diagnosis: "Pulmonary  embolism"}}
	m := sim.New(simtest.Clean(t), items, Sim)
	req := func(stated string) llm.Request {
		return llm.Request{Model: "sim", Seed: 3,
			Messages: []llm.Message{{Role: llm.RoleSystem, Content: diagnosisJudgeSystem},
				{Role: llm.RoleUser, Content: fmt.Sprintf(diagnosisJudgeUserFmt, "Pulmonary embolism", stated)}},
			Meta: llm.Meta{QuestionID: "t1", Phase: PhaseScore, Kind: KindDiagnosisJudge, Agent: -1}}
	}
	for _, tc := range []struct{ stated, want string }{
		{"Pulmonary embolism", "MATCH: yes"},
		{"Pneumonia", "MATCH: no"},
		{"", "MATCH: no"},
	} {
		if got := simtest.Chat(t, m, req(tc.stated)).Text; got != tc.want {
			t.Errorf("stated %q: %q, want %q", tc.stated, got, tc.want)
		}
	}
	simtest.CoreRefuses(t, items, req("Pulmonary embolism"))
	if Task.Sim != &Sim {
		t.Error("the triage task does not carry its simulated judge (Task.Sim)")
	}
}
