package datasets

import (
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

// FormatMedBullets is MedBullets: the CSV with header (or pandas column
// JSON) with question, opa..ope, answer_idx, answer, link.
const FormatMedBullets Format = "medbullets"

// DatasetMedBullets is the Question.Dataset value of MedBullets questions.
const DatasetMedBullets = "medbullets"

// medbulletsFormat reads MedBullets: the published CSV files with header
// (link, question, opa..ope, answer_idx, answer, explanation) or the same
// columns as pandas column-oriented JSON. 4 or 5 options, trailing empty
// ones dropped; answer_idx is a letter in any case, answer must match its
// option's text; the link goes into Meta.
var medbulletsFormat = &formatDef{
	Name:      FormatMedBullets,
	Doc:       "MedBullets CSV with header (link, question, opa..ope, answer_idx, answer, explanation) or the same columns as pandas JSON",
	Dataset:   DatasetMedBullets,
	Fields:    func(f fieldSet) bool { return f.has("question", "opa", "answer_idx") },
	CSVHeader: true,
	Normalize: normMedBullets,
}

var medbulletsOptionFields = []string{"opa", "opb", "opc", "opd", "ope"}

func normMedBullets(c *fileCtx, r *record) (normalized, *ParseError) {
	names := fieldNames{stem: "question", options: "opa", gold: "answer_idx"}
	stem, pe := stemOf(c, r, "question")
	if pe != nil {
		return normalized{}, pe
	}
	options, pe := medbulletsOptions(c, r)
	if pe != nil {
		return normalized{}, pe
	}
	gold, pe := medbulletsGold(c, r, options)
	if pe != nil {
		return normalized{}, pe
	}
	q := qa.Question{
		Dataset: c.dataset,
		Split:   c.split,
		Stem:    stem,
		Options: options,
		Gold:    gold,
	}
	if link, ok, err := valString(r.get("link")); err == nil && ok {
		setMeta(&q, "link", strings.TrimSpace(link))
	}
	return normalized{q: q, names: names}, nil
}

// medbulletsOptions reads the option columns present, opa to ope. A
// 5-option column layout may leave the last option empty for a 4-option
// item; empty options before a non-empty one are an error.
func medbulletsOptions(c *fileCtx, r *record) ([]qa.Option, *ParseError) {
	var texts []string
	var fields []string
	for _, f := range medbulletsOptionFields {
		if !r.has(f) {
			break
		}
		text, _, err := valText(r.get(f))
		if err != nil {
			return nil, c.fail(r, f, CodeType, "%v", err)
		}
		texts = append(texts, text)
		fields = append(fields, f)
	}
	for len(texts) > 0 && strings.TrimSpace(texts[len(texts)-1]) == "" {
		texts = texts[:len(texts)-1]
	}
	if len(texts) < 2 {
		return nil, c.fail(r, "opa", CodeOptions, "%d option(s); need 2 to 5 in opa, opb, opc, opd, ope", len(texts))
	}
	options := make([]qa.Option, len(texts))
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			return nil, c.fail(r, fields[i], CodeOptions, "option %c is empty but a later option is not", 'A'+i)
		}
		options[i] = qa.Option{Letter: string(rune('A' + i)), Text: t}
	}
	return options, nil
}

// medbulletsGold reads answer_idx (a letter, any case) and checks answer,
// when given, against the gold option's text.
func medbulletsGold(c *fileCtx, r *record, options []qa.Option) (string, *ParseError) {
	raw, ok, err := valString(r.get("answer_idx"))
	if pe := typeFail(c, r, "answer_idx", err, ok, "every record needs the gold option letter"); pe != nil {
		pe.Code = map[bool]string{true: CodeType, false: CodeGold}[err != nil]
		return "", pe
	}
	gold := strings.ToUpper(strings.TrimSpace(raw))
	gi := letterIndex(options, gold)
	if gi < 0 {
		return "", c.fail(r, "answer_idx", CodeGold, "%q is not among the options %s", clip(raw), letters(options))
	}
	if answer, ok, err := valString(r.get("answer")); err != nil {
		return "", c.fail(r, "answer", CodeType, "%v", err)
	} else if ok && strings.TrimSpace(answer) != "" && !sameText(answer, options[gi].Text) {
		return "", c.fail(r, "answer", CodeGold, "text %q does not match option %s %q; correct answer or answer_idx so they agree",
			clip(answer), gold, clip(options[gi].Text))
	}
	return gold, nil
}
