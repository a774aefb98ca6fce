package redflag_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/configs"
	"github.com/medteam-bench/medteam/triage/redflag"
)

// TestExamples runs every rule's examples in every shipped set: each
// positive phrase fires its rule, each negative phrase fires no rule.
func TestExamples(t *testing.T) {
	for _, name := range configs.RedFlagSetNames() {
		rs, _ := configs.RedFlagSet(name)
		for i := range rs.Rules {
			r := &rs.Rules[i]
			for _, p := range r.Positive {
				if !r.Fires(strings.Join(strings.Fields(p), " ")) {
					t.Errorf("%s, rule %s: positive %q does not fire", name, r.Name, p)
				}
				if _, ok := rs.Match(p); !ok {
					t.Errorf("%s, rule %s: positive %q fires no rule", name, r.Name, p)
				}
			}
			for _, p := range r.Negative {
				if got, ok := rs.Match(p); ok {
					t.Errorf("%s, rule %s: negative %q fires %s", name, r.Name, p, got.Name)
				}
			}
		}
	}
}

// TestLiteralKeywords: the default set matches seed 003's keywords as the
// seed says — case-insensitive, partial, anywhere (no negation handling),
// across the case's line breaks, the ASCII apostrophe only — and the first
// keyword of the list that occurs names the rule.
func TestLiteralKeywords(t *testing.T) {
	rs := configs.RedFlags()
	for _, tc := range []struct{ text, want string }{
		{"Sudden CHEST PAIN at rest.", "chest_pain"},
		{"Chest pains on and off.", "chest_pain"},
		{"He denies chest pain and shortness of breath.", "chest_pain"},
		{"Collapsed with heatstroke.", "stroke"},
		{"Worried about a stroke.", "stroke"},
		{"She felt\n   short of\tbreath.", "short_of_breath"},
		{"A seizure, then chest pain.", "chest_pain"},
		{"I can't breathe.", "cant_breathe"},
		{"I can\u2019t breathe.", ""},
		{"Shortness of breath and a stiff neck with fever.", ""},
		{"Fever, vomiting and confusion; she is disoriented.", ""},
		{"Feeling hopeless; says she wants to end her life.", "hopeless"},
		{"", ""},
	} {
		got := ""
		if r, ok := rs.Match(tc.text); ok {
			got = r.Name
		}
		if got != tc.want {
			t.Errorf("%q: %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestSemigranVignettes: how many vignettes of each level of the 45
// Semigran vignettes (15 em, 15 ne, 15 sc) each shipped set fires on — a
// record, not a target: the seed's literal keywords fire on 2 emergency
// vignettes (6 and 12: "chest pain", "short of breath") and on no other;
// the semigran set, written while looking at these vignettes, on 13
// emergencies and on no other (in-sample).
func TestSemigranVignettes(t *testing.T) {
	// ../shared beside the checkout (a worktree sits one level deeper).
	f, err := os.Open("../../../shared/datasets/triage/semigran_vignettes.jsonl")
	if err != nil {
		f, err = os.Open("../../../../shared/datasets/triage/semigran_vignettes.jsonl")
	}
	if err != nil {
		t.Skipf("the Semigran file is not here: %v", err)
	}
	defer f.Close()
	type vignette struct{ urgency, text string }
	var vs []vignette
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var v struct {
			Urgency string `json:"urgency_level"`
			Case    string `json:"case_description"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("line %d: %v", len(vs)+1, err)
		}
		vs = append(vs, vignette{v.Urgency, v.Case})
	}
	if len(vs) != 45 {
		t.Fatalf("%d vignettes", len(vs))
	}
	want := map[string]string{configs.RedFlagsDefault: "em 2 ne 0 sc 0 [6 12]", configs.RedFlagsSemigran: "em 13 ne 0 sc 0 [1 2 3 5 6 7 8 9 10 11 12 14 15]"}
	for _, name := range configs.RedFlagSetNames() {
		rs, _ := configs.RedFlagSet(name)
		fired := map[string]int{}
		var lines []int
		for i, v := range vs {
			if r, ok := rs.Match(v.text); ok {
				fired[v.urgency]++
				lines = append(lines, i+1)
				t.Logf("%s: vignette %2d (%s): %s", name, i+1, v.urgency, r.Name)
			}
		}
		got := fmt.Sprintf("em %d ne %d sc %d %v", fired["em"], fired["ne"], fired["sc"], lines)
		t.Logf("%s fires on %s", name, got)
		if got != want[name] {
			t.Errorf("%s fires on %s, want %s", name, got, want[name])
		}
	}
}

// TestNegation: known answers of the negation scope.
func TestNegation(t *testing.T) {
	rs, err := redflag.Parse("t.yaml", []byte(`version: 1
rules:
  - name: stiff
    patterns: ['stiff neck|neck stiffness']
    positive: ['a stiff neck']
    negative: ['no stiff neck']
  - name: relief
    negation: false
    patterns: ['no relief']
    positive: ['no relief']
    negative: ['relief']
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text string
		want string
	}{
		{"Fever and a stiff neck.", "stiff"},
		{"There is no neck stiffness and his chest is clear.", ""},
		{"He denies fever, chills, headache or neck stiffness.", ""},
		{"No fever, but a stiff neck since the morning.", "stiff"},
		{"No fever. He has a stiff neck.", "stiff"},
		{"No fever; neck stiffness on flexion.", "stiff"},
		{"He didn't notice the neck stiffness at first.", ""},
		{"Negative for neck stiffness.", ""},
		{"Notable neck stiffness.", "stiff"}, // "Notable" is not the cue "not"
		{"He got no relief at all.", "relief"},
		{"A NECK\n\nSTIFFNESS across lines.", "stiff"},
	} {
		r, ok := rs.Match(tc.text)
		got := ""
		if ok {
			got = r.Name
		}
		if got != tc.want {
			t.Errorf("%q: %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestAllPatternsMustMatch: a rule of two patterns needs both (the
// semigran set has such rules).
func TestAllPatternsMustMatch(t *testing.T) {
	rs, _ := configs.RedFlagSet(configs.RedFlagsSemigran)
	for _, tc := range []struct{ text, want string }{
		{"Meningism with fever.", "meningism"},
		{"Meningism.", ""},
		{"Substernal pain.", ""},
		{"Substernal pain with sweating.", "cardiac_chest_pain"},
	} {
		r, ok := rs.Match(tc.text)
		if got := map[bool]string{true: "x"}[ok]; ok {
			got = r.Name
			if got != tc.want {
				t.Errorf("%q: %s, want %q", tc.text, got, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("%q: no rule, want %s", tc.text, tc.want)
		}
	}
}
