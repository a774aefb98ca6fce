package datasets

import "strings"

// FormatStandard is standardised JSONL: question, options {A..},
// answer_idx, realidx.
const FormatStandard Format = "standard"

// standardFormat reads the standardised copies (MedAgentsBench's) of
// MedQA, MedMCQA, MMLU-Pro and MedBullets: MedQA's fields plus realidx (the
// source's id, SourceID) and, when present, subject, category and topic
// (Meta). The dataset is named after the path ("…/medmcqa/test.jsonl" →
// medmcqa).
var standardFormat = &formatDef{
	Name:         FormatStandard,
	Doc:          "standardised JSONL of MedMCQA/MMLU-Pro/MedBullets copies: question, options {A..}, answer_idx, realidx",
	Dataset:      "standard",
	GuessDataset: true,
	Fields:       func(f fieldSet) bool { return f.has("question", "options", "answer_idx", "realidx") },
	Normalize:    normStandard,
}

func normStandard(c *fileCtx, r *record) (normalized, *ParseError) {
	n, pe := normLetterRecord(c, r)
	if pe != nil {
		return n, pe
	}
	n.names.id = "realidx"
	id, _, err := valText(r.get("realidx"))
	if err != nil {
		return n, c.fail(r, "realidx", CodeType, "%v", err)
	}
	n.q.SourceID = strings.TrimSpace(id)
	for _, k := range []string{"subject", "category", "topic", "subject_name", "topic_name"} {
		if s, ok, err := valString(r.get(k)); err == nil && ok {
			setMeta(&n.q, strings.TrimSuffix(k, "_name"), s)
		}
	}
	return n, nil
}
