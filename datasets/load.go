package datasets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// format names a dataset file format recognised by LoadFile.
type format string

// Formats LoadFile recognises.
const (
	formatUnknown format = ""
	formatMedQA   format = "MedQA JSONL"
)

// supportedFormats lists the formats LoadFile accepts, for error messages.
const supportedFormats = "MedQA JSONL"

// LoadFile reads a dataset file, recognising its format from its content.
// Only MedQA JSONL (see ReadMedQA) is supported for now, recognised by a
// first record with "question", "options" and "answer_idx" fields (and no
// MedMCQA "realidx"); anything else is reported as an unrecognised format,
// naming the formats supported. Split is
// set from the file name as in LoadMedQAFile.
func LoadFile(path string) ([]Question, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	kind, why, err := sniffFormat(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	switch kind {
	case formatMedQA:
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		return loadMedQA(f, path)
	default:
		return nil, fmt.Errorf("unrecognised dataset format in %s: %s; supported: %s", path, why, supportedFormats)
	}
}

// sniffFormat looks at the first non-blank line of r. When the format is not
// recognised, why says what was seen instead.
func sniffFormat(r io.Reader) (kind format, why string, err error) {
	br := bufio.NewReader(r)
	lineNo := 0
	for {
		line, readErr := br.ReadBytes('\n')
		if readErr != nil && readErr != io.EOF {
			return formatUnknown, "", readErr
		}
		if len(line) > 0 {
			lineNo++
		}
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			return sniffLine(line, lineNo)
		}
		if readErr == io.EOF {
			return formatUnknown, "the file is empty", nil
		}
	}
}

func sniffLine(line []byte, lineNo int) (format, string, error) {
	if line[0] != '{' {
		return formatUnknown, fmt.Sprintf("line %d does not start a JSON object", lineNo), nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return formatUnknown, fmt.Sprintf("line %d is not one JSON object (%v)", lineNo, err), nil
	}
	var missing []string
	for _, k := range []string{"question", "options", "answer_idx"} {
		if _, ok := fields[k]; !ok {
			missing = append(missing, fmt.Sprintf("%q", k))
		}
	}
	if len(missing) > 0 {
		return formatUnknown, fmt.Sprintf("the record on line %d lacks the MedQA field(s) %s", lineNo, strings.Join(missing, ", ")), nil
	}
	if _, ok := fields["realidx"]; ok {
		// The standardised MedMCQA export shares MedQA's field names.
		return formatUnknown, fmt.Sprintf("the record on line %d has a \"realidx\" field, as in the standardised MedMCQA export, which is not supported yet", lineNo), nil
	}
	return formatMedQA, "", nil
}
