package teamwork

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/llm/sim/simtest"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
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
	for _, set := range [][][3]string{summarySentences[:], reportSentences[:], debatedSentences[:], tieSentences[:], answerSentences.Accept[:], answerSentences.Reject[:]} {
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

// TestSimAnswersTheFirstAnswersFacts: the facts SMM asks of the shared first
// answer (factsField, in the real request firstanswer renders) are
// teamwork's to answer (Sim.First): with teamwork.Sim the answer states
// 1–3 of the question's facts after the shared fields — all supportive
// when its first choice is right — and the core alone states none.
func TestSimAnswersTheFirstAnswersFacts(t *testing.T) {
	items, ids := simtest.Items(120, 4)
	with, without := sim.New(simtest.Clean(t), items, Sim), sim.New(simtest.Clean(t), items)
	for _, structured := range []bool{true, false} {
		system, user, schema, err := firstanswer.Prompt("QUESTION: a case\nOPTIONS:\nA) a\nB) b\nC) c\nD) d\n", structured, firstanswer.Extra{Fields: []firstanswer.Field{factsField}})
		if err != nil {
			t.Fatal(err)
		}
		stated := 0
		for i, id := range ids {
			req := llm.Request{Model: "sim", Seed: int64(i),
				Messages: []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}},
				Meta:     llm.Meta{QuestionID: id, Arm: "smm", Phase: kit.PhaseAnswer, Kind: kit.KindFirst, Agent: i % 3}}
			if structured {
				req.Schema = schema
			}
			got, core := simtest.Chat(t, with, req).Text, simtest.Chat(t, without, req).Text
			var facts []string
			if structured {
				obj, ok := simtest.DecodeJSON(got)
				if !ok || !strings.HasPrefix(got, strings.TrimSuffix(core, "}")+`,"facts":[`) {
					t.Fatalf("JSON: with teamwork.Sim %q, the core alone %q", got, core)
				}
				for _, f := range obj["facts"].([]any) {
					facts = append(facts, f.(string))
				}
			} else {
				rest, ok := strings.CutPrefix(got, core+"\nFACTS: ")
				if !ok {
					t.Fatalf("text: with teamwork.Sim %q, the core alone %q", got, core)
				}
				facts = strings.Split(rest, "; ")
			}
			if strings.Contains(core, "acts") {
				t.Fatalf("the core alone states facts: %q", core)
			}
			first, _, _ := simtest.FirstChoice(got)
			if len(facts) < 1 || len(facts) > 3 {
				t.Fatalf("%d facts: %q", len(facts), got)
			}
			stated += len(facts)
			if tr, _ := with.Traits(id); first == items[id].Gold {
				for _, f := range facts {
					if !slices.Contains(tr.Supportive[:], f) {
						t.Fatalf("a right answer states %q, not one of its supportive facts %q", f, tr.Supportive)
					}
				}
			}
		}
		if stated < len(ids) {
			t.Fatalf("structured=%v: %d facts in %d answers", structured, stated, len(ids))
		}
	}
}
