package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/medteam-bench/medteam/numfmt"
	"github.com/medteam-bench/medteam/stats"
)

// dash stands for a statistic the data cannot define.
const dash = numfmt.Dash

// round1 rounds to one decimal half away from zero, as DuckDB's round does.
func round1(x float64) float64 { return numfmt.Round1(x) }

// pctKN is 100·k/n with one decimal, computed as the DuckDB query does.
func pctKN(k, n int) string {
	if n == 0 {
		return dash
	}
	return fmt.Sprintf("%.1f%%", round1(100*float64(k)/float64(n)))
}

// pct is a proportion in percent with one decimal.
func pct(x float64) string { return numfmt.Pct(x) }

// ivPct is an interval of proportions in percent: "[51.8, 60.5]".
func ivPct(iv stats.Interval) string {
	if !iv.Defined() {
		return ""
	}
	return "[" + pct(iv.Lo) + ", " + pct(iv.Hi) + "]"
}

// pctCI is "56.2% [51.8, 60.5]" from counts and an interval.
func pctCI(k, n int, iv stats.Interval) string {
	return strings.TrimSpace(pctKN(k, n) + " " + ivPct(iv))
}

// signed formats x with a sign and prec decimals, a minus as "−".
func signed(x float64, prec int) string {
	if math.IsNaN(x) {
		return dash
	}
	s := fmt.Sprintf("%+.*f", prec, x)
	if strings.HasPrefix(s, "-") {
		s = "−" + s[1:]
	}
	return s
}

// pp is a difference of proportions in signed percentage points.
func pp(x float64) string { return signed(100*x, 1) }

// ivPP is an interval of differences in percentage points.
func ivPP(iv stats.Interval) string {
	if !iv.Defined() {
		return dash
	}
	return "[" + pp(iv.Lo) + ", " + pp(iv.Hi) + "]"
}

// deltaCI is a paired accuracy difference's interval in points: the
// bootstrap interval, or with no discordant pair (where that interval is
// [0, 0]) Newcombe's paired interval on the clustered effective sample
// size, said so.
func deltaCI(pb stats.PairedBinary) string {
	if pb.NoDiscordant && pb.Delta.Boot.Defined() {
		return ivPP(pb.Delta.Boot) + " no discordant pairs (Newcombe)"
	}
	return ivPP(pb.Delta.Boot)
}

// estNum is a difference of a count with its bootstrap interval ("[—]"
// when the interval is undefined: fewer than 2 questions).
func estNum(e stats.Estimate, prec int) string {
	s := signed(e.Value, prec)
	if e.Boot.Defined() {
		return s + " [" + signed(e.Boot.Lo, prec) + ", " + signed(e.Boot.Hi, prec) + "]"
	}
	if !math.IsNaN(e.Value) {
		s += " [" + dash + "]"
	}
	return s
}

// ivNum is an interval of plain numbers with prec decimals, "[—]" when
// undefined.
func ivNum(iv stats.Interval, prec int) string {
	if !iv.Defined() {
		return "[" + dash + "]"
	}
	return "[" + fnum(iv.Lo, prec) + ", " + fnum(iv.Hi, prec) + "]"
}

// pval formats a p-value.
func pval(p float64) string {
	switch {
	case math.IsNaN(p):
		return dash
	case p < 0.0001:
		return "<0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}

// fnum formats x with prec decimals, rounded half away from zero.
func fnum(x float64, prec int) string { return numfmt.Fnum(x, prec) }

// mde is a minimum detectable difference in percentage points.
func mde(x float64) string {
	if math.IsNaN(x) {
		return dash
	}
	return fmt.Sprintf("%.1f pp", round1(100*x))
}

// usd is an amount of dollars.
func usd(x float64) string { return "$" + fnum(x, 4) }
