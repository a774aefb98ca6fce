package stats

import (
	"cmp"
	"math"
	"slices"

	"github.com/medteam-bench/medteam/results"
)

// Comparison is a candidate arm against a reference arm on the same
// questions, paired by (question id, repeat) — or by (source id, repeat)
// when the arms ran two layouts of one dataset (PairedBy; see pairRows).
type Comparison struct {
	Dataset, Model       string
	Reference, Candidate string
	Matched              int // pairs present in both arms
	Questions            int // distinct questions among the pairs (bootstrap clusters)
	RefOnly, CandOnly    int // rows whose (question, repeat) the other arm lacks: counted, not paired
	Duplicates           int // rows whose (question, repeat) occurs twice in their own arm: left out
	// PairedBy is what the units were matched on: PairedByQuestion, or
	// PairedBySource when the arms' question ids differ but their source
	// ids match (two layouts of one dataset).
	PairedBy string
	// Accuracy is the paired comparison of correctness (errors and
	// abstentions count as not correct): Δaccuracy, B, C, McNemar's p.
	Accuracy PairedBinary
	Calls    Estimate // Δ calls per question (candidate − reference)
	Tokens   Estimate // Δ prompt + completion tokens per question
	// MDD is the minimum detectable |Δaccuracy| at α = 0.05 two-sided and
	// 80% power (MinDetectableDiffNull) at the null discordance and an
	// effective n = Matched / max(1, deff), deff = SE²_CR1 / (s²/Matched)
	// of the paired differences (the design effect of repeats). NaN when no
	// pair is discordant.
	MDD float64
	// HolmP is McNemar's p Holm-adjusted over the family it was compared
	// in (HolmGrouped); NaN for a comparison made alone.
	HolmP float64
	// IdenticalTo names an earlier arm of the family whose configuration
	// is equivalent to this arm's (SameConfigGroups): the two send the same
	// requests and are one hypothesis in the Holm family. "" otherwise.
	IdenticalTo string
	// Triage is the paired comparison of the safe and under-triage rates
	// when the pairs are triage rows (TriageCompare); nil otherwise.
	Triage *TriageComparison
}

// pairKey identifies a unit of one arm.
type pairKey struct {
	q   string
	rep int32
}

// PairedBy names what two arms' units are matched on.
const (
	PairedByQuestion = "question_id" // (question id, repeat): the default
	PairedBySource   = "source_id"   // (source id, repeat): two layouts of one dataset
)

// pairing is the matched rows of two arms, sorted by (question, repeat).
type pairing struct {
	ref, cand                  []int
	refOnly, candOnly, dupRows int
	by                         string // PairedByQuestion or PairedBySource
}

// pairRows matches the rows ri of ref with the rows ci of cand by (question
// id, repeat). A key present more than once in an arm is left out of the
// pairs and its rows counted as duplicates.
//
// When some units stay unmatched, every row of both arms has a source id
// (the dataset's own id: PubMedQA's PMID, MedMCQA's id) and matching on
// (source id, repeat) pairs more units, the arms are paired on the source
// id instead: two layouts of one dataset give a question different content
// ids (PubMedQA with its abstract as context, or inside the question text
// as in MedAgentsBench's copy) but the same source id. Every pair must then
// have the same gold answer: ids that are only line numbers of two
// different files do not pair.
func pairRows(ref []results.QuestionRow, ri []int, cand []results.QuestionRow, ci []int) pairing {
	p := pairOn(ref, ri, cand, ci, questionKey)
	if p.refOnly+p.candOnly == 0 || !allSourced(ref, ri) || !allSourced(cand, ci) {
		return p
	}
	if s := pairOn(ref, ri, cand, ci, sourceKey); len(s.ref) > len(p.ref) && sameGold(ref, s.ref, cand, s.cand) {
		s.by = PairedBySource
		return s
	}
	return p
}

func questionKey(r *results.QuestionRow) pairKey { return pairKey{r.QuestionID, r.Repeat} }
func sourceKey(r *results.QuestionRow) pairKey   { return pairKey{r.SourceID, r.Repeat} }

// allSourced reports whether every row idx has a source id.
func allSourced(rows []results.QuestionRow, idx []int) bool {
	for _, i := range idx {
		if rows[i].SourceID == "" {
			return false
		}
	}
	return len(idx) > 0
}

// sameGold reports whether each pair of rows has the same gold answer.
func sameGold(ref []results.QuestionRow, ri []int, cand []results.QuestionRow, ci []int) bool {
	for j := range ri {
		if ref[ri[j]].Gold != cand[ci[j]].Gold {
			return false
		}
	}
	return true
}

// pairOn matches the rows ri of ref with the rows ci of cand on key.
func pairOn(ref []results.QuestionRow, ri []int, cand []results.QuestionRow, ci []int, key func(*results.QuestionRow) pairKey) pairing {
	ru, rd := uniqueKeys(ref, ri, key)
	cu, cd := uniqueKeys(cand, ci, key)
	p := pairing{dupRows: rd + cd, by: PairedByQuestion}
	for k, j := range cu {
		if i, ok := ru[k]; ok {
			p.ref, p.cand = append(p.ref, i), append(p.cand, j)
		} else {
			p.candOnly++
		}
	}
	p.refOnly = len(ru) - len(p.ref)
	order := make([]int, len(p.ref))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		ra, rb := &ref[p.ref[a]], &ref[p.ref[b]]
		return cmp.Or(cmp.Compare(ra.QuestionID, rb.QuestionID), cmp.Compare(ra.Repeat, rb.Repeat))
	})
	p.ref, p.cand = permute(p.ref, order), permute(p.cand, order)
	return p
}

// uniqueKeys maps each key that occurs once among rows idx to its row, and
// counts the rows of keys that occur more than once.
func uniqueKeys(rows []results.QuestionRow, idx []int, key func(*results.QuestionRow) pairKey) (map[pairKey]int, int) {
	seen := make(map[pairKey]int, len(idx))
	dup := map[pairKey]int{}
	for _, i := range idx {
		k := key(&rows[i])
		if _, ok := seen[k]; ok {
			dup[k]++
			continue
		}
		seen[k] = i
	}
	n := 0
	for k, c := range dup {
		n += c + 1
		delete(seen, k)
	}
	return seen, n
}

// permute returns xs reordered by order.
func permute(xs, order []int) []int {
	out := make([]int, len(xs))
	for i, o := range order {
		out[i] = xs[o]
	}
	return out
}

// Compare compares the rows of a candidate arm with those of a reference
// arm (one model × dataset each; the names come from their first rows):
// correctness with ComparePaired, calls and tokens with PairedDiff, all from
// one bootstrap resampling of the questions, and the minimum detectable
// difference. Unmatched and duplicate rows are counted, not paired. HolmP is
// NaN: a single comparison is not a family.
func Compare(ref, cand []results.QuestionRow, opt Bootstrap) Comparison {
	return compareIdx(ref, seq(len(ref)), cand, seq(len(cand)), opt)
}

// seq is 0, 1, …, n − 1.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// compareIdx is Compare over the rows ri of ref and ci of cand.
func compareIdx(ref []results.QuestionRow, ri []int, cand []results.QuestionRow, ci []int, opt Bootstrap) Comparison {
	c := Comparison{HolmP: math.NaN(), MDD: math.NaN()}
	if len(ri) > 0 {
		c.Dataset, c.Model, c.Reference = ref[ri[0]].Dataset, ref[ri[0]].Model, ref[ri[0]].Arm
	}
	if len(ci) > 0 {
		c.Candidate = cand[ci[0]].Arm
	}
	p := pairRows(ref, ri, cand, ci)
	c.Matched, c.RefOnly, c.CandOnly, c.Duplicates, c.PairedBy = len(p.ref), p.refOnly, p.candOnly, p.dupRows, p.by
	rc, cc := make([]bool, c.Matched), make([]bool, c.Matched)
	d := [][]float64{make([]float64, c.Matched), make([]float64, c.Matched), make([]float64, c.Matched)}
	for j := range p.ref {
		a, b := &ref[p.ref[j]], &cand[p.cand[j]]
		rc[j], cc[j] = isCorrect(a), isCorrect(b)
		d[0][j] = b2f(cc[j]) - b2f(rc[j])
		d[1][j] = float64(b.Calls) - float64(a.Calls)
		d[2][j] = float64(b.PromptTokens+b.CompletionTokens) - float64(a.PromptTokens+a.CompletionTokens)
	}
	cl, g := clusterOf(ref, p.ref)
	c.Questions = g
	est := pairedEstimates(d, cl, g, opt)
	c.Accuracy = binaryCounts(rc, cc, cl)
	c.Accuracy.Clusters, c.Accuracy.Delta = g, est[0]
	c.Accuracy = pairedNoDiscordant(c.Accuracy, rc, cl, g, opt.Level)
	c.Calls, c.Tokens = est[1], est[2]
	c.MDD = comparisonMDD(c.Accuracy, d[0])
	c.Triage = triageCompare(ref, p.ref, cand, p.cand, cl, g, opt)
	return c
}

// comparisonMDD is MinDetectableDiff at the default α and power for the
// comparison's discordance and design-effect-corrected n.
func comparisonMDD(pb PairedBinary, d []float64) float64 {
	n := float64(pb.N)
	if pb.N < 2 || pb.B+pb.C == 0 {
		return math.NaN()
	}
	mean := pb.Delta.Value
	ss := 0.0
	for _, v := range d {
		ss += (v - mean) * (v - mean)
	}
	iid := ss / (n - 1) / n
	if deff := pb.Delta.SE * pb.Delta.SE / iid; deff > 1 {
		n /= deff
	}
	return MinDetectableDiffNull(n, pb.NullDiscordance(), DefaultAlpha, DefaultPower)
}

// PairedMetric is the paired difference (candidate − reference) of any
// per-row quantity — cost, latency, rounds — over the rows of two arms
// paired as in Compare (by question id, or source id across layouts), with its clustered Wald
// and question-bootstrap intervals (PairedDiff), and the number of pairs.
func PairedMetric(ref, cand []results.QuestionRow, metric func(*results.QuestionRow) float64, opt Bootstrap) (Estimate, int) {
	p := pairRows(ref, seq(len(ref)), cand, seq(len(cand)))
	d := make([]float64, len(p.ref))
	for j := range p.ref {
		d[j] = metric(&cand[p.cand[j]]) - metric(&ref[p.ref[j]])
	}
	cl, g := clusterOf(ref, p.ref)
	return pairedEstimates([][]float64{d}, cl, g, opt)[0], len(d)
}
