package sim

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Profile holds every knob of the simulated team. Skills and difficulties
// live on the same [0,1]-ish scale; probabilities are in [0,1].
//
// The independent first choice of an agent is correct with probability
//
//	p = 1/n + (1 − 1/n) · σ(Slope · (skill − d))
//
// where n is the number of options, σ the logistic function, d the
// question's difficulty and skill the agent's effective skill (base skill,
// per-question agent offset and bonuses); the draws of a question's agents
// are correlated (AgentCorrelation) without changing p. A leader "knows"
// the answer with probability σ(Slope · (skill − d)) (no guessing floor).
//
// Use LookupProfile for a built-in profile and adjust fields as needed; the
// zero Profile is a valid but degenerate team (every skill 0, no signal).
type Profile struct {
	// Name is the profile's name (informational).
	Name string

	// Spread is the width of the difficulty distribution: a question's
	// difficulty is d = 0.5 + Spread·(u − 0.5), u uniform from hash(QuestionID).
	// 1 gives d uniform on [0,1]; 0 makes every question of difficulty 0.5.
	Spread float64
	// Slope is the steepness of the logistic in skill − difficulty.
	Slope float64

	// AgentSkill is the base skill of an agent (Meta.Agent ≥ 0).
	AgentSkill float64
	// LeaderSkill is the skill of the leader/recruiter (Meta.Agent < 0).
	LeaderSkill float64
	// AgentSkillSpread is the width of a per-(question, agent) skill offset,
	// uniform in ±AgentSkillSpread/2 from hash(QuestionID, Agent): agents are
	// not equally good at every question, and the same agent stays equally
	// good at a question over all its calls.
	AgentSkillSpread float64
	// AgentCorrelation (ρ ∈ [0,1]) correlates the agents' correctness on a
	// question: an agent's first choice is correct iff
	// Φ(√ρ·z_q + √(1−ρ)·z) < p, with z_q a standard normal fixed per question
	// (shared by all agents, turns and repeats) and z the call's own. 0 makes
	// agents independent given the difficulty; the same model's agents share
	// blind spots, so the default is high. It leaves the single-agent
	// accuracy unchanged.
	AgentCorrelation float64
	// SpecialistBonus is added to the skill when the prompt gives the member
	// a role (a ReadsRole line, e.g. teamwork's with team orientation, or
	// Call.SetRole): in full when the role is one of the question's 4 most
	// relevant built-in specialties, half otherwise.
	SpecialistBonus float64
	// AnalysisBonus is added when the prompt shows a question analysis (a
	// ReadsAnalysis line).
	AnalysisBonus float64
	// FactsBonus is added, scaled by the share of supportive facts, when a
	// ReadsFacts block carries facts: a fact from the question's supportive
	// pool counts 1, an unrecognised fact 0.5, a distractor-pool fact 0.
	FactsBonus float64

	// ErrorCorrelation is the probability that a wrong first choice is the
	// question's attractive distractor (fixed per question) rather than a
	// uniformly drawn wrong letter.
	ErrorCorrelation float64
	// RankSignal is the probability that, when the first choice is wrong, the
	// gold is placed second; the rest of a ranking is in seeded order.
	RankSignal float64

	// ConfidenceSignal separates the confidence of correct and wrong answers:
	// confidence = clamp(σ(0.7 + Overconfidence ± ConfidenceSignal +
	// ConfidenceNoise·N(0,1)), 0.05, 0.99), + for correct, − for wrong.
	ConfidenceSignal float64
	// Overconfidence shifts every confidence up (logit units); 0 is roughly
	// calibrated for the default skill.
	Overconfidence float64
	// ConfidenceNoise is the standard deviation of the confidence noise (logit units).
	ConfidenceNoise float64

	// Persuadability scales the probability of switching to the peers'
	// majority: p = Persuadability · share · susceptibility(q), share being
	// the weight of the peers backing the majority letter over the weight of
	// all peers, q the agent's reasoning quality for its current position
	// (see QualityResistance).
	Persuadability float64
	// LeaderInfluence is the weight of the "POSITION leader:" line among the
	// peers (an agent weighs 1, or its confidence when ConfidenceWeighted).
	LeaderInfluence float64
	// ConfidenceWeighted weighs each peer by its stated confidence (0.5 when
	// none is stated) instead of 1.
	ConfidenceWeighted bool
	// Insight is the per-turn probability that a wrong agent of skill equal
	// to the question's difficulty finds the gold on its own; it scales with
	// 2σ(Slope·(skill − d)), so bonuses (facts, analysis, role) raise it.
	Insight float64
	// ConcernEffect is added to the switch probability (before the
	// susceptibility factor) of any agent answering a monitoring concern
	// (Concern), right or wrong; the concern moves it to the peers'
	// majority, else to its own second choice.
	ConcernEffect float64

	// QualitySkill, QualitySignal and QualityNoise set an answer's latent
	// reasoning quality q = σ(QualitySkill·(skill − d) ± QualitySignal +
	// QualityNoise·(√½·z_a + √½·z_c)), + when its first choice is correct,
	// z_a a standard normal fixed per (question, agent), z_c the call's own.
	// The reasoning text carries q's tier (five tiers of width 0.2) as a cue
	// sentence. QualitySignal 0 makes reasoning read alike whether right or
	// wrong (beyond what skill − d implies).
	QualitySkill  float64
	QualitySignal float64
	QualityNoise  float64
	// DistractorFluency is added to the quality logit of an answer whose
	// first choice is the question's attractive distractor: the distractor
	// attracts because the case for it can be argued fluently, so its
	// reasoning reads better than its correctness deserves.
	DistractorFluency float64
	// QualityResistance (R ≥ 0) makes good reasoning hard to move: every
	// switch probability (persuasion and concerns) is multiplied by
	// susceptibility(q) = max(0, 1 + R·(1 − 2q)), q the agent's reasoning
	// quality for the position it holds.
	QualityResistance float64
	// PerceptionNoise is the standard deviation of the leader's reading of
	// reasoning: it perceives the midpoint of the tier it reads (0.5 when it
	// sees no reasoning) plus PerceptionNoise·N(0,1). Perceived quality is its
	// quality score (clamped to [0,1]), picks the monitoring target (the
	// lowest) and weighs the positions it leans to when it does not know.
	PerceptionNoise float64

	// RiskNoise is the standard deviation of an agent's stated risk around
	// 1 − its confidence, risk = clamp(1 − confidence + RiskNoise·N(0,1),
	// 0.01, 0.99), for a behaviour whose answers state one (veto's ballots,
	// protocols/veto/sim.go, which also applies its prompts' 0.5 rule).
	RiskNoise float64
	// ReviewAgreement is what a reviewer (the council's peer review,
	// protocols/council/sim.go) adds to its perceived quality of an answer whose first choice is the one it
	// would give itself (its own independent draw): reviewers favour answers
	// they agree with.
	ReviewAgreement float64

	// FenceRate is the probability that a JSON answer is wrapped in ```json
	// fences after a short preface.
	FenceRate float64
	// MalformedRate is the per-call probability of a malformed answer.
	MalformedRate float64
	// ErrorRate is the per-attempt probability of a retryable *llm.Error
	// (rate_limited, server or timeout).
	ErrorRate float64

	// Latency is the mean simulated latency of a call; 0 answers at once.
	Latency time.Duration
	// Jitter is the relative spread of the latency: uniform in
	// Latency·(1 ± Jitter).
	Jitter float64
}

func defaultProfile() Profile {
	return Profile{
		Name:               "default",
		Spread:             1,
		Slope:              6,
		AgentSkill:         0.57,
		LeaderSkill:        0.60,
		AgentSkillSpread:   0.2,
		AgentCorrelation:   0.7,
		SpecialistBonus:    0.06,
		AnalysisBonus:      0.04,
		FactsBonus:         0.10,
		ErrorCorrelation:   0.5,
		RankSignal:         0.5,
		ConfidenceSignal:   0.6,
		Overconfidence:     0,
		ConfidenceNoise:    0.6,
		Persuadability:     0.6,
		LeaderInfluence:    1,
		ConfidenceWeighted: true,
		Insight:            0.03,
		ConcernEffect:      0.25,
		QualitySkill:       3,
		QualitySignal:      0.5,
		QualityNoise:       0.8,
		QualityResistance:  1,
		PerceptionNoise:    0.1,
		RiskNoise:          0.15,
		ReviewAgreement:    0.25,
		FenceRate:          0.02,
		MalformedRate:      0.01,
	}
}

var profiles = map[string]func() Profile{
	"default": defaultProfile,
	"weak": func() Profile {
		p := defaultProfile()
		p.Name = "weak"
		p.AgentSkill = 0.15
		p.LeaderSkill = 0.20
		p.ConfidenceSignal = 0.3
		p.Overconfidence = 1.2
		p.Persuadability = 0.6
		p.Insight = 0.02
		p.MalformedRate = 0.05
		p.FenceRate = 0.05
		return p
	},
	"strong": func() Profile {
		p := defaultProfile()
		p.Name = "strong"
		p.AgentSkill = 0.91
		p.LeaderSkill = 0.95
		p.Overconfidence = 0.6
		p.ConfidenceSignal = 0.9
		p.Persuadability = 0.35
		p.Insight = 0.05
		p.MalformedRate = 0.002
		p.FenceRate = 0.01
		return p
	},
	"misled": func() Profile {
		p := defaultProfile()
		p.Name = "misled"
		p.LeaderSkill = 0.2
		p.PerceptionNoise = 0.25
		p.QualitySignal = 0
		p.DistractorFluency = 2
		p.Persuadability = 0.8
		p.LeaderInfluence = 2
		p.ConcernEffect = 0.8
		p.AgentCorrelation = 0.3
		return p
	},
	"overconfident": func() Profile {
		p := defaultProfile()
		p.Name = "overconfident"
		p.Overconfidence = 1.5
		return p
	},
	"noisy": func() Profile {
		p := defaultProfile()
		p.Name = "noisy"
		p.MalformedRate = 0.15
		p.FenceRate = 0.20
		return p
	},
	"flaky": func() Profile {
		p := defaultProfile()
		p.Name = "flaky"
		p.ErrorRate = 0.2
		return p
	},
	"slow": func() Profile {
		p := defaultProfile()
		p.Name = "slow"
		p.Latency = 20 * time.Millisecond
		p.Jitter = 0.5
		return p
	},
}

// Profiles returns the names of the built-in profiles, sorted.
func Profiles() []string {
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LookupProfile returns the built-in profile called name.
func LookupProfile(name string) (Profile, error) {
	f, ok := profiles[name]
	if !ok {
		return Profile{}, fmt.Errorf("sim: unknown profile %q (known: %s)", name, strings.Join(Profiles(), ", "))
	}
	return f(), nil
}
