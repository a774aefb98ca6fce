package triage

import (
	"strings"

	"github.com/medteam-bench/medteam/llm/sim"
)

// Sim is the diagnosis judge's simulated behaviour (task.Task.Sim): the
// simulator answers "MATCH: yes" when the prompt's "Stated diagnosis:" line
// is the item's gold diagnosis — what a simulated agent states when it
// chose the gold level — and "MATCH: no" otherwise. It draws nothing. Kind
// code 19 is the one the simulator's core gave the judge before it moved
// here, so every call's key, and so its injected faults, stay the same.
var Sim = sim.Behaviour{
	Protocol: "the triage task's diagnosis judge",
	Kinds:    map[string]uint64{KindDiagnosisJudge: 19},
	Answer:   simVerdict,
}

// simVerdict is the simulated diagnosis judge's reply.
func simVerdict(c *sim.Call) string {
	stated := ""
	for _, m := range c.Request().Messages {
		for _, line := range strings.Split(m.Content, "\n") {
			if s, ok := strings.CutPrefix(line, "Stated diagnosis: "); ok {
				stated = s
			}
		}
	}
	if stated != "" && stated == strings.Join(strings.Fields(c.Diagnosis()), " ") {
		return "MATCH: yes"
	}
	return "MATCH: no"
}
