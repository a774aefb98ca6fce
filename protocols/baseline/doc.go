// Package baseline holds the single-model baselines DESIGN §5 compares the
// teams with, each a protocol.Protocol (docs/protocols.md#zeroshot,
// docs/protocols.md#cot, docs/protocols.md#sc):
//
//   - ZeroShot ("zeroshot"): one call asking for the answer's letter alone —
//     the one call kind without reasoning; the decision is the answer's
//     first choice. Greedy (temperature 0).
//   - CoT ("cot"): chain of thought — one call, the shared first answer of
//     agent 0 (package firstanswer: reasoning first, then a ranking of every
//     option and a confidence), greedy (temperature 0; sent as 1e-7 by the
//     OpenAI-compatible backend, see GreedyTemperature); the decision is its
//     first choice.
//   - SC ("sc:k", "sc:k=5"; self-consistency, Wang et al. 2023): k samples
//     of that same chain-of-thought request — sample i is the shared first
//     answer of agent i at the agent temperature (--agent-temperature,
//     default 0.7, the temperature Wang et al. sampled GPT-3 with) — and
//     their plurality; a tie is broken by a seeded draw among the tied
//     options, recorded as such (tie_broken_by "seeded_draw"). Sample 0 is
//     cot's request but for the temperature, and samples 1…k−1 differ from
//     it only in temperature and seed, so sc − cot measures sampling and
//     voting; sc:k's samples are also the first answers of vote, judge,
//     council, debate and teamwork's initial prediction — paired with them
//     and served once by the cache. A temperature of 0 is refused: greedy
//     samples of one model are one sample k times (MedAgentsBench's CoT-SC
//     fault).
//
// An answer that cannot be read is an abstention with a reason, never a
// default letter; an sc sample that cannot be read does not vote.
package baseline
