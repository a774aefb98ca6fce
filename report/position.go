package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/stats"
)

// SecPosition is the position-bias section's ID.
const SecPosition = "position"

// PositionBias is one dataset × model × arm's answers by the position the
// options were shown at (A = first): what --shuffle-options controls.
// Positions are of the options as shown: under --shuffle-options the gold
// and the predicted letter are mapped through the row's option order.
type PositionBias struct {
	Key stats.GroupKey
	// Positions is the number of positions (the most options of a row, or
	// the farthest gold or predicted position when rows do not say).
	Positions int
	// AccuracyByGold[k] is the accuracy of the rows whose gold option was
	// shown at position k, with its question-clustered Wilson interval.
	AccuracyByGold []stats.Proportion
	// Answered is the rows with a predicted letter (no abstention, no
	// error): the sample of the distributions below.
	Answered int
	// Predicted[k] is the share of answered rows predicting position k;
	// Gold[k] the share of the same rows whose gold is at position k.
	Predicted, Gold []stats.Proportion
	// ChiSquare is the goodness-of-fit statistic of the predicted positions
	// against the gold positions' distribution, divided by the mean design
	// effect of the predicted shares (Rao & Scott 1981's first-order
	// correction for a clustered sample); DF its degrees of freedom (the
	// positions gold occupies, less one); P its upper tail; Holm P adjusted
	// over every group of the report; Flagged when Holm P < 0.05.
	ChiSquare, DeffMean float64
	DF                  int
	P, HolmP            float64
	Flagged             bool
}

// positionOf is the position (0 = first) at which letter was shown in a
// row: its index in the option order under --shuffle-options, else its
// place in the alphabet; -1 when it is not a shown option.
func positionOf(letter string, r *results.QuestionRow) int {
	if len(letter) != 1 {
		return -1
	}
	k := -1
	if r.OptionOrder != "" {
		k = strings.Index(r.OptionOrder, letter)
	} else if c := letter[0]; c >= 'A' && c <= 'Z' {
		k = int(c - 'A')
	}
	if k < 0 || (r.NOptions > 0 && k >= int(r.NOptions)) {
		return -1
	}
	return k
}

// positionBias computes PositionBias for every dataset × model × arm of
// multiple-choice rows, in the order rank gives the arms, with the Holm
// adjustment over all of them.
func positionBias(rows []results.QuestionRow, lvl float64, rank func(string) int) []PositionBias {
	byKey := map[stats.GroupKey][]int{}
	var keys []stats.GroupKey
	for i := range rows {
		r := &rows[i]
		if r.ItemKind != "" || positionOf(r.Gold, r) < 0 {
			continue
		}
		k := stats.GroupKey{Dataset: r.Dataset, Model: r.Model, Arm: r.Arm}
		if _, seen := byKey[k]; !seen {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	slices.SortStableFunc(keys, func(a, b stats.GroupKey) int {
		return cmp.Or(cmp.Compare(a.Dataset, b.Dataset), cmp.Compare(a.Model, b.Model), cmp.Compare(rank(a.Arm), rank(b.Arm)))
	})
	out := make([]PositionBias, 0, len(keys))
	var ps []float64
	for _, k := range keys {
		pb := positionGroup(rows, byKey[k], lvl)
		pb.Key = k
		out = append(out, pb)
		ps = append(ps, pb.P)
	}
	holm := stats.Holm(ps)
	for i := range out {
		out[i].HolmP = holm[i]
		out[i].Flagged = holm[i] < 0.05
	}
	return out
}

// positionGroup is one group's PositionBias (Key, HolmP and Flagged left
// for the caller).
func positionGroup(rows []results.QuestionRow, idx []int, lvl float64) PositionBias {
	pb := PositionBias{ChiSquare: math.NaN(), DeffMean: math.NaN(), P: math.NaN()}
	for _, i := range idx {
		pb.Positions = max(pb.Positions, int(rows[i].NOptions), positionOf(rows[i].Gold, &rows[i])+1, positionOf(rows[i].Predicted, &rows[i])+1)
	}
	// Accuracy by the gold's position, over every row.
	for k := 0; k < pb.Positions; k++ {
		var y []bool
		var cl []string
		for _, i := range idx {
			if positionOf(rows[i].Gold, &rows[i]) == k {
				y = append(y, rows[i].Correct)
				cl = append(cl, rows[i].QuestionID)
			}
		}
		pb.AccuracyByGold = append(pb.AccuracyByGold, stats.ClusteredWilson(y, cl, lvl))
	}
	// Predicted and gold positions of the answered rows.
	var pred, gold []int
	var cl []string
	for _, i := range idx {
		r := &rows[i]
		p := positionOf(r.Predicted, r)
		if r.Abstained || r.Error != "" || p < 0 {
			continue
		}
		pred = append(pred, p)
		gold = append(gold, positionOf(r.Gold, r))
		cl = append(cl, r.QuestionID)
	}
	pb.Answered = len(pred)
	for k := 0; k < pb.Positions; k++ {
		yp, yg := make([]bool, len(pred)), make([]bool, len(pred))
		for j := range pred {
			yp[j], yg[j] = pred[j] == k, gold[j] == k
		}
		pb.Predicted = append(pb.Predicted, stats.ClusteredWilson(yp, cl, lvl))
		pb.Gold = append(pb.Gold, stats.ClusteredWilson(yg, cl, lvl))
	}
	pb.ChiSquare, pb.DeffMean, pb.DF, pb.P = goodnessOfFit(pb.Predicted, pb.Gold)
	return pb
}

// goodnessOfFit is Pearson's chi-square of the observed counts of pred
// against the counts the shares of gold give the same n, over the
// positions gold occupies, divided by the mean design effect of the
// predicted shares (Rao & Scott 1981, JASA 76:221–230, first-order
// correction; 1 when every question has one row). A predicted position
// gold never occupies makes the statistic infinite (p = 0): the arm
// answers a letter that is never right. Undefined (NaN, df 0) with fewer
// than two gold positions or no answered row.
func goodnessOfFit(pred, gold []stats.Proportion) (chi2, deff float64, df int, p float64) {
	nan := math.NaN()
	if len(pred) == 0 || pred[0].N == 0 {
		return nan, nan, 0, nan
	}
	n := float64(pred[0].N)
	sumDeff, cells := 0.0, 0
	for k := range pred {
		e := n * gold[k].Value
		o := float64(pred[k].K)
		if gold[k].K == 0 {
			if o > 0 {
				chi2 = math.Inf(1)
			}
			continue
		}
		cells++
		chi2 += (o - e) * (o - e) / e
		if d := pred[k].DesignEffect; !math.IsNaN(d) {
			sumDeff += d
		} else {
			sumDeff++
		}
	}
	if cells < 2 {
		return nan, nan, 0, nan
	}
	deff = max(1, sumDeff/float64(cells))
	chi2 /= deff
	df = cells - 1
	if math.IsInf(chi2, 1) {
		return chi2, deff, df, 0
	}
	return chi2, deff, df, distuv.ChiSquared{K: float64(df)}.Survival(chi2)
}

// positionLetter is position k as a letter (A = first).
func positionLetter(k int) string { return string(rune('A' + k)) }

// positionSection shows position bias; nil when no multiple-choice row.
func (r *Report) positionSection() *Section {
	if len(r.Position) == 0 {
		return nil
	}
	s := &Section{ID: SecPosition, Heading: "Position bias",
		Text: "Positions are the places the options were shown at (A = first; under `--shuffle-options` the letters are mapped through each row's option order). " +
			"Accuracy by the position of the gold option, and the share of answered rows (no abstention, no error) predicting each position beside the share whose gold is there, with question-clustered Wilson " + fmt.Sprintf("%g", 100*r.Level) + "% intervals. " +
			"χ² is the goodness-of-fit of the predicted positions against the gold positions' distribution, Rao–Scott corrected by the mean design effect (deff); " +
			"Holm p is adjusted over the arms listed; an arm is flagged when Holm p < 0.05: it favours some positions beyond where the right answers are. χ² is undefined (—) when the gold answers sit at fewer than two positions."}
	acc := Table{Caption: "Accuracy by position of the gold option", Header: []string{"arm"}}
	dist := Table{Caption: "Predicted position against gold position (answered rows)", Header: []string{"arm", "answered"}}
	width := 0
	for _, pb := range r.Position {
		width = max(width, pb.Positions)
	}
	for k := 0; k < width; k++ {
		acc.Header = append(acc.Header, "gold at "+positionLetter(k))
		dist.Header = append(dist.Header, positionLetter(k)+": predicted / gold")
	}
	dist.Header = append(dist.Header, "χ² (df)", "deff", "p", "Holm p", "flag")
	for _, pb := range r.Position {
		name := r.groupName(pb.Key)
		ar := []string{name}
		dr := []string{name, fmt.Sprint(pb.Answered)}
		for k := 0; k < width; k++ {
			if k >= pb.Positions {
				ar, dr = append(ar, dash), append(dr, dash)
				continue
			}
			a := pb.AccuracyByGold[k]
			ar = append(ar, pctCI(a.K, a.N, a.CI)+fmt.Sprintf(" (n=%d)", a.N))
			p, g := pb.Predicted[k], pb.Gold[k]
			dr = append(dr, pctCI(p.K, p.N, p.CI)+" / "+pctKN(g.K, g.N))
		}
		chi := dash
		if !math.IsNaN(pb.ChiSquare) {
			chi = fmt.Sprintf("%s (%d)", fnum(pb.ChiSquare, 2), pb.DF)
		}
		flag := ""
		if pb.Flagged {
			flag = "position bias"
		}
		dr = append(dr, chi, fnum(pb.DeffMean, 2), pval(pb.P), pval(pb.HolmP), flag)
		acc.Rows, dist.Rows = append(acc.Rows, ar), append(dist.Rows, dr)
	}
	s.Tables = []Table{dist, acc}
	return s
}
