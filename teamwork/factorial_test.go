package teamwork

import (
	"slices"
	"testing"
)

// Factorial is the 24 valid combinations, each once, canonical, base first
// and all five last.
func TestFactorial(t *testing.T) {
	got := Factorial()
	if len(got) != 24 || got[0] != "base" || got[23] != "smm+l+to+t+mm" {
		t.Fatalf("%d combinations: %v", len(got), got)
	}
	seen := map[string]bool{}
	for _, c := range got {
		cfg, err := ParseComponents(c, Default())
		if err != nil || cfg.Combo() != c || seen[c] {
			t.Errorf("%s: %v (combo %s, seen %v)", c, err, cfg.Combo(), seen[c])
		}
		seen[c] = true
	}
	if slices.Contains(got, "mm") || slices.Contains(got, "smm+mm") {
		t.Error("monitoring without leadership is not a valid combination")
	}
}
