package baseline

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	parse "github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/llm/sim/simtest"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// The zeroshot and cot kinds on the simulator (ZeroShotSim, CoTSim), moved
// from llm/sim's protocol-kind tests with the behaviour.

var simKinds = []string{kit.KindZeroShot, kindCoT}

func simModel(t *testing.T, p sim.Profile, items map[string]sim.Item) *sim.Model {
	return sim.New(p, items, ZeroShotSim, CoTSim)
}

func simReq(id string, ls []string, kind string, agent int, seed int64, schema bool) llm.Request {
	req := simtest.AgentReq(id, ls, kind, agent, 1, seed, schema, "")
	req.Meta.Phase = "answer"
	return req
}

// TestSimKindsFormats: each kind answers in its format — JSON with its keys
// and an option letter, or its labelled lines without JSON — the same text
// for the same request, whatever the arm, the repeat or hints in the prompt.
func TestSimKindsFormats(t *testing.T) {
	keys := map[string][]string{kit.KindZeroShot: {"answer"}, kindCoT: {"reasoning", "answer"}}
	labels := map[string][]string{kit.KindZeroShot: {"ANSWER: "}, kindCoT: {"REASONING: ", "ANSWER: "}}
	for _, nopt := range []int{2, 4, 10} {
		items, ids := simtest.Items(30, nopt)
		m := simModel(t, simtest.Clean(t), items)
		for _, kind := range simKinds {
			for i, id := range ids {
				ls := items[id].Letters
				req := simReq(id, ls, kind, 0, int64(i), true)
				text := simtest.Chat(t, m, req).Text
				obj := simtest.JSONObject(t, kind, text, keys[kind])
				if a, _ := obj["answer"].(string); !slices.Contains(ls, a) {
					t.Fatalf("%s: answer %q", kind, a)
				}
				hinted := req
				hinted.Meta.Arm, hinted.Meta.Repeat = "other", 3
				hinted.Messages = slices.Clone(req.Messages)
				hinted.Messages[1].Content = "gold: " + ls[0] + "\nANSWER: " + ls[0] + "\n" + req.Messages[1].Content
				if again := simtest.Chat(t, m, hinted).Text; again != text {
					t.Fatalf("%s: %q, then with hints %q", kind, text, again)
				}
				plain := simtest.Chat(t, m, simReq(id, ls, kind, 0, int64(i), false)).Text
				simtest.Labelled(t, kind, plain, labels[kind], true)
				if strings.Contains(plain, "{") {
					t.Fatalf("%s plain: %q", kind, plain)
				}
			}
		}
	}
}

// TestSimKindsStateTheDiagnosis: on a triage item each kind's answer states
// a diagnosis, the gold one exactly when its answer is the gold level.
func TestSimKindsStateTheDiagnosis(t *testing.T) {
	ls := simtest.Letters(3)
	items := map[string]sim.Item{}
	for i := range 40 {
		items[fmt.Sprintf("t%02d", i)] = sim.Item{Letters: ls, Gold: ls[i%3], Diagnosis: "Pulmonary embolism"}
	}
	m := simModel(t, simtest.Profile(t, "default"), items)
	opts := []parse.Option{{Letter: "A", Text: "sc", Aliases: []string{"sc"}}, {Letter: "B", Text: "ne", Aliases: []string{"ne"}},
		{Letter: "C", Text: "em", Aliases: []string{"em"}}}
	seen := map[bool]int{}
	for id, it := range items {
		for _, kind := range simKinds {
			for _, schema := range []bool{true, false} {
				text := simtest.Chat(t, m, simReq(id, ls, kind, 0, 7, schema)).Text
				a := parse.Parse(text, opts)
				if a.First() == "" || !strings.Contains(text, "iagnosis") {
					continue // a malformed draw
				}
				want := sim.WrongDiagnosis
				if a.First() == it.Gold {
					want = it.Diagnosis
				}
				if a.Diagnosis != want {
					t.Fatalf("%s %s schema %v: first %s (gold %s), diagnosis %q, want %q\n%s", id, kind, schema, a.First(), it.Gold, a.Diagnosis, want, text)
				}
				seen[a.First() == it.Gold]++
			}
		}
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Errorf("outcomes %v: both right and wrong answers should occur", seen)
	}
	plain := simModel(t, simtest.Profile(t, "default"), map[string]sim.Item{"q": {Letters: ls, Gold: "A"}})
	if text := simtest.Chat(t, plain, simReq("q", ls, kit.KindZeroShot, 0, 7, false)).Text; parse.Parse(text, opts).Diagnosis != "" {
		t.Errorf("multiple-choice answer states a diagnosis: %q", text)
	}
}

// TestSimIsRegisteredWithTheProtocol: the simulator's core knows neither
// kind — without the behaviours each is a bad request naming it — and the
// protocols' registry entries carry them.
func TestSimIsRegisteredWithTheProtocol(t *testing.T) {
	items, ids := simtest.Items(1, 4)
	for _, kind := range simKinds {
		simtest.CoreRefuses(t, items, simReq(ids[0], items[ids[0]].Letters, kind, 0, 1, true))
	}
	if ZeroShot.Sim != &ZeroShotSim || CoT.Sim != &CoTSim || SC.Sim != nil {
		t.Fatal("zeroshot and cot carry their behaviours; sc sends the shared first answer, which the core answers")
	}
}
