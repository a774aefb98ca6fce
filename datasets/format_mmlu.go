package datasets

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

// FormatMMLU is the MMLU CSV without header (subject from the file name) or
// the HF rows.
const FormatMMLU Format = "mmlu"

// DatasetMMLU is the Question.Dataset value of MMLU questions.
const DatasetMMLU = "mmlu"

// mmluFormat reads MMLU: the CSV files without header, one per subject and
// split (<subject>_<split>.csv, rows of question, options and answer letter;
// a folder of them), or the HF rows (question, subject, choices, answer as a
// 0-based index). The subject, from the file name or the subject field, is
// in Meta and in the id's hash, because the same question appears in
// several subjects.
var mmluFormat = &formatDef{
	Name:    FormatMMLU,
	Doc:     "MMLU CSV without header, <subject>_<split>.csv (a file or a folder of them)",
	Dataset: DatasetMMLU,
	Fields:  func(f fieldSet) bool { return f.has("question", "choices", "answer") },
	Headerless: &headerlessCSV{
		Looks:    mmluLooks,
		Describe: "MMLU rows are: question, 2 to 10 options, answer letter",
		Row:      mmluRow,
	},
	Prepare: func(c *fileCtx) error {
		c.subject = mmluSubject(c.name)
		return nil
	},
	Normalize: normMMLU,
}

// mmluLooks reports whether the first row of a CSV file without header is an
// MMLU row: 4 to 12 fields, the last an option letter.
func mmluLooks(rec []string) bool {
	return len(rec) >= 4 && len(rec) <= qa.MaxOptions+2 && isLetterWithin(strings.TrimSpace(rec[len(rec)-1]), len(rec)-2)
}

// mmluRow reads an MMLU row: the question, the options and the answer
// letter. Every row has the field count of the first (width).
func mmluRow(cells []string, width int) (map[string]any, error) {
	if width == 0 {
		if len(cells) < 4 || len(cells) > qa.MaxOptions+2 {
			return nil, fmt.Errorf("row has %d fields; an MMLU row has the question, 2 to %d options and the answer letter (usually 6 fields)", len(cells), qa.MaxOptions)
		}
		width = len(cells)
	}
	if len(cells) != width {
		return nil, fmt.Errorf("row has %d fields but the first row has %d (question, %d options, answer); a field is missing or a comma inside a field is not quoted",
			len(cells), width, width-2)
	}
	choices := make([]any, width-2)
	for i := range choices {
		choices[i] = cells[i+1]
	}
	return map[string]any{"question": cells[0], "choices": choices, "answer": cells[width-1]}, nil
}

// mmluSubject is the subject an MMLU file name states:
// "anatomy_test.csv" → "anatomy".
func mmluSubject(path string) string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	for _, s := range []string{"_test", "_dev", "_val", "_train"} {
		if strings.HasSuffix(strings.ToLower(base), s) {
			return base[:len(base)-len(s)]
		}
	}
	return ""
}

func normMMLU(c *fileCtx, r *record) (normalized, *ParseError) {
	names := fieldNames{stem: "question", options: "choices", gold: "answer"}
	if c.enc == encCSV {
		names = fieldNames{stem: "column 1 (question)", options: "columns 2–5 (options)", gold: "last column (answer)"}
	}
	stem, pe := stemOf(c, r, "question")
	if pe != nil {
		pe.Field = names.stem
		return normalized{}, pe
	}
	options, code, err := optionsFromList(r.get("choices"))
	if err != nil {
		return normalized{}, c.fail(r, names.options, code, "%v", err)
	}
	gold, pe := mmluGold(c, r, names.gold, options)
	if pe != nil {
		return normalized{}, pe
	}
	subject := c.subject
	if s, ok, err := valString(r.get("subject")); err != nil {
		return normalized{}, c.fail(r, "subject", CodeType, "%v", err)
	} else if ok && s != "" {
		subject = s
	}
	q := qa.Question{
		Dataset: c.dataset,
		Split:   c.split,
		Stem:    stem,
		Options: options,
		Gold:    gold,
	}
	setMeta(&q, "subject", subject)
	return normalized{q: q, names: names, scope: []string{subject}}, nil
}

// mmluGold reads the answer: a letter (CSV, or a JSON string) or a 0-based
// index (HF rows).
func mmluGold(c *fileCtx, r *record, field string, options []qa.Option) (string, *ParseError) {
	a := r.get("answer")
	if s, ok := a.(string); ok {
		return mmluLetter(c, r, field, s, options)
	}
	n, ok, err := valInt(a)
	if err != nil {
		if s, ok2, err2 := valString(a); err2 == nil && ok2 { // a JSON string letter
			return mmluLetter(c, r, field, s, options)
		}
		return "", c.fail(r, field, CodeType, "must be a letter or a 0-based index, got %s", kindOf(a))
	}
	if !ok {
		return "", c.fail(r, field, CodeGold, "missing; every record needs its answer")
	}
	if n < 0 || n >= int64(len(options)) {
		return "", c.fail(r, field, CodeGold, "index %d is not among the %d options (HF exports count from 0)", n, len(options))
	}
	return options[n].Letter, nil
}

// mmluLetter checks an answer letter (any case, spaces around) against the
// options.
func mmluLetter(c *fileCtx, r *record, field, s string, options []qa.Option) (string, *ParseError) {
	gold := strings.ToUpper(strings.TrimSpace(s))
	if letterIndex(options, gold) < 0 {
		return "", c.fail(r, field, CodeGold, "%q is not among the options %s", clip(s), letters(options))
	}
	return gold, nil
}
