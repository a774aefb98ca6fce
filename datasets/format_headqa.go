package datasets

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

// FormatHeadQA is HEAD-QA (Vilares & Gómez-Rodríguez, ACL 2019): the
// authors' exams document or the HF rows.
const FormatHeadQA Format = "headqa"

// DatasetHeadQA is the Question.Dataset value of HEAD-QA questions.
const DatasetHeadQA = "headqa"

// headqaFormat reads HEAD-QA in its two published layouts:
//
//   - the authors' JSON per language and split (HEAD_EN/test_HEAD_EN.json,
//     train_…, dev_…, and HEAD_EN.json with every exam):
//     {"version": …, "exams": {"<exam>": {"name", "year", "category",
//     "data": [{"qid", "qtext", "ra", "image", "answers": [{"aid",
//     "atext"}]}]}}}, where qid and ra are numeric strings ("3") and aid a
//     number;
//   - the HF rows (parquet or JSON Lines): qid, qtext, ra, answers [{aid,
//     atext}], category, name, year, image, with qid, ra and aid numbers.
//
// ra is the aid of the right answer (the dataset card); the authors' own
// conversion script reads it as a position (answers[ra-1]), so a record
// where the two readings differ is reported rather than guessed. Numbers
// and numeric strings are both read. The options are lettered A, B, … in the
// order of answers. SourceID is "<exam name>/<qid>" (qid restarts in each
// exam); Meta holds exam, year, category and image (the path of the image an
// "image-linked" question refers to, which the model does not see). The exam
// name scopes the id (as MMLU's subject does): a question set in two exams
// is one question per exam, as the published counts have it.
var headqaFormat = &formatDef{
	Name:    FormatHeadQA,
	Doc:     "HEAD-QA: the authors' exams JSON ({exams: {<exam>: {name, year, category, data: [{qid, qtext, ra, answers [{aid, atext}]}]}}}) or the HF rows (qid, qtext, ra, answers, category, name, year)",
	Dataset: DatasetHeadQA,
	Fields:  func(f fieldSet) bool { return f.has("qtext", "ra", "answers") },
	Grouped: &groupedDoc{
		Name:    "HEAD-QA's exams document",
		Groups:  "exams",
		Items:   "data",
		Inherit: []string{"name", "year", "category"},
		Detect:  func(fields []string) bool { return slices.Contains(fields, "qtext") },
	},
	Normalize: normHeadQA,
}

// headqaInt reads an integer that HEAD-QA gives as a number or as a numeric
// string ("3", " 3").
func headqaInt(v any) (int64, bool, error) {
	s, ok, err := valText(v)
	if err != nil || !ok {
		return 0, ok, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("must be an integer or a numeric string, got %q", clip(s))
	}
	return n, true, nil
}

func normHeadQA(c *fileCtx, r *record) (normalized, *ParseError) {
	names := fieldNames{id: "qid", stem: "qtext", options: "answers", gold: "ra"}
	stem, pe := stemOf(c, r, "qtext")
	if pe != nil {
		return normalized{}, pe
	}
	options, aids, pe := headqaOptions(c, r)
	if pe != nil {
		return normalized{}, pe
	}
	gi, pe := headqaGold(c, r, aids)
	if pe != nil {
		return normalized{}, pe
	}
	q := qa.Question{Dataset: c.dataset, Split: c.split, Stem: strings.TrimSpace(stem), Options: options, Gold: options[gi].Letter}
	exam, pe := headqaSource(c, r, &q)
	if pe != nil {
		return normalized{}, pe
	}
	// The exam scopes the id, as MMLU's subject does: a question set in two
	// exams stays one question per exam.
	return normalized{q: q, names: names, scope: []string{exam}}, nil
}

// headqaOptions reads a record's answers [{aid, atext}, …] as options
// lettered A, B, … in order, with their aids (distinct integers).
func headqaOptions(c *fileCtx, r *record) ([]qa.Option, []int64, *ParseError) {
	items, ok, err := valList(r.get("answers"))
	if pe := typeFail(c, r, "answers", err, ok, "every record needs its answers [{aid, atext}]"); pe != nil {
		return nil, nil, pe
	}
	if len(items) < 2 || len(items) > qa.MaxOptions {
		return nil, nil, c.fail(r, "answers", CodeOptions, "%d answer(s); need 2 to %d", len(items), qa.MaxOptions)
	}
	options := make([]qa.Option, len(items))
	aids := make([]int64, len(items))
	for i, it := range items {
		m, ok, err := valObject(it)
		if err != nil || !ok {
			return nil, nil, c.fail(r, "answers", CodeType, "answer %d must be an object {aid, atext}, got %s", i+1, kindOf(it))
		}
		aid, ok, err := headqaInt(m["aid"])
		if err != nil || !ok {
			return nil, nil, c.fail(r, "answers", CodeType, "answer %d: aid must be an integer or a numeric string, got %s", i+1, kindOf(m["aid"]))
		}
		if j := slices.Index(aids[:i], aid); j >= 0 {
			return nil, nil, c.fail(r, "answers", CodeOptions, "answers %d and %d have the same aid %d", j+1, i+1, aid)
		}
		text, ok, err := valString(m["atext"])
		if err != nil || !ok {
			return nil, nil, c.fail(r, "answers", CodeType, "answer %d: atext must be a string, got %s", i+1, kindOf(m["atext"]))
		}
		aids[i] = aid
		options[i] = qa.Option{Letter: string(rune('A' + i)), Text: strings.TrimSpace(text)}
	}
	return options, aids, nil
}

// headqaGold returns the index of the right answer: the answer whose aid
// is the record's ra, which must also be its position (1-based), as the
// authors' script reads ra.
func headqaGold(c *fileCtx, r *record, aids []int64) (int, *ParseError) {
	ra, ok, err := headqaInt(r.get("ra"))
	if pe := typeFail(c, r, "ra", err, ok, "every record needs ra, the aid of the right answer"); pe != nil {
		return 0, pe
	}
	gi := slices.Index(aids, ra)
	if gi < 0 {
		return 0, c.fail(r, "ra", CodeGold, "%d is not the aid of any answer (aids %s)", ra, joinInts(aids))
	}
	if gi != int(ra-1) {
		return 0, c.fail(r, "ra", CodeGold, "%d is the aid of answer %d, but the authors' script reads ra as a position (answer %d); correct ra or the aids so they agree", ra, gi+1, ra)
	}
	return gi, nil
}

// headqaSource sets q's SourceID (exam/qid, or qid alone without an exam)
// and its exam, year, category and image metadata, and returns the exam:
// the record's name, else its group's key.
func headqaSource(c *fileCtx, r *record, q *qa.Question) (string, *ParseError) {
	qid, ok, err := valText(r.get("qid"))
	if pe := typeFail(c, r, "qid", err, ok, "every record needs its qid (its number in the exam)"); pe != nil {
		return "", pe
	}
	qid = strings.TrimSpace(qid)
	exam, _, err := valText(r.get("name"))
	if err != nil {
		return "", c.fail(r, "name", CodeType, "%v", err)
	}
	exam = strings.TrimSpace(cmp.Or(exam, r.key))
	q.SourceID = qid
	if exam != "" {
		q.SourceID = exam + "/" + qid // qid restarts in every exam
	}
	setMeta(q, "exam", exam)
	for _, k := range []string{"year", "category", "image"} {
		s, _, err := valText(r.get(k))
		if err != nil && k != "image" { // the HF image column is a struct; its path is not needed
			return "", c.fail(r, k, CodeType, "%v", err)
		}
		setMeta(q, k, strings.TrimSpace(s))
	}
	return exam, nil
}

func joinInts(xs []int64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ",")
}
