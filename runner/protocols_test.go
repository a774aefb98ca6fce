package runner

import (
	"context"
	"testing"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocol/protocoltest"
	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/tasks"
)

// withTestProtocols is the shipped registry plus the test protocols: adding
// a protocol to a run is this one line.
func withTestProtocols() protocol.Registry {
	return append(protocol.Registry{protocoltest.AlwaysFirst}, protocols.All()...)
}

// stubPlan runs arms on each protocol's dry-run stub (a well-formed answer
// to every call) over the sample's first n questions.
func stubPlan(t *testing.T, arms []Arm, n int) Plan {
	t.Helper()
	qs, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	return Plan{RunID: "test", Sets: []QuestionSet{{Name: "medqa-sample", Questions: qs[:n]}}, Arms: arms,
		Tasks:   tasks.All(),
		Models:  []Model{{Name: "stub/x", Request: "x", Client: stubs(arms, false)}},
		Repeats: 1, Seed: 1, Parallel: 4}
}

// TestAccountingOfEveryProtocol: for every registered protocol, every preset
// and team size, the calls a question makes are the protocol's formula (at
// most its extra calls more).
func TestAccountingOfEveryProtocol(t *testing.T) {
	reg := withTestProtocols()
	for _, p := range reg {
		for _, preset := range p.Presets {
			for n := 2; n <= 4; n++ {
				a, err := reg.Parse(preset, protocol.Settings{Turns: 2, Agents: n, Discussion: "round_robin", Structured: true, AgentTemp: 0.7, LeaderTemp: 0.5})
				if err != nil {
					t.Fatal(err)
				}
				if a.Protocol() != p {
					t.Fatalf("%s parsed by %s, not %s", preset, a.Protocol().Name, p.Name)
				}
				res, err := Run(context.Background(), stubPlan(t, []Arm{{Label: preset, Protocol: a}}, 5), nil)
				if err != nil {
					t.Fatal(err)
				}
				want, extra := a.Calls(n)
				for _, q := range res.Questions {
					if got := int(q.Calls); q.Error != "" || got < want || got > want+extra {
						t.Errorf("%s/%s n=%d %s: %d calls (error %q), formula %d (+%d)", p.Name, preset, n, q.QuestionID, got, q.Error, want, extra)
					}
				}
			}
		}
	}
}

// TestAddingAProtocol: a protocol in the registry runs beside teamwork arms
// with nothing else changed, and its rows say which protocol decided.
func TestAddingAProtocol(t *testing.T) {
	reg := withTestProtocols()
	var arms []Arm
	for _, spec := range []string{"always-first", "base"} {
		a, err := reg.Parse(spec, protocol.Settings{Turns: 2, Agents: 3, Discussion: "round_robin", Structured: true})
		if err != nil {
			t.Fatal(err)
		}
		arms = append(arms, Arm{Label: a.Info().Label, Protocol: a})
	}
	res, err := Run(context.Background(), stubPlan(t, arms, 10), nil)
	if err != nil {
		t.Fatal(err)
	}
	byProtocol := map[string]int{}
	for _, q := range res.Questions {
		byProtocol[q.Protocol]++
		if q.Protocol == "always-first" && (q.Predicted != "A" || q.Calls != 1 || q.Correct != (q.Gold == "A")) {
			t.Errorf("always-first row %+v", q)
		}
	}
	if byProtocol["always-first"] != 10 || byProtocol["teamwork"] != 10 {
		t.Fatalf("rows per protocol %v, want 10 each", byProtocol)
	}
	if _, err := protocols.All().Parse("always-first", protocol.Settings{}); err == nil {
		t.Fatal("the shipped registry reads the test protocol's spec")
	}
}
