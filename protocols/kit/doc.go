// Package kit is what the protocols under protocols/ share: their phases and
// call kinds (the llm.Meta labels the simulator answers by), the arm-spec
// grammar ("name:opt,key=value"), a Session that builds every request the
// same way (metadata, derived seed, temperature, schema) and records how each
// answer was read, the question block and the position lines the prompts
// show, the safe default, embedded prompt sets with their hash, and the
// dry-run stub that answers every kind.
//
// Requests depend on the call's identity (phase, kind, turn, agent), never on
// the arm, so identical prompts in different arms are identical requests: the
// response cache and the runner's per-question sharing serve them once.
package kit
