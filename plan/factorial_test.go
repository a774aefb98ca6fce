package plan

import (
	"os"
	"slices"
	"testing"

	"github.com/medteam-bench/medteam/teamwork"
)

// --config factorial expands to the 24 valid combinations; entries named
// besides it are not repeated, and it combines with presets.
func TestConfigFactorial(t *testing.T) {
	s := Spec{Turns: 2, Discussion: "round_robin", AgentTemp: 0.7, LeaderTemp: 0.5}
	for _, tc := range []struct {
		configs []string
		n       int
	}{
		{[]string{"factorial"}, 24},
		{[]string{"Factorial"}, 24},
		{[]string{"base", "factorial"}, 24},
		{[]string{"c5", "factorial"}, 25}, // c5 is a preset label, l+t+mm the combination
		{[]string{"full"}, 1},
	} {
		s.Configs = tc.configs
		arms, err := s.Arms()
		if err != nil || len(arms) != tc.n {
			t.Errorf("%v: %d arms, %v; want %d", tc.configs, len(arms), err, tc.n)
		}
	}
	if got := ExpandConfigs([]string{"factorial"}); !slices.Equal(got, teamwork.Factorial()) {
		t.Errorf("ExpandConfigs = %v", got)
	}
}

// A sweep file may list factorial as an arm.
func TestSweepFactorial(t *testing.T) {
	path := t.TempDir() + "/f.yaml"
	if err := os.WriteFile(path, []byte("arms: [factorial]\nagents: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Spec{Turns: 2, Discussion: "round_robin", AgentTemp: 0.7, LeaderTemp: 0.5, Models: []string{"sim/default"}}
	if err := LoadSweep(path, &s); err != nil {
		t.Fatal(err)
	}
	if arms, err := s.Arms(); err != nil || len(arms) != 24 {
		t.Fatalf("%d arms, %v", len(arms), err)
	}
}
