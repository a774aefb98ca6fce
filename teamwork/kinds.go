package teamwork

// Phases of the protocol (DESIGN §4), the llm.Meta.Phase of its calls. The
// initial prediction's calls are the shared first answer (first.go): phase
// kit.PhaseAnswer ("answer"), kind kit.KindFirst ("first"); the prediction
// phase holds the leader's synthesis.
const (
	PhaseRecruitment = "recruitment"
	PhasePrediction  = "prediction"
	PhaseDiscussion  = "discussion"
	PhaseAggregation = "aggregation"
)

// Call kinds, the llm.Meta.Kind of its calls: the step a call performs. The
// output each kind asks for is documented in FORMATS.md; the simulator
// answers by kind.
const (
	KindAssess         = "assess"          // recruiter: agent count (+ question analysis)
	KindRecruit        = "recruit"         // recruiter: roles (+ ranked specialties)
	KindPredict        = "predict"         // the initial prediction's place in the call order (its calls are kit.KindFirst)
	KindSynthesize     = "synthesize"      // leader: facts, report, quality scores
	KindDiscuss        = "discuss"         // agent: discussion turn (not final)
	KindFinal          = "final"           // agent: last discussion turn, final ranking
	KindMediate        = "mediate"         // leader: turn mediation
	KindMonitorSelect  = "monitor_select"  // leader: weakest reasoning + concern
	KindMonitorRespond = "monitor_respond" // agent: answers the concern
	KindMonitorRate    = "monitor_rate"    // leader: rates the answer
	KindTieBreak       = "tiebreak"        // leader: breaks a tie among tied options
)

var phaseRank = map[string]int{PhaseRecruitment: 0, PhasePrediction: 1, PhaseDiscussion: 2, PhaseAggregation: 3}

var kindRank = map[string]int{
	KindAssess: 0, KindRecruit: 1, KindPredict: 2, KindSynthesize: 3,
	KindDiscuss: 4, KindFinal: 4, KindMediate: 5, KindMonitorSelect: 6,
	KindMonitorRespond: 7, KindMonitorRate: 8, KindTieBreak: 9,
}

// callOrder is the llm.Meta.Order of a call: phase, then turn, then the step
// within the turn, then the agent (the leader, -1, first) — the order in
// which a sequential run makes the calls.
func callOrder(phase, kind string, turn, agent int) int {
	return ((phaseRank[phase]*16+turn)*16+kindRank[kind])*16 + agent + 1
}
