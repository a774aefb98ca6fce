package datasets

import (
	"io"
	"os"
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

// FormatMedQA is MedQA JSONL: question, options {A..E}, answer_idx, answer,
// meta_info.
const FormatMedQA Format = "medqa"

// DatasetMedQA is the Question.Dataset value of MedQA questions.
const DatasetMedQA = "medqa"

// medqaFormat reads the official MedQA release (4- and 5-option files): one
// object per line with the stem in question, the options as an object of
// letters, the gold letter in answer_idx, the gold text in answer (which
// must agree) and the USMLE step in meta_info (Meta.step).
var medqaFormat = &formatDef{
	Name:      FormatMedQA,
	Doc:       "MedQA JSONL (official 4- and 5-option files): question, options {A..E}, answer_idx, answer, meta_info",
	Dataset:   DatasetMedQA,
	Fields:    func(f fieldSet) bool { return f.has("question", "options", "answer_idx") },
	Normalize: normMedQA,
}

// normLetterRecord reads the MedQA-shaped part shared by MedQA and the
// standardised copies: question, options {A..}, answer_idx, answer,
// meta_info.
func normLetterRecord(c *fileCtx, r *record) (normalized, *ParseError) {
	names := fieldNames{stem: "question", options: "options", gold: "answer_idx"}
	stem, pe := stemOf(c, r, "question")
	if pe != nil {
		return normalized{}, pe
	}
	options, code, err := optionsFromObject(r.get("options"))
	if err != nil {
		return normalized{}, c.fail(r, "options", code, "%v", err)
	}
	gold, ok, err := valString(r.get("answer_idx"))
	switch {
	case err != nil:
		return normalized{}, c.fail(r, "answer_idx", CodeType, "%v", err)
	case !ok:
		return normalized{}, c.fail(r, "answer_idx", CodeGold, "missing; every record needs the gold option letter")
	}
	goldIdx := letterIndex(options, gold)
	if goldIdx < 0 {
		return normalized{}, c.fail(r, "answer_idx", CodeGold, "%q is not among the options %s", gold, letters(options))
	}
	answer, ok, err := valString(r.get("answer"))
	if err != nil {
		return normalized{}, c.fail(r, "answer", CodeType, "%v", err)
	}
	if ok && strings.TrimSpace(answer) != strings.TrimSpace(options[goldIdx].Text) {
		return normalized{}, c.fail(r, "answer", CodeGold, "text %q does not match option %s %q; correct answer or answer_idx so they agree",
			clip(answer), gold, clip(options[goldIdx].Text))
	}
	q := qa.Question{Dataset: c.dataset, Split: c.split, Stem: stem, Options: options, Gold: gold}
	step, ok, err := valString(r.get("meta_info"))
	if err != nil {
		return normalized{}, c.fail(r, "meta_info", CodeType, "%v", err)
	}
	if ok {
		q.Meta = map[string]string{"step": step}
	}
	return normalized{q: q, names: names}, nil
}

func normMedQA(c *fileCtx, r *record) (normalized, *ParseError) {
	return normLetterRecord(c, r)
}

// ReadMedQA streams MedQA JSONL records (the format of the official MedQA
// release: one object per line with "question", "answer", "options",
// "meta_info" and "answer_idx") from r and calls fn with each question in
// file order.
//
// source names the input in error messages (typically the file name). Lines
// may be up to MaxRecordBytes long; blank lines are skipped; a leading UTF-8 byte-order
// mark and CRLF line endings are tolerated. Each question gets Dataset
// "medqa", an empty Split (the caller sets it), Stem from "question", Options
// in letter order from the "options" object (letters must run A, B, C, …
// without gaps), Gold from "answer_idx", Meta["step"] from "meta_info" when
// present, and the content-derived ID of MedQAID. When "answer" is present it
// must equal the gold option's text, ignoring surrounding spaces.
//
// Problems with the input are reported as *ParseError carrying the line
// number; a record that repeats an earlier question (same ID) is an error.
// Reading stops at the first error. If fn returns an error, reading stops and
// that error is returned as is.
func ReadMedQA(r io.Reader, source string, fn func(qa.Question) error) error {
	rd := newStreamReader(r, source, medqaFormat)
	for {
		q, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(q); err != nil {
			return err
		}
	}
}

// MedQAID returns the content-derived ID of a MedQA question,
// ContentID("medqa", stem, nil, options): "medqa-" and the first 16 hex
// digits of the SHA-256 of the stem and then, for each option, a NUL byte
// and the option text, each with its white space collapsed (see ContentID).
// A standardised copy of the question gets the same ID.
func MedQAID(stem string, options []qa.Option) string {
	return ContentID(DatasetMedQA, stem, nil, options)
}

// LoadMedQAFile reads a whole MedQA JSONL file. Split is set from the file
// name (see SplitFromName); errors carry the path as their source.
func LoadMedQAFile(path string) ([]qa.Question, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return loadMedQA(f, path)
}

func loadMedQA(r io.Reader, path string) ([]qa.Question, error) {
	split := SplitFromName(path)
	var qs []qa.Question
	err := ReadMedQA(r, path, func(q qa.Question) error {
		q.Split = split
		qs = append(qs, q)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return qs, nil
}
