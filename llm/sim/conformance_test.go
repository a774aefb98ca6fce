package sim_test

import (
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/llmtest"
	"github.com/medteam-bench/medteam/llm/sim"
)

// TestConformance runs the backend conformance suite on the simulator.
func TestConformance(t *testing.T) {
	items := map[string]sim.Item{"conf-q1": {Letters: []string{"A", "B", "C", "D"}, Gold: "A"}}
	profile := func(t *testing.T) sim.Profile {
		p, err := sim.LookupProfile("default")
		if err != nil {
			t.Fatal(err)
		}
		// No malformed or fenced answers and no injected errors: the suite
		// checks the contract, not the noise.
		p.MalformedRate, p.FenceRate, p.ErrorRate = 0, 0, 0
		return p
	}
	llmtest.Run(t, func(t *testing.T) llm.Client {
		return sim.New(profile(t), items)
	}, llmtest.Options{
		Model:        "sim",
		SupportsSeed: true,
		Prepare: func(req *llm.Request) {
			req.Meta = llm.Meta{QuestionID: "conf-q1", Arm: "conformance", Phase: "answer", Kind: "first"}
		},
		Break: func(req *llm.Request) { req.Meta.QuestionID = "conf-no-such-question" },
		Stall: func(t *testing.T) llm.Client {
			p := profile(t)
			p.Latency, p.Jitter = time.Hour, 0
			return sim.New(p, items)
		},
	})
}
