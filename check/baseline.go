package check

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/stats"
)

// Defaults of the baseline gate (see NonInferior and docs/ci.md).
const (
	// DefaultMargin is the non-inferiority margin δ as a share of
	// accuracy: 0.05 = 5 percentage points.
	DefaultMargin = 0.05
	// DefaultAlpha is the one-sided level of the gate's bounds.
	DefaultAlpha = 0.05
	// DefaultMinQuestions is the fewest shared questions the gate judges
	// on: the normal approximation of a paired difference over question
	// clusters holds from about 30.
	DefaultMinQuestions = 30
	// DefaultMinCoverage is the smallest share of the baseline's
	// (question, repeat) units a compared arm must share.
	DefaultMinCoverage = 0.90
	// PowerWarning: below this power the gate warns that it can tell a
	// drop of δ from no change only by luck.
	PowerWarning = 0.80
)

// BaselineOptions configure Baseline.
type BaselineOptions struct {
	Margin       float64 // δ as a share of accuracy; 0 = DefaultMargin
	Alpha        float64 // one-sided level; 0 = DefaultAlpha
	MinQuestions int     // 0 = DefaultMinQuestions
	MinCoverage  float64 // 0 = DefaultMinCoverage
	Seed         uint64  // bootstrap seed (the Δ bootstrap interval shown)
	Reps         int     // bootstrap replicates; 0 = stats.DefaultReps
	// Family is the number of baseline checks of the gate that share α
	// (Bonferroni: each is judged at α/Family, so that an unchanged
	// candidate turns the gate red at most α of the time however many
	// arms, datasets or anchors are compared); 0 = the comparisons of
	// this call (see Comparisons).
	Family int
	// Label names the reference in the check's name ("baseline", or
	// "anchor" for --anchor); "" = "baseline".
	Label string
}

func (o BaselineOptions) withDefaults() BaselineOptions {
	if o.Margin <= 0 {
		o.Margin = DefaultMargin
	}
	if o.Alpha <= 0 {
		o.Alpha = DefaultAlpha
	}
	if o.MinQuestions <= 0 {
		o.MinQuestions = DefaultMinQuestions
	}
	if o.MinCoverage <= 0 {
		o.MinCoverage = DefaultMinCoverage
	}
	if o.Family < 1 {
		o.Family = 1
	}
	if o.Label == "" {
		o.Label = "baseline"
	}
	return o
}

// level is the one-sided level of each check: α split over the family.
func (o BaselineOptions) level() float64 { return o.Alpha / float64(o.Family) }

// Comparisons is the number of dataset × model × arm comparisons Baseline
// makes of cand against base: the size of its share of the gate's family.
func Comparisons(base, cand []results.QuestionRow) int {
	acrossModels := len(models(base)) == 1 && len(models(cand)) == 1
	bg, cg := byGroup(base, acrossModels), byGroup(cand, acrossModels)
	n := 0
	for k := range cg {
		if _, ok := bg[k]; ok {
			n++
		}
	}
	return n
}

// BaselineSummary counts what the baseline gate paired.
type BaselineSummary struct {
	Results []Result
	// Shared are the (question, repeat) pairs present in both runs, over
	// every arm compared; BaseOnly and CandOnly those in one run only.
	Shared, BaseOnly, CandOnly int
	// Unmatched are the dataset · model · arm groups in one run only: not
	// compared.
	Unmatched []string
	// BySource names the groups whose units were paired on the source id
	// (two layouts of one dataset: the question ids differ, the dataset's
	// own ids and gold answers match; stats.PairedBySource).
	BySource []string
	// LowPower names the comparisons whose power to detect a drop of δ is
	// below PowerWarning.
	LowPower []string
}

type gkey struct{ dataset, model, arm string }

func (k gkey) String() string {
	if k.model == "*" {
		return k.dataset + " · " + k.arm
	}
	return k.dataset + " · " + k.model + " · " + k.arm
}

// Baseline is the paired non-inferiority gate of a candidate's rows against
// a baseline run's: for each dataset × model × arm present in both, the
// rows are paired by (question id, repeat) (stats.Compare) and judged by
// NonInferior. When each side has a single model, the models need not be
// the same (a model change is gated against the old model's run): groups
// are matched on dataset × arm.
func Baseline(base, cand []results.QuestionRow, o BaselineOptions) BaselineSummary {
	if o.Family <= 0 {
		o.Family = Comparisons(base, cand)
	}
	o = o.withDefaults()
	// One model on each side (a model change is what a CI gate is for):
	// pair across the models; else model by model.
	acrossModels := len(models(base)) == 1 && len(models(cand)) == 1
	bg, cg := byGroup(base, acrossModels), byGroup(cand, acrossModels)
	var s BaselineSummary
	for _, k := range sortedKeys(cg) {
		b, ok := bg[k]
		if !ok {
			s.Unmatched = append(s.Unmatched, k.String()+" (candidate only)")
			continue
		}
		c := stats.Compare(b, cg[k], stats.Bootstrap{Seed: o.Seed, Reps: o.Reps})
		s.Shared += c.Matched
		if c.PairedBy == stats.PairedBySource {
			s.BySource = append(s.BySource, k.String())
		}
		s.BaseOnly += c.RefOnly
		s.CandOnly += c.CandOnly
		r := NonInferior(c, o)
		r.Arm, r.Where = k.arm, k.String()
		if acrossModels {
			r.Where = fmt.Sprintf("%s · %s · %s", k.dataset, modelChange(b[0].Model, cg[k][0].Model, o.Label), k.arm)
		}
		if lowPower(r) {
			s.LowPower = append(s.LowPower, fmt.Sprintf("%s: power %.0f%% to detect a drop of %s%s", r.Where, 100*r.Power, Format(o.Margin), neededText(r.QuestionsNeeded)))
		}
		s.Results = append(s.Results, r)
	}
	for _, k := range sortedKeys(bg) {
		if _, ok := cg[k]; !ok {
			s.Unmatched = append(s.Unmatched, k.String()+" (baseline only)")
		}
	}
	return s
}

// NonInferior is the decision of the baseline gate on one paired
// comparison (reference = the baseline), a non-inferiority test with
// margin δ = o.Margin (a share of accuracy) on Δ = candidate − baseline
// accuracy, paired on (question, repeat), at the one-sided level
// a = α/o.Family (Bonferroni over the gate's baseline checks):
//
//	L, U = Δ ∓ t_{1−a, G−1} · SE_CR1(Δ)     one-sided (1 − a) bounds,
//	                                        SE clustered by question (G questions)
//	PASS          L ≥ −δ                  non-inferior: a drop of δ or more is ruled out
//	FAIL          L < −δ and U < 0        not non-inferior, and worse than the baseline (exit 7)
//	INSUFFICIENT  L < −δ and U ≥ 0        neither shown: the run cannot tell
//
// and INSUFFICIENT before any of these when the pairs cover fewer than
// o.MinQuestions questions or less than o.MinCoverage of the baseline's
// units of the arm. A candidate whose lower bound is below −δ never
// passes; it fails outright only when it is also shown worse, so that an
// unchanged candidate fails a check with probability at most a and the
// gate with at most α at every run size (P(U < 0 | Δ = 0) = a per check,
// a union bound over the family). INSUFFICIENT is inconclusive: the gate
// passes it with a warning unless --require-evidence (the CONSORT
// non-inferiority reading of an interval: Piaggio et al. 2012, JAMA
// 308:2594, fig. 2).
//
// Power is stats.NonInferiorityPower at the pairs' effective n, the level
// a, and the null discordance (stats.PairedBinary.NullDiscordance): the discordance an
// unchanged candidate would show, not the observed one, which a real
// difference inflates.
func NonInferior(c stats.Comparison, o BaselineOptions) Result {
	o = o.withDefaults()
	a := o.level()
	pb := c.Accuracy
	d := pb.Delta
	t := math.NaN()
	if c.Questions >= 2 {
		t = stats.TFor(1-2*a, float64(c.Questions-1))
	}
	lo, hi := d.Value-t*d.SE, d.Value+t*d.SE
	psi0 := pb.NullDiscordance()
	r := Result{
		Name:     fmt.Sprintf("%s: delta(accuracy, candidate, %s) lower %s%% bound >= %s", o.Label, o.Label, levelText(a), Format(-o.Margin)),
		Observed: lo, Bound: -o.Margin, Op: ">=",
		Power:           stats.NonInferiorityPower(pb.EffectiveN(), psi0, o.Margin, a),
		QuestionsNeeded: questionsNeeded(pb, psi0, o.Margin, a),
	}
	units := c.Matched + c.RefOnly
	coverage := math.NaN()
	if units > 0 {
		coverage = float64(c.Matched) / float64(units)
	}
	shared := fmt.Sprintf("%d shared pairs over %d questions (%s of the %s's units; %d %s only, %d candidate only)",
		c.Matched, c.Questions, pctText(coverage), o.Label, c.RefOnly, o.Label, c.CandOnly)
	switch {
	case c.Questions < o.MinQuestions || !(coverage >= o.MinCoverage):
		r.Insufficient = true
		r.Detail = fmt.Sprintf("insufficient evidence: %s; the gate needs %d shared questions and %s coverage (--min-questions, --min-coverage)%s",
			shared, o.MinQuestions, pctText(o.MinCoverage), neededText(r.QuestionsNeeded))
		return r
	case math.IsNaN(lo):
		r.Insufficient = true
		r.Detail = "insufficient evidence: Δ has no interval on " + shared
		return r
	}
	r.Detail = fmt.Sprintf("Δ %s, one-sided %s%% bounds [%s, %s] on %s; margin %s",
		signedShare(d.Value), levelText(a), signedShare(lo), signedShare(hi), shared, Format(o.Margin))
	if o.Family > 1 {
		r.Detail += fmt.Sprintf(" (α %g split over %d checks)", o.Alpha, o.Family)
	}
	if lo >= -o.Margin {
		// A pass needs no power: the drop of δ is already ruled out.
		r.Pass = true
		return r
	}
	r.Detail += fmt.Sprintf("; power %.0f%% to detect a drop of %s at the null discordance %s", 100*r.Power, Format(o.Margin), pctText(psi0))
	switch {
	case hi < 0:
		r.Detail += "; worse than the " + o.Label + " and not shown within the margin"
	default:
		r.Insufficient = true
		r.Detail = "insufficient evidence: neither non-inferior nor worse at this size. " + r.Detail
	}
	if lowPower(r) {
		r.Detail += fmt.Sprintf(" (below %.0f%%%s)", 100*PowerWarning, neededText(r.QuestionsNeeded))
	}
	return r
}

// lowPower: an inconclusive comparison with power below PowerWarning. A
// pass or a failure is never low-powered: its bounds already decided.
func lowPower(r Result) bool { return r.Insufficient && r.Power < PowerWarning }

// questionsNeeded is the number of questions the comparison needs for
// PowerWarning power to detect a drop of δ at level a and null discordance
// psi (Connor 1987, one-sided: n = ((z_{1−a}√ψ + z_{0.8}√(ψ − δ²))/δ)²
// effective pairs, ψ = max(psi, δ)), scaled by the comparison's effective
// pairs per question (repeats and their design effect). 0 when unknown.
func questionsNeeded(pb stats.PairedBinary, psi, delta, a float64) int {
	effN := pb.EffectiveN()
	if math.IsNaN(psi) || pb.Clusters < 1 || !(effN > 0) {
		return 0
	}
	psi = math.Max(psi, delta)
	za, zb := distuv.UnitNormal.Quantile(1-a), distuv.UnitNormal.Quantile(PowerWarning)
	n := math.Pow((za*math.Sqrt(psi)+zb*math.Sqrt(psi-delta*delta))/delta, 2)
	return int(math.Ceil(n * float64(pb.Clusters) / effN))
}

// neededText is "; about N questions needed for 80% power", "" when unknown.
func neededText(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("; %d questions needed for %.0f%% power", n, 100*PowerWarning)
}

// levelText prints a one-sided confidence level 1 − a in percent: 95,
// 97.5, 98.33.
func levelText(a float64) string {
	return strconv.FormatFloat(math.Round(10000*(1-a))/100, 'f', -1, 64)
}

// signedShare prints a difference of shares with a sign and 3 decimals.
func signedShare(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%+.3f", x)
}

// pctText prints a share in percent.
func pctText(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}

// modelChange names the candidate's model against the reference's
// (label: baseline or anchor).
func modelChange(base, cand, label string) string {
	if base == cand {
		return cand
	}
	return cand + " vs " + label + " " + base
}

func models(rows []results.QuestionRow) map[string]bool {
	m := map[string]bool{}
	for _, r := range rows {
		m[r.Model] = true
	}
	return m
}

// byGroup splits rows by dataset × model × arm (dataset × arm when
// acrossModels: the key's model is then "*").
func byGroup(rows []results.QuestionRow, acrossModels bool) map[gkey][]results.QuestionRow {
	m := map[gkey][]results.QuestionRow{}
	for _, r := range rows {
		k := gkey{r.Dataset, r.Model, r.Arm}
		if acrossModels {
			k.model = "*"
		}
		m[k] = append(m[k], r)
	}
	return m
}

func sortedKeys(m map[gkey][]results.QuestionRow) []gkey {
	ks := make([]gkey, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b gkey) int {
		return cmp.Or(cmp.Compare(a.dataset, b.dataset), cmp.Compare(a.model, b.model), cmp.Compare(a.arm, b.arm))
	})
	return ks
}
