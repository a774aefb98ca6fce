// Package baseline holds the single-model baselines DESIGN §5 compares the
// teams with, each a protocol.Protocol:
//
//   - ZeroShot ("zeroshot"): one call asking for the answer's letter alone;
//     the decision is the answer's first choice. Greedy (temperature 0).
//   - CoT ("cot"): one call asking for step-by-step reasoning first, then the
//     letter; the decision is the answer. Greedy (temperature 0).
//   - SC ("sc:k", "sc:k=5"; self-consistency, Wang et al. 2023): k sampled
//     chain-of-thought answers, the decision is their plurality; a tie is
//     broken by a seeded draw among the tied options, recorded as such
//     (tie_broken_by "seeded_draw"). Sample i is the shared first answer of
//     agent i (package firstanswer), sampled at the agent temperature
//     (--agent-temperature, default 0.7: the temperature Wang et al. sampled
//     GPT-3 with, and the harness's agent temperature), so sc:k's samples are
//     the first answers of vote, veto, judge and council — paired with them
//     and served once by the cache. A temperature of 0 is refused: greedy
//     samples of one model are one sample k times (MedAgentsBench's CoT-SC
//     fault).
//
// An answer that cannot be read is an abstention with a reason, never a
// default letter; an sc sample that cannot be read does not vote.
package baseline
