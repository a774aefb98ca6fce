package report

import (
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/stats"
)

// TestComparePublished: each medteam arm is compared with each published
// arm (protocol rescore) of its dataset; the comparison is labelled across
// models exactly when the models differ; rows of another dataset do not
// pair; with no published rows there is nothing to compare.
func TestComparePublished(t *testing.T) {
	row := func(ds, model, arm, proto, q string, ok bool) results.QuestionRow {
		return results.QuestionRow{Dataset: ds, Model: model, Arm: arm, Protocol: proto, QuestionID: q, Correct: ok, Gold: "A"}
	}
	var rows []results.QuestionRow
	for i, q := range []string{"q1", "q2", "q3", "q4"} {
		rows = append(rows,
			row("medqa", "gpt-4o", "cot", PublishedProtocol, q, i < 2),
			row("medqa", "gpt-4o", "full", "teamwork", q, i < 3),
			row("medqa", "sim/default", "full", "teamwork", q, true),
			row("other", "gpt-4o", "full", "teamwork", q, true))
	}
	got := comparePublished(rows, []string{"cot", "full"}, stats.Bootstrap{Reps: 100, Seed: 1})
	type key struct {
		model  string
		across bool
		b, c   int
	}
	want := []key{{"gpt-4o", false, 0, 1}, {"sim/default", true, 0, 2}}
	if len(got) != len(want) {
		t.Fatalf("%d comparisons, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Model != w.model || g.AcrossModels != w.across || g.PubArm != "cot" || g.PubModel != "gpt-4o" || g.Arm != "full" ||
			g.Matched != 4 || g.Accuracy.B != w.b || g.Accuracy.C != w.c {
			t.Errorf("comparison %d: %+v, want %+v", i, g, w)
		}
	}
	r := &Report{Published: got}
	s := r.publishedSection()
	if s == nil || !strings.Contains(s.Text, "1 of these comparisons are **across models**") ||
		s.Tables[0].Rows[1][12] != AcrossModelsNote || s.Tables[0].Rows[0][12] != "" {
		t.Errorf("section %+v", s)
	}
	if c := comparePublished(rows[1:2], nil, stats.Bootstrap{Reps: 100}); c != nil {
		t.Errorf("no published rows: %+v", c)
	}
}
