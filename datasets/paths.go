package datasets

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// dataExtensions are the file extensions read from a dataset directory.
var dataExtensions = []string{".jsonl", ".ndjson", ".json", ".csv", ".parquet"}

// expandPath lists the files of a dataset path: the file itself, or the data
// files of a directory in name order (hidden files, other extensions,
// PubMedQA ground-truth files and triage scale files are left out). When split is not empty, files
// whose name names another split (anatomy_dev.csv for split "test") are left
// out too. A directory whose file names state two or more splits
// (train/dev/test files side by side) is refused when split is empty: a
// *SplitsError names the splits found (AllSplits reads them all).
func expandPath(path, split string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var all, out []string
	bySplit := map[string][]string{}
	for _, e := range entries {
		name := e.Name()
		if !isDataFile(e) {
			continue
		}
		all = append(all, name)
		s := fileSplit(name)
		if s != "" {
			bySplit[s] = append(bySplit[s], name)
		}
		if otherSplit(split, s) {
			continue
		}
		out = append(out, filepath.Join(path, name))
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s contains no dataset files (%s)", path, strings.Join(dataExtensions, ", "))
	}
	if err := checkSplits(path, split, bySplit); err != nil {
		return nil, err
	}
	return out, nil
}

// isDataFile reports whether a directory entry is a dataset file: a visible
// file with a data extension that is neither a PubMedQA ground-truth file
// nor a triage scale file.
func isDataFile(e os.DirEntry) bool {
	name := e.Name()
	if e.IsDir() || strings.HasPrefix(name, ".") || !slices.Contains(dataExtensions, strings.ToLower(filepath.Ext(name))) {
		return false
	}
	return !strings.Contains(strings.ToLower(name), "ground_truth") && !isScaleFile(name)
}

// otherSplit reports whether a file stating split stated is left out
// when split was asked for: a named split (not empty, not AllSplits) leaves
// out the files that state another one.
func otherSplit(split, stated string) bool {
	return split != "" && split != AllSplits && stated != "" && stated != split
}

// checkSplits refuses, with a *SplitsError, a directory whose files state
// two or more splits when split is empty, or whose files state splits but
// none of them is the named split asked for.
func checkSplits(path, split string, bySplit map[string][]string) error {
	switch {
	case split == "" && len(bySplit) > 1:
		return &SplitsError{Path: path, Files: bySplit}
	case split != "" && split != AllSplits && len(bySplit) > 0 && len(bySplit[split]) == 0:
		return &SplitsError{Path: path, Files: bySplit, Want: split}
	}
	return nil
}

// SplitsError refuses a folder whose files hold several splits when no
// split was chosen (or the split chosen is none of them): reading them as
// one dataset would mix training and evaluation questions.
type SplitsError struct {
	Path  string
	Files map[string][]string // split → the file names stating it
	Want  string              // the split asked for, if any
}

// Splits returns the splits found, sorted.
func (e *SplitsError) Splits() []string { return slices.Sorted(maps.Keys(e.Files)) }

func (e *SplitsError) Error() string {
	var parts []string
	for _, s := range e.Splits() {
		parts = append(parts, fmt.Sprintf("%s (%s)", s, strings.Join(e.Files[s], ", ")))
	}
	if e.Want != "" {
		return fmt.Sprintf("%s has no file of split %q; its files hold the splits %s: choose one with --split NAME, or --split '*' to read every file as one dataset",
			e.Path, e.Want, strings.Join(parts, "; "))
	}
	return fmt.Sprintf("%s holds several splits: %s; choose one with --split NAME (e.g. --split %s), or --split '*' to read every file as one dataset",
		e.Path, strings.Join(parts, "; "), e.Splits()[0])
}

// fileSplit is the split a file name states: the MMLU suffix
// (_test/_dev/_val/_train before the extension), else SplitFromName.
func fileSplit(path string) string {
	base := strings.ToLower(filepath.Base(path))
	base = strings.TrimSuffix(base, filepath.Ext(base))
	for _, s := range []string{"test", "dev", "val", "train"} {
		if strings.HasSuffix(base, "_"+s) {
			return s
		}
	}
	return SplitFromName(path)
}

// SplitFromName guesses a split from a file name: "test", "dev", "train" or
// "validation" (HF's name for the dev split) when the base name contains that
// word (checked in that order, ignoring case), otherwise "".
func SplitFromName(path string) string {
	base := strings.ToLower(filepath.Base(path))
	for _, s := range []string{"test", "dev", "train", "validation"} {
		if strings.Contains(base, s) {
			return s
		}
	}
	return ""
}
