// Command gendata writes a synthetic MedQA-format JSONL file for load and
// memory tests: N four-option items with unique stems, deterministic for a
// given -n and -seed (same flags, same bytes).
//
//	go run ./scripts/gendata -n 20000 -out /tmp/q20k.jsonl [-seed 1]
//
// Each line has the fields of the official MedQA release, in its order:
// "question", "answer" (the gold option's text), "options" {"A".."D"},
// "meta_info" ("step1" or "step2&3") and "answer_idx" (the gold letter).
// Stems are about as long as real MedQA stems (~600–900 characters) and end
// with a case number, so every stem — and hence every content-derived
// question ID — is unique. Options within an item are distinct. The text is
// clinical-sounding nonsense; it is not medical content.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gendata:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("gendata", flag.ContinueOnError)
	n := fs.Int("n", 1000, "number of items")
	out := fs.String("out", "-", "output file (- = stdout)")
	seed := fs.Uint64("seed", 1, "generator seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *n < 0 {
		return errors.New("-n must be ≥ 0")
	}
	w := stdout
	var f *os.File
	if *out != "-" && *out != "" {
		var err error
		if f, err = os.Create(*out); err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := generate(bw, *n, *seed); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if f != nil {
		return f.Close()
	}
	return nil
}

// record is one MedQA line; field order is the release's.
type record struct {
	Question  string  `json:"question"`
	Answer    string  `json:"answer"`
	Options   options `json:"options"`
	MetaInfo  string  `json:"meta_info"`
	AnswerIdx string  `json:"answer_idx"`
}

type options struct {
	A string `json:"A"`
	B string `json:"B"`
	C string `json:"C"`
	D string `json:"D"`
}

// generate writes n records drawn from a PCG stream seeded by seed.
func generate(w io.Writer, n int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x6d65647465616d)) // "medteam"
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range n {
		if err := enc.Encode(item(rng, i)); err != nil {
			return err
		}
	}
	return nil
}

func pick(rng *rand.Rand, xs []string) string { return xs[rng.IntN(len(xs))] }

func item(rng *rand.Rand, i int) record {
	var sb strings.Builder
	age := 18 + rng.IntN(70)
	fmt.Fprintf(&sb, "A %d-year-old %s presents to the %s with %s of %s %s. ",
		age, pick(rng, sexes), pick(rng, settings), pick(rng, durations), pick(rng, symptoms), pick(rng, qualifiers))
	fmt.Fprintf(&sb, "%s reports %s and %s. ", pick(rng, pronouns), pick(rng, symptoms), pick(rng, symptoms))
	fmt.Fprintf(&sb, "Past medical history is significant for %s and %s, for which %s takes %s. ",
		pick(rng, conditions), pick(rng, conditions), pick(rng, lowerPronouns), pick(rng, drugs))
	fmt.Fprintf(&sb, "%s %s. ", pick(rng, social), pick(rng, family))
	celsius := 36.0 + float64(rng.IntN(36))/10
	fmt.Fprintf(&sb, "Temperature is %.1f°C (%.1f°F), pulse is %d/min, respirations are %d/min, and blood pressure is %d/%d mm Hg. ",
		celsius, celsius*9/5+32, 50+rng.IntN(80), 10+rng.IntN(20), 85+rng.IntN(90), 50+rng.IntN(50))
	fmt.Fprintf(&sb, "Physical examination shows %s and %s. ", pick(rng, findings), pick(rng, findings))
	fmt.Fprintf(&sb, "Laboratory studies show a hemoglobin of %.1f g/dL, a leukocyte count of %d/mm3, and a serum creatinine of %.1f mg/dL. ",
		8+rng.Float64()*9, 3000+rng.IntN(15000), 0.5+rng.Float64()*3)
	if rng.IntN(2) == 0 {
		fmt.Fprintf(&sb, "%s shows %s. ", pick(rng, studies), pick(rng, studyFindings))
	}
	pool := answerPools[rng.IntN(len(answerPools))]
	fmt.Fprintf(&sb, "(Synthetic case %d.) %s", i+1, pool.ask)

	perm := rng.Perm(len(pool.options))
	var opts [4]string
	for k := range opts {
		opts[k] = pool.options[perm[k]]
	}
	gold := rng.IntN(4)
	meta := "step1"
	if rng.IntN(2) == 0 {
		meta = "step2&3"
	}
	return record{
		Question:  sb.String(),
		Answer:    opts[gold],
		Options:   options{A: opts[0], B: opts[1], C: opts[2], D: opts[3]},
		MetaInfo:  meta,
		AnswerIdx: string(rune('A' + gold)),
	}
}

var (
	sexes         = []string{"man", "woman"}
	pronouns      = []string{"The patient", "The patient also", "On further questioning, the patient"}
	lowerPronouns = []string{"the patient", "the patient currently"}
	settings      = []string{"emergency department", "clinic", "physician's office", "urgent care center", "hospital"}
	durations     = []string{"a 2-day history", "a 1-week history", "a 3-month history", "a 6-hour history", "a 2-year history", "a 10-day history"}
	symptoms      = []string{"fever", "fatigue", "shortness of breath", "chest pain", "abdominal pain", "headache", "nausea", "vomiting", "joint pain", "cough", "palpitations", "weight loss", "night sweats", "dizziness", "blurred vision", "dysuria", "back pain", "rash", "swelling of the legs", "confusion"}
	qualifiers    = []string{"that worsens with exertion", "that began suddenly", "that is worse at night", "that improves with rest", "that has gradually progressed", "without any obvious trigger"}
	conditions    = []string{"hypertension", "type 2 diabetes mellitus", "asthma", "hypothyroidism", "hyperlipidemia", "chronic kidney disease", "major depressive disorder", "gastroesophageal reflux disease", "osteoarthritis", "atrial fibrillation"}
	drugs         = []string{"lisinopril", "metformin", "albuterol", "levothyroxine", "atorvastatin", "sertraline", "omeprazole", "warfarin", "amlodipine", "ibuprofen as needed"}
	social        = []string{"The patient has smoked one pack of cigarettes daily for 20 years.", "The patient does not smoke or drink alcohol.", "The patient drinks three beers daily.", "The patient works as a farmer.", "The patient recently returned from a trip abroad."}
	family        = []string{"Family history is unremarkable", "A parent had a myocardial infarction at 55 years of age", "A sibling has an autoimmune disease", "There is a family history of colon cancer"}
	findings      = []string{"pallor", "jugular venous distention", "bilateral crackles at the lung bases", "a holosystolic murmur at the apex", "hepatosplenomegaly", "pitting edema of the ankles", "a palpable purpura", "decreased breath sounds on the right", "right upper quadrant tenderness", "a diffuse maculopapular rash", "nuchal rigidity", "cervical lymphadenopathy"}
	studies       = []string{"An x-ray of the chest", "An ECG", "Ultrasonography of the abdomen", "A CT scan of the head", "A peripheral blood smear"}
	studyFindings = []string{"no abnormalities", "a nonspecific abnormality", "findings consistent with the clinical picture", "an incidental finding of uncertain significance"}
	answerPools   = []struct {
		ask     string
		options []string
	}{
		{"Which of the following is the most likely diagnosis?", []string{"Acute pericarditis", "Aortic dissection", "Pulmonary embolism", "Myocardial infarction", "Pneumothorax", "Esophageal spasm", "Costochondritis"}},
		{"Which of the following is the most likely cause of this patient's anemia?", []string{"Iron deficiency", "Vitamin B12 deficiency", "Chronic inflammation", "Hereditary spherocytosis", "Sickle cell disease", "Thalassemia minor"}},
		{"Which of the following is the most appropriate next step in management?", []string{"Obtain a CT scan", "Begin intravenous antibiotics", "Perform a lumbar puncture", "Reassurance and follow-up", "Order an echocardiogram", "Start low-dose aspirin", "Refer for surgery"}},
		{"Which of the following is the most likely underlying mechanism?", []string{"Type I hypersensitivity", "Type II hypersensitivity", "Type III hypersensitivity", "Type IV hypersensitivity", "Complement deficiency", "Impaired phagocytosis"}},
		{"Which of the following is the most appropriate pharmacotherapy?", []string{"Metoprolol", "Furosemide", "Prednisone", "Ceftriaxone", "Heparin", "Insulin", "Amiodarone", "Methotrexate"}},
		{"Which of the following is the most likely cause of this patient's condition?", []string{"Viral infection", "Bacterial infection", "Autoimmune destruction", "Medication adverse effect", "Neoplastic infiltration", "Vascular occlusion"}},
	}
)
