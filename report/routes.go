package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/results"
)

// SecRoutes is the routes section's ID.
const SecRoutes = "routes"

// RouteRow is the accuracy and cost of one route of a routing protocol
// (mdagents: basic, intermediate, advanced; the route column) on one
// dataset × model × arm.
type RouteRow struct {
	Dataset, Model, Arm, Route string
	// N is the route's question rows; Share its part of the arm's rows.
	N                           int
	Share                       float64
	Correct, Abstained, Errored int
	// Calls and tokens per question row: the mean, and the fewest and most
	// calls.
	CallsMean                      float64
	CallsMin, CallsMax             int32
	PromptTokens, CompletionTokens float64
}

// routeOrder puts the routes in mdagents' order, others after by name.
var routeOrder = map[string]int{"basic": 0, "intermediate": 1, "advanced": 2}

// routeKey is a dataset × model × arm.
type routeKey struct{ d, m, a string }

// noteRoutes fills r.Routes from the rows of arms that route (some row has a
// route) and notes the arms whose few-shot step ran without exemplars.
func (r *Report) noteRoutes(rows []results.QuestionRow) {
	routing := routingArms(rows)
	if len(routing) == 0 {
		return
	}
	byRoute := map[[4]string]*RouteRow{}
	total := map[routeKey]int{}
	zero := map[routeKey]int{}
	for i := range rows {
		q := &rows[i]
		k := routeKey{q.Dataset, q.Model, q.Arm}
		if !routing[k] {
			continue
		}
		total[k]++
		if zeroShot(q.ProtocolJSON) {
			zero[k]++
		}
		route := q.Route
		if route == "" {
			route = "(none: error)"
		}
		rr := byRoute[[4]string{k.d, k.m, k.a, route}]
		if rr == nil {
			rr = &RouteRow{Dataset: k.d, Model: k.m, Arm: k.a, Route: route, CallsMin: q.Calls, CallsMax: q.Calls}
			byRoute[[4]string{k.d, k.m, k.a, route}] = rr
		}
		rr.add(q)
	}
	for _, rr := range byRoute {
		n := float64(rr.N)
		rr.CallsMean, rr.PromptTokens, rr.CompletionTokens = rr.CallsMean/n, rr.PromptTokens/n, rr.CompletionTokens/n
		rr.Share = n / float64(total[routeKey{rr.Dataset, rr.Model, rr.Arm}])
		r.Routes = append(r.Routes, *rr)
	}
	sortRoutes(r.Routes, r.armRank())
	r.noteZeroShot(zero, total)
}

// routingArms are the dataset × model × arms of which some row has a route.
func routingArms(rows []results.QuestionRow) map[routeKey]bool {
	routing := map[routeKey]bool{}
	for i := range rows {
		if rows[i].Route != "" {
			routing[routeKey{rows[i].Dataset, rows[i].Model, rows[i].Arm}] = true
		}
	}
	return routing
}

// add counts question row q in rr: its outcome, and its calls and tokens
// summed (noteRoutes turns the sums into means).
func (rr *RouteRow) add(q *results.QuestionRow) {
	rr.N++
	if q.Correct {
		rr.Correct++
	}
	if q.Abstained && q.Error == "" {
		rr.Abstained++
	}
	if q.Error != "" {
		rr.Errored++
	}
	rr.CallsMean += float64(q.Calls)
	rr.CallsMin, rr.CallsMax = min(rr.CallsMin, q.Calls), max(rr.CallsMax, q.Calls)
	rr.PromptTokens += float64(q.PromptTokens)
	rr.CompletionTokens += float64(q.CompletionTokens)
}

// sortRoutes orders the routes by dataset, model, arm (by rank, then
// name) and route (routeOrder, others after by name).
func sortRoutes(routes []RouteRow, rank func(string) int) {
	slices.SortFunc(routes, func(a, b RouteRow) int {
		ra, oka := routeOrder[a.Route]
		rb, okb := routeOrder[b.Route]
		if !oka {
			ra = len(routeOrder)
		}
		if !okb {
			rb = len(routeOrder)
		}
		return cmp.Or(cmp.Compare(a.Dataset, b.Dataset), cmp.Compare(a.Model, b.Model), cmp.Compare(rank(a.Arm), rank(b.Arm)),
			cmp.Compare(a.Arm, b.Arm), cmp.Compare(ra, rb), cmp.Compare(a.Route, b.Route))
	})
}

// noteZeroShot notes, per dataset × model × arm in order, how many of its
// total rows ran the few-shot step zero-shot.
func (r *Report) noteZeroShot(zero, total map[routeKey]int) {
	var keys []routeKey
	for k := range zero {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b routeKey) int {
		return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.m, b.m), cmp.Compare(a.a, b.a))
	})
	for _, k := range keys {
		where := ""
		if r.multi() {
			where = fmt.Sprintf(" (%s, %s)", k.d, k.m)
		}
		r.Notes = append(r.Notes, fmt.Sprintf("Arm %s%s: %d of %d rows ran the few-shot step zero-shot (no --fewshot-file, or no training question of the item's kind): "+
			"their basic and intermediate paths saw no exemplars, unlike the method's 5.", k.a, where, zero[k], total[k]))
	}
}

// zeroShot reports whether a row's protocol_json says its few-shot step ran
// without exemplars ("zero_shot": true).
func zeroShot(protocolJSON string) bool {
	if !strings.Contains(protocolJSON, `"zero_shot"`) {
		return false
	}
	var d struct {
		ZeroShot bool `json:"zero_shot"`
	}
	return json.Unmarshal([]byte(protocolJSON), &d) == nil && d.ZeroShot
}

// routeSection is the accuracy and cost of each route; nil when no arm
// routes.
func (r *Report) routeSection() *Section {
	if len(r.Routes) == 0 {
		return nil
	}
	t := Table{Header: r.lead("dataset", "model", "arm", "route", "n", "share", "accuracy", "abstained", "errors",
		"calls/q mean (min–max)", "prompt tok/q", "completion tok/q", "tokens/q")}
	for _, rr := range r.Routes {
		t.Rows = append(t.Rows, r.lead(rr.Dataset, rr.Model, rr.Arm, rr.Route, fmt.Sprint(rr.N), pct(rr.Share)+"%",
			pctKN(rr.Correct, rr.N), fmt.Sprint(rr.Abstained), fmt.Sprint(rr.Errored),
			fmt.Sprintf("%s (%d–%d)", fnum(rr.CallsMean, 1), rr.CallsMin, rr.CallsMax),
			fnum(rr.PromptTokens, 0), fnum(rr.CompletionTokens, 0), fnum(rr.PromptTokens+rr.CompletionTokens, 0)))
	}
	return &Section{ID: SecRoutes, Heading: "Routes",
		Text: "Arms that route each question down one of several paths (mdagents: the router's basic, intermediate or advanced; " +
			"a forced route=… arm has one). Per route: its question rows and their share of the arm's, accuracy over those rows " +
			"(abstentions and errors count as wrong), and calls and tokens per question row (the API's usage counts). " +
			"A route's accuracy is not a comparison: the router sends the questions it judges harder down the costlier paths.",
		Tables: []Table{t}}
}
