package triage

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"testing"
)

const semigranFile = "../../../shared/datasets/triage/semigran_vignettes.jsonl"

// semigranGolds are the 45 gold diagnoses of the Semigran vignettes, in
// file order (read from the file when present, so the test follows it).
func semigranGolds(t *testing.T) []string {
	f, err := os.Open(semigranFile)
	if err != nil {
		t.Skipf("%s: %v", semigranFile, err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v struct {
			Dx string `json:"correct_diagnosis"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v.Dx)
	}
	if len(out) != 45 {
		t.Fatalf("%d vignettes", len(out))
	}
	return out
}

// TestSemigranGoldsMatchThemselves: every gold diagnosis, and each of its
// acceptable answers, matches the gold.
func TestSemigranGoldsMatchThemselves(t *testing.T) {
	for i, g := range semigranGolds(t) {
		acc := Acceptable(g)
		if len(acc) == 0 {
			t.Errorf("%d %q: no acceptable answer", i+1, g)
		}
		for _, s := range append([]string{g}, acc...) {
			if m, ok := DiagnosisMatch(s, g); !m || !ok {
				t.Errorf("%d: %q does not match its gold %q (acceptable %q)", i+1, s, g, acc)
			}
		}
	}
}

// TestAcceptable: the alternatives of the golds with parentheses.
func TestAcceptable(t *testing.T) {
	cases := []struct {
		gold string
		want []string
	}{
		{"Acute liver failure (acetaminophen poisoning acceptable)", []string{"Acute liver failure", "acetaminophen poisoning"}},
		{"Asthma (or acute asthma, status asthmaticus, exacerbation of asthma)", []string{"Asthma", "acute asthma", "status asthmaticus", "exacerbation of asthma"}},
		{"COPD exacerbation (severe)\n(diagnosis may include acute bronchitis)", []string{"COPD exacerbation", "acute bronchitis"}},
		{"Myocardial infarction (heart attack)", []string{"Myocardial infarction", "heart attack"}},
		{"Ureteric stones (kidney stones)", []string{"Ureteric stones", "kidney stones"}},
		{"Haemolytic uremic syndrome1", []string{"Haemolytic uremic syndrome1"}},
		{"Stroke", []string{"Stroke"}},
	}
	for _, tc := range cases {
		if got := Acceptable(tc.gold); !slices.Equal(got, tc.want) {
			t.Errorf("Acceptable(%q) = %q, want %q", tc.gold, got, tc.want)
		}
	}
}

// TestDiagnosisMatch: statements a model makes, against Semigran golds.
func TestDiagnosisMatch(t *testing.T) {
	cases := []struct {
		stated, gold string
		match        bool
	}{
		{"Acetaminophen (paracetamol) overdose", "Acute liver failure (acetaminophen poisoning acceptable)", true},
		{"Paracetamol toxicity", "Acute liver failure (acetaminophen poisoning acceptable)", true},
		{"Acute hepatitis", "Acute liver failure (acetaminophen poisoning acceptable)", false},
		{"Liver failure", "Acute liver failure (acetaminophen poisoning acceptable)", true},
		{"Acute appendicitis", "Appendicitis", true},
		{"Perforated appendicitis with peritonitis", "Appendicitis", true},
		{"Gastroenteritis", "Appendicitis", false},
		{"Severe asthma exacerbation", "Asthma (or acute asthma, status asthmaticus, exacerbation of asthma)", true},
		{"Acute exacerbation of COPD", "COPD exacerbation (severe)\n(diagnosis may include acute bronchitis)", true},
		{"Chronic obstructive pulmonary disease exacerbation", "COPD exacerbation (severe)\n(diagnosis may include acute bronchitis)", true},
		{"Asthma", "COPD exacerbation (severe)\n(diagnosis may include acute bronchitis)", false},
		{"DVT", "Deep vein thrombosis", true},
		{"Deep venous thrombosis of the left leg", "Deep vein thrombosis", true},
		{"Superficial thrombophlebitis", "Deep vein thrombosis", false},
		{"STEMI", "Myocardial infarction (heart attack)", true},
		{"Unstable angina", "Myocardial infarction (heart attack)", false},
		{"Hemolytic uremic syndrome", "Haemolytic uremic syndrome1", true},
		{"HUS", "Haemolytic uremic syndrome1", true},
		{"Thrombotic thrombocytopenic purpura", "Haemolytic uremic syndrome1", false},
		{"Nephrolithiasis", "Ureteric stones (kidney stones)", true},
		{"Kidney stone", "Ureteric stones (kidney stones)", true},
		{"Pyelonephritis", "Ureteric stones (kidney stones)", false},
		{"Bacterial meningitis", "Meningitis", true},
		{"Encephalitis", "Meningitis", false},
		{"Pulmonary embolus", "Pulmonary embolism", true},
		{"Pulmonary edema", "Pulmonary embolism", false},
		{"RMSF", "Rocky Mountain Spotted Fever", true},
		{"Spotted fever", "Rocky Mountain Spotted Fever", false},
		{"Ischemic stroke (CVA)", "Stroke", true},
		{"Transient ischemic attack", "Stroke", false},
		{"Otitis media", "Acute otitis media", true},
		{"Otitis externa", "Acute otitis media", false},
		{"Streptococcal pharyngitis", "Acute pharyngitis", true},
		{"Peritonsillar abscess", "Acute pharyngitis", false},
		{"Mechanical low back pain", "Back pain", true},
		{"Back strain", "Back pain", false},
		{"Herpes zoster", "Shingles", true},
		{"Cystitis", "Urinary tract infection", true},
		{"Peptic ulcer", "Peptic ulcer disease", true},
		{"Gastritis", "Peptic ulcer disease", false},
		{"Hordeolum", "Stye", true},
		{"Chalazion", "Stye", false},
		{"Common cold", "Viral upper respiratory tract infection", true},
		{"URI", "Viral upper respiratory tract infection", true},
		{"Bronchiolitis", "Acute bronchitis", false},
		{"Aphthous ulcer", "Canker sore", true},
		{"Vaginal candidiasis", "Candidal yeast infection", true},
		{"Bacterial vaginosis", "Candidal yeast infection", false},
		{"", "Stroke", false},
	}
	for _, tc := range cases {
		m, ok := DiagnosisMatch(tc.stated, tc.gold)
		if m != tc.match || ok != (tc.stated != "") {
			t.Errorf("DiagnosisMatch(%q, %q) = %v, %v; want %v", tc.stated, tc.gold, m, ok, tc.match)
		}
	}
}

func TestNormalizeAndSpecialty(t *testing.T) {
	for in, want := range map[string]string{
		"Ménière's disease":   "meniere s disease",
		"Syndrome1, ACUTE!":   "syndrome acute",
		"Kidney stones":       "kidney stone",
		"Meningitis":          "meningitis",
		"Oedema; haemorrhage": "edema hemorrhage",
		"COVID19":             "covid19",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
	for _, tc := range []struct {
		a, b      string
		match, ok bool
	}{{"General practice", "general-practice", true, true}, {"Cardiology", "Neurology", false, true}, {"", "ENT", false, false}} {
		if m, ok := SpecialtyMatch(tc.a, tc.b); m != tc.match || ok != tc.ok {
			t.Errorf("SpecialtyMatch(%q, %q) = %v %v", tc.a, tc.b, m, ok)
		}
	}
}

// FuzzDiagnosisMatch: no panic; a text always matches itself when it has
// content; the match is unscored only for empty input.
func FuzzDiagnosisMatch(f *testing.F) {
	f.Add("Acute liver failure (acetaminophen poisoning acceptable)", "paracetamol overdose")
	f.Add("COPD exacerbation (severe)\n(diagnosis may include acute bronchitis)", "(((")
	f.Fuzz(func(t *testing.T, gold, stated string) {
		m, ok := DiagnosisMatch(stated, gold)
		if m && !ok {
			t.Fatal("match without a score")
		}
		if len(contentTokens(Normalize(gold))) > 0 && !stringsHasParen(gold) {
			if m, _ := DiagnosisMatch(gold, gold); !m {
				t.Fatalf("%q does not match itself", gold)
			}
		}
	})
}

func stringsHasParen(s string) bool {
	return slices.ContainsFunc([]rune(s), func(r rune) bool { return r == '(' || r == ')' })
}
