package triage

import "strings"

// synonyms rewrite abbreviations and common synonyms of the diagnoses the
// reference sets use to one phrase, on normalised text (lower case, single
// spaces, before the plural is stripped), whole words only, longest first
// where one key contains another. Kept small on purpose: a stated diagnosis
// that needs more than this is a question for the LLM judge.
var synonyms = []struct{ from, to string }{
	{"stemi", "myocardial infarction"}, {"nstemi", "myocardial infarction"}, {"mi", "myocardial infarction"},
	{"heart attack", "myocardial infarction"},
	{"pe", "pulmonary embolism"}, {"pulmonary embolus", "pulmonary embolism"},
	{"deep venous thrombosis", "deep vein thrombosis"}, {"dvt", "deep vein thrombosis"},
	{"copd", "chronic obstructive pulmonary disease"}, {"aecopd", "chronic obstructive pulmonary disease exacerbation"},
	{"uti", "urinary tract infection"}, {"cystitis", "urinary tract infection"},
	{"urti", "upper respiratory tract infection"}, {"uri", "upper respiratory tract infection"},
	{"upper respiratory infection", "upper respiratory tract infection"}, {"common cold", "upper respiratory tract infection"},
	{"hus", "hemolytic uremic syndrome"}, {"rmsf", "rocky mountain spotted fever"},
	{"cva", "stroke"}, {"cerebrovascular accident", "stroke"},
	{"flu", "influenza"}, {"paracetamol", "acetaminophen"}, {"apap", "acetaminophen"},
	{"overdose", "poisoning"}, {"toxicity", "poisoning"},
	{"herpes zoster", "shingles"}, {"zoster", "shingles"}, {"hordeolum", "stye"},
	{"aphthous ulcers", "canker sore"}, {"aphthous ulcer", "canker sore"}, {"aphthous stomatitis", "canker sore"},
	{"glandular fever", "mononucleosis"}, {"salmonellosis", "salmonella"},
	{"nephrolithiasis", "kidney stones"}, {"urolithiasis", "kidney stones"}, {"renal calculi", "kidney stones"},
	{"ureterolithiasis", "ureteric stones"}, {"ureteral", "ureteric"},
	{"candidiasis", "candidal yeast infection"}, {"atopic dermatitis", "eczema"}, {"pink eye", "conjunctivitis"},
	{"aom", "acute otitis media"}, {"pud", "peptic ulcer disease"}, {"bppv", "benign paroxysmal positional vertigo"},
	{"strep throat", "streptococcal pharyngitis"},
}

// applySynonyms rewrites the synonyms in the normalised text n.
func applySynonyms(n string) string {
	s := " " + n + " "
	for _, p := range synonyms {
		s = strings.ReplaceAll(s, " "+p.from+" ", " "+p.to+" ")
	}
	return strings.TrimSpace(s)
}
