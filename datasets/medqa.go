package datasets

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// DatasetMedQA is the Question.Dataset value of MedQA questions.
const DatasetMedQA = "medqa"

// ParseError reports a problem with one record of a dataset file.
//
// Line is the 1-based physical line number (blank lines count), or 0 when the
// problem does not belong to one line. Field names the offending JSON field,
// or is empty when the whole record is at fault. Msg describes the problem
// and, where useful, what to do about it.
type ParseError struct {
	Source string
	Line   int
	Field  string
	Msg    string
}

// Error formats the error as "source:line: field "name": message", leaving
// out the parts that are empty.
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// medqaRecord is one MedQA JSONL line. Fields are kept raw so that each can
// be checked on its own and reported by name; metamap_phrases is ignored.
type medqaRecord struct {
	Question  json.RawMessage `json:"question"`
	Answer    json.RawMessage `json:"answer"`
	Options   json.RawMessage `json:"options"`
	MetaInfo  json.RawMessage `json:"meta_info"`
	AnswerIdx json.RawMessage `json:"answer_idx"`
}

// ReadMedQA streams MedQA JSONL records (the format of the official MedQA
// release: one object per line with "question", "answer", "options",
// "meta_info" and "answer_idx") from r and calls fn with each question in
// file order.
//
// source names the input in error messages (typically the file name). Lines
// may be of any length; blank lines are skipped; a leading UTF-8 byte-order
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
func ReadMedQA(r io.Reader, source string, fn func(Question) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	seen := make(map[string]int) // id -> line
	lineNo := 0
	for {
		line, readErr := br.ReadBytes('\n')
		if readErr != nil && readErr != io.EOF {
			return fmt.Errorf("reading %s: %w", source, readErr)
		}
		if len(line) > 0 {
			lineNo++
			if lineNo == 1 {
				line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
			}
			line = bytes.TrimRight(line, "\r\n")
			if len(bytes.TrimSpace(line)) > 0 {
				q, err := parseMedQALine(line, source, lineNo)
				if err != nil {
					return err
				}
				if prev, dup := seen[q.ID]; dup {
					return &ParseError{Source: source, Line: lineNo, Msg: fmt.Sprintf(
						"duplicate question: same stem and options as line %d (id %s); remove one of the copies", prev, q.ID)}
				}
				seen[q.ID] = lineNo
				if err := fn(q); err != nil {
					return err
				}
			}
		}
		if readErr == io.EOF {
			return nil
		}
	}
}

// parseMedQALine decodes and checks one non-blank MedQA line.
func parseMedQALine(line []byte, source string, lineNo int) (Question, error) {
	fail := func(field, format string, args ...any) (Question, error) {
		return Question{}, &ParseError{Source: source, Line: lineNo, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if !utf8.Valid(line) {
		off := 0
		for off < len(line) {
			r, size := utf8.DecodeRune(line[off:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		return fail("", "invalid UTF-8 at byte %d of the line; re-encode the file as UTF-8", off+1)
	}
	var rec medqaRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn) && syn.Error() == "unexpected end of JSON input":
			return fail("", "invalid JSON: unexpected end of input; the line looks truncated (was the file completely written?)")
		case errors.As(err, &syn):
			return fail("", "invalid JSON at byte %d: %v; each line must be one JSON object", syn.Offset, syn)
		case errors.As(err, &typ) && typ.Field == "":
			return fail("", "line is a JSON %s, not an object; each line must be one JSON object", typ.Value)
		default:
			return fail("", "invalid JSON: %v", err)
		}
	}

	stem, ok, err := rawString(rec.Question)
	switch {
	case err != nil:
		return fail("question", "%v", err)
	case !ok:
		return fail("question", "missing")
	case strings.TrimSpace(stem) == "":
		return fail("question", "empty question stem")
	}

	options, err := medqaOptions(rec.Options)
	if err != nil {
		return fail("options", "%v", err)
	}
	letters := make([]string, len(options))
	for i, o := range options {
		letters[i] = o.Letter
	}

	gold, ok, err := rawString(rec.AnswerIdx)
	switch {
	case err != nil:
		return fail("answer_idx", "%v", err)
	case !ok:
		return fail("answer_idx", "missing; every record needs the gold option letter")
	}
	goldIdx := -1
	for i, l := range letters {
		if l == gold {
			goldIdx = i
		}
	}
	if goldIdx < 0 {
		return fail("answer_idx", "%q is not among the options %s", gold, strings.Join(letters, ","))
	}

	answer, ok, err := rawString(rec.Answer)
	if err != nil {
		return fail("answer", "%v", err)
	}
	if ok && strings.TrimSpace(answer) != strings.TrimSpace(options[goldIdx].Text) {
		return fail("answer", "text %q does not match option %s %q; correct answer or answer_idx so they agree",
			clip(answer), gold, clip(options[goldIdx].Text))
	}

	q := Question{
		ID:      MedQAID(stem, options),
		Dataset: DatasetMedQA,
		Stem:    stem,
		Options: options,
		Gold:    gold,
	}
	step, ok, err := rawString(rec.MetaInfo)
	if err != nil {
		return fail("meta_info", "%v", err)
	}
	if ok {
		q.Meta = map[string]string{"step": step}
	}
	if err := q.Validate(); err != nil {
		return fail("", "%v", err)
	}
	return q, nil
}

// medqaOptions decodes the "options" object into options in letter order,
// checking that the letters are single capitals running from A without gaps.
func medqaOptions(raw json.RawMessage) ([]Option, error) {
	if isNull(raw) {
		return nil, errors.New("missing; every record needs an options object such as {\"A\": \"…\", \"B\": \"…\"}")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("must be an object mapping letters to option texts, got %s", jsonKind(raw))
	}
	if len(m) < 2 || len(m) > MaxOptions {
		return nil, fmt.Errorf("%d option(s); need 2 to %d", len(m), MaxOptions)
	}
	for k := range m {
		if len(k) != 1 || k[0] < 'A' || k[0] >= 'A'+MaxOptions {
			return nil, fmt.Errorf("option key %q is not a capital letter A–%c", k, 'A'+MaxOptions-1)
		}
	}
	opts := make([]Option, len(m))
	for i := range opts {
		letter := string(rune('A' + i))
		v, ok := m[letter]
		if !ok {
			return nil, fmt.Errorf("option letters %s are not contiguous from A (missing %s)", sortedKeys(m), letter)
		}
		text, ok, err := rawString(v)
		if err != nil || !ok {
			return nil, fmt.Errorf("option %s must be a string, got %s", letter, jsonKind(v))
		}
		if strings.TrimSpace(text) == "" {
			return nil, fmt.Errorf("option %s is empty", letter)
		}
		opts[i] = Option{Letter: letter, Text: text}
	}
	return opts, nil
}

// MedQAID returns the stable content-derived ID of a MedQA question:
// "medqa-" followed by the first 16 hex digits of the SHA-256 of the stem,
// then for each option a NUL byte, the letter, a unit separator (0x1F) and
// the option text.
func MedQAID(stem string, options []Option) string {
	h := sha256.New()
	io.WriteString(h, stem)
	for _, o := range options {
		io.WriteString(h, "\x00")
		io.WriteString(h, o.Letter)
		io.WriteString(h, "\x1f")
		io.WriteString(h, o.Text)
	}
	sum := h.Sum(nil)
	return "medqa-" + hex.EncodeToString(sum[:8])
}

// LoadMedQAFile reads a whole MedQA JSONL file. Split is set from the file
// name (see SplitFromName); errors carry the path as their source.
func LoadMedQAFile(path string) ([]Question, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return loadMedQA(f, path)
}

func loadMedQA(r io.Reader, path string) ([]Question, error) {
	split := SplitFromName(path)
	var qs []Question
	err := ReadMedQA(r, path, func(q Question) error {
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

func sortedKeys(m map[string]json.RawMessage) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), ",")
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
