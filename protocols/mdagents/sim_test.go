package mdagents

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/tasks"
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
	return sim.New(p, items, Sim)
}

// fewshotOf is a training split of qs.
func fewshotOf(qs []qa.Question) *protocol.Fewshot {
	return &protocol.Fewshot{Name: "train.jsonl", SHA256: "x", Questions: qs}
}

// TestCallsWithinBoundsOnSim: a 200-question run on the simulator through
// the runner (its meter counts every call): every row's calls lie within its
// route's bounds (plus the router's call) and within the arm's Calls, every
// row records its route, its calls are its calls.parquet rows, the router
// sends questions down every route, and a forced arm takes its route with no
// router call.
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
		res, err := runner.Run(context.Background(), runner.Plan{RunID: "t", Sets: []runner.QuestionSet{{Name: "synth", Questions: qs}},
			Tasks: tasks.All(),
			Arms:  []runner.Arm{{Label: a.Info().Label, Protocol: a}}, Models: []runner.Model{{Name: "sim/default", Request: "sim", Client: m}},
			Repeats: 1, Seed: 1, Parallel: 4}, nil)
		if err != nil {
			t.Fatal(err)
		}
		perQuestion := map[string]int{}
		for _, c := range res.Calls {
			perQuestion[c.QuestionID]++
		}
		lo, extra := a.Calls(3)
		forced := a.(Arm).Forced
		routes, calls := map[string]int{}, map[string]int{}
		for _, q := range res.Questions {
			n := int(q.Calls)
			router := 1
			if forced != "" {
				router = 0
			}
			rlo, rhi := RouteBounds(q.Route, k)
			switch {
			case q.Error != "" || q.Route == "" || forced != "" && q.Route != forced:
				t.Errorf("%s %s: route %q, error %q", tc.spec, q.QuestionID, q.Route, q.Error)
			case n < rlo+router || n > rhi+router || n < lo || n > lo+extra || perQuestion[q.QuestionID] != n:
				t.Errorf("%s %s (%s): %d calls (%d call rows), route bounds %d–%d (+%d router), arm %d–%d",
					tc.spec, q.QuestionID, q.Route, n, perQuestion[q.QuestionID], rlo, rhi, router, lo, lo+extra)
			}
			var det Details
			if err := json.Unmarshal([]byte(q.ProtocolJSON), &det); err != nil || det.Exact() != n {
				t.Errorf("%s %s (%s): %d calls, the formula over its record %d (%v)", tc.spec, q.QuestionID, q.Route, n, det.Exact(), err)
			}
			routes[q.Route]++
			calls[q.Route] += n
		}
		if len(res.Questions) != len(qs) {
			t.Fatalf("%s: %d rows", tc.spec, len(res.Questions))
		}
		t.Logf("%s structured=%v k=%d: routes %v, calls %v", tc.spec, tc.structured, k, routes, calls)
		if forced == "" && (routes[RouteBasic] == 0 || routes[RouteIntermediate] == 0 || routes[RouteAdvanced] == 0) {
			t.Errorf("%s: the router did not use every route: %v", tc.spec, routes)
		}
	}
}
