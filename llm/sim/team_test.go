package sim

// The core's tests exercise its mechanisms through teamwork's kinds, the
// wire vocabulary they were written in. The core names no protocol's kind
// (llm/deps_test.go), and its tests cannot import teamwork (teamwork
// imports the core), so they register testTeam: a copy of teamwork.Sim
// (teamwork/sim.go), which TestTeamDoubleIsTeamworks (team_ext_test.go)
// holds equal to it.
const (
	kindAssess         = "assess"
	kindRecruit        = "recruit"
	kindPredict        = "predict"
	kindSynthesize     = "synthesize"
	kindDiscuss        = "discuss"
	kindFinal          = "final"
	kindMediate        = "mediate"
	kindMonitorSelect  = "monitor_select"
	kindMonitorRespond = "monitor_respond"
	kindMonitorRate    = "monitor_rate"
	kindTieBreak       = "tiebreak"

	phasePrediction  = "prediction"
	phaseDiscussion  = "discussion"
	phaseAggregation = "aggregation"
)

// teamMechanisms is each kind's code and mechanism, as in teamwork.Sim.
var teamMechanisms = map[string]struct {
	code uint64
	mech Mechanism
}{
	kindAssess:         {1, TeamSize},
	kindRecruit:        {2, Roles},
	kindPredict:        {3, Ranked},
	kindSynthesize:     {4, Report},
	kindDiscuss:        {5, Reconsider},
	kindFinal:          {6, Reconsider},
	kindMediate:        {7, Lean},
	kindMonitorSelect:  {8, Select},
	kindMonitorRespond: {9, Concern},
	kindMonitorRate:    {10, Rate},
	kindTieBreak:       {11, Decide},
}

// testTeam is the tests' copy of teamwork.Sim.
var testTeam = func() Behaviour {
	kinds := map[string]uint64{}
	for k, m := range teamMechanisms {
		kinds[k] = m.code
	}
	return Behaviour{Protocol: "teamwork", Kinds: kinds, Answer: func(c *Call) string {
		return c.Run(teamMechanisms[c.req.Meta.Kind].mech)
	}}
}()
