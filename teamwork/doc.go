// Package teamwork implements the five-component deliberation protocol of
// seed 002 (TeamMedAgents; docs/protocols.md#teamwork) as DESIGN §4 makes it
// precise: recruitment,
// initial prediction, discussion and aggregation, with five components that
// switch on and off independently — so a sweep over their combinations is an
// ablation study. It is registered as the protocol "teamwork" (Protocol;
// its arms are the presets base, c1…c7, full and '+'-joined component
// lists), and its call accounting is ExpectedCalls.
//
// The protocol receives an Item, which has no gold answer: nothing here can
// see it. Answers are read by package answer; the leader's outputs by the
// Parse functions here (FORMATS.md documents every output format).
//
// Arms are paired: what does not depend on an arm's components is the same
// request in every arm (the recruiter's two calls always; the initial
// predictions, which are the shared first answer of package firstanswer —
// the same request as the panels' and sc's — wherever the components add
// nothing to them: SMM adds the analysis and a request for facts, TO∧L the
// role), with call seeds independent of the arm.
//
// The components' rules:
//
// Shared mental model (SMM), seed 002 §2.1: a passive knowledge repository
// that every agent sees. It is filled at three points: after recruitment the
// recruiter's question analysis (tricks, key qualifiers); after the initial
// prediction the verified facts — extracted by the leader when leadership is
// on, otherwise computed without a call by fact intersection (below); after
// each monitoring exchange the debated point. With SMM off, agents see none of
// it.
//
// Leadership (L), seed 002 §2.2: the recruiter becomes an active leader with
// four powers, each one model call where the accounting says so:
//  1. after the initial prediction, one synthesis call — consensus facts (with
//     SMM), a formal medical report (with TO) and a quality score per agent
//     (with trust) — made only when at least one of those is on;
//  2. a neutral mediation after every discussion turn (agreement,
//     disagreement, flawed reasoning, what to examine next), which the agents
//     see in the next turn; the option it leans to is recorded and shown to
//     the agents only with the arm option "leaning" (Config.ShowLeaning);
//  3. mutual monitoring, when on (monitoring.go);
//  4. breaking a tie of the final scores (one call, only on a tie) with the
//     seed's correction authority: a tied option, or another one when the
//     reasoning behind every tied one is flawed ("leader_override"); if its
//     answer cannot be read the tie falls back to the tie rule (kit.BreakTie).
//
// Without leadership none of these calls is made: facts come from
// intersection (facts two agents state, matched on content words:
// factmatch.go), quality from a heuristic, ties from kit.BreakTie (a seeded
// draw; on a triage item the most urgent tied level).
//
// Team orientation (TO), seed 002 §2.3 and §3: with leadership, agents get
// specialist roles — the recruiter's specialties are shown to each agent as
// its role — the recruiter's ranking of the specialties sets fixed
// hierarchical weights (N=2 {0.6,0.4}; N=3 {0.5,0.3,0.2}; N=4
// {0.4,0.3,0.2,0.1}), hidden from the agents and used by the aggregation,
// and the leader writes a formal medical report that agents see in
// discussion. Without leadership (and without TO) the agents are generic
// "Expert N", see no role ("ELSE Roles ← {Expert₁, …}"), and every weight is
// 1/N.
//
// Trust network (T), seed 002 §2.4: every agent starts at TrustStart; after
// each quality observation Q ∈ [0,1] its score moves by exponential smoothing
// T ← α·T + (1−α)·Q with α = 0.7, clamped to [0.4, 1.0]. Observations come
// from the leader's ratings when leadership is on (the synthesis call after the
// initial prediction; each monitoring rating for its target), otherwise from
// heuristicQuality (which rewards agreement with the team: conformity, see
// trust.go). Never from the gold answer. Final rankings are then aggregated
// by trust-weighted Borda. The agents' discussion and monitoring prompts
// show each exact score by default (seed 002), a level per agent with the
// arm option "trust=levels", none with "trust=hidden" (Config.TrustView).
//
// Mutual monitoring (MM), seed 002 §2.5: between discussion turns (never
// after the last), three calls — the leader selects the weakest reasoning of
// the turn and raises a specific concern; the targeted agent accepts it
// (revising its ranking) or justifies itself; the leader rates the answer.
// The rating updates the target's trust (with T) and the point under debate
// joins the shared model (with SMM). The target's revised ranking becomes its
// position for the next turn. MM requires leadership: Config.Validate rejects
// it otherwise instead of silently dropping it.
package teamwork
