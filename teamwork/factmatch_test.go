package teamwork

import (
	"slices"
	"testing"

	"github.com/medteam-bench/medteam/answer"
)

// factPairs are written for this test (not taken from any evaluation data):
// how two clinicians might state one fact, and pairs a reader keeps apart.
var factPairs = []struct {
	a, b string
	same bool
}{
	// paraphrases: word order, voice, inflection, filler, direction words
	{"Hyperkalemia causes peaked T waves", "Peaked T waves are caused by hyperkalemia.", true},
	{"Elevated serum potassium", "The patient has high potassium in the serum", true},
	{"The patient has no fever", "Fever is absent", true},
	{"Troponin is elevated, indicating myocardial injury", "Raised troponin indicates injury to the myocardium", true},
	{"Painless jaundice and a palpable gallbladder suggest pancreatic cancer", "Painless jaundice with palpable gallbladder suggests cancer of the pancreas", true},
	{"Metformin is contraindicated in severe renal impairment", "Severe renal impairment contraindicates metformin", true},
	{"Sickle cell disease predisposes to Salmonella osteomyelitis", "Salmonella osteomyelitis is typical in sickle cell disease", true},
	{"The ECG shows ST elevation in leads II, III and aVF", "ST elevation in II, III and aVF on the ECG", true},
	{"Potassium of 6.5 mEq/L", "Serum potassium is 6.5 mEq/L.", true},
	{"Beta blockers are first-line therapy for stable angina", "First-line therapy of stable angina is a beta blocker", true},
	{"The child doesn't have a rash", "No rash is present in the child", true},
	{"Decreased breath sounds on the left", "Breath sounds are reduced on the left side", true},
	{"HbA1c of 9.1% indicates poor glycemic control", "Poor glycemic control with an HbA1c of 9.1%", true},
	{"  FEVER suggests   infection. ", "fever suggests infection", true},
	{"High TSH and low free T4", "high TSH with low free T4.", true},
	{"Lithium causes nephrogenic diabetes insipidus", "Nephrogenic diabetes insipidus is a side effect of lithium", true},
	// not the same fact: polarity, numbers, direction, different findings
	{"Fever is present", "Fever is absent", false},
	{"The child has a rash", "The child doesn't have a rash", false},
	{"Potassium is 6.5 mEq/L", "Potassium is 3.1 mEq/L", false},
	{"Elevated potassium", "Low potassium", false},
	{"High TSH and low free T4", "Low TSH and high free T4", false},
	{"Elevated LDL and reduced HDL", "Reduced LDL and elevated HDL", false},
	{"High calcium with low phosphate", "Low calcium with high phosphate", false},
	{"The patient has fever", "The patient has a rash", false},
	{"Hyperkalemia causes peaked T waves", "Hypokalemia causes U waves", false},
	{"Metformin is contraindicated in renal failure", "Metformin is first-line therapy in type 2 diabetes", false},
	{"Aspirin reduces mortality after myocardial infarction", "Aspirin increases bleeding risk after myocardial infarction", false},
	{"Finding 3 of the case supports the leading diagnosis", "Finding 4 of the case supports the leading diagnosis", false},
	{"Chest pain radiates to the left arm", "Abdominal pain radiates to the back", false},
	{"Chest pain radiates to the left arm", "Chest pain radiates to the back", false},
	{"Sudden painless loss of vision in one eye", "Gradual painless loss of vision in both eyes", false},
	{"Ceftriaxone treats gonorrhea", "Doxycycline treats chlamydia", false},
	{"The murmur increases with Valsalva", "The murmur decreases with Valsalva", false},
}

// TestFactMatchPairs (issue 36 item 5): the leaderless SMM's fact rule
// matches paraphrases and keeps different facts apart, on pairs written for
// the test; the threshold is the rule's, not fitted to evaluation data.
func TestFactMatchPairs(t *testing.T) {
	for _, p := range factPairs {
		a, b := factKeyOf(p.a), factKeyOf(p.b)
		sim := factSimilarity(a, b)
		t.Logf("%.2f same=%v  %q ~ %q", sim, p.same, p.a, p.b)
		if factsMatch(a, b) != p.same || factsMatch(b, a) != p.same {
			t.Errorf("%q ~ %q: similarity %.2f (words %q / %q, numbers %q / %q, negated %v / %v), want same=%v",
				p.a, p.b, sim, a.words, b.words, a.numbers, b.numbers, a.negated, b.negated, p.same)
		}
	}
}

// TestFactIntersectionParaphrases (issue 36 item 5): a fact two agents state
// in different words is verified once, in its first wording; one agent
// repeating itself verifies nothing; before issue 36 only equal normalised
// strings counted, so these paraphrases verified nothing.
func TestFactIntersectionParaphrases(t *testing.T) {
	ans := []answer.Answer{
		{Facts: []string{"Hyperkalemia causes peaked T waves", "The patient has no fever"}},
		{Facts: []string{"Peaked T waves are caused by hyperkalemia.", "Potassium is 6.5 mEq/L"}},
		{Facts: []string{"Fever is absent", "Potassium is 3.1 mEq/L", "  "}},
	}
	want := []string{"Hyperkalemia causes peaked T waves", "The patient has no fever"}
	if got := factIntersection(ans); !slices.Equal(got, want) {
		t.Fatalf("verified %q, want %q", got, want)
	}
	if n := statedFacts(ans); n != 6 {
		t.Fatalf("stated %d facts, want 6", n)
	}
	self := []answer.Answer{{Facts: []string{"Troponin is raised", "Raised troponin"}}, {Facts: []string{"ECG is normal"}}}
	if got := factIntersection(self); len(got) != 0 {
		t.Fatalf("one agent's paraphrase of itself verified: %q", got)
	}
}

// FuzzFactKey: the fact reader takes any text without panicking, a fact
// always matches itself, and similarity is symmetric and within [0, 1].
func FuzzFactKey(f *testing.F) {
	for _, p := range factPairs {
		f.Add(p.a, p.b)
	}
	f.Add("6.5.", "..5")
	f.Add("n't", "ñ ü 9.")
	f.Fuzz(func(t *testing.T, a, b string) {
		ka, kb := factKeyOf(a), factKeyOf(b)
		if ka.norm != "" && !factsMatch(ka, ka) {
			t.Fatalf("%q does not match itself", a)
		}
		s1, s2 := factSimilarity(ka, kb), factSimilarity(kb, ka)
		if s1 != s2 || s1 < 0 || s1 > 1 {
			t.Fatalf("similarity %v / %v", s1, s2)
		}
	})
}
