package sim

import "math"

// Every random draw of the simulator comes from a stream seeded by a hash of
// the call's identity (Seed, QuestionID, Kind, Turn, Agent) and a purpose tag,
// or, for per-question traits, of the question id alone. There is no shared
// mutable generator: a draw depends on nothing but its inputs.

const golden = 0x9e3779b97f4a7c15

// mix64 is the splitmix64 finaliser: a bijective avalanche of z.
func mix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	z ^= z >> 31
	return z
}

// fnv64 is FNV-1a 64 of s.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Purpose tags: one independent stream per decision.
const (
	tagDifficulty uint64 = iota + 1
	tagDistractor
	tagShared
	tagAgentSkill
	tagAgents
	tagRelevance
	tagRoleOrder
	tagPools
	tagChoice
	tagRank
	tagConf
	tagFacts
	tagText
	tagSwitch
	tagMajority
	tagLeader
	tagQuality
	tagSelect
	tagTie
	tagMalformed
	tagFence
	tagFault
	tagFaultClass
	tagLatency
	tagQualityAgent
	tagReasoning
	// 27, 28 and 29 are behaviours' own tags (a stated risk, a review
	// order, a chair's choice): the core drew them under these values when
	// it answered those calls, and a tag never changes once rows exist. A
	// new tag of the core comes after them.
	_
	_
	_
)

// Stream is a splitmix64 sequence seeded by a call's key and a purpose
// tag; a value, never shared.
type Stream struct{ s uint64 }

// stream is the core's name for a Stream.
type stream = Stream

func newStream(key, tag uint64) stream {
	return stream{s: mix64(key ^ mix64(tag*golden+0x632be59bd9b4e019))}
}

func (r *stream) next() uint64 {
	r.s += golden
	return mix64(r.s)
}

// float returns a uniform draw in [0,1).
func (r *stream) float() float64 { return float64(r.next()>>11) * (1.0 / (1 << 53)) }

// intn returns a draw in [0,n) for n > 0 (multiply-shift; bias < 2^-32).
func (r *stream) intn(n int) int { return int(((r.next() >> 32) * uint64(n)) >> 32) }

// normal returns a standard normal draw (Box–Muller, one of the pair).
func (r *stream) normal() float64 {
	u1 := r.float()
	if u1 < 1e-300 {
		u1 = 1e-300
	}
	u2 := r.float()
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// phi is the standard normal distribution function.
func phi(x float64) float64 { return 0.5 * (1 + math.Erf(x/math.Sqrt2)) }

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func clamp(x, lo, hi float64) float64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// round2 rounds to two decimals (the printed precision).
func round2(x float64) float64 { return math.Round(x*100) / 100 }
