package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/stats"
)

// costSection is the distributions of calls, tokens, latency and cost.
func (r *Report) costSection() *Section {
	h := []string{"arm", "calls/q mean (p50, p95)", "tokens/q mean (p50, p95)", "prompt tok/q", "completion tok/q", "wall s/q p50 (p95)"}
	cached := r.promptCached()
	if cached {
		h = append(h, "prompt cached")
	}
	if r.Priced {
		h = append(h, "list cost", "actual spend")
		if cached {
			h = append(h, "cache saved")
		}
	}
	t := Table{Header: r.lead("dataset", "model", h...)}
	for _, g := range r.Groups {
		row := []string{g.Key.Arm, dist(g.Calls, 2), dist(g.Tokens, 0), fnum(g.PromptTokens.Mean, 0), fnum(g.CompletionTokens.Mean, 0),
			fnum(g.WallMS.P50/1000, 2) + " (" + fnum(g.WallMS.P95/1000, 2) + ")"}
		if cached {
			row = append(row, cachedShare(g.PromptCache))
		}
		if r.Priced {
			row = append(row, totalCost(g.Cost), spentCost(g.Cost))
			if cached {
				row = append(row, savedCost(g.Cost))
			}
		}
		t.Rows = append(t.Rows, r.lead(g.Key.Dataset, g.Key.Model, row...))
	}
	text := "Per question row, failed rows included. p50 and p95 are observed values (the empirical quantile, R's type 1)."
	if r.Priced {
		text += " List cost: every call's tokens at the price table's synchronous USD per million prompt and completion tokens. " +
			"Actual spend: the tokens billed — calls served from the cache or shared from an identical request of another arm cost nothing " +
			"(a shared call is paid by the arm whose unit sent it first, so the split among arms depends on scheduling; their sum does not) — at the rates paid (batch rates for runs sent as provider batches)."
	}
	if cached {
		text += " Prompt cached: the share of the billed prompt tokens the provider served from its prompt (prefix) cache, as its usage reported it " +
			"(rows with a call that reported no count are left out; \"not reported\" when none did: Ollama and the simulator report none, which is unknown, not 0)."
		if r.Priced {
			text += " Actual spend prices those tokens at the table's cached_prompt rate; cache saved is what that rate saved against the prompt rate."
		}
	}
	return &Section{ID: SecCost, Heading: "Cost and latency", Text: text, Tables: []Table{t}}
}

// promptCached reports whether any group's calls reported cached prompt
// tokens (the cost table then shows the cached share).
func (r *Report) promptCached() bool {
	for _, g := range r.Groups {
		if g.PromptCache.Reported {
			return true
		}
	}
	return false
}

// cachedShare is a group's share of billed prompt tokens served from the
// provider's prompt cache, with the unreported calls when there are some.
func cachedShare(c stats.PromptCache) string {
	if !c.Reported {
		return "not reported"
	}
	s := fnum(100*c.Share(), 1) + "%"
	if c.Unreported > 0 {
		s += fmt.Sprintf(" (%d calls not reported)", c.Unreported)
	}
	return s
}

// savedCost is what the cached-input rate saved a group.
func savedCost(c *stats.Cost) string {
	if c == nil || c.Total == 0 && !c.Priced {
		return dash
	}
	return usd(c.CacheSaved)
}

// dist is "mean (p50, p95)".
func dist(d stats.Dist, prec int) string {
	return fnum(d.Mean, prec) + " (" + fnum(d.P50, prec) + ", " + fnum(d.P95, prec) + ")"
}

// totalCost is a group's total cost.
func totalCost(c *stats.Cost) string {
	if c == nil || c.Total == 0 && !c.Priced {
		return dash
	}
	return usd(c.Total)
}

// spentCost is what a group actually paid.
func spentCost(c *stats.Cost) string {
	if c == nil || c.Total == 0 && !c.Priced {
		return dash
	}
	return usd(c.Spent)
}

// errorSection lists abstentions and failures, when there are any.
func (r *Report) errorSection() *Section {
	t := Table{Header: r.lead("dataset", "model", "arm", "n", "abstained", "failed", "failures by class")}
	for _, g := range r.Groups {
		if g.Abstained+g.Errors == 0 {
			continue
		}
		classes := slices.Sorted(maps.Keys(g.ErrorClasses))
		parts := make([]string, len(classes))
		for i, c := range classes {
			parts[i] = fmt.Sprintf("%s %d", c, g.ErrorClasses[c])
		}
		t.Rows = append(t.Rows, r.lead(g.Key.Dataset, g.Key.Model, g.Key.Arm, fmt.Sprint(g.Rows), fmt.Sprint(g.Abstained), fmt.Sprint(g.Errors), strings.Join(parts, ", ")))
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return &Section{ID: SecErrors, Heading: "Abstentions and failures", Text: "Both count as not correct in every accuracy above.", Tables: []Table{t}}
}

// calibrationSection is ECE, Brier, AURC and the reliability bins.
func (r *Report) calibrationSection() *Section {
	t := Table{Header: r.lead("dataset", "model", "arm", "rated", "no confidence", "ECE debiased [95% CI]", "plug-in ECE", "Brier [95% CI]", "AURC", "reliability: mean confidence → accuracy (n) per bin")}
	any := false
	for _, g := range r.Groups {
		c := g.Calibration
		any = any || c.N > 0
		bins := make([]string, len(c.Bins))
		for i, b := range c.Bins {
			bins[i] = fmt.Sprintf("%s → %s (%d)", fnum(b.Confidence, 2), fnum(b.Accuracy, 2), b.N)
		}
		t.Rows = append(t.Rows, r.lead(g.Key.Dataset, g.Key.Model, g.Key.Arm, fmt.Sprint(c.N), fmt.Sprint(c.NoConfidence),
			fnum(c.ECEDebiased, 3)+" "+ivNum(c.ECEDebiasedCI, 3), fnum(c.ECE, 3), fnum(c.Brier, 3)+" "+ivNum(c.BrierCI, 3), fnum(g.RiskCoverage.AURC, 3), strings.Join(bins, "; ")))
	}
	if !any {
		return nil
	}
	text := fmt.Sprintf("The team's stated confidence (mean final-round confidence of the agents) against correctness, over answered rows. "+
		"Over %d equal-mass bins (equal confidences share a bin, so there may be fewer): the plug-in ECE (mean |accuracy − confidence| over the bins) is biased up — "+
		"a perfectly calibrated model gets about 0.03–0.05 at 500 questions — so the estimate is the debiased ECE of Kumar, Liang & Ma (2019): "+
		"the squared ℓ2 error with each bin's sampling variance (question-clustered) subtracted, reported as √max(0, ·) — a root-mean-square gap, "+
		"so it can exceed the plug-in (a mean absolute gap) when the gaps differ between bins — "+
		"with a bias-corrected question-bootstrap interval (bins fixed at the sample's edges) whose lower end is 0 when calibration cannot be told from perfect; "+
		"Brier = mean (confidence − correct)², with a question-clustered t interval; intervals over fewer than 2 questions are —. "+
		"AURC = mean selective risk over the coverage levels when answering only the most confident rows first (lower is better).", r.Bins)
	return &Section{ID: SecCalibration, Heading: "Calibration", Text: text, Tables: []Table{t}}
}

// convergenceSection is agreement by round and the opinion flows.
func (r *Report) convergenceSection() *Section {
	rounds := 0
	for _, g := range r.Groups {
		rounds = max(rounds, len(g.Convergence.ByRound))
	}
	if rounds == 0 {
		return nil
	}
	h := []string{"arm", "rows"}
	for t := range rounds {
		h = append(h, roundName(t, rounds))
	}
	h = append(h, "right → wrong", "wrong → right")
	t := Table{Header: r.lead("dataset", "model", h...)}
	for _, g := range r.Groups {
		c := g.Convergence
		row := []string{g.Key.Arm, fmt.Sprint(c.Rows)}
		for k := range rounds {
			cell := dash
			if k < len(c.ByRound) {
				cell = pct(c.ByRound[k].Mean) + " " + ivPct(c.ByRound[k].CI)
			}
			row = append(row, strings.TrimSpace(cell))
		}
		row = append(row, fmt.Sprint(c.RightToWrong), fmt.Sprint(c.WrongToRight))
		t.Rows = append(t.Rows, r.lead(g.Key.Dataset, g.Key.Model, row...))
	}
	text := "Agreement of a round = share of agents whose first choice is the round's most common one (an abstaining agent disagrees), " +
		"in percent, mean over rows with a question-clustered 95% interval. The flows count agents whose first choice went from right to wrong " +
		"or wrong to right between the initial prediction and the final round, summed over rows."
	return &Section{ID: SecConvergence, Heading: "Convergence", Text: text, Tables: []Table{t}}
}

// roundName names round t of n.
func roundName(t, n int) string {
	switch {
	case t == 0:
		return "initial agreement"
	case t == n-1:
		return fmt.Sprintf("turn %d (final)", t)
	}
	return fmt.Sprintf("turn %d", t)
}

// componentSection is the effect of each component between arms one
// component apart.
func (r *Report) componentSection() *Section {
	if len(r.Components) == 0 {
		return nil
	}
	t := Table{Header: r.lead("dataset", "model", "component", "without → with", "pairs", "Δ (pp)", "95% CI (bootstrap, unadjusted)",
		"McNemar p", "Holm p", "MDE", "b / c", "Δ calls/q [95% CI]")}
	for _, e := range r.Components {
		c := e.Comparison
		t.Rows = append(t.Rows, r.lead(c.Dataset, c.Model, e.Component, c.Reference+" → "+c.Candidate, fmt.Sprint(c.Matched),
			pp(c.Accuracy.Delta.Value), deltaCI(c.Accuracy), pval(c.Accuracy.McNemarP), pval(c.HolmP), mdeCell(c),
			fmt.Sprintf("%d / %d", c.Accuracy.B, c.Accuracy.C), estNum(c.Calls, 2)))
	}
	text := "Every pair of arms that differ in exactly one component (smm, l, to, t, mm) with all else equal: that component's paired effect " +
		"(with − without), as in the comparisons; Holm p adjusts over the component effects of the dataset × model; the intervals are unadjusted. " +
		"An effect holds where the other components are as in the pair: it is not a main effect unless the components do not interact."
	return &Section{ID: SecComponents, Heading: "Component effects", Text: text, Tables: []Table{t}}
}

// factorialSection is the linear probability model of each family that is
// a factorial design, and why the others are not.
func (r *Report) factorialSection() *Section {
	if len(r.Factorial) == 0 {
		return nil
	}
	s := &Section{ID: SecFactorial, Heading: "Factorial effects"}
	var text []string
	for _, f := range r.Factorial {
		where := ""
		if r.multi() {
			where = f.Dataset + " · " + f.Model + ": "
		}
		if f.Fit == nil {
			text = append(text, "- "+where+f.Note)
			continue
		}
		s.Tables = append(s.Tables, factorialTable(f))
		text = append(text, fmt.Sprintf("- %s%d arms (one per valid combination), %d rows in %d question clusters; terms the design cannot separate: %s",
			where, len(f.Arms), f.Fit.N, f.Fit.Clusters, orNone(f.Fit.Dropped)))
	}
	intro := "Linear probability model P(correct) = β₀ + Σ βⱼ xⱼ + Σ γⱼₖ xⱼ xₖ over the five components, **effect-coded: xⱼ = +1 when component j is on, −1 when off**, " +
		"by OLS over the 24 valid cells with question-clustered (CR1) standard errors and t intervals with G − 1 degrees of freedom. " +
		"The table gives effects = 2 × coefficient in percentage points. With 24 of the 32 cells (monitoring needs leadership) the design is not balanced, " +
		"so **2β is a component's effect at the design centre** (every other component's x at 0, between off and on, interactions included), " +
		"not the mean on − off cell difference; that difference — the mean accuracy of the cells with the component on minus that of the cells with it off, " +
		"each cell weighted equally — is printed beside it: the two agree in a full 2⁵ design; here they differ for l and mm (the 8 cells with l off all have mm off) " +
		"and for any component that interacts with l or mm. " +
		"An interaction jk is half the difference between j's effect with k on and with k off; Holm p adjusts p over the effects, the intervals are unadjusted. " +
		"The intercept is the model's mean accuracy over the cells. Fitted only when a dataset × model's arms cover the 24 valid combinations with all else equal."
	s.Text = intro + "\n\n" + strings.Join(text, "\n")
	return s
}

// factorialTable is one fit's coefficients.
func factorialTable(f FactorialFit) Table {
	t := Table{Caption: f.Dataset + " · " + f.Model, Header: []string{"term", "effect 2β (pp)", "SE (pp)", "95% CI (unadjusted)", "p", "Holm p", "mean on − off cell diff. (pp)"}}
	for i, c := range f.Fit.Effects {
		est, ci := pp(c.Estimate), ivPP(c.CI)
		if c.Name == "(intercept)" {
			est, ci = pct(c.Estimate), ivPct(c.CI)
		}
		cell := dash
		if i < len(f.Fit.CellDiffs) && !math.IsNaN(f.Fit.CellDiffs[i]) {
			cell = pp(f.Fit.CellDiffs[i])
		}
		t.Rows = append(t.Rows, []string{c.Name, est, fnum(100*c.SE, 1), ci, pval(c.P), pval(c.HolmP), cell})
	}
	return t
}

// orNone joins names, or says "none".
func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
