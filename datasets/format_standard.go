package datasets

import "strings"

// FormatStandard is standardised JSONL: question, options {A..},
// answer_idx, realidx.
const FormatStandard Format = "standard"

// standardFormat reads the standardised copies (MedAgentsBench's) of
// MedQA, MedMCQA, PubMedQA, MMLU-Pro and MedBullets: MedQA's fields plus
// realidx (the source's id, SourceID) and, when present, subject, category
// and topic (Meta). PubMedQA copies hold the abstract inside the question;
// their SourceID is the PMID: realidx in MedAgentsBench's copy, or a
// pubid/pmid field when the copy's id is an index (then also Meta.pmid). The dataset is named after the path ("…/medmcqa/test.jsonl" →
// medmcqa).
var standardFormat = &formatDef{
	Name:         FormatStandard,
	Doc:          "standardised JSONL of MedMCQA/MMLU-Pro/MedBullets copies: question, options {A..}, answer_idx, realidx",
	Dataset:      "standard",
	GuessDataset: true,
	Fields:       func(f fieldSet) bool { return f.has("question", "options", "answer_idx", "realidx") },
	Normalize:    normStandard,
}

// pmidFields are the fields a standardised PubMedQA copy may hold the PMID
// in besides realidx (which MedAgentsBench's copy sets to the PMID).
var pmidFields = []string{"pubid", "pmid", "PMID"}

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
	// A PubMedQA copy whose id field is an index carries the PMID in a
	// field of its own: the PMID is the source id of every PubMedQA layout
	// (the official file is keyed by it), so that rows pair across layouts.
	for _, k := range pmidFields {
		if pmid, ok, err := valText(r.get(k)); err == nil && ok && strings.TrimSpace(pmid) != "" {
			n.q.SourceID, n.names.id = strings.TrimSpace(pmid), k
			setMeta(&n.q, "pmid", n.q.SourceID)
			break
		}
	}
	for _, k := range []string{"subject", "category", "topic", "subject_name", "topic_name"} {
		if s, ok, err := valString(r.get(k)); err == nil && ok {
			setMeta(&n.q, strings.TrimSuffix(k, "_name"), s)
		}
	}
	return n, nil
}
