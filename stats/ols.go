package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// aliasTol is the share of a column's sum of squares that must lie outside
// the span of the columns kept before it for the column to be kept.
const aliasTol = 1e-9

// Coef is one regression coefficient.
type Coef struct {
	Name     string
	Estimate float64
	SE       float64  // cluster-robust (CR1) standard error
	CI       Interval // Estimate ± t_{G−1}·SE
	P        float64  // two-sided p of Estimate = 0 against t_{G−1}
	// HolmP is P Holm-adjusted over a family of terms (FactorialLPM's
	// effects); NaN when the coefficient is in no family.
	HolmP float64
}

// OLSFit is an OLS fit with cluster-robust standard errors.
type OLSFit struct {
	N, Clusters int
	Coefs       []Coef   // the identifiable columns, in input order
	Dropped     []string // columns left out as aliased (in the span of earlier columns, or all zero)
}

// Coef returns the coefficient named name.
func (f OLSFit) Coef(name string) (Coef, bool) {
	for _, c := range f.Coefs {
		if c.Name == name {
			return c, true
		}
	}
	return Coef{}, false
}

// ClusteredOLS fits y = Xβ + ε by ordinary least squares with
// cluster-robust standard errors. X is given by columns (cols[j][i] is
// column j of observation i, names[j] its name), cluster[i] ∈ [0, g) is
// observation i's cluster.
//
// Identifiability: columns are taken in order and a column is kept only
// when the part of it outside the span of the columns already kept has a
// sum of squares above 1e-9 of its own (r_j = G_jj − g_jᵀ G_SS⁻¹ g_j from the
// Gram matrix G = XᵀX); the others are aliased and listed in Dropped. So
// put the columns in order of priority (intercept, main effects,
// interactions).
//
// Fit (gonum/mat, Cholesky of XᵀX): β̂ = (XᵀX)⁻¹Xᵀy, eᵢ = yᵢ − xᵢᵀβ̂. Variance
// (Liang & Zeger 1986; Cameron & Miller 2015, J. Human Resources 50(2);
// CR1, as Stata's vce(cluster)):
//
//	V = c · (XᵀX)⁻¹ (Σ_g u_g u_gᵀ) (XᵀX)⁻¹,  u_g = Σ_{i∈g} xᵢ eᵢ,
//	c = G/(G − 1) · (N − 1)/(N − K)
//
// with K kept columns; for an intercept alone c = G/(G − 1) and the SE is
// ClusteredMean's. Intervals and p-values use Student t with G − 1 degrees
// of freedom (TFor). It fails when no column is identifiable, N ≤ K, or
// there are fewer than 2 clusters.
func ClusteredOLS(cols [][]float64, names []string, y []float64, cluster []int, g int, lvl float64) (OLSFit, error) {
	if len(cols) != len(names) {
		return OLSFit{}, errors.New("stats: ClusteredOLS: cols and names differ in length")
	}
	n := len(y)
	for _, c := range cols {
		if len(c) != n {
			return OLSFit{}, errors.New("stats: ClusteredOLS: a column and y differ in length")
		}
	}
	if len(cluster) != n {
		return OLSFit{}, errors.New("stats: ClusteredOLS: cluster and y differ in length")
	}
	fit := OLSFit{N: n, Clusters: g}
	keep := identifiable(cols)
	for j := range cols {
		if !keep[j] {
			fit.Dropped = append(fit.Dropped, names[j])
		}
	}
	x := columnsDense(cols, keep)
	if x == nil {
		return fit, errors.New("stats: ClusteredOLS: no identifiable column")
	}
	_, k := x.Dims()
	if n <= k || g < 2 {
		return fit, fmt.Errorf("stats: ClusteredOLS: %d observations in %d clusters cannot fit %d coefficients", n, g, k)
	}
	beta, se, err := sandwich(x, y, cluster, g)
	if err != nil {
		return fit, err
	}
	tc := TFor(lvl, float64(g-1))
	td := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(g - 1)}
	j := 0
	for c := range cols {
		if !keep[c] {
			continue
		}
		b, s := beta.AtVec(j), se[j]
		fit.Coefs = append(fit.Coefs, Coef{Name: names[c], Estimate: b, SE: s,
			CI: Interval{b - tc*s, b + tc*s}, P: 2 * td.Survival(math.Abs(b/s)), HolmP: math.NaN()})
		j++
	}
	return fit, nil
}

// identifiable marks the columns kept by the greedy aliasing rule.
func identifiable(cols [][]float64) []bool {
	p := len(cols)
	gram := mat.NewSymDense(max(p, 1), nil)
	for a := range cols {
		for b := a; b < p; b++ {
			s := 0.0
			for i, v := range cols[a] {
				s += v * cols[b][i]
			}
			gram.SetSym(a, b, s)
		}
	}
	keep := make([]bool, p)
	var kept []int
	for j := range cols {
		gjj := gram.At(j, j)
		if gjj <= 0 {
			continue
		}
		if residualSS(gram, kept, j) > aliasTol*gjj {
			keep[j] = true
			kept = append(kept, j)
		}
	}
	return keep
}

// residualSS is the sum of squares of column j outside the span of the
// columns kept: G_jj − g_jᵀ G_SS⁻¹ g_j.
func residualSS(gram *mat.SymDense, kept []int, j int) float64 {
	if len(kept) == 0 {
		return gram.At(j, j)
	}
	ss := mat.NewSymDense(len(kept), nil)
	v := mat.NewVecDense(len(kept), nil)
	for a, ka := range kept {
		v.SetVec(a, gram.At(ka, j))
		for b := a; b < len(kept); b++ {
			ss.SetSym(a, b, gram.At(ka, kept[b]))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(ss) {
		return 0
	}
	var w mat.VecDense
	if err := ch.SolveVecTo(&w, v); err != nil {
		return 0
	}
	return gram.At(j, j) - mat.Dot(v, &w)
}

// columnsDense builds the n×k design matrix of the kept columns (nil when
// none is kept).
func columnsDense(cols [][]float64, keep []bool) *mat.Dense {
	var idx []int
	for j, k := range keep {
		if k {
			idx = append(idx, j)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	n := len(cols[idx[0]])
	x := mat.NewDense(n, len(idx), nil)
	for c, j := range idx {
		x.SetCol(c, cols[j])
	}
	return x
}

// sandwich returns β̂ and its CR1 standard errors (see ClusteredOLS).
func sandwich(x *mat.Dense, y []float64, cluster []int, g int) (*mat.VecDense, []float64, error) {
	n, k := x.Dims()
	var xtx mat.SymDense
	xtx.SymOuterK(1, x.T())
	var ch mat.Cholesky
	if !ch.Factorize(&xtx) {
		return nil, nil, errors.New("stats: ClusteredOLS: XᵀX is not positive definite")
	}
	yv := mat.NewVecDense(n, y)
	var xty, beta mat.VecDense
	xty.MulVec(x.T(), yv)
	if err := ch.SolveVecTo(&beta, &xty); err != nil {
		return nil, nil, err
	}
	var fitted mat.VecDense
	fitted.MulVec(x, &beta)
	u := mat.NewDense(g, k, nil)
	for i := range n {
		e := y[i] - fitted.AtVec(i)
		for j := range k {
			u.Set(cluster[i], j, u.At(cluster[i], j)+x.At(i, j)*e)
		}
	}
	var meat, bread mat.SymDense
	meat.SymOuterK(1, u.T())
	if err := ch.InverseTo(&bread); err != nil {
		return nil, nil, err
	}
	var v mat.Dense
	v.Product(&bread, &meat, &bread)
	gf, nf, kf := float64(g), float64(n), float64(k)
	c := gf / (gf - 1) * (nf - 1) / (nf - kf)
	se := make([]float64, k)
	for j := range se {
		se[j] = math.Sqrt(c * v.At(j, j))
	}
	return &beta, se, nil
}
