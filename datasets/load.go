package datasets

import "github.com/medteam-bench/medteam/qa"

// LoadFile reads a dataset file (or a directory of files of one format) in
// any supported format, recognised from its content (see Detect). Split is
// set from the file name as in LoadMedQAFile (MMLU: from the _test/_dev/_val
// suffix; PubMedQA with test_ground_truth.json beside it: the test split
// only). Any invalid record refuses the file: the error is an *InvalidError
// listing the first problems with their file:line. A missing file gives the
// os error unwrapped (os.IsNotExist works on it).
//
// Use Load for options (skipping invalid records, a named format, a field
// map, a split or metadata filter).
func LoadFile(path string) ([]qa.Question, error) {
	res, err := Load(Source{Path: path}, LoadOptions{})
	if err != nil {
		return nil, err
	}
	return res.Questions, nil
}
