package tasks

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/check"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
)

// columnOf maps each QuestionRow field to its parquet column name.
func columnOf() map[string]string {
	m := map[string]string{}
	rt := reflect.TypeFor[results.QuestionRow]()
	for i := range rt.NumField() {
		m[rt.Field(i).Name] = strings.Split(rt.Field(i).Tag.Get("parquet"), ",")[0]
	}
	return m
}

// changed are the columns whose values differ between two rows.
func changed(a, b results.QuestionRow) []string {
	cols := columnOf()
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var out []string
	for i := range va.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, cols[va.Type().Field(i).Name])
		}
	}
	return out
}

// items are a multiple-choice and a triage question with the outcomes a
// scorer meets: a failure, an abstention, a right and a wrong answer that
// changed over the rounds, a diagnosis and a specialty.
func items() ([]qa.Question, []*protocol.Outcome) {
	scale := []qa.Level{{Code: "sc", Name: "Self-care"}, {Code: "ne", Name: "Non-emergency"}, {Code: "em", Name: "Emergency care"}}
	tri := qa.Question{ID: "t", Gold: "B", Kind: qa.KindTriage,
		Options:    []qa.Option{{Letter: "A", Text: "sc"}, {Letter: "B", Text: "ne"}, {Letter: "C", Text: "em"}},
		Triage:     &qa.Triage{Scale: scale, Ranks: []int{0, 1, 2}},
		TriageGold: &qa.TriageGold{Diagnosis: "Asthma", Specialty: "Pulmonology"}}
	mc := qa.Question{ID: "m", Gold: "B", Options: tri.Options[:2]}
	a := func(l, dx string) answer.Answer {
		return answer.Answer{Ranking: []string{l}, Confidence: 0.5, Diagnosis: dx, Specialty: "pulmonology"}
	}
	rounds := [][]answer.Answer{{a("B", ""), a("A", "")}, {a("A", "Asthma"), a("B", "COPD")}}
	return []qa.Question{mc, tri}, []*protocol.Outcome{nil, {}, {Predicted: "B", Rounds: rounds},
		{Predicted: "C", Rounds: rounds, RedFlag: "wheeze"}, {Predicted: "A", Rounds: rounds, Diagnosis: "asthma"}}
}

// TestTasksOwnTheirColumns: every registered task names real question-row
// columns and report metrics, and its Blank and Score write no column it
// does not name.
func TestTasksOwnTheirColumns(t *testing.T) {
	reg := All()
	if err := reg.Check(); err != nil {
		t.Fatal(err)
	}
	cols := map[string]bool{}
	for _, c := range columnOf() {
		cols[c] = true
	}
	qs, outs := items()
	for _, tk := range reg {
		for _, c := range tk.Columns {
			if !cols[c] {
				t.Errorf("task %s names column %q, which questions.parquet does not have", tk.Name, c)
			}
		}
		for _, m := range tk.Metrics {
			if !slices.Contains(check.Metrics, check.Metric(m)) {
				t.Errorf("task %s names metric %q, which a thresholds file cannot bound", tk.Name, m)
			}
		}
		for _, q := range qs {
			if q.Kind != tk.Kind {
				continue
			}
			for _, out := range outs {
				var before, after results.QuestionRow
				reg.Score(&before, qa.Question{}, nil) // every task's blank, scored as nothing
				after = before
				tk.Score(&after, q, out)
				for _, c := range changed(before, after) {
					if !slices.Contains(tk.Columns, c) {
						t.Errorf("task %s wrote column %q it does not name (outcome %+v)", tk.Name, c, out)
					}
				}
			}
		}
	}
}

// TestTriageMetricsAreTheTriageTasks: the metrics only triage rows define
// (check.TriageMetrics) are the triage task's.
func TestTriageMetricsAreTheTriageTasks(t *testing.T) {
	tr, ok := All().For(qa.KindTriage)
	if !ok {
		t.Fatal("no triage task")
	}
	var want []string
	for _, m := range check.TriageMetrics {
		want = append(want, string(m))
	}
	if !slices.Equal(tr.Metrics, want) {
		t.Errorf("triage task metrics %v; check.TriageMetrics %v", tr.Metrics, want)
	}
}
