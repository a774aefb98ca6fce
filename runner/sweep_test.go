package runner

import (
	"context"
	"math"
	"testing"

	"github.com/medteam-bench/medteam/teamwork"
)

// TestSharedCallsAreReal: the nine-preset sweep at temperature 0 reports how
// many of its logical calls were served by an identical request of another
// arm, and the simulator counted exactly the rest.
func TestSharedCallsAreReal(t *testing.T) {
	plan, model := simPlan(t, "default", teamwork.PresetNames(), 8)
	for i := range plan.Arms {
		c := plan.Arms[i].Protocol.(teamwork.Arm).Config
		c.AgentTemperature, c.LeaderTemperature = 0, 0
		c.Agents = 3
		plan.Arms[i].Protocol = teamwork.Arm{Config: c}
	}
	res, err := Run(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	t.Logf("9 presets × 50 questions: %d logical calls, %d shared, %d sent; the simulator served %d", st.Calls, st.Shared, st.Calls-st.Shared, model.Requests())
	if st.Shared == 0 {
		t.Fatal("no call was shared; c5 and c7 alone are identical arms")
	}
	if got := model.Requests(); got != st.Calls-st.Shared {
		t.Fatalf("the backend served %d requests; the summary says %d", got, st.Calls-st.Shared)
	}
	var rowsCalls, rowsCached int64
	for _, q := range res.Questions {
		rowsCalls += int64(q.Calls)
		rowsCached += int64(q.CachedCalls)
	}
	if rowsCalls != st.Calls || rowsCached != st.Shared || int64(len(res.Calls)) != st.Calls {
		t.Fatalf("rows say %d calls (%d shared), %d call rows; stats %d (%d)", rowsCalls, rowsCached, len(res.Calls), st.Calls, st.Shared)
	}
	// c7 has the same components as c5: every one of its calls is shared.
	for _, q := range res.Questions {
		if q.Arm == "c7/n3" && q.CachedCalls != q.Calls {
			t.Fatalf("c7 question %s: %d of %d calls shared, want all", q.QuestionID, q.CachedCalls, q.Calls)
		}
	}
}

// TestDryRunPredicts: with a fixed team the dry run predicts the calls of a
// simulator run exactly (leader tie-breaks aside, which it bounds) and the
// tokens within 10%.
func TestDryRunPredicts(t *testing.T) {
	plan, _ := simPlan(t, "default", []string{"base", "c4", "c6", "full"}, 8)
	for i := range plan.Arms {
		c := plan.Arms[i].Protocol.(teamwork.Arm).Config
		c.Agents = 3
		plan.Arms[i].Protocol = teamwork.Arm{Config: c}
	}
	est, err := DryRun(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tiebreaks, tokens int64
	for _, c := range res.Calls {
		if c.Kind == "tiebreak" {
			tiebreaks++
		}
	}
	for _, q := range res.Questions {
		tokens += q.PromptTokens + q.CompletionTokens
	}
	predicted := est.PromptTokens + est.Completion
	t.Logf("calls: predicted %d (+ ≤%d tie-breaks), measured %d (%d tie-breaks); tokens: predicted %d, measured %d (%.1f%%)",
		est.Calls, est.MaxTieBreaks, res.Stats.Calls, tiebreaks, predicted, tokens, 100*float64(predicted-tokens)/float64(tokens))
	if res.Stats.Calls-tiebreaks != est.Calls || tiebreaks > est.MaxTieBreaks {
		t.Fatalf("calls: predicted %d + ≤%d, measured %d with %d tie-breaks", est.Calls, est.MaxTieBreaks, res.Stats.Calls, tiebreaks)
	}
	if math.Abs(float64(predicted-tokens)) > 0.10*float64(tokens) {
		t.Fatalf("tokens: predicted %d, measured %d: off by more than 10%%", predicted, tokens)
	}
}
