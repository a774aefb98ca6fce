// Package rescore reads published per-question model outputs — a run made
// outside medteam, such as the MMLU-Pro authors' published results — and
// scores them twice: with the published extraction (the letter the
// publishers' own regex took, with their random fill where it took none)
// and with medteam's reading of the same reply (package answer). The rows
// it builds are questions.parquet rows, so medteam report and check work on
// a rescored run like on any other. See docs/rescore.md.
package rescore

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Record is one published per-question output.
type Record struct {
	File     string
	Line     int    // 1-based line (JSONL) or element (JSON array)
	Model    string // "" when the record names none
	ID       string // the question's id in the published file
	Question string // the stem, when the file keeps it
	Options  []string
	Dropped  int    // padding options ("N/A") left out
	Gold     string // the correct letter
	Pred     string // the published extraction; "" when it found none
	HasPred  bool   // the record has a published extraction field (pred, mmlupro_pred)
	Response string
	Withheld bool // the file withholds the reply (withheld: true; a test set)
	Category string
}

// Limits of what a record may hold.
const (
	maxOptions = 26
	maxLine    = 64 << 20
)

// ReadFile reads the records of a published output file: JSON Lines, or a
// JSON array of records (as MMLU-Pro's *_result.json), optionally gzipped
// (".gz"). Errors name file:line and the field.
func ReadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer z.Close()
		r = z
	}
	return Read(path, r)
}

// Read reads records from r (named path in errors).
func Read(path string, r io.Reader) ([]Record, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	first, skipped, err := firstByte(br)
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file", path)
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if first == '[' {
		return readArray(path, br)
	}
	return readLines(path, br, skipped)
}

// firstByte peeks at the first byte that is not white space; lines is the
// number of line ends skipped.
func firstByte(br *bufio.Reader) (first byte, lines int, err error) {
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0, lines, err
		}
		if b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n' || b[0] == 0xEF || b[0] == 0xBB || b[0] == 0xBF {
			if b[0] == '\n' {
				lines++
			}
			br.ReadByte() // white space, or a UTF-8 byte-order mark
			continue
		}
		return b[0], lines, nil
	}
}

func readArray(path string, r io.Reader) ([]Record, error) {
	dec := json.NewDecoder(r)
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []Record
	for i := 1; dec.More(); i++ {
		var raw map[string]json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%s: element %d: %w", path, i, err)
		}
		rec, err := parseRecord(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: element %d: %w", path, i, err)
		}
		rec.File, rec.Line = path, i
		out = append(out, rec)
	}
	return out, nil
}

func readLines(path string, r io.Reader, skipped int) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var out []Record
	for n := 1 + skipped; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(line, &raw); err != nil {
			return nil, fmt.Errorf("%s:%d: not a JSON object: %w", path, n, err)
		}
		rec, err := parseRecord(raw)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		rec.File, rec.Line = path, n
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// Field names, first found wins: the MMLU-Pro result layout (question_id,
// options, answer, answer_index, pred, response or model_outputs), the
// corpus layout of ../shared/realoutputs (gold, mmlupro_pred, model), and
// the generic layout (id, options, gold, response).
var (
	idKeys       = []string{"question_id", "id"}
	goldKeys     = []string{"gold", "answer"}
	predKeys     = []string{"mmlupro_pred", "pred"}
	responseKeys = []string{"response", "model_outputs", "output"}
)

// padding are option texts that pad a question to a fixed number of
// options; they are not options (MMLU-Pro's scripts drop "N/A" before
// prompting).
var padding = map[string]bool{"n/a": true, "na": true, "": true}

// parseRecord reads one record.
func parseRecord(raw map[string]json.RawMessage) (Record, error) {
	var rec Record
	var err error
	if rec.ID, err = textField(raw, idKeys...); err != nil {
		return rec, err
	}
	if rec.ID == "" {
		return rec, fmt.Errorf("no question id: give question_id or id")
	}
	if err := rec.options(raw); err != nil {
		return rec, err
	}
	if err := rec.gold(raw); err != nil {
		return rec, err
	}
	for _, k := range predKeys {
		if v, ok := raw[k]; ok {
			rec.HasPred = true
			// a published extraction may name a letter beyond the options
			// (MMLU-Pro's regex reads A–J on every question): kept, scored wrong
			if rec.Pred, err = letterValue(v, k, maxOptions); err != nil {
				return rec, err
			}
			break
		}
	}
	if rec.Response, err = stringField(raw, responseKeys...); err != nil {
		return rec, err
	}
	if _, ok := firstKey(raw, responseKeys...); !ok {
		return rec, fmt.Errorf("no response: give response (the model's reply)")
	}
	if err := rec.withheld(raw); err != nil {
		return rec, err
	}
	if rec.Model, err = stringField(raw, "model"); err != nil {
		return rec, err
	}
	if rec.Question, err = stringField(raw, "question"); err != nil {
		return rec, err
	}
	if rec.Category, err = stringField(raw, "category", "subject"); err != nil {
		return rec, err
	}
	return rec, nil
}

// withheld reads the withheld mark: a reply the file keeps apart (a test
// set) has withheld: true and no response.
func (rec *Record) withheld(raw map[string]json.RawMessage) error {
	var err error
	if rec.Withheld, err = boolField(raw, "withheld"); err != nil {
		return err
	}
	if rec.Withheld && rec.Response != "" {
		return fmt.Errorf("withheld: true but the record has a response; a withheld reply has response null")
	}
	return nil
}

// options reads the options: a list of texts, in letter order; padding
// options at the end are dropped (and counted).
func (rec *Record) options(raw map[string]json.RawMessage) error {
	v, ok := raw["options"]
	if !ok {
		return fmt.Errorf("no options: give options, a list of the option texts in letter order")
	}
	var opts []string
	if err := json.Unmarshal(v, &opts); err != nil {
		return fmt.Errorf("options: want a list of strings (the option texts in letter order): %v", err)
	}
	for len(opts) > 0 && padding[strings.ToLower(strings.TrimSpace(opts[len(opts)-1]))] {
		opts = opts[:len(opts)-1]
		rec.Dropped++
	}
	for i, o := range opts {
		if padding[strings.ToLower(strings.TrimSpace(o))] {
			return fmt.Errorf("options: option %c is %q, a padding text, before real options", 'A'+i, o)
		}
	}
	if len(opts) < 2 || len(opts) > maxOptions {
		return fmt.Errorf("options: %d options; want 2 to %d", len(opts), maxOptions)
	}
	rec.Options = opts
	return nil
}

// gold reads the correct letter: gold or answer (a letter), else
// answer_index (0-based).
func (rec *Record) gold(raw map[string]json.RawMessage) error {
	for _, k := range goldKeys {
		if v, ok := raw[k]; ok {
			L, err := letterValue(v, k, len(rec.Options))
			if err != nil {
				return err
			}
			if L == "" {
				return fmt.Errorf("%s: empty; give the correct letter", k)
			}
			rec.Gold = L
			return nil
		}
	}
	if v, ok := raw["answer_index"]; ok {
		var i int
		if err := json.Unmarshal(v, &i); err != nil || i < 0 || i >= len(rec.Options) {
			return fmt.Errorf("answer_index: %s is not an index among the %d options (0-based)", v, len(rec.Options))
		}
		rec.Gold = string(rune('A' + i))
		return nil
	}
	return fmt.Errorf("no gold answer: give gold (a letter), answer, or answer_index")
}

// letterValue reads a letter field: null or "" is no letter; otherwise an
// option letter of the question (any case).
func letterValue(v json.RawMessage, key string, n int) (string, error) {
	if string(v) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("%s: want a letter or null, got %s", key, clip(string(v)))
	}
	s = strings.ToUpper(strings.TrimSpace(s))
	if s == "" {
		return "", nil
	}
	if len(s) != 1 || s[0] < 'A' || int(s[0]-'A') >= n {
		return "", fmt.Errorf("%s: %q is not one of the %d option letters", key, clip(s), n)
	}
	return s, nil
}

// textField reads an id: a string or a number.
func textField(raw map[string]json.RawMessage, keys ...string) (string, error) {
	v, ok := firstKey(raw, keys...)
	if !ok || string(v) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return strings.TrimSpace(s), nil
	}
	var f json.Number
	if err := json.Unmarshal(v, &f); err == nil {
		if _, err := strconv.ParseFloat(f.String(), 64); err == nil {
			return f.String(), nil
		}
	}
	return "", fmt.Errorf("%s: want a string or a number, got %s", keys[0], clip(string(v)))
}

// stringField reads an optional string field (null is "").
func stringField(raw map[string]json.RawMessage, keys ...string) (string, error) {
	v, ok := firstKey(raw, keys...)
	if !ok || string(v) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("%s: want a string, got %s", keys[0], clip(string(v)))
	}
	return s, nil
}

// boolField reads an optional boolean field (absent or null is false).
func boolField(raw map[string]json.RawMessage, key string) (bool, error) {
	v, ok := raw[key]
	if !ok || string(v) == "null" {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		return false, fmt.Errorf("%s: want true or false, got %s", key, clip(string(v)))
	}
	return b, nil
}

func firstKey(raw map[string]json.RawMessage, keys ...string) (json.RawMessage, bool) {
	for _, k := range keys {
		if v, ok := raw[k]; ok {
			return v, true
		}
	}
	return nil, false
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
