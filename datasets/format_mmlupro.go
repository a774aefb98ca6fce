package datasets

import (
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

// FormatMMLUPro is MMLU-Pro: question_id, question, options [..10], answer,
// answer_index, category.
const FormatMMLUPro Format = "mmlu-pro"

// DatasetMMLUPro is the Question.Dataset value of MMLU-Pro questions.
const DatasetMMLUPro = "mmlu-pro"

// mmluProFormat reads MMLU-Pro (HF parquet or JSONL): up to 10 options as a
// list, the gold as a letter (answer) and a 0-based index (answer_index),
// which must agree; question_id is the SourceID, category and src go into
// Meta.
var mmluProFormat = &formatDef{
	Name:    FormatMMLUPro,
	Doc:     "MMLU-Pro: question_id, question, options (up to 10), answer, answer_index, category",
	Dataset: DatasetMMLUPro,
	Fields: func(f fieldSet) bool {
		return f.has("question_id", "options") && f.any("answer", "answer_index")
	},
	Normalize: normMMLUPro,
}

func normMMLUPro(c *fileCtx, r *record) (normalized, *ParseError) {
	names := fieldNames{id: "question_id", stem: "question", options: "options", gold: "answer"}
	stem, pe := stemOf(c, r, "question")
	if pe != nil {
		return normalized{}, pe
	}
	options, code, err := optionsFromList(r.get("options"))
	if err != nil {
		return normalized{}, c.fail(r, "options", code, "%v", err)
	}
	letter, hasLetter, err := valString(r.get("answer"))
	if err != nil {
		return normalized{}, c.fail(r, "answer", CodeType, "%v", err)
	}
	index, hasIndex, err := valInt(r.get("answer_index"))
	if err != nil {
		return normalized{}, c.fail(r, "answer_index", CodeType, "%v", err)
	}
	var gold string
	switch {
	case hasLetter:
		gold = strings.ToUpper(strings.TrimSpace(letter))
		if letterIndex(options, gold) < 0 {
			return normalized{}, c.fail(r, "answer", CodeGold, "%q is not among the options %s", clip(letter), letters(options))
		}
		if hasIndex && index != int64(letterIndex(options, gold)) {
			return normalized{}, c.fail(r, "answer_index", CodeGold, "%d (0-based) disagrees with answer %q; correct one of them", index, gold)
		}
	case hasIndex:
		names.gold = "answer_index"
		if index < 0 || index >= int64(len(options)) {
			return normalized{}, c.fail(r, "answer_index", CodeGold, "%d is not among the %d options (counted from 0)", index, len(options))
		}
		gold = options[index].Letter
	default:
		return normalized{}, c.fail(r, "answer", CodeGold, "missing; every record needs answer (a letter) or answer_index")
	}
	q := qa.Question{Dataset: c.dataset, Split: c.split, Stem: stem, Options: options, Gold: gold}
	n := normalized{q: q, names: names}
	id, _, err := valText(r.get("question_id"))
	if err != nil {
		return n, c.fail(r, "question_id", CodeType, "%v", err)
	}
	n.q.SourceID = strings.TrimSpace(id)
	return n, mmluProMeta(c, r, &n.q)
}

// mmluProMeta sets the question's category and src. Its "N/A" padding
// options are dropped by the reader, as in every layout (dropPaddingOf).
func mmluProMeta(c *fileCtx, r *record, q *qa.Question) *ParseError {
	for _, k := range []string{"category", "src"} {
		s, _, err := valString(r.get(k))
		if err != nil {
			return c.fail(r, k, CodeType, "%v", err)
		}
		setMeta(q, k, s)
	}
	return nil
}
