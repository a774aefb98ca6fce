package check

import (
	"errors"
	"testing"
)

// FuzzParse: any input parses or gives an *Error naming the file.
func FuzzParse(f *testing.F) {
	f.Add([]byte("thresholds:\n  - metric: accuracy\n    arm: full\n    bound: ci_low >= 0.55\n"))
	f.Add([]byte("thresholds:\n  - {compare: [full, base], metric: accuracy, bound: \"ci_low >= -0.02\"}\n"))
	f.Add([]byte("thresholds: [\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		th, err := Parse("f.yaml", b)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.File != "f.yaml" || e.Line < 0 {
				t.Fatalf("error %v is not a file:line *Error", err)
			}
			return
		}
		for _, x := range th {
			if x.Metric == "" || x.Bound.Op == "" || x.Line <= 0 {
				t.Fatalf("incomplete threshold %+v", x)
			}
		}
		// Every parsed file validates against a plan without panicking,
		// each problem at a line of the file.
		for _, err := range ValidatePlan(th, testPlan()) {
			var e *Error
			if !errors.As(err, &e) || e.File != "f.yaml" || e.Line <= 0 {
				t.Fatalf("plan problem %v is not a file:line *Error", err)
			}
		}
	})
}
