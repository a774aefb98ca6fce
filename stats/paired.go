package stats

import "math"

// Estimate is a mean (or a mean difference) with its intervals.
type Estimate struct {
	Value float64
	SE    float64  // question-clustered CR1 standard error (see ClusteredMean)
	Wald  Interval // analytic: Value ± t_{G−1}·SE (see TFor)
	Boot  Interval // seeded question-cluster bootstrap percentile interval (see BootstrapMeans)
}

// PairedBinary is the paired comparison of a candidate's 0/1 outcomes
// against a reference's on the same items.
type PairedBinary struct {
	N, Clusters int
	RefRate     float64 // reference accuracy over the N pairs
	CandRate    float64
	Delta       Estimate // CandRate − RefRate
	B           int      // discordant: reference right, candidate wrong
	C           int      // discordant: reference wrong, candidate right
	Discordance float64  // (B + C)/N
	// McNemarP is the clustered McNemar p (McNemarClustered): the exact
	// McNemar p (McNemarExact(B, C)) when no question holds more than one
	// discordant pair, as with one repeat.
	McNemarP float64
	// NoDiscordant is true when the arms agree on every pair (B = C = 0):
	// Delta's intervals are then Newcombe's paired interval on the clustered
	// effective sample size (NewcombePaired), not the [0, 0] of differences
	// that are all 0, and Delta.SE is 0.
	NoDiscordant bool
}

// ComparePaired compares paired 0/1 outcomes: ref[i] and cand[i] are the
// two arms' results on item i, cluster[i] its question (pairs of one
// question's repeats share a cluster).
//
// Δ = mean(cand) − mean(ref) = (C − B)/N is the mean of the paired
// differences dᵢ = candᵢ − refᵢ ∈ {−1, 0, 1}. Its analytic interval is the
// Wald interval on the paired differences with their question-clustered
// standard error, Δ ± t_{G−1}·SE_CR1(d); with one pair per question this is
// the paired Wald interval of Agresti (2013, Categorical Data Analysis,
// §11.1), Var = ((B + C) − (C − B)²/N)/N², times N/(N − 1). The bootstrap
// interval resamples questions (BootstrapMeans). McNemarP is the clustered
// McNemar test (McNemarClustered), the exact McNemar test with one repeat.
// Without a discordant pair the intervals are NewcombePaired's (see
// NoDiscordant). With fewer than 2 questions the intervals are undefined
// (NaN), never of zero width. It panics when the slices differ in length.
func ComparePaired(ref, cand []bool, cluster []int, opt Bootstrap) PairedBinary {
	if len(ref) != len(cand) || len(ref) != len(cluster) {
		panic("stats: ComparePaired: slices differ in length")
	}
	idx, g := denseIndex(cluster)
	d := make([]float64, len(ref))
	for i := range ref {
		d[i] = b2f(cand[i]) - b2f(ref[i])
	}
	pb := binaryCounts(ref, cand, idx)
	pb.Clusters = g
	pb.Delta = pairedEstimates([][]float64{d}, idx, g, opt)[0]
	return pairedNoDiscordant(pb, ref, idx, g, opt.Level)
}

// PairedDiff is the paired difference of a numeric per-item quantity (calls,
// tokens): the mean of candᵢ − refᵢ with its clustered Wald and bootstrap
// intervals, as for ComparePaired. It panics when the slices differ in
// length.
func PairedDiff(ref, cand []float64, cluster []int, opt Bootstrap) Estimate {
	if len(ref) != len(cand) || len(ref) != len(cluster) {
		panic("stats: PairedDiff: slices differ in length")
	}
	idx, g := denseIndex(cluster)
	d := make([]float64, len(ref))
	for i := range ref {
		d[i] = cand[i] - ref[i]
	}
	return pairedEstimates([][]float64{d}, idx, g, opt)[0]
}

// binaryCounts fills N, the rates, B, C, the discordance and the clustered
// McNemar p; cluster[i] is pair i's question.
func binaryCounts(ref, cand []bool, cluster []int) PairedBinary {
	pb := PairedBinary{N: len(ref)}
	nr, nc := 0, 0
	for i := range ref {
		nr += int(b2f(ref[i]))
		nc += int(b2f(cand[i]))
		switch {
		case ref[i] && !cand[i]:
			pb.B++
		case !ref[i] && cand[i]:
			pb.C++
		}
	}
	pb.RefRate, pb.CandRate = ratio(nr, pb.N), ratio(nc, pb.N)
	pb.Discordance = ratio(pb.B+pb.C, pb.N)
	pb.McNemarP = McNemarClustered(ref, cand, cluster)
	return pb
}

// pairedEstimates computes every metric's mean, clustered SE, Wald interval
// and (in one resampling) bootstrap interval.
func pairedEstimates(d [][]float64, idx []int, g int, opt Bootstrap) []Estimate {
	boot := BootstrapMeans(d, idx, g, opt)
	out := make([]Estimate, len(d))
	for m := range d {
		mean, se := clusteredSE(d[m], idx, g)
		cm := ClusterMean{N: len(d[m]), Clusters: g, Mean: mean, SE: se}
		out[m] = Estimate{Value: mean, SE: se, Wald: cm.CI(opt.Level, 0, 0), Boot: boot[m]}
	}
	return out
}

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// ratio is a/b, NaN when b is 0.
func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}
