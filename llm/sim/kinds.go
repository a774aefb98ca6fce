package sim

// The core's own call kinds: the shared first answer of the protocols
// (protocols/firstanswer, protocols/kit/kinds.go) and the runner's
// diagnosis judge (--diagnosis-judge). Every other kind is a protocol's,
// answered by its registered Behaviour.
const (
	kindFirst = "first"
	// kindDiagnosisJudge is the runner's diagnosis judge (--diagnosis-judge).
	kindDiagnosisJudge = "diagnosis_judge"
)
