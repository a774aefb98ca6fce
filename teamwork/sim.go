package teamwork

import "github.com/medteam-bench/medteam/llm/sim"

// Sim is teamwork's simulated behaviour (llm/sim's Behaviour): its kinds,
// each answered by one of the core's mechanisms (sim.Mechanism), which read
// the marker lines of FORMATS.md and answer in its shapes. The codes (1–11)
// seed every draw of a call: they never change. The initial prediction's
// calls are the shared first answer, the core's own kind.
var Sim = sim.Behaviour{
	Protocol: "teamwork",
	Kinds: map[string]uint64{
		KindAssess:         1,
		KindRecruit:        2,
		KindPredict:        3,
		KindSynthesize:     4,
		KindDiscuss:        5,
		KindFinal:          6,
		KindMediate:        7,
		KindMonitorSelect:  8,
		KindMonitorRespond: 9,
		KindMonitorRate:    10,
		KindTieBreak:       11,
	},
	Answer: simAnswer,
}

// simMechanisms is the core's mechanism that answers each kind.
var simMechanisms = map[string]sim.Mechanism{
	KindAssess:         sim.TeamSize,
	KindRecruit:        sim.Roles,
	KindPredict:        sim.Ranked,
	KindSynthesize:     sim.Report,
	KindDiscuss:        sim.Reconsider,
	KindFinal:          sim.Reconsider,
	KindMediate:        sim.Lean,
	KindMonitorSelect:  sim.Select,
	KindMonitorRespond: sim.Concern,
	KindMonitorRate:    sim.Rate,
	KindTieBreak:       sim.Decide,
}

// simAnswer answers a teamwork call with its kind's mechanism.
func simAnswer(c *sim.Call) string {
	return c.Run(simMechanisms[c.Request().Meta.Kind])
}
