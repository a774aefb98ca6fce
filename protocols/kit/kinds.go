package kit

// Phases of the protocols (llm.Meta.Phase).
const (
	PhaseAnswer   = "answer"   // independent answers: the shared first answer (cot, sc, panels, debate round 1, teamwork), zeroshot
	PhaseDebate   = "debate"   // debate rounds 2…r (round 1: the first answers)
	PhaseReview   = "review"   // council stage 2
	PhaseDecision = "decision" // the judge, the council's chairman; seeded draws
)

// Call kinds (llm.Meta.Kind): the step a call performs. FORMATS.md documents
// the answer each asks for; the simulator (llm/sim) answers by kind.
const (
	KindFirst      = "first"       // an agent's independent first answer (one shared shape; cot's call too)
	KindZeroShot   = "zeroshot"    // the answer alone: the one kind without reasoning
	KindRevise     = "revise"      // a debate revision after the others' answers
	KindPeerReview = "peer_review" // a council member reviews the others' answers
	KindChairman   = "chairman"    // the council's chairman decides and attributes
	KindJudge      = "judge"       // the consensus judge decides
)

// Labels of draws that are not calls: their seeds derive from these
// identities, so they are reproducible and independent of the arm.
const (
	KindTieDraw = "tie_draw" // a seeded draw among tied options
	KindLabels  = "labels"   // the council's shuffle of anonymous labels
)

var phaseRank = map[string]int{PhaseAnswer: 0, PhaseDebate: 1, PhaseReview: 2, PhaseDecision: 3}

var kindRank = map[string]int{
	KindFirst: 0, KindZeroShot: 1, KindRevise: 3, KindPeerReview: 4, KindChairman: 5, KindJudge: 6,
}

// Order is the llm.Meta.Order of a call: phase, then turn, then kind, then
// agent (-1, the judge or chairman, first) — the order of a sequential run.
func Order(phase, kind string, turn, agent int) int {
	return ((phaseRank[phase]*256+turn)*16+kindRank[kind])*1024 + agent + 1
}
