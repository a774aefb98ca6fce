package teamwork

import (
	"context"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/llm/sim/simtest"
)

// TestSimAnswersEveryKind: teamwork's simulated behaviour claims every
// call kind teamwork sends (kindRank lists them), each with a mechanism,
// the registry entry carries it, and the simulator without it refuses the
// kind as a bad request naming it — llm/sim answers none of teamwork's
// kinds itself.
func TestSimAnswersEveryKind(t *testing.T) {
	if Protocol.Sim != &Sim {
		t.Fatal("teamwork.Protocol.Sim is not teamwork.Sim")
	}
	if len(Sim.Kinds) != len(kindRank) || len(simMechanisms) != len(kindRank) {
		t.Fatalf("Sim claims %d kinds with %d mechanisms; teamwork sends %d", len(Sim.Kinds), len(simMechanisms), len(kindRank))
	}
	items, ids := simtest.Items(1, 4)
	with, without := sim.New(simtest.Clean(t), items, Sim), sim.New(simtest.Clean(t), items)
	for kind := range kindRank {
		if _, ok := Sim.Kinds[kind]; !ok {
			t.Errorf("kind %q has no code in teamwork.Sim", kind)
		}
		if _, ok := simMechanisms[kind]; !ok {
			t.Errorf("kind %q has no mechanism in simMechanisms", kind)
		}
		req := simtest.AgentReq(ids[0], items[ids[0]].Letters, kind, -1, 0, 1, true, "TEAM SIZE: 3\nTIED: A, B\n")
		if resp, err := with.Chat(context.Background(), req); err != nil || !strings.HasPrefix(resp.Text, "{") {
			t.Errorf("%s with teamwork.Sim: %q, %v", kind, resp.Text, err)
		}
		if _, err := without.Chat(context.Background(), req); llm.ClassOf(err) != llm.ClassBadRequest || !strings.Contains(err.Error(), `"`+kind+`"`) {
			t.Errorf("%s without teamwork.Sim: %v, want a bad request naming the kind", kind, err)
		}
	}
}
