package mdagents

import (
	"context"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

var routeSchema = kit.Schema(KindRoute, kit.P("reasoning", kit.String), kit.P("complexity", kit.String))

// route is the router's call (utils.py determine_difficulty), at the leader
// temperature, read by ParseRoute.
func (r *run) route(ctx context.Context) (Route, error) {
	st := step{Call: kit.Call{Phase: PhaseRoute, Kind: KindRoute, Agent: -1, Role: "router", Temperature: r.leaderTemp,
		User: render("route", r.data()), Schema: routeSchema}, order: order(PhaseRoute, KindRoute, 0, -1, 0)}
	text, err := once(ctx, r.s, render("route_system", r.data()), st)
	if err != nil {
		return Route{}, err
	}
	rt := ParseRoute(text)
	switch rt.Method {
	case ReadStrict:
		r.s.Note(KindRoute, 0, -1, answer.Method(ReadStrict), "", "", nil)
	case ReadCodeRule:
		r.s.Note(KindRoute, 0, -1, answer.Method(ReadCodeRule), "", "", []string{rt.Err + "; the public code's rule read " + rt.Route})
	default: // nothing readable: a parse failure, the route is basic
		r.s.Note(KindRoute, 0, -1, answer.MethodNone, rt.Err, answer.ReasonNoAnswer, []string{"no level named; route basic by default"})
	}
	return rt, nil
}
