package sim_test

import (
	"context"
	"maps"
	"testing"

	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/llm/sim/simtest"
	"github.com/medteam-bench/medteam/teamwork"
)

// TestTeamDoubleIsTeamworks: the copy of teamwork's behaviour the core's
// tests register (team_test.go) claims teamwork.Sim's kinds with its codes
// and answers every kind as it does, so the core's tests test teamwork's
// simulation.
func TestTeamDoubleIsTeamworks(t *testing.T) {
	if !maps.Equal(sim.TestTeam.Kinds, teamwork.Sim.Kinds) {
		t.Fatalf("kinds: the tests' copy %v, teamwork.Sim %v", sim.TestTeam.Kinds, teamwork.Sim.Kinds)
	}
	items, ids := simtest.Items(40, 5)
	p := simtest.Profile(t, "noisy")
	mine, theirs := sim.New(p, items, sim.TestTeam), sim.New(p, items, teamwork.Sim)
	body := "POSITION agent 2: B > A > C (confidence 0.7)\nPOSITION you: C > A\nTEAM SIZE: 3\nTIED: A, C\nTARGET: agent 2\nCONCERN: check the timing\n" +
		"REASONING agent 2: The history points to it. The reasoning is thorough.\nRESPONSE: it holds.\n"
	for kind := range teamwork.Sim.Kinds {
		for i, id := range ids {
			for _, schema := range []bool{false, true} {
				req := simtest.AgentReq(id, items[id].Letters, kind, i%3-1, i%2, int64(i), schema, body)
				a, errA := mine.Chat(context.Background(), req)
				b, errB := theirs.Chat(context.Background(), req)
				if a.Text != b.Text || (errA == nil) != (errB == nil) {
					t.Fatalf("%s %s schema=%v: the tests' copy %q (%v), teamwork.Sim %q (%v)", kind, id, schema, a.Text, errA, b.Text, errB)
				}
			}
		}
	}
}
