package mdagents

import (
	"context"
	"fmt"
	"testing"

	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
	"github.com/medteam-bench/medteam/qa"
)

// synthQuestions are n multiple-choice questions with 4 or 5 options and a
// gold letter drawn from the index (prefix names them apart).
func synthQuestions(prefix string, n int) []qa.Question {
	var out []qa.Question
	for i := range n {
		k := 4 + i%2
		q := qa.Question{ID: fmt.Sprintf("%s-%03d", prefix, i), Stem: fmt.Sprintf("Case %s %d: a patient presents with finding %d. What is the most likely diagnosis?", prefix, i, i*7%13)}
		for j := range k {
			q.Options = append(q.Options, qa.Option{Letter: string(rune('A' + j)), Text: fmt.Sprintf("Condition %d-%d", i, j)})
		}
		q.Gold = string(rune('A' + (i*3)%k))
		out = append(out, q)
	}
	return out
}

// simModel is the simulator (profile) over qs.
func simModel(t testing.TB, profile string, qs []qa.Question) *sim.Model {
	t.Helper()
	p, err := sim.LookupProfile(profile)
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]sim.Item{}
	for _, q := range qs {
		items[q.ID] = sim.Item{Letters: q.Letters(), Gold: q.Gold}
	}
	return sim.New(p, items)
}

// fewshotOf is a training split of qs.
func fewshotOf(qs []qa.Question) *protocol.Fewshot {
	return &protocol.Fewshot{Name: "train.jsonl", SHA256: "x", Questions: qs}
}

// TestCallsWithinBoundsOnSim: on 200 simulated questions, every question's
// measured calls lie within its route's bounds (plus the router's call) and
// within the arm's Calls; the router sends questions down every route; the
// forced routes take theirs with no router call.
func TestCallsWithinBoundsOnSim(t *testing.T) {
	qs := synthQuestions("q", 200)
	m := simModel(t, "default", qs)
	train := fewshotOf(synthQuestions("train", 8))
	cases := []struct {
		spec       string
		structured bool
		fewshot    *protocol.Fewshot
	}{
		{"mdagents", true, train},
		{"mdagents", false, nil},
		{"mdagents:route=basic", true, train},
		{"mdagents:route=intermediate", false, train},
		{"mdagents:route=advanced", true, nil},
	}
	for _, tc := range cases {
		s := kittest.Settings(3)
		s.Structured, s.Fewshot = tc.structured, tc.fewshot
		a, ok, err := Protocol.Parse(tc.spec, s)
		if !ok || err != nil {
			t.Fatal(err)
		}
		k := 0
		if tc.fewshot != nil {
			k = Exemplars
		}
		lo, extra := a.Calls(3)
		routes := map[string]int{}
		calls := map[string]int{}
		for _, q := range qs {
			cl := &countClient{c: m}
			out, err := a.Run(context.Background(), cl, q.Item(), kittest.Unit(a.Info().Label))
			if err != nil {
				t.Fatalf("%s %s: %v", tc.spec, q.ID, err)
			}
			n := int(cl.n)
			router := 1
			if a.(Arm).Forced != "" {
				router = 0
				if out.Route != a.(Arm).Forced {
					t.Fatalf("%s: route %q", tc.spec, out.Route)
				}
			}
			rlo, rhi := RouteBounds(out.Route, k)
			if n < rlo+router || n > rhi+router || n < lo || n > lo+extra {
				t.Errorf("%s %s (%s): %d calls, route bounds %d–%d (+%d router), arm %d–%d", tc.spec, q.ID, out.Route, n, rlo, rhi, router, lo, lo+extra)
			}
			routes[out.Route]++
			calls[out.Route] += n
		}
		t.Logf("%s structured=%v k=%d: routes %v, calls %v", tc.spec, tc.structured, k, routes, calls)
		if a.(Arm).Forced == "" && (routes[RouteBasic] == 0 || routes[RouteIntermediate] == 0 || routes[RouteAdvanced] == 0) {
			t.Errorf("%s: the router did not use every route: %v", tc.spec, routes)
		}
	}
}
