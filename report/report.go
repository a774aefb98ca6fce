package report

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/stats"
)

// DefaultReference is the reference arm when Options.Reference is empty
// and the rows have it.
const DefaultReference = "base"

// Options configure Build.
type Options struct {
	// Reference is the arm every other arm is compared with on each dataset
	// × model; "" means DefaultReference when present, else the first arm.
	// An arm is also found by its configuration's name: "base" finds
	// "base/n3" (a label with settings) and "base@RUN" (relabelled by Pool),
	// the first in arm order.
	Reference string
	// ReferenceModel is the model every other model is compared with, arm
	// by arm, when the rows hold several models on one dataset; "" = the
	// first model in name order.
	ReferenceModel string
	Seed           uint64  // bootstrap seed: the same seed gives the same intervals
	Reps           int     // bootstrap replicates; 0 = stats.DefaultReps
	Level          float64 // confidence level; 0 = 0.95
	Bins           int     // equal-mass calibration bins; 0 = stats.DefaultBins
	Prices         Prices  // nil: no cost; list prices (synchronous rates)
	// PaidPrices are the rates actually paid for the billed tokens (a
	// provider batch's); nil = Prices.
	PaidPrices Prices
	// ArmOrder is the arms in plan order (the manifests'); arms not in it
	// follow in name order.
	ArmOrder []string
	// Runs are the runs the rows come from, for the header and the SQL.
	Runs []RunInfo
	// Simulated marks rows from the simulator: the report says so at the
	// top. Build also sets it when a model is sim/….
	Simulated bool
	// PowerDeltas are the differences (as proportions) the power section
	// gives the pairs needed for; nil = DefaultPowerDeltas.
	PowerDeltas []float64
	// Notes are shown first among the report's notes (Pool's).
	Notes []string
	// OwnFirstAnswer names the protocols whose method asks its first
	// answers in its own prompts, never the shared first-answer request
	// (protocol.Registry.OwnFirstAnswer): the equal-terms notes name their
	// arms apart from arms whose shared request differs. nil: every arm is
	// judged by its first_prompt alone.
	OwnFirstAnswer []string
}

// DefaultPowerDeltas are the differences the power section plans for.
var DefaultPowerDeltas = []float64{0.02, 0.05}

// RunInfo is one run the rows come from.
type RunInfo struct {
	Name string // the run directory's name (the run_id column)
	// Parquet is its questions.parquet as the DuckDB query names it:
	// relative to the report's directory when it is under it.
	Parquet   string
	Rows      int
	Simulated bool
	// Status is the run's status as its manifest records it (State "":
	// not recorded).
	Status results.Status
}

// Report is everything medteam's report says, computed and typed: the
// Markdown (WriteMarkdown), the HTML page and summary.parquet are
// renderings of it. Slices are in report order: dataset, model, then the
// arm order (Options.ArmOrder, then name). Statistics that the data cannot
// define are NaN (stats' convention); renderings show them as "—" or null.
type Report struct {
	Simulated      bool
	Runs           []RunInfo
	Reference      string // the reference arm used
	ReferenceModel string // the reference model of ModelComparisons ("" with one model)
	Level          float64
	Seed           uint64
	Reps           int
	Bins           int
	Priced         bool // a price table was given

	Rows, Questions        int // question rows; distinct question ids
	Datasets, Models, Arms []string

	// Groups summarise each dataset × model × arm (stats.Aggregate).
	Groups []stats.Group
	// Subjects are Groups split by subject; nil when no row has one.
	Subjects []stats.Group
	// Position is each group's position bias (multiple-choice rows).
	Position []PositionBias
	// Comparisons are every arm against Reference on each dataset × model,
	// Holm-adjusted within it, identical arms counted once
	// (stats.CompareToReference).
	Comparisons []stats.Comparison
	// ModelComparisons are, when a dataset has several models, each arm on
	// every model against the same arm on ReferenceModel, Holm-adjusted
	// within each dataset × arm.
	ModelComparisons []ModelComparison
	// Published are, when the rows hold published runs (protocol rescore)
	// beside medteam's, each medteam arm against each published arm of its
	// dataset (comparePublished).
	Published []PublishedComparison
	// Rescored are published replies read both ways (medteam rescore's arms
	// published and medteam), per dataset × model (rescored.go).
	Rescored []RescoredRow
	// Components are the effects of single components between arms one
	// component apart (stats.ComponentEffects).
	Components []stats.ComponentEffect
	// Factorial is the design check and, where the arms cover the 24 valid
	// component combinations, the linear probability model, per dataset ×
	// model.
	Factorial []FactorialFit
	// Power plans, per comparison, the pairs needed for each of
	// PowerDeltas at the null discordance (the gate's convention).
	Power       []PowerRow
	PowerDeltas []float64
	// Notes are things a reader must know (relabelled arms, unmatched
	// pairs, unpriced models).
	Notes []string
	// SQL is the DuckDB query that recomputes the headline table's point
	// estimates from questions.parquet.
	SQL string
	// Routes are the accuracy and cost per route of the arms that route
	// (mdagents); nil when none does (routes.go).
	Routes []RouteRow
	// SMM is the facts step of the arms with a shared mental model: facts
	// stated, verified, rows with none verified (smm.go); nil when no arm
	// has SMM.
	SMM []SMMRow
	// TriageSQL is the DuckDB query of the triage table (TriageSQL); ""
	// when no row is a triage item's. The triage metrics themselves are
	// in Groups (Group.Triage) and Comparisons (Comparison.Triage).
	TriageSQL string
}

// ErrNoRows is returned by Build for an empty input.
var ErrNoRows = errors.New("report: no question rows")

// ReferenceError is a reference arm or model the rows do not have.
type ReferenceError struct {
	What, Name string
	Have       []string
}

func (e *ReferenceError) Error() string {
	return fmt.Sprintf("reference %s %q is not in the results; they have %s", e.What, e.Name, strings.Join(e.Have, ", "))
}

// Build computes the report of rows. Rows of several runs are first pooled
// with Pool. It fails on no rows and on a reference arm or model the rows
// lack (a *ReferenceError).
func Build(rows []results.QuestionRow, opt Options) (*Report, error) {
	if len(rows) == 0 {
		return nil, ErrNoRows
	}
	r := &Report{Runs: opt.Runs, Level: opt.Level, Seed: opt.Seed, Reps: opt.Reps, Bins: opt.Bins, Priced: len(opt.Prices) > 0}
	if r.Level == 0 {
		r.Level = stats.DefaultLevel
	}
	if r.Reps <= 0 {
		r.Reps = stats.DefaultReps
	}
	if r.Bins <= 0 {
		r.Bins = stats.DefaultBins
	}
	r.PowerDeltas = opt.PowerDeltas
	if r.PowerDeltas == nil {
		r.PowerDeltas = DefaultPowerDeltas
	}
	r.Notes = slices.Clone(opt.Notes)
	r.describeRows(rows, opt)
	var err error
	if r.Reference, err = resolveArm(opt.Reference, r.Arms); err != nil {
		return nil, err
	}
	if r.ReferenceModel, err = r.resolveModel(opt.ReferenceModel); err != nil {
		return nil, err
	}
	r.compute(rows, opt)
	return r, nil
}

// compute fills the statistics.
func (r *Report) compute(rows []results.QuestionRow, opt Options) {
	rank := r.armRank()
	boot := stats.Bootstrap{Reps: r.Reps, Seed: r.Seed, Level: r.Level}
	paid := opt.PaidPrices
	if paid == nil {
		paid = opt.Prices
	}
	agg := stats.AggregateOptions{Price: opt.Prices.Func(), PaidPrice: opt.PaidPrices.Func(), CacheSaving: paid.saving(),
		Bins: r.Bins, Level: r.Level, Seed: r.Seed, Reps: r.Reps}
	r.Groups = sortGroups(stats.Aggregate(rows, agg), rank)
	if hasSubjects(rows) {
		agg.BySubject = true
		r.Subjects = sortGroups(stats.Aggregate(rows, agg), rank)
	}
	r.Position = positionBias(rows, r.Level, rank)
	r.Comparisons = stats.CompareToReference(rows, r.Reference, boot)
	slices.SortStableFunc(r.Comparisons, func(a, b stats.Comparison) int {
		return cmp.Or(cmp.Compare(a.Dataset, b.Dataset), cmp.Compare(a.Model, b.Model), cmp.Compare(rank(a.Candidate), rank(b.Candidate)))
	})
	if r.ReferenceModel != "" {
		r.ModelComparisons = compareModels(rows, r.ReferenceModel, r.Arms, boot)
	}
	r.Published = comparePublished(rows, r.Arms, boot)
	r.Rescored = rescoredReplies(rows, r.Level)
	r.Components = stats.ComponentEffects(rows, boot)
	r.Factorial = factorialFits(rows, r.Level, r.Arms)
	r.Power = powerRows(r.Comparisons, r.PowerDeltas)
	r.SQL = HeadlineSQL(r.Runs, opt.Prices)
	if hasTriage(r.Groups) {
		r.TriageSQL = TriageSQL(r.Runs)
	}
	r.notePairs()
	r.noteTerms(rows, opt.OwnFirstAnswer)
	r.noteRoutes(rows)
	r.noteSMM(rows)
	r.noteFinish(rows)
	r.notePrices(opt.Prices)
	r.noteOwnCost(rows, opt.Prices)
}

// describeRows fills the counts, the lists of datasets, models and arms,
// and whether the rows are simulated.
func (r *Report) describeRows(rows []results.QuestionRow, opt Options) {
	r.Rows = len(rows)
	r.Simulated = opt.Simulated
	qs, ds, ms, as := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for i := range rows {
		q := &rows[i]
		qs[q.QuestionID], ds[q.Dataset], ms[q.Model], as[q.Arm] = true, true, true, true
		if strings.HasPrefix(q.Model, "sim/") {
			r.Simulated = true
		}
	}
	r.Questions = len(qs)
	r.Datasets, r.Models = sortedKeys(ds), sortedKeys(ms)
	r.Arms = orderArms(sortedKeys(as), opt.ArmOrder)
}

// sortedKeys is the keys of m in order.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// orderArms orders arms by their place in order — an arm ARM@RUN by ARM's
// — then by name (so the copies of one arm keep their runs' name order).
func orderArms(arms, order []string) []string {
	pos := func(a string) int {
		base, _, _ := strings.Cut(a, "@")
		for _, name := range []string{a, base} {
			if i := slices.Index(order, name); i >= 0 {
				return i
			}
		}
		return len(order)
	}
	out := slices.Clone(arms)
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Or(cmp.Compare(pos(a), pos(b)), cmp.Compare(a, b)) })
	return out
}

// armRank is each arm's place in r.Arms.
func (r *Report) armRank() func(string) int {
	at := make(map[string]int, len(r.Arms))
	for i, a := range r.Arms {
		at[a] = i
	}
	return func(a string) int { return at[a] }
}

// sortGroups orders groups by dataset, model, arm rank, subject.
func sortGroups(gs []stats.Group, rank func(string) int) []stats.Group {
	slices.SortStableFunc(gs, func(a, b stats.Group) int {
		return cmp.Or(cmp.Compare(a.Key.Dataset, b.Key.Dataset), cmp.Compare(a.Key.Model, b.Key.Model),
			cmp.Compare(rank(a.Key.Arm), rank(b.Key.Arm)), cmp.Compare(a.Key.Subject, b.Key.Subject))
	})
	return gs
}

// hasSubjects reports whether any row has a subject.
func hasSubjects(rows []results.QuestionRow) bool {
	return slices.ContainsFunc(rows, func(q results.QuestionRow) bool { return q.Subject != "" })
}

// resolveArm finds the reference arm: want (or DefaultReference, or the
// first arm when want is "" and there is no DefaultReference). An arm
// matches want when its label is want, or is want with "@RUN" (Pool)
// or with settings ("base/n3", Label) appended; the first match in arm
// order wins, an exact label first.
func resolveArm(want string, arms []string) (string, error) {
	name := want
	if name == "" {
		name = DefaultReference
	}
	if slices.Contains(arms, name) {
		return name, nil
	}
	for _, a := range arms {
		label, _, _ := strings.Cut(a, "@")
		config, _, _ := strings.Cut(label, "/")
		if label == name || config == name {
			return a, nil
		}
	}
	if want == "" {
		return arms[0], nil
	}
	return "", &ReferenceError{What: "arm", Name: want, Have: arms}
}

// resolveModel finds the reference model when some dataset has several.
func (r *Report) resolveModel(want string) (string, error) {
	if want != "" && !slices.Contains(r.Models, want) {
		return "", &ReferenceError{What: "model", Name: want, Have: r.Models}
	}
	if len(r.Models) < 2 {
		return "", nil
	}
	if want == "" {
		want = r.Models[0]
	}
	return want, nil
}

// notePairs notes comparisons whose arms did not run the same units.
func (r *Report) notePairs() {
	note := func(c stats.Comparison, ref, cand, where string) {
		on := "question × repeat"
		if c.PairedBy == stats.PairedBySource {
			on = "source id × repeat"
			r.Notes = append(r.Notes, fmt.Sprintf("%s vs %s (%s): the question ids differ (two layouts of the dataset, e.g. PubMedQA with the abstract inside the question); paired on the dataset's own id (source_id, e.g. the PMID) with the same gold answer in every pair: %d pairs",
				cand, ref, where, c.Matched))
		}
		if c.RefOnly+c.CandOnly+c.Duplicates == 0 {
			return
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%s vs %s (%s): %d pairs matched on %s; %d units only in %s, %d only in %s, %d duplicate rows left out",
			cand, ref, where, c.Matched, on, c.RefOnly, ref, c.CandOnly, cand, c.Duplicates))
	}
	for _, c := range r.Comparisons {
		note(c, c.Reference, c.Candidate, c.Dataset+" · "+c.Model)
	}
	for _, c := range r.ModelComparisons {
		note(c.Comparison, c.RefModel, c.CandModel, c.Dataset+" · arm "+c.Arm)
	}
}

// notePrices notes models without a price.
func (r *Report) notePrices(p Prices) {
	if len(p) == 0 {
		return
	}
	for _, m := range r.Models {
		if _, ok := p[m]; !ok {
			r.Notes = append(r.Notes, fmt.Sprintf("the price table has no price for %s: its cost is left out", m))
		}
	}
}
