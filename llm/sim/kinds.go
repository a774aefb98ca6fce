package sim

// The call kinds and phases the simulator answers: teamwork's labels (see
// teamwork/FORMATS.md) and those of the protocols under protocols/ (see
// protocols/FORMATS.md), which reach a model only as request metadata. They
// are spelled out here, as a test server spells out the wire protocol it
// speaks, because the protocols' tests use the simulator.
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

	// The protocols of protocols/ (protocols/kit/kinds.go, FORMATS.md there).
	kindFirst = "first"
	// kindDiagnosisJudge is the runner's diagnosis judge (--diagnosis-judge).
	kindDiagnosisJudge = "diagnosis_judge"

	phaseRecruitment = "recruitment"
	phasePrediction  = "prediction"
	phaseDiscussion  = "discussion"
	phaseAggregation = "aggregation"
)
