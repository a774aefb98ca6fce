package sim

// The call kinds and phases the simulator answers: teamwork's labels (see
// teamwork/FORMATS.md), which reach a model only as request metadata. They
// are spelled out here, as a test server spells out the wire protocol it
// speaks, because the protocol's tests use the simulator.
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

	phaseRecruitment = "recruitment"
	phasePrediction  = "prediction"
	phaseDiscussion  = "discussion"
	phaseAggregation = "aggregation"
)
