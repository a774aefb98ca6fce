package plan

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpecEdges: values that used to pass — NaN temperatures (then failing
// in the plan's JSON), negative --peer-chars/--max-tokens/--num-ctx,
// absurd --repeats — are refused naming the flag (issue 28, item 9).
func TestSpecEdges(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"NaN agent temperature", func(s *Spec) { s.AgentTemp = math.NaN() }, "--agent-temperature NaN"},
		{"NaN leader temperature", func(s *Spec) { s.LeaderTemp = math.NaN() }, "--leader-temperature NaN"},
		{"infinite temperature", func(s *Spec) { s.AgentTemp = math.Inf(1) }, "--agent-temperature +Inf"},
		{"negative peer chars", func(s *Spec) { s.PeerChars = -1 }, "--peer-chars -1"},
		{"negative max tokens", func(s *Spec) { s.MaxTokens = -5 }, "--max-tokens -5"},
		{"negative num ctx", func(s *Spec) { s.NumCtx = -1 }, "--num-ctx -1"},
		{"a billion repeats", func(s *Spec) { s.Repeats = 1_000_000_000 }, "--repeats 1000000000"},
	} {
		s := defaultSpec()
		c.edit(&s)
		_, err := Resolve(context.Background(), s, simOpener)
		if err == nil || !IsInput(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an input error with %q", c.name, err, c.want)
		}
	}
	s := defaultSpec()
	s.PeerChars, s.MaxTokens = 0, 0
	if _, err := Resolve(context.Background(), s, simOpener); err != nil {
		t.Errorf("zero bounds: %v", err)
	}
}

// TestCheckUnits: a plan over MaxUnits is refused with its size; one at
// the bound passes; the product never overflows.
func TestCheckUnits(t *testing.T) {
	if err := checkUnits(1000, 10, 10, 10); err != nil { // exactly MaxUnits
		t.Errorf("1,000,000 units: %v", err)
	}
	err := checkUnits(50, 9, 3, 1000)
	if err == nil || !strings.Contains(err.Error(), "1350000 units (50 questions × 9 arms × 3 models × 1000 repeats)") {
		t.Errorf("1.35M units: %v", err)
	}
	if err := checkUnits(math.MaxInt32, math.MaxInt32, math.MaxInt32, math.MaxInt32); err == nil {
		t.Error("an overflowing product passed")
	}
	s := defaultSpec()
	s.Repeats, s.Configs = 1000, []string{"base", "full", "c1", "c2", "c3", "c4", "c5", "c6", "c7"}
	s.Models = []string{"sim/default", "sim/weak", "sim/skilled"}
	if _, err := Resolve(context.Background(), s, simOpener); err == nil || !strings.Contains(err.Error(), "the plan has 1350000 units (50 questions × 9 arms × 3 models × 1000 repeats)") {
		t.Errorf("a plan over %d units: %v", MaxUnits, err)
	}
}

// TestSweepTemperatureNaN: a sweep file's .nan temperature is refused at
// its line.
func TestSweepTemperatureNaN(t *testing.T) {
	f := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(f, []byte("arms: [full]\ntemperature: {agent: .nan}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := defaultSpec()
	if err := LoadSweep(f, &s); err == nil || !strings.Contains(err.Error(), f+":2: temperature.agent: NaN") {
		t.Errorf("NaN temperature: %v", err)
	}
}
