// Package sim is a deterministic simulated model backend (an llm.Client)
// that stands in for a team of LLM agents, so the protocols, their
// parsers, metrics and statistics can be exercised without a real model.
// Its accuracy is a property of the chosen Profile, never a model result.
//
// It owns the simulated team: the Profile knobs and the built-in profiles,
// the per-question traits it derives at construction, its mechanisms (how
// an agent answers alone, reconsiders among peers, how a reader judges the
// answers it reads), a reader of labelled prompt lines and the writers of
// rankings, sentences and output faults. It names only its own call kind
// (kinds.go: the shared first answer) and no protocol's or task's words:
// every protocol (and a task whose judge calls the model: the triage task's
// diagnosis judge, tasks/triage/sim.go) brings the behaviour of its own kinds
// (Behaviour) — the prompt lines it writes and what the core reads in them
// (Marker), and an Answer that calls the mechanisms with typed inputs and
// writes their typed results in the protocol's format (teamwork/sim.go,
// protocols/*/sim.go).
//
// # What it knows and reads
//
// The simulator learns each question's option letters and gold letter only
// through New. From a request it reads Seed, Meta (QuestionID, Kind, Turn,
// Agent), whether Schema is set, and, in the non-assistant messages, the
// marker lines: its own "POSITION who: A > B (confidence x)" lines (the
// shared protocols' positions; "POSITION agent N: (no readable answer)"
// removes agent N from the team a call sees) and the lines every registered
// behaviour declares (Behaviour.Markers), each read as one of the core's
// inputs (Reads): a role, a question analysis and a block of "- fact" lines
// raise the member's skill; a reasoning line of agent N, a block of
// statements and a reply are read, only by the calls that judge, for the
// simulator's reasoning-quality cues and nothing else; any other marker's
// lines are kept, unread, for the behaviour (Call.Values). A behaviour may
// also read its own conversation (debate's revision). Everything else in
// the prompt, including anything that looks like a hint, is ignored.
// Meta.Arm, Meta.Repeat, Temperature and the call order never influence an
// answer.
//
// # Determinism
//
// An answer is a pure function of the profile, the items, the registered
// behaviours, the request's marker lines (and a revision's replies as
// written), Seed, QuestionID,
// Kind, Turn, Agent and whether Schema is set. Every random draw comes from a splitmix64 stream keyed by a hash of
// (Seed, QuestionID, Kind, Turn, Agent) and a purpose tag; per-question
// traits (difficulty, attractive distractor, shared correctness noise, fact
// pools, specialty relevance, agent count) come from the question id alone.
// There is no shared mutable generator, so concurrent calls answer exactly as
// sequential ones.
//
// # The simulated team
//
// A question has a difficulty d (Profile.Spread) and an attractive
// distractor. An agent's effective skill is AgentSkill (LeaderSkill for
// Agent < 0) plus a per-(question, agent) offset and the bonuses for a role
// line, a question analysis and verified facts. Its independent first
// choice is correct with probability 1/n + (1 − 1/n)·σ(Slope·(skill − d)),
// the draw being correlated across agents of a question (AgentCorrelation);
// when wrong it is the distractor with probability ErrorCorrelation, else a
// uniform wrong letter. The gold is placed second with probability
// RankSignal after a wrong first choice. Confidence is σ of a latent signal
// (ConfidenceSignal, Overconfidence, ConfidenceNoise) clamped to
// [0.05, 0.99]. Ranked also states 1–3 facts: correct agents draw them from
// the question's supportive pool (so their facts overlap), wrong agents
// partly from a distractor pool.
//
// Every agent answer has a latent reasoning quality q = σ(QualitySkill·(skill
// − d) ± QualitySignal + DistractorFluency·[distractor] + QualityNoise·ε),
// correlated with correctness but not determined by it (ε mixes a
// per-(question, agent) normal with the call's own), and its reasoning text
// ends with a cue sentence of q's tier (⌊5q⌋), so a reader can perceive it.
//
// In Reconsider and ReconsiderConcern the agent starts from its
// "POSITION you:" ranking (or draws one as in Ranked) and looks at the
// other positions: the peers' most common first choice, when it differs
// from its own, pulls it with probability Persuadability × share ×
// susceptibility(q0), where q0 is its reasoning quality for the position it
// holds and susceptibility(q) = max(0, 1 + QualityResistance·(1 − 2q)); the
// leader's line weighs LeaderInfluence. A concern (Concern) adds
// ConcernEffect (before the susceptibility factor) for any target, right or
// wrong, which then moves to the majority or to its own second choice;
// Accepts is true iff the first choice changed. A wrong agent may also find
// the gold on its own (Insight): the only move toward the gold.
//
// A question needs 2–4 agents (TeamSize, weighted toward 3); Specialists
// names n of 20 built-in specialties (the most relevant first when ranked,
// else a per-question draw from the 8 most relevant; a role among a
// question's 4 most relevant earns the full SpecialistBonus, any other
// half). A reader (a leader) judges agents only by what it reads: it
// perceives an agent's quality as the midpoint of the cue's tier plus
// PerceptionNoise·N(0,1) (0.5 plus noise when it reads no cue), scores it
// (Report, keyed by agent number; RateReply for a reply), targets the
// lowest (SelectWeakest), and — when it does not know the answer itself
// (probability 1 − σ(Slope·(skill − d)) with its own skill) — leans to
// (Lean), and breaks ties (Decide) toward, the first choice of the agent
// it perceives as best. Knowing, it leans to and breaks ties toward the
// gold.
//
// # The shared first answer
//
// The core answers the one kind the protocols share, the first answer
// (protocols/firstanswer: the deliberating team's prediction, cot, sc, the
// panels, debate round 1): an independent answer as Ranked, without facts,
// in the shared fields only (reasoning, ranking, confidence). A protocol
// that adds a field to it (firstanswer.Extra's Fields) declares it in its
// Behaviour (First: a FirstField's name, label and Value, which draws the
// field from the core's typed inputs on a stream of its own and writes it):
// the core answers it after the shared fields when the request asks for it
// (the property in its schema, else a "LABEL:" line), so asking changes
// nothing else (teamwork's SMM facts: teamwork/sim.go's simFirstFacts). The
// simulator ignores the temperature, so cot (agent 0 at temperature 0)
// answers as sc's sample 0.
//
// # Protocols' own kinds
//
// Every protocol provides a Behaviour beside its code (teamwork/sim.go and
// sim_write.go, protocols/baseline/sim.go, protocols/debate/sim.go,
// protocols/council/sim.go, protocols/judge/sim.go, protocols/veto/sim.go,
// protocols/medagents/sim.go, protocols/mdagents/sim.go): the kinds it
// answers, each with a fixed code that keys its draws, the marker lines of
// its prompts, the fields it adds to the first answer, and an Answer built
// from the core's mechanisms, the exported
// methods of Call — ReadPrompt, Values and ReplyTier (what the prompt
// showed), the member's Skill and Know, DrawRanking, Ranked, Independent,
// Reconsider, ReconsiderConcern, TeamSize, Specialists, and the reader's
// Report, Lean, SelectWeakest, RateReply and Decide (each but Reconsider
// taking its sentences from the behaviour), Confidence, LatentQuality, Perceive, Cue,
// DrawFacts, Rng with the purpose tags (the core's, or a behaviour's own
// constants, which never change once rows exist) — which fill an Answer
// the behaviour writes with the core's writers (AppendRanked, AppendField,
// AppendRanking, AppendSentence, AppendFacts, AppendDiagnosis) in its own
// keys and labels,
// then Finish (the malformed and fence draws). The protocol's registry
// entry carries it (protocol.Protocol.Sim) and New takes the registered
// behaviours:
//
//	m := sim.New(profile, items, protocols.All().Sim()...) // protocols.NewSim(profile, items)
//
// Adding a protocol with kinds of its own is: write its Behaviour in its
// package's sim.go (codes not yet taken: New panics on a clash, naming
// both; markers whose prefixes clash with another's panic too), set
// Protocol.Sim, and test its answers there with sim.New(p, items, Sim) and
// the requests and readers of llm/sim/simtest (teamwork's are
// teamwork/sim_test.go and simcore_*_test.go). A call of a kind that
// neither the core nor a registered behaviour answers is a bad request
// naming the kind. llm/sim/README.md has the tables.
//
// # Output
//
// With Schema set the answer is one compact JSON object with the keys of
// the protocol's FORMATS.md (written by its behaviour; the core writes the
// first answer's), wrapped in ```json fences after a short preface with
// probability FenceRate; without, the labelled plain-text lines. With
// probability MalformedRate the answer is malformed, in one of five seeded
// shapes: an answer truncated in the middle, prose that commits to no
// option, an empty string, a bare "**B**", or "The answer is $B$." (the last
// two only for kinds that answer with a letter; others fall back to
// truncation or prose). A parser is expected to rescue the bare letters and
// some truncations that cut after the ranking, and to abstain on the rest.
//
// Usage is a simulated tokenizer count: PromptTokens = ⌈bytes of all
// message contents / 4⌉ + 4 per message, CompletionTokens = ⌈len(text)/4⌉,
// both at least 1. Attempts is 1. With Latency > 0 a call sleeps
// Latency·(1 ± Jitter) (seeded), honouring ctx: cancellation returns an
// *llm.Error of class canceled, a deadline one of class timeout, each
// wrapping ctx.Err(). ErrorRate injects retryable errors (rate_limited,
// server, timeout by seeded draw); a retried request draws a fresh fault
// decision for each consecutive attempt, so it eventually succeeds with the
// same text as without faults. Unknown question ids, unknown kinds and
// unusable items (fewer than 2 or more than 10 options, gold not among the
// letters) return class bad_request.
//
// # Profiles
//
// Single-agent accuracy is measured by TestAccuracyBands (2,000 synthetic
// 4-option items, 3 agents each, among well-formed answers); team accuracy
// by TestTeamProtocol (1,000 items, 3 agents, Ranked, then three
// Reconsider turns with positions, majority vote) — both in
// teamwork/simcore_model_test.go, on teamwork's kinds.
//
//	profile        AgentSkill LeaderSkill Overconf. ConfSignal Persuad. Insight Perception Malformed Fence ErrorRate Latency      single team
//	default        0.57       0.60        0         0.6        0.6      0.03    0.1        0.01      0.02  0         0            0.66   0.72
//	weak           0.15       0.20        1.2       0.3        0.60     0.02    0.1        0.05      0.05  0         0            0.40   0.45
//	strong         0.91       0.95        0.6       0.9        0.35     0.05    0.1        0.002     0.01  0         0            0.87   0.92
//	misled         as default 0.20                             0.8              0.25                                             0.67   0.73
//	overconfident  as default             1.5                                                                                    0.66
//	noisy          as default                                                              0.15      0.20                        0.66
//	flaky          as default                                                                              0.2                   0.66
//	slow           as default                                                                                        20ms ±50%   0.66
//
// Every profile shares the default's other knobs: Spread 1, Slope 6,
// AgentSkillSpread 0.2, AgentCorrelation 0.7, SpecialistBonus 0.06,
// AnalysisBonus 0.04, FactsBonus 0.10, ErrorCorrelation 0.5, RankSignal
// 0.5, ConfidenceNoise 0.6, LeaderInfluence 1, ConfidenceWeighted true,
// ConcernEffect 0.25, QualitySkill 3, QualitySignal 0.5, DistractorFluency
// 0, QualityNoise 0.8, QualityResistance 1, RiskNoise 0.15, ReviewAgreement
// 0.25 — except misled, which also sets
// QualitySignal 0, DistractorFluency 2, LeaderInfluence 2, ConcernEffect 0.8
// and AgentCorrelation 0.3: a team whose fluent distractor misleads a leader
// that judges by reading, so that leadership lowers its accuracy.
package sim
