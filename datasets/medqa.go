package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/medteam-bench/medteam/qa"
)

// DatasetMedQA is the Question.Dataset value of MedQA questions.
const DatasetMedQA = "medqa"

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
	rd := newStreamReader(r, source, FormatMedQA)
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

// SplitFromName guesses a split from a file name: "test", "dev" or "train"
// when the base name contains that word (checked in that order, ignoring
// case), otherwise "".
func SplitFromName(path string) string {
	base := strings.ToLower(filepath.Base(path))
	for _, s := range []string{"test", "dev", "train"} {
		if strings.Contains(base, s) {
			return s
		}
	}
	return ""
}

// rawString decodes a raw JSON value that must be a string. ok is false when
// the value is absent or null.
func rawString(raw json.RawMessage) (s string, ok bool, err error) {
	if isNull(raw) {
		return "", false, nil
	}
	// Values come from validated JSON: a string without escapes is its bytes.
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && bytes.IndexByte(raw[1:n-1], '\\') < 0 {
		return string(raw[1 : n-1]), true, nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, fmt.Errorf("must be a string, got %s", jsonKind(raw))
	}
	return s, true, nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// jsonKind names the JSON type of a raw value for error messages.
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// clip shortens s for an error message.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
