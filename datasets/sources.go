package datasets

import (
	"os"
	"path/filepath"
	"slices"
)

// Download is one pinned file of a registry dataset: where it goes under the
// data directory (also its name on a mirror), its public URL ("" when no
// verifiable one is known) and its exact size and sha256.
type Download struct {
	Path   string
	URL    string
	Size   int64
	SHA256 string
}

// DefaultDataDir is the data directory when neither --data-dir nor
// $MEDTEAM_DATA is set: medteam/datasets in the user's cache directory
// (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on Linux,
// ~/Library/Caches on macOS, %LocalAppData% on Windows); "" when there is
// none. `medteam datasets get` writes there.
func DefaultDataDir() string {
	dir, err := os.UserCacheDir()
	if err != nil || dir == "" {
		return ""
	}
	return filepath.Join(dir, "medteam", "datasets")
}

// The pinned sources. Sizes and sha256 are those of byte copies of the
// public files (../shared/datasets/SHA256SUMS); raw GitHub URLs are pinned to
// a commit where the file was seen with that size.
const (
	medagentsRaw = "https://raw.githubusercontent.com/xk-huang/medagents-benchmark/4466a9e181527730938d4dbe1bfed418a8a19a19/data/"
	pubmedqaRaw  = "https://raw.githubusercontent.com/pubmedqa/pubmedqa/"
	semigranURL  = "https://raw.githubusercontent.com/medaks/medask-benchmarks/master/triage_bench/vignettes/semigran_vignettes.jsonl"
	mmluTar      = "https://people.eecs.berkeley.edu/~hendrycks/data.tar"
)

// downloads are the pinned files of each dataset, by registry name.
var downloads = map[string][]Download{
	"medqa": {{Path: "medqa/phrases_no_exclude_test.jsonl", Size: 2075680,
		SHA256: "2e51d17d47099a72c4eea6b6a3307de71360333e0c99beb1d53d7a42834cacc4"}},
	"medmcqa": {{Path: "medmcqa/test.jsonl", URL: medagentsRaw + "medmcqa/test.jsonl", Size: 924597,
		SHA256: "06193ed891b1f4ce1b93b3416f52ec731e8c7134b17a000f9219c031a929d716"}},
	"pubmedqa": {
		{Path: "pubmedqa/ori_pqal.json", URL: pubmedqaRaw + "1f00b98d5cc626844bf8c4ca513b6e62c40071ec/data/ori_pqal.json", Size: 2584787,
			SHA256: "8b3276be8942ebbd77f3ddcda12c1749bf0e490045a736fd8438ee40cf37a41d"},
		{Path: "pubmedqa/test_ground_truth.json", URL: pubmedqaRaw + "3e7616d288b52edaf38f5fd5c59821c7806bde86/data/test_ground_truth.json", Size: 11414,
			SHA256: "939fe566f09017d13b1ca64d2ddfee0bc2374b366048152997669cccedc44d51"},
	},
	"mmlu-medical": {
		{Path: "mmlu_medical/anatomy_test.csv", Size: 29844, SHA256: "966dfd5c4579885ebdb8c05d6754ae5834f672632586d8595be3c0f9360e6f4e"},
		{Path: "mmlu_medical/clinical_knowledge_test.csv", Size: 56224, SHA256: "d7c23fd4e75d0a99f042a5d55221ba8465ffc9c9042bc4c30bb07f45d2199dac"},
		{Path: "mmlu_medical/college_biology_test.csv", Size: 45351, SHA256: "e1204cb9d19887ea266145f038b5d4cc1fbc33d7efce186259c4ecca1cbe3119"},
		{Path: "mmlu_medical/college_medicine_test.csv", Size: 78334, SHA256: "9c533cfff89edaa317b2e79bbabcdd5e2e522e019679cb4a6475e5f2a1861b1e"},
		{Path: "mmlu_medical/medical_genetics_test.csv", Size: 18414, SHA256: "4cf70b253e326ee5bcff6e14091765c64003c0d853a58dbc6a5737281356766d"},
		{Path: "mmlu_medical/professional_medicine_test.csv", Size: 217493, SHA256: "d6cb72e2238d5a3885ee28c6194bf62fff9c2799f9aabeac8aec3b89f122d438"},
	},
	"semigran": {{Path: "triage/semigran_vignettes.jsonl", URL: semigranURL, Size: 25827,
		SHA256: "09121a577d5ed4291fac94e7829979b762dc1735ea4fa15eddd1d7f2f4b82013"}},
}

// manual says where to obtain by hand the files of a dataset that has no
// pinned public URL for (some of) them, by registry name.
var manual = map[string]string{
	"medqa": "the official files are a Google Drive archive linked from https://github.com/jind11/MedQA; " +
		"copy data_clean/questions/US/4_options/phrases_no_exclude_test.jsonl",
	"medqa-5": "the official files are a Google Drive archive linked from https://github.com/jind11/MedQA; " +
		"copy data_clean/questions/US/test.jsonl",
	"mmlu-medical": "extract data/test/<subject>_test.csv of the six subjects from " + mmluTar +
		" (https://github.com/hendrycks/test)",
	"mmlu-pro-health": "download data/test-00000-of-00001.parquet from https://huggingface.co/datasets/TIGER-Lab/MMLU-Pro",
	"medbullets": "copy medbullets_op4.csv from the MedBullets release of Chen et al. 2024 " +
		"(https://github.com/HanjieChen/ChallengeClinicalQA)",
	"medbullets-op5": "copy medbullets_op5.csv from the MedBullets release of Chen et al. 2024 " +
		"(https://github.com/HanjieChen/ChallengeClinicalQA)",
	"headqa": "download the HEAD-QA data (https://github.com/aghie/head-qa) and copy HEAD_EN/test_HEAD_EN.json",
}

// withSources fills the Downloads and Manual fields of the registry entries.
func withSources(es []Entry) []Entry {
	for i := range es {
		es[i].Downloads = slices.Clone(downloads[es[i].Name])
		es[i].Manual = manual[es[i].Name]
	}
	return es
}
