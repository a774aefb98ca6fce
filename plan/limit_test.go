package plan

import "testing"

func TestLimitWarning(t *testing.T) {
	if w := LimitWarning("medqa", 5000, 1273); w != "--limit 5000 is more than the 1273 questions of medqa: all 1273 are used" {
		t.Errorf("beyond the size: %q", w)
	}
	for _, limit := range []int{0, 10, 1273} {
		if w := LimitWarning("medqa", limit, 1273); w != "" {
			t.Errorf("limit %d: %q", limit, w)
		}
	}
}
