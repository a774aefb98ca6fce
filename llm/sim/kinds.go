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

// Mechanism is one of the core's answers to a call, which a behaviour runs
// with Call.Run: it reads the prompt's marker lines, computes the answer and
// writes it in the shape the mechanism gives (FORMATS.md of the protocol
// whose kinds use it).
type Mechanism uint8

const (
	mechOwn Mechanism = iota // a behaviour's own answer (Finish, NewAnswer)
	// TeamSize: how many agents the question needs (2–4), with an
	// analysis sentence.
	TeamSize
	// Roles: the roles of TEAM SIZE specialists (ranked by relevance when
	// RANK SPECIALTIES asks).
	Roles
	// Ranked: an independent ranking with confidence, facts and reasoning.
	Ranked
	// Reconsider: the agent's position after seeing the peers' (the
	// majority pulls it, its insight moves it), as a ranking.
	Reconsider
	// Concern: Reconsider under a concern raised about the agent's
	// reasoning (ConcernEffect), accepting or rejecting it.
	Concern
	// Report: a synthesis of the agents' answers: a quality score per agent,
	// facts and a summary.
	Report
	// Lean: a summary of the turn and the option the reader leans to.
	Lean
	// Select: the agent whose reasoning reads weakest, and a concern.
	Select
	// Rate: the debated point of the target's reply and its quality.
	Rate
	// Decide: the option chosen among the TIED ones.
	Decide
	mechFirst // the shared first answer (the core's kind first)
	nMechanisms
)
