package datasets

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DataDirEnv names the environment variable that gives the data directory
// when --data-dir is not set.
const DataDirEnv = "MEDTEAM_DATA"

// DataDir returns the data directory: flagValue if set, else $MEDTEAM_DATA,
// else DefaultDataDir (where `medteam datasets get` writes).
func DataDir(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if env := os.Getenv(DataDirEnv); env != "" {
		return env
	}
	return DefaultDataDir()
}

// Layout is one accepted arrangement of a dataset's files under the data
// directory (relative paths, slash-separated).
type Layout struct {
	Files       []string // read in order as one dataset
	GroundTruth string   // PubMedQA split file, if any
}

// Entry is a named dataset of the registry.
type Entry struct {
	Name        string
	Description string
	License     string
	Expected    int    // the number of questions the named selection has
	Format      Format // FormatAuto: detected from the files
	Dataset     string // Question.Dataset override, if any
	Split       string // keep only this split
	Filter      map[string]string
	Layouts     []Layout   // the first layout whose files all exist is used
	Embedded    bool       // the embedded sample: no files needed
	Downloads   []Download // the pinned files `medteam datasets get` fetches (sources.go)
	Manual      string     // where to obtain by hand the files with no pinned URL, if any
}

// mmluMedicalSubjects are the six MMLU subjects of the medical selection
// (as in Med-PaLM and most medical LLM papers).
var mmluMedicalSubjects = []string{"anatomy", "clinical_knowledge", "college_biology", "college_medicine", "medical_genetics", "professional_medicine"}

func mmluFiles(dir string) []string {
	out := make([]string, len(mmluMedicalSubjects))
	for i, s := range mmluMedicalSubjects {
		out[i] = dir + "/" + s + "_test.csv"
	}
	return out
}

// Registry returns the named datasets, the embedded sample first. The
// expected files under the data directory (first layout; the others are
// also accepted):
//
//	medqa-sample     (embedded, 50 questions)
//	medqa            medqa/phrases_no_exclude_test.jsonl                      1273
//	medqa-5          medqa/test.jsonl (the 5-option US test file)             1273
//	medmcqa          medmcqa/test.jsonl (standardised copy of the dev split)  2816
//	pubmedqa         pubmedqa/ori_pqal.json + pubmedqa/test_ground_truth.json  500
//	mmlu-medical     mmlu_medical/<subject>_test.csv for the six subjects     1099
//	mmlu-pro-health  mmlu_pro/test-00000-of-00001.parquet, category health     818
//	medbullets       medbullets/medbullets_op4.csv                             304
//	medbullets-op5   medbullets/medbullets_op5.csv                             298
//	headqa           headqa/HEAD_EN/test_HEAD_EN.json (English test split)    2742
//	semigran         triage/semigran_vignettes.jsonl (triage items)             45
//
// The MedBullets files have 308 rows each; 4 (op4) and 10 (op5) of them repeat
// an earlier question under another link and are collapsed (see
// docs/datasets.md).
//
// Each call returns a fresh copy that the caller may modify.
func Registry() []Entry {
	out := make([]Entry, len(registry))
	for i, e := range registry {
		out[i] = e.clone()
	}
	return withSources(out)
}

// registry is the list Registry returns copies of.
var registry = []Entry{
	{
		Name: SampleName, Embedded: true, Format: FormatMedQA, Expected: 50, Split: "test",
		Description: "50 MedQA (USMLE, 4 options) test questions embedded in the binary; for smoke tests, not for reporting accuracy",
		License:     "MIT (MedQA, Jin et al. 2021)",
	},
	{
		Name: "medqa", Format: FormatMedQA, Expected: 1273,
		Description: "MedQA USMLE (US), 4 options, official test split",
		License:     "MIT (MedQA, Jin et al. 2021)",
		Layouts: []Layout{
			{Files: []string{"medqa/phrases_no_exclude_test.jsonl"}},
			{Files: []string{"medqa/data_clean/questions/US/4_options/phrases_no_exclude_test.jsonl"}},
		},
	},
	{
		Name: "medqa-5", Format: FormatMedQA, Expected: 1273,
		Description: "MedQA USMLE (US), 5 options (A–E), official test split",
		License:     "MIT (MedQA, Jin et al. 2021)",
		Layouts: []Layout{
			{Files: []string{"medqa/test.jsonl"}},
			{Files: []string{"medqa/data_clean/questions/US/test.jsonl"}},
		},
	},
	{
		Name: "medmcqa", Dataset: DatasetMedMCQA, Expected: 2816,
		Description: "MedMCQA dev split (the test split's answers are not published), single-answer items, 4 options; the standardised copy, or the original dev.json (multi-answer items are then reported, not guessed)",
		License:     "MIT (MedMCQA, Pal et al. 2022); standardised copy Apache-2.0",
		Layouts: []Layout{
			{Files: []string{"medmcqa/test.jsonl"}},
			{Files: []string{"medmcqa/dev.json"}},
		},
	},
	{
		Name: "pubmedqa", Format: FormatPubMedQA, Expected: 500, Split: "test",
		Description: "PubMedQA PQA-L, official test split (500 of the 1000 labelled questions), yes/no/maybe with the abstract as context",
		License:     "MIT (PubMedQA, Jin et al. 2019)",
		Layouts: []Layout{
			{Files: []string{"pubmedqa/ori_pqal.json"}, GroundTruth: "pubmedqa/test_ground_truth.json"},
			{Files: []string{"pubmedqa/data/ori_pqal.json"}, GroundTruth: "pubmedqa/data/test_ground_truth.json"},
		},
	},
	{
		Name: "mmlu-medical", Format: FormatMMLU, Expected: 1099, Split: "test",
		Description: "MMLU test questions of six medical subjects: " + strings.Join(mmluMedicalSubjects, ", "),
		License:     "MIT (MMLU, Hendrycks et al. 2021)",
		Layouts: []Layout{
			{Files: mmluFiles("mmlu_medical")},
			{Files: mmluFiles("mmlu/test")},
			{Files: mmluFiles("mmlu/data/test")},
		},
	},
	{
		Name: "mmlu-pro-health", Expected: 818, Filter: map[string]string{"category": "health"},
		Description: "MMLU-Pro test questions of the health category, up to 10 options (A–J)",
		License:     "MIT (MMLU-Pro, Wang et al. 2024)",
		Layouts: []Layout{
			{Files: []string{"mmlu_pro/test-00000-of-00001.parquet"}},
			{Files: []string{"mmlu_pro/data/test-00000-of-00001.parquet"}},
			{Files: []string{"mmlu_pro/test.parquet"}},
			{Files: []string{"mmlu_pro/test.jsonl"}},
		},
	},
	{
		Name: "medbullets", Format: FormatMedBullets, Expected: 304, // 308 rows, 4 exact duplicates
		Description: "MedBullets USMLE Step 2/3 style questions, 4 options",
		License:     "no licence stated by the authors (Chen et al. 2024); research use — check before redistributing",
		Layouts:     []Layout{{Files: []string{"medbullets/medbullets_op4.csv"}}, {Files: []string{"medbullets/medbullets_op4.json"}}},
	},
	{
		Name: "medbullets-op5", Format: FormatMedBullets, Expected: 298, // 308 rows, 10 exact duplicates
		Description: "MedBullets USMLE Step 2/3 style questions, 5 options",
		License:     "no licence stated by the authors (Chen et al. 2024); research use — check before redistributing",
		Layouts:     []Layout{{Files: []string{"medbullets/medbullets_op5.csv"}}, {Files: []string{"medbullets/medbullets_op5.json"}}},
	},
	{
		Name: "headqa", Format: FormatHeadQA, Expected: 2742, Split: "test",
		Description: "HEAD-QA (Vilares & Gómez-Rodríguez 2019), English, official test split: Spanish specialised-healthcare exams (medicine, nursing, psychology, chemistry, pharmacology, biology), 4–5 options; image-linked questions included, as the published count has them",
		License:     "MIT (HEAD-QA, Vilares & Gómez-Rodríguez 2019); exams of the Spanish Ministerio de Sanidad, reused under its conditions (cite the source and the update date)",
		Layouts: []Layout{
			{Files: []string{"headqa/HEAD_EN/test_HEAD_EN.json"}},
			{Files: []string{"headqa/test_HEAD_EN.json"}},
		},
	},
	{
		Name: "semigran", Format: FormatSemigran, Expected: 45, Split: "test",
		Description: "Semigran et al. (BMJ 2015) triage vignettes: 45 cases, 15 each of em (emergency care), ne (see a doctor within a week), sc (self-care); triage items with the correct diagnosis",
		License:     "MIT (medaks/medask-benchmarks); vignettes CC BY-NC 4.0 (BMJ): research use",
		Layouts:     []Layout{{Files: []string{"triage/semigran_vignettes.jsonl"}}},
	},
}

// clone copies the entry with its filter and layouts.
func (e Entry) clone() Entry {
	e.Filter = maps.Clone(e.Filter)
	if e.Layouts != nil {
		layouts := make([]Layout, len(e.Layouts))
		for i, l := range e.Layouts {
			l.Files = slices.Clone(l.Files)
			layouts[i] = l
		}
		e.Layouts = layouts
	}
	return e
}

// LookupEntry finds a registry entry by name (ignoring case).
func LookupEntry(name string) (Entry, bool) {
	for _, e := range Registry() {
		if strings.EqualFold(e.Name, name) {
			return e, true
		}
	}
	return Entry{}, false
}

// Names returns the registry names in order.
func Names() []string {
	var out []string
	for _, e := range Registry() {
		out = append(out, e.Name)
	}
	return out
}

// ErrNoDataDir is returned (wrapped) by Resolve for a registry name that
// needs files when no data directory is set.
var ErrNoDataDir = errors.New("no data directory: pass --data-dir or set " + DataDirEnv + " (no user cache directory to default to)")

// Resolve turns a --dataset value into a Source. "" and SampleName give the
// embedded sample; a registry name gives its files under dataDir (the first
// complete layout); anything else is taken as a file or directory path.
// A registry name whose files are missing is an error that lists the
// expected paths.
func Resolve(name, dataDir string) (Source, error) {
	if name == "" {
		name = SampleName
	}
	e, ok := LookupEntry(name)
	if !ok {
		if _, err := os.Stat(name); err != nil {
			return Source{}, fmt.Errorf("dataset %q is neither a registry name (%s) nor a readable path: %w", name, strings.Join(Names(), ", "), err)
		}
		return Source{Path: name}, nil
	}
	return e.Source(dataDir)
}

// Source returns the Source of the entry under dataDir.
func (e Entry) Source(dataDir string) (Source, error) {
	src := Source{
		Name:    e.Name,
		Format:  e.Format,
		Dataset: e.Dataset,
		Split:   e.Split,
		Filter:  maps.Clone(e.Filter),
	}
	if e.Embedded {
		src.Path = SampleFile
		src.embedded = sampleMedQA
		return src, nil
	}
	if dataDir == "" {
		return Source{}, fmt.Errorf("dataset %s: %w (expected %s under it)", e.Name, ErrNoDataDir, strings.Join(e.Layouts[0].Files, ", "))
	}
	for _, l := range e.Layouts {
		files := make([]string, len(l.Files))
		complete := true
		for i, f := range l.Files {
			files[i] = filepath.Join(dataDir, filepath.FromSlash(f))
			if _, err := os.Stat(files[i]); err != nil {
				complete = false
				break
			}
		}
		if !complete {
			continue
		}
		src.Files = files
		src.Path = filepath.Dir(files[0])
		if l.GroundTruth != "" {
			src.GroundTruth = filepath.Join(dataDir, filepath.FromSlash(l.GroundTruth))
			if _, err := os.Stat(src.GroundTruth); err != nil {
				return Source{}, fmt.Errorf("dataset %s: %s is missing (the split file that goes with %s)", e.Name, src.GroundTruth, files[0])
			}
		}
		return src, nil
	}
	var want []string
	for _, l := range e.Layouts {
		fs := slices.Clone(l.Files)
		if l.GroundTruth != "" {
			fs = append(fs, l.GroundTruth)
		}
		want = append(want, strings.Join(fs, " + "))
	}
	return Source{}, fmt.Errorf("dataset %s: files not found under %s; expected %s; %s",
		e.Name, dataDir, strings.Join(want, ", or "), e.howToGet())
}

// howToGet says how to obtain the entry's files: `medteam datasets get`
// for a dataset with pinned files (from a mirror when some have no public
// URL), else where to place them by hand.
func (e Entry) howToGet() string {
	switch {
	case len(e.Downloads) > 0 && e.Manual == "":
		return "fetch them with `medteam datasets get " + e.Name + "`"
	case len(e.Downloads) > 0:
		return "copy them from a mirror with `medteam datasets get " + e.Name + " --from DIR|URL` (verified), or place them by hand: " + e.Manual
	}
	return "place them by hand: " + e.Manual
}
