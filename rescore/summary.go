package rescore

import (
	"fmt"
	"io"
	"strings"

	"github.com/medteam-bench/medteam/escape"
	"github.com/medteam-bench/medteam/stats"
)

// Cell makes a text from a published file safe for one sink's table cell:
// escape.Markdown for rescore.md, escape.Terminal for the terminal.
type Cell func(string) string

// WriteTable writes the per-model table: the published scorer's accuracy
// (its extraction with its random fill, as published), medteam's accuracy
// on the same replies with its Wilson 95% interval (an abstention counts as
// wrong), the fills, medteam's abstentions and the disagreements. The model
// names, from the published files, go through cell.
func WriteTable(w io.Writer, sums []ModelSummary, cell Cell) {
	fmt.Fprintln(w, "| model | replies | published extraction (with its random fill) | fills (hits) | medteam's reading [95% CI] | medteam abstained | disagreements |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	for _, s := range sums {
		pub := "—"
		if s.PublishedN > 0 {
			pub = fmt.Sprintf("%d/%d = %.2f%%", s.Published, s.PublishedN, pct(s.Published, s.PublishedN))
		}
		ci := stats.Wilson(s.Medteam, s.N, 0.95)
		abst := fmt.Sprint(s.Abstained)
		if s.Withheld > 0 {
			abst += fmt.Sprintf(" (%d withheld)", s.Withheld)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %d (%d) | %d/%d = %.2f%% [%.1f, %.1f] | %s | %d |\n", cell(s.Model), s.N, pub, s.Filled, s.FillHits,
			s.Medteam, s.N, pct(s.Medteam, s.N), 100*ci.Lo, 100*ci.Hi, abst, s.Disagree)
	}
}

// WriteDisagreements lists the replies where medteam's reading differs
// from the published extraction (a withheld reply is not one: see Agree),
// as a table of rescore.md: every text from the published files is escaped
// for Markdown (escape.Markdown).
func (r Run) WriteDisagreements(w io.Writer, scored []Scored) int {
	n := 0
	for _, s := range scored {
		if !s.HasPred || s.Agree() {
			continue
		}
		if n == 0 {
			fmt.Fprintln(w, "| model | question | published extraction | medteam's reading | gold | medteam's reason |")
			fmt.Fprintln(w, "|---|---|---|---|---|---|")
		}
		n++
		pub := s.Pred
		if pub == "" {
			pub = "none (filled " + s.Published + ")"
		}
		med, why := s.Medteam, string(s.Method)
		if med == "" {
			med, why = "none", s.Reason
		}
		md := escape.Markdown
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", md(r.ModelOf(s.Record)), md(s.ID), md(pub), md(med), md(s.Gold), md(strings.ReplaceAll(why, "|", "/")))
	}
	if n == 0 {
		fmt.Fprintln(w, "none: medteam reads every reply as the published extraction does.")
	}
	return n
}

func pct(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(k) / float64(n)
}
