package medagents_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/protocols/medagents"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/tasks"
)

// questions are n four-option questions with spread gold letters (the
// simulator needs only letters and gold).
func questions(n int) []qa.Question {
	qs := make([]qa.Question, n)
	for i := range qs {
		opts := make([]qa.Option, 4)
		for k := range opts {
			l := string(rune('A' + k))
			opts[k] = qa.Option{Letter: l, Text: fmt.Sprintf("finding %s of case %d", l, i)}
		}
		qs[i] = qa.Question{ID: fmt.Sprintf("ma-%04d", i), Dataset: "synthetic", Split: "test",
			Stem: fmt.Sprintf("Case %d: which finding best explains the presentation?", i), Options: opts,
			Gold: string(rune('A' + (i*7+3)%4))}
	}
	return qs
}

// TestCallsWithinBounds: on a 200-question simulator run (JSON answers on
// profile default; text answers with the noisy profile's malformed ones),
// every row's measured calls lie within the arm's [min, max], equal the
// formula applied to the row's own record (2 + qd + od + report +
// Σ rounds (experts + no votes + revision) + 1), and the calls of each kind
// in calls.parquet are the record's; revision_rounds is the record's.
// Consultations of every length occur.
func TestCallsWithinBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("200 questions")
	}
	qs := questions(200)
	items := map[string]sim.Item{}
	for _, q := range qs {
		items[q.ID] = sim.Item{Letters: q.Letters(), Gold: q.Gold}
	}
	for _, tc := range []struct {
		profile    string
		structured bool
	}{{"default", true}, {"noisy", false}} {
		var arms []runner.Arm
		for _, spec := range []string{"medagents", "medagents:syn_only", "medagents:anal_only", "medagents:rounds=1,qd=3"} {
			a, err := protocols.All().Parse(spec, settings(tc.structured))
			if err != nil {
				t.Fatal(err)
			}
			arms = append(arms, runner.Arm{Label: a.Info().Label, Protocol: a})
		}
		p, err := sim.LookupProfile(tc.profile)
		if err != nil {
			t.Fatal(err)
		}
		plan := runner.Plan{RunID: "t", Sets: []runner.QuestionSet{{Name: "synthetic", Questions: qs}}, Arms: arms,
			Tasks:  tasks.All(),
			Models: []runner.Model{{Name: "sim/" + tc.profile, Request: "sim", Client: protocols.NewSim(p, items)}}, Repeats: 1, Seed: 1, Parallel: 4}
		res, err := runner.Run(context.Background(), plan, nil)
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[string]map[string]int{} // question/arm → kind → calls
		for _, c := range res.Calls {
			k := c.QuestionID + "/" + c.Arm
			if kinds[k] == nil {
				kinds[k] = map[string]int{}
			}
			kinds[k][c.Kind]++
		}
		lengths := map[string]map[int]int{} // arm → rounds → questions
		for _, q := range res.Questions {
			a := findArm(arms, q.Arm).(medagents.Arm)
			lo, extra := a.Calls(0)
			var det medagents.Details
			if err := json.Unmarshal([]byte(q.ProtocolJSON), &det); err != nil || q.Error != "" {
				t.Fatalf("%s %s: %v %s", q.Arm, q.QuestionID, err, q.Error)
			}
			want := 2 + a.QD + a.OD + 1
			if a.Method != medagents.MethodAnalOnly {
				want++
			}
			no, revised := 0, 0
			for _, r := range det.Rounds {
				want += a.QD + a.OD + r.No
				no += r.No
				if r.Revised {
					want++
					revised++
				}
			}
			got := kinds[q.QuestionID+"/"+q.Arm]
			if int(q.Calls) < lo || int(q.Calls) > lo+extra || int(q.Calls) != want || det.Calls != want ||
				got[medagents.KindVote] != len(det.Rounds)*(a.QD+a.OD) || got[medagents.KindAdvice] != no || got[medagents.KindRevision] != revised ||
				int(q.RevisionRounds) != revised || got[medagents.KindQuestionAnalysis] != a.QD || got[medagents.KindFinal] != 1 {
				t.Fatalf("%s %s %s: %d calls, bounds [%d, %d], formula %d; kinds %v; record %+v; revision_rounds %d",
					tc.profile, q.Arm, q.QuestionID, q.Calls, lo, lo+extra, want, got, det, q.RevisionRounds)
			}
			if lengths[q.Arm] == nil {
				lengths[q.Arm] = map[int]int{}
			}
			lengths[q.Arm][len(det.Rounds)]++
		}
		full := lengths["medagents"]
		if full[1] == 0 || full[2] == 0 || full[3] == 0 {
			t.Fatalf("%s: consultations of 1, 2 and 3 rounds expected, got %v", tc.profile, full)
		}
		t.Logf("%s: questions by consultation rounds %v", tc.profile, lengths)
	}
}

func findArm(arms []runner.Arm, label string) any {
	for _, a := range arms {
		if a.Label == label {
			return a.Protocol
		}
	}
	return nil
}
