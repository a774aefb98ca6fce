package datasets

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

// FormatPubMedQA is PubMedQA's ori_pqal.json (an object keyed by PMID) or
// its HF rows.
const FormatPubMedQA Format = "pubmedqa"

// DatasetPubMedQA is the Question.Dataset value of PubMedQA questions.
const DatasetPubMedQA = "pubmedqa"

// pubmedqaFormat reads PubMedQA: the original ori_pqal.json (an object
// keyed by PMID with QUESTION, CONTEXTS, LABELS, MESHES, YEAR,
// final_decision) or the HF rows (pubid, question, context.{contexts,
// labels, meshes}, final_decision). Every item has the options yes, no,
// maybe and the abstract as its context. With the ground-truth file
// (test_ground_truth.json beside the data, or Source.GroundTruth) its PMIDs
// are split "test" and the others "train", and only "test" is kept unless
// the source says otherwise; an answer that disagrees with it, or a PMID of
// it missing from the data, is reported.
var pubmedqaFormat = &formatDef{
	Name:    FormatPubMedQA,
	Doc:     "PubMedQA ori_pqal.json (with test_ground_truth.json beside it for the official test split)",
	Dataset: DatasetPubMedQA,
	Fields: func(f fieldSet) bool {
		return f.any("pubid", "QUESTION") && f.has("final_decision")
	},
	Keyed: &keyedDoc{
		Name:   "PubMedQA's ori_pqal.json",
		Detect: func(fields []string) bool { return slices.Contains(fields, "QUESTION") },
	},
	Prepare:   loadGroundTruth,
	Normalize: normPubMedQA,
	Finish:    groundTruthMissing,
}

// pubmedOptions are the options of every PubMedQA item.
var pubmedOptions = []qa.Option{{Letter: "A", Text: "yes"}, {Letter: "B", Text: "no"}, {Letter: "C", Text: "maybe"}}

func pubmedLetter(decision string) string {
	switch strings.ToLower(strings.TrimSpace(decision)) {
	case "yes":
		return "A"
	case "no":
		return "B"
	case "maybe":
		return "C"
	}
	return ""
}

// pubmedFields names the fields of one of the two PubMedQA layouts.
type pubmedFields struct {
	stem, contexts, labels, meshes, year string
}

// The original file (keyed by PMID, upper-case fields) and the HF rows
// (pubid, question, context{contexts, labels, meshes}) name fields
// differently.
var (
	pubmedOriginal = pubmedFields{"QUESTION", "CONTEXTS", "LABELS", "MESHES", "YEAR"}
	pubmedHF       = pubmedFields{"question", "context.contexts", "context.labels", "context.meshes", "year"}
)

func normPubMedQA(c *fileCtx, r *record) (normalized, *ParseError) {
	orig := r.has("QUESTION")
	f := pubmedHF
	if orig {
		f = pubmedOriginal
	}
	names := fieldNames{id: "pubid", stem: f.stem, options: "final_decision", gold: "final_decision", context: f.contexts}
	pmid, pe := pubmedID(c, r, &names)
	if pe != nil {
		return normalized{}, pe
	}
	stem, pe := stemOf(c, r, f.stem)
	if pe != nil {
		return normalized{}, pe
	}
	contexts, ok, err := valStringList(r.path(f.contexts))
	if err != nil {
		return normalized{}, c.fail(r, f.contexts, CodeType, "%v", err)
	}
	if !ok && orig {
		return normalized{}, c.fail(r, f.contexts, CodeMissing, "missing; PubMedQA items need their abstract passages")
	}
	decision, ok, err := valString(r.get("final_decision"))
	if pe := typeFail(c, r, "final_decision", err, ok, "every record needs its answer (yes, no or maybe)"); pe != nil {
		return normalized{}, pe
	}
	gold := pubmedLetter(decision)
	if gold == "" {
		return normalized{}, c.fail(r, "final_decision", CodeGold, "%q is not yes, no or maybe", clip(decision))
	}
	q := qa.Question{SourceID: pmid, Dataset: c.dataset, Split: c.split, Stem: stem, Options: slices.Clone(pubmedOptions), Gold: gold}
	for _, p := range contexts {
		if strings.TrimSpace(p) != "" {
			q.Context = append(q.Context, p)
		}
	}
	pubmedMeta(&q, r, f, pmid)
	if c.gt != nil {
		if pe := c.gt.split(c, r, &q, decision); pe != nil {
			return normalized{}, pe
		}
	}
	return normalized{q: q, names: names}, nil
}

// pubmedID is the PMID of a record: its key in the original document, else
// its pubid (then the field names.id names).
func pubmedID(c *fileCtx, r *record, names *fieldNames) (string, *ParseError) {
	pmid := r.key
	if pmid == "" {
		id, ok, err := valText(r.get("pubid"))
		if pe := typeFail(c, r, "pubid", err, ok, "every record needs its PubMed id"); pe != nil {
			return "", pe
		}
		pmid = strings.TrimSpace(id)
	} else {
		names.id = "" // the PMID is the record's key in the document
	}
	if pmid == "" {
		return "", c.fail(r, names.id, CodeID, "empty PubMed id")
	}
	return pmid, nil
}

// pubmedMeta sets Meta pmid, labels and meshes (|-joined) and year; values
// of the wrong type are left out.
func pubmedMeta(q *qa.Question, r *record, f pubmedFields, pmid string) {
	setMeta(q, "pmid", pmid)
	if labels, ok, err := valStringList(r.path(f.labels)); err == nil && ok {
		setMeta(q, "labels", strings.Join(labels, "|"))
	}
	if meshes, ok, err := valStringList(r.path(f.meshes)); err == nil && ok {
		setMeta(q, "meshes", strings.Join(meshes, "|"))
	}
	if year, ok, err := valText(r.get(f.year)); err == nil && ok {
		setMeta(q, "year", year)
	}
}

// groundTruth is PubMedQA's split file: PMID → yes/no/maybe for the test
// split, and the PMIDs seen so far.
type groundTruth struct {
	answers map[string]string
	seen    map[string]bool
	path    string
}

// split sets the split of a question from the ground truth ("test" for its
// PMIDs, "train" for the others) and checks that the answers agree.
func (g *groundTruth) split(c *fileCtx, r *record, q *qa.Question, decision string) *ParseError {
	want, in := g.answers[q.SourceID]
	if !in {
		q.Split = "train"
		return nil
	}
	q.Split = "test"
	g.seen[q.SourceID] = true
	if pubmedLetter(want) != q.Gold {
		return c.fail(r, "final_decision", CodeGold, "%q disagrees with the ground-truth file %s (%q); correct one of them",
			decision, filepath.Base(g.path), want)
	}
	return nil
}

// loadGroundTruth reads the PubMedQA split file named by the source or found
// beside the data file, and then keeps the test split by default.
func loadGroundTruth(c *fileCtx) error {
	gt := c.src.GroundTruth
	if gt == NoGroundTruth || c.src.embedded != nil {
		return nil
	}
	if gt == "" {
		cand := filepath.Join(filepath.Dir(c.name), "test_ground_truth.json")
		if _, err := os.Stat(cand); err != nil {
			return nil
		}
		gt = cand
	}
	data, err := os.ReadFile(gt)
	if err != nil {
		return err
	}
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return &ParseError{Source: gt, Code: CodeSplit, Fatal: true, Msg: fmt.Sprintf(
			"not a PubMedQA ground-truth file (a JSON object PMID → yes/no/maybe): %v", err)}
	}
	for pmid, d := range m {
		if pubmedLetter(d) == "" {
			return &ParseError{Source: gt, Code: CodeSplit, Fatal: true, Msg: fmt.Sprintf("PMID %s: %q is not yes, no or maybe", pmid, d)}
		}
	}
	c.gt = &groundTruth{answers: m, seen: make(map[string]bool, len(m)), path: gt}
	c.keepSplit = "test"
	return nil
}

// groundTruthMissing reports the PMIDs of the ground truth that the data
// file did not have.
func groundTruthMissing(c *fileCtx) *ParseError {
	g := c.gt
	if g == nil || len(g.seen) == len(g.answers) {
		return nil
	}
	var missing []string
	for pmid := range g.answers {
		if !g.seen[pmid] {
			missing = append(missing, pmid)
		}
	}
	slices.Sort(missing)
	first := missing
	if len(first) > 5 {
		first = first[:5]
	}
	return &ParseError{Source: g.path, Code: CodeSplit, Fatal: true, Msg: fmt.Sprintf(
		"%d PMIDs of the ground truth are not in %s (first: %s); the files do not belong together",
		len(missing), c.name, strings.Join(first, ", "))}
}
