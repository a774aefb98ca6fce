package mdagents

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// RouteBounds are the fewest and most calls of route (without the router's)
// when k exemplars are shown:
//
//	basic         k + 1                        (k reasons, the answer)
//	intermediate  2 + k … 2 + k + E + R·E·(T·(E+1) + 1)
//	advanced      2 … 2 + Teams·(Members + 1)
//
// Intermediate: the recruiter, k reasons, E ≤ Experts first opinions, in
// each turn each expert's participation call plus, when it talks, a choice
// and a message to each of the others it chose (at most E−1), E final
// answers per finished round (R ≤ Rounds of T ≤ Turns turns), the
// moderator; the fewest when no expert can be read. Advanced: the
// recruiter, per team of m members the lead's request, m−1 investigations
// and the lead's report, the decision maker; the fewest when no team can be
// read.
func RouteBounds(route string, k int) (lo, hi int) {
	switch route {
	case RouteBasic:
		return k + 1, k + 1
	case RouteIntermediate:
		e := Experts
		return 2 + k, 2 + k + e + Rounds*e*(Turns*(e+1)+1)
	}
	return 2, 2 + Teams*(Members+1)
}

// Bounds are the fewest and most calls a question of the arm makes: the
// router's (none when the route is forced) and its routes'.
func (a Arm) Bounds() (lo, hi int) {
	klo, khi := a.exemplarCounts()
	lo, _ = a.boundsWith(klo)
	_, hi = a.boundsWith(khi)
	return lo, hi
}

// quiet is the calls of an intermediate question whose 5 experts all decline
// to talk in the first turn: the recruiter, k reasons, 5 opinions, 5
// participation calls, the moderator.
func quiet(k int) int { return 2 + k + 2*Experts }

func writeAccounting(w io.Writer) error {
	fmt.Fprintln(w, "calls = router (1; 0 with route=… forced) + the route's; k = exemplars shown (5 with --fewshot-file, 0 without)")
	fmt.Fprintln(w, "  basic         k + 1 (k exemplar reasons, the answer)")
	fmt.Fprintln(w, "  intermediate  1 recruiter + k + E opinions + per turn, each expert: 1 (talk?) [+ 1 choice + 1 per expert chosen]")
	fmt.Fprintln(w, "                + E finals per finished round + 1 moderator; E ≤ 5 experts, ≤ 5 rounds × 5 turns; no talk in a turn ends it")
	fmt.Fprintln(w, "  advanced      1 recruiter + per team of m: 1 request + (m−1) investigations + 1 report + 1 decision; ≤ 3 teams × 3")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "arm\tk\trouter\tbasic\tintermediate (5 experts, nobody talks)\tadvanced\ttotal min–max")
	for _, k := range []int{0, Exemplars} {
		for _, forced := range []string{"", RouteBasic, RouteIntermediate, RouteAdvanced} {
			a := Arm{Forced: forced}
			router := "1"
			if forced != "" {
				router = "0"
			}
			cell := func(route string) string {
				if forced != "" && forced != route {
					return "—"
				}
				lo, hi := RouteBounds(route, k)
				switch {
				case lo == hi:
					return fmt.Sprint(lo)
				case route == RouteIntermediate:
					return fmt.Sprintf("%d–%d (%d)", lo, hi, quiet(k))
				}
				return fmt.Sprintf("%d–%d", lo, hi)
			}
			lo, hi := a.boundsWith(k)
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%d–%d\n", a.Label(), k, router, cell(RouteBasic), cell(RouteIntermediate), cell(RouteAdvanced), lo, hi)
		}
	}
	return tw.Flush()
}

// boundsWith is Bounds when every question is shown k exemplars.
func (a Arm) boundsWith(k int) (lo, hi int) {
	routes, router := RouteNames, 1
	if a.Forced != "" {
		routes, router = []string{a.Forced}, 0
	}
	lo, hi = -1, 0
	for _, rt := range routes {
		l, h := RouteBounds(rt, k)
		if lo < 0 || l < lo {
			lo = l
		}
		hi = max(hi, h)
	}
	return router + lo, router + hi
}

// Exact is the calls the question whose record is d made, by the route's
// formula: the router's (unless forced), and basic k + 1; intermediate 1 +
// k + E + E per turn run + 1 per talk + 1 per message + E per finished
// round + 1; advanced 1 + Σ (members + 1) + 1.
func (d *Details) Exact() int {
	n := len(d.Exemplars)
	if d.RouteSource == "router" {
		n++
	}
	switch d.Route {
	case RouteBasic:
		return n + 1
	case RouteIntermediate:
		e := len(d.Experts)
		return n + 2 + e + d.TurnsRun*e + d.Talks + len(d.Messages) + e*d.Finals
	}
	n += 2
	for _, t := range d.Teams {
		n += len(t.Members) + 1
	}
	return n
}
