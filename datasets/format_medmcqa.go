package datasets

import (
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

// FormatMedMCQA is the original MedMCQA release: id, question, opa..opd,
// cop, choice_type, subject_name, topic_name.
const FormatMedMCQA Format = "medmcqa"

// DatasetMedMCQA is the Question.Dataset value of MedMCQA questions.
const DatasetMedMCQA = "medmcqa"

// medmcqaFormat reads the original MedMCQA lines and their HF parquet: the
// four options in opa..opd and the gold as an index, cop, whose base is
// decided per file (the original JSON counts from 1, the HF class label
// from 0). Multi-answer items (choice_type "multi") are reported, never
// guessed; cop -1 (the hidden test answers) is reported.
var medmcqaFormat = &formatDef{
	Name:      FormatMedMCQA,
	Doc:       "original MedMCQA JSON lines: id, question, opa..opd, cop (0- or 1-based), choice_type, subject_name, topic_name",
	Dataset:   DatasetMedMCQA,
	Fields:    func(f fieldSet) bool { return f.has("opa", "cop") },
	Normalize: normMedMCQA,
	IndexBase: &indexRule{
		What:  "cop",
		Probe: func(*Source) answerIndexProbe { return medmcqaProbe },
		Default: func(enc container) int {
			if enc == encParquet {
				return 0 // HF exports store cop as a 0–3 class label
			}
			return 1 // the original release counts cop 1–4
		},
	},
}

var medmcqaOptionFields = []string{"opa", "opb", "opc", "opd"}

func normMedMCQA(c *fileCtx, r *record) (normalized, *ParseError) {
	names := fieldNames{id: "id", stem: "question", options: "opa", gold: "cop"}
	stem, pe := stemOf(c, r, "question")
	if pe != nil {
		return normalized{}, pe
	}
	options, pe := medmcqaOptions(c, r)
	if pe != nil {
		return normalized{}, pe
	}
	gold, pe := medmcqaGold(c, r, options)
	if pe != nil {
		return normalized{}, pe
	}
	q := qa.Question{Dataset: c.dataset, Split: c.split, Stem: stem, Options: options, Gold: gold}
	n := normalized{q: q, names: names}
	id, _, err := valText(r.get("id"))
	if err != nil {
		return n, c.fail(r, "id", CodeType, "%v", err)
	}
	n.q.SourceID = strings.TrimSpace(id)
	for _, f := range [][2]string{{"subject_name", "subject"}, {"topic_name", "topic"}} {
		s, _, err := valString(r.get(f[0]))
		if err != nil {
			return n, c.fail(r, f[0], CodeType, "%v", err)
		}
		setMeta(&n.q, f[1], s)
	}
	return n, nil
}

// medmcqaOptions reads the four options, none of which may be empty.
func medmcqaOptions(c *fileCtx, r *record) ([]qa.Option, *ParseError) {
	options := make([]qa.Option, len(medmcqaOptionFields))
	for i, f := range medmcqaOptionFields {
		text, ok, err := valText(r.get(f))
		if pe := typeFail(c, r, f, err, ok, "MedMCQA records have the four options opa, opb, opc, opd"); pe != nil {
			return nil, pe
		}
		if strings.TrimSpace(text) == "" {
			return nil, c.fail(r, f, CodeOptions, "option %c is empty", 'A'+i)
		}
		options[i] = qa.Option{Letter: string(rune('A' + i)), Text: text}
	}
	return options, nil
}

// medmcqaGold reads the gold letter from cop, counted from the file's base,
// after refusing multi-answer items.
func medmcqaGold(c *fileCtx, r *record, options []qa.Option) (string, *ParseError) {
	if ct, ok, err := valString(r.get("choice_type")); err != nil {
		return "", c.fail(r, "choice_type", CodeType, "%v", err)
	} else if ok && strings.EqualFold(strings.TrimSpace(ct), "multi") {
		return "", c.fail(r, "choice_type", CodeMulti,
			`multi-answer item (choice_type "multi"): cop names only one of its correct options, so it cannot be scored as single-answer; leave it out with --skip-invalid`)
	}
	cop, ok, err := valInt(r.get("cop"))
	switch {
	case err != nil:
		return "", c.fail(r, "cop", CodeType, "%v", err)
	case !ok:
		return "", c.fail(r, "cop", CodeGold, "missing; every record needs the index of its correct option")
	case cop == -1:
		return "", c.fail(r, "cop", CodeGold, "-1: the answer is withheld (the MedMCQA test split publishes no answers); use the dev split")
	case cop-int64(c.base) < 0 || cop-int64(c.base) >= int64(len(options)):
		return "", c.fail(r, "cop", CodeGold, "%d is not an option index; this file counts options from %d (%d–%d)", cop, c.base, c.base, c.base+len(options)-1)
	}
	return options[cop-int64(c.base)].Letter, nil
}

func medmcqaProbe(r *record) (int64, int, bool) {
	n, ok, err := valInt(r.get("cop"))
	return n, len(medmcqaOptionFields), ok && err == nil
}
