package configs

import (
	"slices"
	"strings"
	"testing"
)

// seed003Keywords is seed 003 §H.1's "PROPOSED Red-Flag Keyword List", in
// the seed's order, copied from the seed file.
var seed003Keywords = []string{
	"chest pain", "crushing pain", "pressure on chest", "can't breathe", "short of breath", "uncontrolled bleeding",
	"stroke", "seizure", "loss of consciousness", "can't feel my face", "facial droop", "garbled speech", "worst headache of my life",
	"suicide", "suicidal", "want to kill myself", "want to end my life", "hopeless",
}

// TestRedFlagsLoad: the default set is the seed's keyword list, word for
// word, one literal pattern per rule, without negation (the seed's
// case-insensitive partial match), and says it was developed on nothing.
func TestRedFlagsLoad(t *testing.T) {
	rs := RedFlags()
	if len(rs.SHA256) != 64 || rs.Source != RedFlagsName || rs.Name != RedFlagsDefault || rs.DevelopedOn != "" {
		t.Fatalf("source %q name %q hash %q developed on %q", rs.Source, rs.Name, rs.SHA256, rs.DevelopedOn)
	}
	var got []string
	for _, r := range rs.Rules {
		if len(r.Patterns) != 1 || r.Negation || r.Level != "" {
			t.Errorf("rule %s: patterns %q negation %v level %q; want one literal keyword, no negation, the most urgent level", r.Name, r.Patterns, r.Negation, r.Level)
		}
		got = append(got, r.Patterns...)
	}
	if !slices.Equal(got, seed003Keywords) {
		t.Fatalf("patterns %q\nwant the seed's keywords %q", got, seed003Keywords)
	}
}

// TestRedFlagSets: the embedded sets by name; the Semigran set says it was
// developed on the vignettes.
func TestRedFlagSets(t *testing.T) {
	if names := RedFlagSetNames(); !slices.Equal(names, []string{RedFlagsDefault, RedFlagsSemigran}) {
		t.Fatalf("names %v", names)
	}
	def, ok := RedFlagSet(RedFlagsDefault)
	if !ok || def != RedFlags() {
		t.Fatal("the default set by name is not RedFlags()")
	}
	sg, ok := RedFlagSet(RedFlagsSemigran)
	if !ok {
		t.Fatal("no semigran set")
	}
	if sg.Name != RedFlagsSemigran || !strings.Contains(sg.DevelopedOn, "Semigran") || len(sg.Rules) != 18 || sg.SHA256 == def.SHA256 {
		t.Fatalf("semigran set: name %q, developed on %q, %d rules", sg.Name, sg.DevelopedOn, len(sg.Rules))
	}
	if _, ok := RedFlagSet("configs/redflags.yaml"); ok {
		t.Fatal("a path is not a set name")
	}
}
