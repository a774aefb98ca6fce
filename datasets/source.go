package datasets

import "errors"

// AllSplits as Source.Split keeps every split (see Source.Split).
const AllSplits = "*"

// NoGroundTruth as Source.GroundTruth reads PubMedQA without its split file.
const NoGroundTruth = "-"

// Source describes a dataset to read: where it is, how to read it and which
// of its questions to keep.
type Source struct {
	// Name is a label for reports (the registry name, or empty).
	Name string
	// Path is a file or a directory. A directory is read as its data files
	// (.jsonl, .ndjson, .json, .csv, .parquet; hidden files and
	// *ground_truth* files left out) in name order, as one dataset.
	Path string
	// Files, when not empty, lists the files to read in order as one
	// dataset, and Path is only a label.
	Files []string
	// Format is the schema; FormatAuto detects it from the content.
	Format Format
	// Map gives the field names for FormatMapped.
	Map FieldMap
	// GroundTruth is the PubMedQA split file (PMID → yes/no/maybe).
	// Empty: test_ground_truth.json beside the data file, if present.
	// NoGroundTruth: none. With a ground-truth file, its PMIDs get split
	// "test" and the others "train".
	GroundTruth string
	// Dataset overrides Question.Dataset and the id prefix. Empty: the
	// format's name (medqa, medmcqa, pubmedqa, mmlu, mmlu-pro, medbullets),
	// or for standardised and mapped files a name found in the path
	// ("…/medmcqa/test.jsonl" → medmcqa), else "standard" or "custom".
	Dataset string
	// Split keeps only the questions of this split. Empty keeps all, except
	// that PubMedQA read with its ground-truth file keeps "test" (the
	// official evaluation split); AllSplits keeps all in every case. Files
	// of a directory whose names state another split are not read, and a
	// directory whose files state several splits is refused without a
	// split (a *SplitsError names them; --split).
	Split string
	// Filter keeps only questions whose Meta[key] equals the value
	// (ignoring case), e.g. {"category": "health"} for MMLU-Pro.
	Filter map[string]string
	// IndexBase says how integer answers count (MedMCQA cop, mapped answers).
	IndexBase IndexBase
	// SkipDuplicateCheck turns off the duplicate check (and the collapsing
	// of exact duplicates, which are then delivered), which keeps a 24-byte
	// map slot per question and a 16-byte one per question with a SourceID;
	// with it off, memory does not grow with the file.
	SkipDuplicateCheck bool
	// Dedupe merges content duplicates that the source gives distinct ids
	// (MMLU-Pro health has 94: the same stem, options and answer under two
	// question_ids), keeping the first copy. By default both are kept, as
	// the published dataset counts them, the later copy with its own id
	// (the content id, "~" and its source id), and a note names them.
	Dedupe bool
	// MaxItemBytes caps one item's text (ItemBytes); 0 is
	// DefaultMaxItemBytes, negative is no cap.
	MaxItemBytes int

	embedded []byte // the embedded sample
}

// String names the source for messages: Name, else Path.
func (s Source) String() string {
	switch {
	case s.Name != "":
		return s.Name
	case s.Path != "":
		return s.Path
	case len(s.Files) > 0:
		return s.Files[0]
	}
	return "(no source)"
}

// Embedded reports whether the source is the embedded sample.
func (s Source) Embedded() bool { return s.embedded != nil }

// paths lists the files to read.
func (s *Source) paths() ([]string, error) {
	switch {
	case s.embedded != nil && s.Path != "":
		return []string{s.Path}, nil
	case s.embedded != nil:
		return []string{SampleFile}, nil
	case len(s.Files) > 0:
		return s.Files, nil
	case s.Path == "":
		return nil, errors.New("no dataset: give a file, a directory or a registry name")
	}
	return expandPath(s.Path, s.Split)
}
