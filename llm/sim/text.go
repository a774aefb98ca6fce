package sim

import "strconv"

// specialty is one entry of the built-in list the recruiter draws roles from.
type specialty struct{ name, focus string }

var specialties = [...]specialty{
	{"Internal Medicine Physician", "overall synthesis of the presentation and comorbidities"},
	{"Cardiologist", "cardiac causes, haemodynamics and the ECG"},
	{"Pulmonologist", "respiratory findings, gas exchange and chest imaging"},
	{"Nephrologist", "renal function, electrolytes and acid-base status"},
	{"Gastroenterologist", "digestive and hepatic findings"},
	{"Endocrinologist", "hormonal and metabolic causes"},
	{"Neurologist", "neurological signs and localisation"},
	{"Infectious Disease Specialist", "infectious causes and antimicrobial choice"},
	{"Hematologist", "blood counts, coagulation and marrow disorders"},
	{"Oncologist", "malignancy, staging and treatment options"},
	{"Rheumatologist", "autoimmune and inflammatory disease"},
	{"Emergency Physician", "acute stabilisation and red flags"},
	{"General Surgeon", "surgical causes and operative management"},
	{"Obstetrician-Gynecologist", "pregnancy and gynaecological conditions"},
	{"Pediatrician", "age-specific presentations and development"},
	{"Psychiatrist", "psychiatric and behavioural aspects"},
	{"Dermatologist", "skin and mucosal findings"},
	{"Radiologist", "interpretation of the imaging described"},
	{"Pathologist", "histology, laboratory patterns and mechanisms"},
	{"Clinical Pharmacologist", "drug mechanisms, interactions and adverse effects"},
}

const (
	nSpecialties = len(specialties)
	// topRelevant is how many specialties per question earn the full
	// SpecialistBonus; any other role earns half of it.
	topRelevant = 4
	// recruitPool is how many of the most relevant specialties an unranked
	// recruitment draws its roles from.
	recruitPool = 8
)

// specialtyIndex returns the built-in specialty named s (case-insensitive), or -1.
func specialtyIndex(s string) int {
	for i := range specialties {
		if equalFoldASCII(specialties[i].name, s) {
			return i
		}
	}
	return -1
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// The fact bank: every fact the simulator ever states. Each question assigns
// poolSize of them to its supportive pool (facts a correct agent states) and
// poolSize others to its distractor pool. Facts read as clinical sentences
// (without a final period); they contain no option letter and no semicolon
// (plain-text answers join them with "; ").
var factTemplates = [...][2]string{
	{"Finding ", " of the case supports the leading diagnosis"},
	{"The timing of symptom ", " fits the expected course"},
	{"Laboratory result ", " is consistent with the main mechanism"},
	{"Imaging feature ", " narrows the differential"},
	{"Risk factor ", " raises the pre-test probability"},
	{"The response to treatment ", " is typical of the condition"},
}

const (
	factNumbers = 9
	nFacts      = len(factTemplates) * factNumbers
	poolSize    = 5
)

var (
	factBank  [nFacts]string
	factIndex = make(map[string]uint8, nFacts)
)

func init() {
	for t, tpl := range factTemplates {
		for n := 1; n <= factNumbers; n++ {
			id := t*factNumbers + n - 1
			s := tpl[0] + strconv.Itoa(n) + tpl[1]
			factBank[id] = s
			factIndex[s] = uint8(id)
		}
	}
}

// Sentence templates. Agent sentences take two letters (%1 the first choice,
// %2 the runner-up); they are stored as three pieces around the letters.
var rankSentences = [...][3]string{
	{"The key findings point to ", "; ", " is the closest alternative."},
	{"Weighing the presentation, ", " fits best and ", " is less likely."},
	{"", " best explains the case, with ", " a distant second."},
	{"The mechanism described favours ", " over ", "."},
}

var roleSentences = [...][3]string{
	{"From my specialty's view the findings point to ", "; ", " is the closest alternative."},
	{"Within my field, ", " fits best and ", " is less likely."},
}

var switchSentences = [...][3]string{
	{"The team's argument is convincing; I now favour ", " over ", "."},
	{"On reflection ", " fits better than ", "; I revise my ranking."},
}

var holdSentences = [...][3]string{
	{"I keep ", " first; the arguments for ", " do not outweigh the findings."},
	{"The discussion confirms ", "; ", " remains less consistent with the case."},
}

var fencePrefaces = [...]string{
	"Here is my answer:\n\n",
	"Sure. Based on the case:\n\n",
	"",
}

// prose is a malformed answer that commits to nothing. It contains no
// single-letter word a parser could take for an option.
var proseAnswers = [...]string{
	"More history would be needed before committing to one of these options; the findings are not specific enough.",
	"Several of the options could fit this presentation, and the decisive test is not described in the stem.",
}
