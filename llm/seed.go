package llm

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
)

// DeriveSeed gives the seed of one call from the run seed, the repeat index,
// the question and the call's position in the protocol (phase, kind, turn,
// agent). The arm is deliberately not an input: identical prompts in different
// arms become identical requests, which a cache serves once and which make arm
// comparisons paired (common random numbers). The result is non-negative and
// fits in 31 bits, which every backend accepts as a seed.
func DeriveSeed(runSeed int64, repeat int, questionID string, m Meta) int64 {
	h := sha256.New()
	for _, s := range []string{
		strconv.FormatInt(runSeed, 10), strconv.Itoa(repeat), questionID,
		m.Phase, m.Kind, strconv.Itoa(m.Turn), strconv.Itoa(m.Agent),
	} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return int64(binary.LittleEndian.Uint64(sum[:8]) & 0x7fffffff)
}
