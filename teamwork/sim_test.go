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
// call kind teamwork sends (kindRank lists them), answers each,
// the registry entry carries it, and the simulator without it refuses the
// kind as a bad request naming it — llm/sim answers none of teamwork's
// kinds itself.
func TestSimAnswersEveryKind(t *testing.T) {
	if Protocol.Sim != &Sim {
		t.Fatal("teamwork.Protocol.Sim is not teamwork.Sim")
	}
	if len(Sim.Kinds) != len(kindRank) {
		t.Fatalf("Sim claims %d kinds; teamwork sends %d", len(Sim.Kinds), len(kindRank))
	}
	items, ids := simtest.Items(1, 4)
	with, without := sim.New(simtest.Clean(t), items, Sim), sim.New(simtest.Clean(t), items)
	for kind := range kindRank {
		if _, ok := Sim.Kinds[kind]; !ok {
			t.Errorf("kind %q has no code in teamwork.Sim", kind)
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

// TestSimSentencesCarryNoCue: no sentence teamwork's behaviour writes
// reads as a reasoning-quality cue, so a leader perceives only the cues
// the core appends.
func TestSimSentencesCarryNoCue(t *testing.T) {
	var all []string
	for _, set := range [][][3]string{summarySentences[:], reportSentences[:], debatedSentences[:], tieSentences[:]} {
		for _, s := range set {
			all = append(all, s[0]+"B"+s[1]+"C"+s[2])
		}
	}
	for _, s := range concernSentences {
		all = append(all, s[0]+"2"+s[1])
	}
	all = append(all, analysisSentences[:]...)
	for _, s := range all {
		if got := sim.DecodeTier(s); got != -1 {
			t.Errorf("%q reads as a tier-%d cue", s, got)
		}
	}
}
