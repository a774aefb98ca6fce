package check

import (
	"strings"
	"testing"
)

// testPlan is make run's plan: the 50-question sample, arm full, the
// simulator; subjects Step 1 and Step 2&3.
func testPlan() Plan {
	return Plan{Arms: []string{"full"}, Models: []string{"sim/default"}, Repeats: 1,
		Datasets: []PlanDataset{{Name: "medqa-sample", Questions: 50, Subjects: []string{"step1", "step2&3"}}}}
}

func TestValidatePlan(t *testing.T) {
	two := testPlan()
	two.Arms = []string{"base/n3", "full/n3"}
	sweep := testPlan()
	sweep.Arms = []string{"full/n2", "full/n3"}
	triage := testPlan()
	triage.Datasets = append(triage.Datasets, PlanDataset{Name: "semigran", Questions: 45, Triage: true})
	priced := testPlan()
	priced.Priced = true
	for _, c := range []struct {
		name, entries string
		plan          Plan
		want          []string // each problem's text, in order; none: the thresholds apply
	}{
		{"applies", "  - {metric: accuracy, arm: full, bound: ci_low >= 0.55}\n  - {metric: tokens_per_q, bound: value <= 20000}", testPlan(), nil},
		{"unknown compare arm", "  - compare: [full, base]\n    metric: accuracy\n    bound: ci_low >= -0.02", testPlan(),
			[]string{`t.yaml:2: unknown arm "base"; the plan runs full (add the arm to --config, or drop the threshold)`}},
		{"compare of labelled arms", "  - compare: [full, base]\n    metric: accuracy\n    bound: ci_low >= -0.02", two, nil},
		{"unknown arm", "  - metric: accuracy\n    arm: c6\n    bound: value >= 0.5", testPlan(), []string{`t.yaml:3: unknown arm "c6"`}},
		{"ambiguous arm", "  - metric: accuracy\n    arm: full\n    bound: value >= 0.5", sweep, []string{`t.yaml:3: arm "full" is ambiguous: it names full/n2, full/n3`}},
		{"unknown model", "  - metric: accuracy\n    model: ollama/llama3.1:8b\n    bound: value >= 0.5", testPlan(), []string{`t.yaml:3: unknown model "ollama/llama3.1:8b"; the plan runs sim/default`}},
		{"unknown dataset", "  - metric: accuracy\n    dataset: medqa\n    bound: value >= 0.5", testPlan(), []string{`t.yaml:3: unknown dataset "medqa"; the plan runs medqa-sample`}},
		{"unknown subject", "  - {metric: accuracy, subject: cardiology, bound: value >= 0.5}", testPlan(), []string{`t.yaml:2: no question of the plan has subject "cardiology"; its subjects are step1, step2&3`}},
		{"known subject", "  - {metric: accuracy, subject: step1, bound: value >= 0.5}", testPlan(), nil},
		{"triage metric without triage items", "  - metric: safe\n    bound: ci_low >= 0.9", testPlan(), []string{`t.yaml:2: metric safe needs triage items, and the plan's datasets medqa-sample have none`}},
		{"triage metric with a triage dataset", "  - metric: safe\n    bound: ci_low >= 0.9", triage, nil},
		{"cost without prices", "  - metric: cost_per_q\n    bound: value <= 0.01", testPlan(), []string{`t.yaml:2: cost_per_q needs a price for every model of the plan (sim/default); give --prices FILE`}},
		{"cost with prices", "  - metric: cost_per_q\n    bound: value <= 0.01", priced, nil},
		{"ci_low beyond 50 units", "  - metric: accuracy\n    bound: ci_low >= 0.95", testPlan(),
			[]string{`t.yaml:3: bound "ci_low >= 0.95" cannot hold on this plan: a group has at most 50 units, and its 95% interval's ci_low is 0.929 when all of them count`}},
		{"ci_high below 50 units", "  - metric: error_rate\n    bound: value <= 0.02\n  - metric: accuracy\n    bound: ci_high < 0.05", testPlan(),
			[]string{`t.yaml:5: bound "ci_high < 0.05" cannot hold on this plan: a group has at most 50 units, and its 95% interval's ci_high is 0.071 when none of them count`}},
		{"share beyond 1", "  - metric: coverage\n    bound: value > 1", testPlan(), []string{`t.yaml:3: bound "value > 1" cannot hold: coverage is a share between 0 and 1`}},
		{"every problem, in order", "  - compare: [full, base]\n    metric: accuracy\n    bound: ci_low >= -0.02\n  - metric: accuracy\n    model: m\n    bound: ci_low >= 0.99", testPlan(),
			[]string{`t.yaml:2: unknown arm "base"`, `t.yaml:6: unknown model "m"`, `t.yaml:7: bound "ci_low >= 0.99" cannot hold`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			th, err := Parse("t.yaml", []byte("thresholds:\n"+c.entries+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			got := ValidatePlan(th, c.plan)
			if len(got) != len(c.want) {
				t.Fatalf("%d problems %v, want %d %q", len(got), got, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.HasPrefix(got[i].Error(), w) {
					t.Errorf("problem %d:\n got %s\nwant %s…", i, got[i], w)
				}
				if _, ok := got[i].(*Error); !ok {
					t.Errorf("problem %d is %T, want *Error (file:line)", i, got[i])
				}
			}
		})
	}
}
