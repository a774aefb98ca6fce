package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Power defaults: a two-sided test at α = 0.05 with 80% power.
const (
	DefaultAlpha = 0.05
	DefaultPower = 0.80
)

// powerZ returns the critical values z_{1−α/2} and z_{power}.
func powerZ(alpha, power float64) (za, zb float64) {
	return distuv.UnitNormal.Quantile(1 - alpha/2), distuv.UnitNormal.Quantile(power)
}

// PairsNeeded is the number of matched pairs a two-sided McNemar test at
// level alpha needs to detect a paired difference delta (= p₁₀ − p₀₁, the
// difference in accuracy) with the given power when a share psi
// (= p₁₀ + p₀₁) of pairs is discordant. It is the normal approximation of
// Connor (1987, Biometrics 43:207–211, p. 209):
//
//	n = ⌈ (z_{1−α/2}·√ψ + z_{1−β}·√(ψ − δ²))² / δ² ⌉
//
// Worked example (Connor's formula as powerandsamplesize.com states it):
// p₀₁ = 0.45, p₁₀ = 0.05 (ψ = 0.5, δ = −0.4), α = 0.05, power 0.8 →
// n = 22.01 → 23 pairs. ok is false when no n exists: δ = 0, |δ| > ψ,
// ψ ∉ (0, 1], or alpha/power outside (0, 1); and when n would exceed
// MaxPairs (a δ of 1e-10 needs about 10²⁰ pairs, past any int).
func PairsNeeded(delta, psi, alpha, power float64) (n int, ok bool) {
	d := math.Abs(delta)
	if !(d > 0 && d <= psi && psi <= 1 && alpha > 0 && alpha < 1 && power > 0 && power < 1) {
		return 0, false
	}
	za, zb := powerZ(alpha, power)
	s := za*math.Sqrt(psi) + zb*math.Sqrt(psi-d*d)
	v := math.Ceil(s * s / (d * d))
	if !(v <= MaxPairs) {
		return 0, false
	}
	return int(v), true
}

// MaxPairs is the most pairs PairsNeeded reports: a trillion, far past any
// benchmark, and exactly representable as an int and a float64.
const MaxPairs = 1e12

// MinDetectableDiff is the smallest paired difference |δ| that a two-sided
// McNemar test at level alpha detects with the given power from n pairs of
// which a share psi is discordant: Connor's (1987) equation solved for δ.
// With A = z_{1−α/2}·√ψ and B = z_{1−β}, √n·δ − A = B·√(ψ − δ²) squares to a
// quadratic in δ whose admissible (larger) root is
//
//	δ = (A·√n + B·√(ψ(n + B²) − A²)) / (n + B²)
//
// (admissible when n ≥ z²_{1−α/2}). Round trip: n = 22.01, ψ = 0.5 gives
// δ = 0.4. NaN when no difference is detectable: ψ ∉ (0, 1], n < z²_{1−α/2},
// or the root exceeds ψ (no δ with |δ| ≤ ψ reaches the power).
func MinDetectableDiff(n, psi, alpha, power float64) float64 {
	if !(psi > 0 && psi <= 1 && alpha > 0 && alpha < 1 && power > 0 && power < 1) {
		return math.NaN()
	}
	za, zb := powerZ(alpha, power)
	if n < za*za {
		return math.NaN()
	}
	a := za * math.Sqrt(psi)
	nb := n + zb*zb
	d := (a*math.Sqrt(n) + zb*math.Sqrt(psi*nb-a*a)) / nb
	if d > psi {
		return math.NaN()
	}
	return d
}

// NonInferiorityPower is the power of the baseline gate's paired test at
// one-sided level alpha to tell a candidate whose accuracy is delta lower
// from an unchanged one, with n pairs (an effective n: pairs over the
// design effect of repeats) of which a share psi is discordant. Connor's
// (1987) normal approximation, one-sided and solved for the power:
//
//	power = Φ( (δ·√n − z_{1−α}·√ψ) / √(ψ − δ²) ),  ψ = max(psi, δ)
//
// It is both the probability that the one-sided (1 − α) upper bound of Δ
// falls below 0 when Δ = −δ (the drop is detected) and, to this
// approximation, that the lower bound stays above −δ when Δ = 0 (an
// unchanged candidate is shown non-inferior). A drop of δ makes at least a
// share δ of the pairs discordant, hence ψ ≥ δ. NaN when n < 1, δ ∉ (0, 1)
// or alpha ∉ (0, 1).
func NonInferiorityPower(n, psi, delta, alpha float64) float64 {
	if !(n >= 1 && delta > 0 && delta < 1 && alpha > 0 && alpha < 1) || math.IsNaN(psi) {
		return math.NaN()
	}
	psi = math.Max(psi, delta)
	za := distuv.UnitNormal.Quantile(1 - alpha)
	return distuv.UnitNormal.CDF((delta*math.Sqrt(n) - za*math.Sqrt(psi)) / math.Sqrt(psi-delta*delta))
}

// EffectiveN is the number of pairs over the design effect of Δ's
// clustered standard error: deff = SE²_CR1 / (s²/N), s² = ((B + C) −
// (C − B)²/N)/(N − 1) the variance of the N paired differences, limited to
// [1, N/G] as ClusteredWilson's; N when deff cannot be estimated (no
// discordant pair, fewer than 2 questions).
func (pb PairedBinary) EffectiveN() float64 {
	n := float64(pb.N)
	if pb.N < 2 || pb.Clusters < 2 || math.IsNaN(pb.Delta.SE) {
		return n
	}
	d := float64(pb.C - pb.B)
	s2 := (float64(pb.B+pb.C) - d*d/n) / (n - 1)
	if s2 <= 0 {
		return n
	}
	deff := math.Min(n/float64(pb.Clusters), math.Max(1, pb.Delta.SE*pb.Delta.SE/(s2/n)))
	return n / deff
}

// NullDiscordance is the share of discordant pairs an unchanged candidate
// would show: 2·min(B, C)/N, the observed discordance (B + C)/N less the
// |C − B|/N that the difference itself made discordant. With Δ = 0 it is
// the observed discordance up to noise; a candidate 24 points better has
// few pairs the reference alone got right, and power is judged on those,
// not on the 24 points it gained. Every power figure of medteam (the
// report's MDE and Power section, `medteam power --run`, the baseline
// gate) plans at it; NaN without pairs.
func (pb PairedBinary) NullDiscordance() float64 {
	if pb.N == 0 {
		return math.NaN()
	}
	return 2 * float64(min(pb.B, pb.C)) / float64(pb.N)
}

// PairsNeededNull is PairsNeeded at the discordance a difference delta
// would show over a null discordance psi0: ψ = max(psi0, |δ|), as the
// baseline gate plans (a difference of δ makes at least a share δ of the
// pairs discordant). ok is false only where PairsNeeded's is for that ψ.
func PairsNeededNull(delta, psi0, alpha, power float64) (int, bool) {
	if math.IsNaN(psi0) {
		return 0, false
	}
	return PairsNeeded(delta, math.Max(psi0, math.Abs(delta)), alpha, power)
}

// MinDetectableDiffNull is the smallest |δ| that n pairs detect (two-sided
// McNemar at alpha, the given power) when the discordance under the
// alternative is ψ = max(psi0, δ): MinDetectableDiff(n, psi0) where that
// root lies within psi0, else the δ > psi0 at which Connor's power
// equation with ψ = δ reaches the power, found by bisection (the power
// rises with δ there). NaN when n < z²_{1−α/2} or psi0 is NaN, or when no
// δ < 1 reaches the power.
func MinDetectableDiffNull(n, psi0, alpha, power float64) float64 {
	if math.IsNaN(psi0) || !(alpha > 0 && alpha < 1 && power > 0 && power < 1) {
		return math.NaN()
	}
	if d := MinDetectableDiff(n, psi0, alpha, power); !math.IsNaN(d) {
		return d
	}
	za, zb := powerZ(alpha, power)
	if n < za*za {
		return math.NaN()
	}
	// g(δ) = (δ√n − z_a√δ)/√(δ − δ²) − z_b with ψ = δ: negative near 0 and
	// +∞ as δ → 1.
	g := func(d float64) float64 { return (d*math.Sqrt(n)-za*math.Sqrt(d))/math.Sqrt(d-d*d) - zb }
	lo, hi := math.Max(psi0, 1e-12), 1-1e-12
	if g(lo) >= 0 {
		return lo
	}
	if g(hi) < 0 {
		return math.NaN()
	}
	for range 100 {
		mid := (lo + hi) / 2
		if g(mid) >= 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
