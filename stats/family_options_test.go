package stats

import (
	"slices"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// TestSameConfigOptions (issue 36 item 1): arms that differ only in an
// option the columns do not record — the trust view, the leader's leaning —
// are two configurations (two hypotheses), told apart by their labels;
// c5/n3 and c7/n3 stay one, also relabelled by a pooled report.
func TestSameConfigOptions(t *testing.T) {
	row := func(arm string, l, tr, mm bool) []results.QuestionRow {
		return []results.QuestionRow{{Arm: arm, Protocol: "teamwork", Leadership: l, Trust: tr, Monitoring: mm,
			Turns: 2, Discussion: "round_robin", AgentPolicy: "fixed:3", StructuredOut: true}}
	}
	arms := [][]results.QuestionRow{
		row("c4/n3", false, true, false), row("c4/n3/trust-hidden", false, true, false), row("c4/n3/trust-levels", false, true, false),
		row("c5/n3", true, true, true), row("c7/n3", true, true, true), row("c7/n3/trust-hidden", true, true, true),
		row("c2/n3", true, false, false), row("c2/n3/leaning", true, false, false), row("c7/n3@run-2", true, true, true),
	}
	if got, want := SameConfigGroups(arms), []int{0, 1, 2, 3, 3, 5, 6, 7, 3}; !slices.Equal(got, want) {
		t.Fatalf("SameConfigGroups = %v, want %v", got, want)
	}
}
