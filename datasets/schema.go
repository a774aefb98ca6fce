package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

// Dataset names that loaders put in Question.Dataset and in id prefixes.
const (
	DatasetMedMCQA    = "medmcqa"
	DatasetPubMedQA   = "pubmedqa"
	DatasetMMLU       = "mmlu"
	DatasetMMLUPro    = "mmlu-pro"
	DatasetMedBullets = "medbullets"
)

// ContentID returns the id of a question, derived from its normalised
// content so that every copy of a question (the official file, a
// standardised copy, an HF export, a converted file) gets the same id:
// dataset, "-", and the first 16 hex digits of the SHA-256 of
//
//	for each scope string: the string, then 0x1E
//	norm(stem)
//	for each context passage: 0x1D, then norm(passage)
//	for each option, in letter order: 0x00, then norm(option text)
//
// where norm(s) drops leading and trailing white space and replaces every
// inner run of white space (unicode.IsSpace: space, tab, CR, LF, NBSP, …) by
// one space, and changes nothing else (case, punctuation, quotes and the
// Unicode form are kept). Option letters are not hashed (they are A, B, …
// in order), nor is the gold answer, the split or any metadata. Loaders use
// the dataset family (Question.Dataset: medqa, medmcqa, pubmedqa, mmlu,
// mmlu-pro, medbullets, or the name of a standardised or mapped file) as
// dataset, and MMLU its subject as the one scope string, because the same
// question appears in several MMLU subjects. MedQAID(stem, options) is
// ContentID("medqa", stem, nil, options).
func ContentID(dataset, stem string, context []string, options []qa.Option, scope ...string) string {
	h := sha256.New()
	for _, s := range scope {
		io.WriteString(h, s)
		h.Write([]byte{0x1e})
	}
	io.WriteString(h, collapseSpace(stem))
	for _, c := range context {
		h.Write([]byte{0x1d})
		io.WriteString(h, collapseSpace(c))
	}
	for _, o := range options {
		h.Write([]byte{0})
		io.WriteString(h, collapseSpace(o.Text))
	}
	return dataset + "-" + hex.EncodeToString(h.Sum(nil)[:8])
}

// fieldNames says which source field holds each part of a question, so that
// problems found after conversion name the field the user can fix.
type fieldNames struct {
	id, stem, options, gold, context string
}

// fileCtx is what a normaliser knows about the file being read.
type fileCtx struct {
	src     *Source
	name    string // file path for messages
	format  Format
	enc     container
	dataset string // Question.Dataset and id prefix
	split   string // split stated by the file name
	subject string // MMLU subject stated by the file name
	base    int    // 0 or 1: how integer answers count (MedMCQA cop, mapped answers)
	gt      map[string]string
	gtSeen  map[string]bool
	gtPath  string
}

// normalized is a question converted from a record, not yet validated. Its
// ID is set by the reader (ContentID over q.Dataset, with scope) unless
// keepID (canonical rows carry theirs).
type normalized struct {
	q      qa.Question
	names  fieldNames
	scope  []string
	keepID bool
}

type normFunc func(c *fileCtx, r *record) (normalized, *ParseError)

func normalizerFor(f Format) normFunc {
	switch f {
	case FormatMedQA:
		return normMedQA
	case FormatStandard:
		return normStandard
	case FormatMedMCQA:
		return normMedMCQA
	case FormatPubMedQA:
		return normPubMedQA
	case FormatMMLU:
		return normMMLU
	case FormatMMLUPro:
		return normMMLUPro
	case FormatMedBullets:
		return normMedBullets
	case FormatCanonical:
		return normCanonical
	case FormatMapped:
		return normMapped
	}
	return nil
}

func (c *fileCtx) fail(r *record, field, code, format string, args ...any) *ParseError {
	pe := &ParseError{Source: c.name, Line: r.line, Field: field, Code: code, Msg: fmt.Sprintf(format, args...)}
	if r.line == 0 {
		pe.Row = r.row
	}
	return pe
}

// typeCode is CodeMissing for a missing value, else CodeType.
func typeFail(c *fileCtx, r *record, field string, err error, ok bool, what string) *ParseError {
	if err != nil {
		return c.fail(r, field, CodeType, "%v", err)
	}
	if !ok {
		return c.fail(r, field, CodeMissing, "missing; %s", what)
	}
	return nil
}

// stemOf reads a required, non-empty stem.
func stemOf(c *fileCtx, r *record, field string) (string, *ParseError) {
	stem, ok, err := valString(r.get(field))
	switch {
	case err != nil:
		return "", c.fail(r, field, CodeType, "%v", err)
	case !ok:
		return "", c.fail(r, field, CodeMissing, "missing")
	case strings.TrimSpace(stem) == "":
		return "", c.fail(r, field, CodeStem, "empty question stem")
	}
	return stem, nil
}

// optionsFromObject reads options given as an object mapping letters to
// texts. The letters must be capitals from A without gaps and without
// repeats. In parquet struct columns a null member counts as absent (a
// 4-option item in a 5-option export).
func optionsFromObject(v any) ([]qa.Option, string, error) {
	if isNullValue(v) {
		return nil, CodeMissing, errors.New("missing; every record needs an options object such as {\"A\": \"…\", \"B\": \"…\"}")
	}
	var keys []string
	var vals []any
	switch x := v.(type) {
	case json.RawMessage:
		ks, vs, err := rawObjectOrdered(x)
		if err != nil {
			return nil, CodeType, fmt.Errorf("must be an object mapping letters to option texts, got %s", jsonKind(x))
		}
		keys = ks
		for _, v := range vs {
			vals = append(vals, v)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if x[k] == nil {
				continue
			}
			keys = append(keys, k)
			vals = append(vals, x[k])
		}
	default:
		return nil, CodeType, fmt.Errorf("must be an object mapping letters to option texts, got %s", kindOf(v))
	}
	byLetter := make(map[string]any, len(keys))
	for i, k := range keys {
		if _, dup := byLetter[k]; dup {
			return nil, CodeOptions, fmt.Errorf("duplicate option letter %q; each letter may appear once", k)
		}
		byLetter[k] = vals[i]
	}
	if len(keys) < 2 || len(keys) > qa.MaxOptions {
		return nil, CodeOptions, fmt.Errorf("%d option(s); need 2 to %d", len(keys), qa.MaxOptions)
	}
	for _, k := range keys {
		if len(k) != 1 || k[0] < 'A' || k[0] >= 'A'+qa.MaxOptions {
			return nil, CodeOptions, fmt.Errorf("option key %q is not a capital letter A–%c", k, 'A'+qa.MaxOptions-1)
		}
	}
	opts := make([]qa.Option, len(keys))
	for i := range opts {
		letter := string(rune('A' + i))
		v, ok := byLetter[letter]
		if !ok {
			sorted := slices.Sorted(maps.Keys(byLetter))
			return nil, CodeOptions, fmt.Errorf("option letters %s are not contiguous from A (missing %s)", strings.Join(sorted, ","), letter)
		}
		text, ok, err := valString(v)
		if err != nil || !ok {
			return nil, CodeType, fmt.Errorf("option %s must be a string, got %s", letter, kindOf(v))
		}
		if strings.TrimSpace(text) == "" {
			return nil, CodeOptions, fmt.Errorf("option %s is empty", letter)
		}
		opts[i] = qa.Option{Letter: letter, Text: text}
	}
	return opts, "", nil
}

// optionsFromList reads options given as an array of texts, lettered A, B, …
func optionsFromList(v any) ([]qa.Option, string, error) {
	items, ok, err := valList(v)
	if err != nil {
		return nil, CodeType, fmt.Errorf("must be an array of option texts, got %s", kindOf(v))
	}
	if !ok {
		return nil, CodeMissing, errors.New("missing; every record needs its options")
	}
	if len(items) < 2 || len(items) > qa.MaxOptions {
		return nil, CodeOptions, fmt.Errorf("%d option(s); need 2 to %d", len(items), qa.MaxOptions)
	}
	opts := make([]qa.Option, len(items))
	for i, it := range items {
		letter := string(rune('A' + i))
		text, ok, err := valString(it)
		if err != nil || !ok {
			return nil, CodeType, fmt.Errorf("option %s must be a string, got %s", letter, kindOf(it))
		}
		if strings.TrimSpace(text) == "" {
			return nil, CodeOptions, fmt.Errorf("option %s is empty", letter)
		}
		opts[i] = qa.Option{Letter: letter, Text: text}
	}
	return opts, "", nil
}

func letters(opts []qa.Option) string {
	ls := make([]string, len(opts))
	for i, o := range opts {
		ls[i] = o.Letter
	}
	return strings.Join(ls, ",")
}

func letterIndex(opts []qa.Option, letter string) int {
	for i, o := range opts {
		if o.Letter == letter {
			return i
		}
	}
	return -1
}

// sameText compares answer texts ignoring surrounding and repeated spaces.
func sameText(a, b string) bool {
	return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
}

// setMeta stores a non-empty value in q.Meta.
func setMeta(q *qa.Question, k, v string) {
	if v == "" {
		return
	}
	if q.Meta == nil {
		q.Meta = map[string]string{}
	}
	q.Meta[k] = v
}

// ---- MedQA and the standardised JSONL ----

// normLetterRecord reads the MedQA-shaped part shared by MedQA and the
// standardised copies: question, options {A..}, answer_idx, answer,
// meta_info.
func normLetterRecord(c *fileCtx, r *record) (normalized, *ParseError) {
	names := fieldNames{stem: "question", options: "options", gold: "answer_idx"}
	stem, pe := stemOf(c, r, "question")
	if pe != nil {
		return normalized{}, pe
	}
	options, code, err := optionsFromObject(r.get("options"))
	if err != nil {
		return normalized{}, c.fail(r, "options", code, "%v", err)
	}
	gold, ok, err := valString(r.get("answer_idx"))
	switch {
	case err != nil:
		return normalized{}, c.fail(r, "answer_idx", CodeType, "%v", err)
	case !ok:
		return normalized{}, c.fail(r, "answer_idx", CodeGold, "missing; every record needs the gold option letter")
	}
	goldIdx := letterIndex(options, gold)
	if goldIdx < 0 {
		return normalized{}, c.fail(r, "answer_idx", CodeGold, "%q is not among the options %s", gold, letters(options))
	}
	answer, ok, err := valString(r.get("answer"))
	if err != nil {
		return normalized{}, c.fail(r, "answer", CodeType, "%v", err)
	}
	if ok && strings.TrimSpace(answer) != strings.TrimSpace(options[goldIdx].Text) {
		return normalized{}, c.fail(r, "answer", CodeGold, "text %q does not match option %s %q; correct answer or answer_idx so they agree",
			clip(answer), gold, clip(options[goldIdx].Text))
	}
	q := qa.Question{Dataset: c.dataset, Split: c.split, Stem: stem, Options: options, Gold: gold}
	step, ok, err := valString(r.get("meta_info"))
	if err != nil {
		return normalized{}, c.fail(r, "meta_info", CodeType, "%v", err)
	}
	if ok {
		q.Meta = map[string]string{"step": step}
	}
	return normalized{q: q, names: names}, nil
}

func normMedQA(c *fileCtx, r *record) (normalized, *ParseError) {
	return normLetterRecord(c, r)
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

// ---- MedMCQA (original release and its HF parquet) ----

var medmcqaOptionFields = []string{"opa", "opb", "opc", "opd"}

func normMedMCQA(c *fileCtx, r *record) (normalized, *ParseError) {
	names := fieldNames{id: "id", stem: "question", options: "opa", gold: "cop"}
	stem, pe := stemOf(c, r, "question")
	if pe != nil {
		return normalized{}, pe
	}
	options := make([]qa.Option, len(medmcqaOptionFields))
	for i, f := range medmcqaOptionFields {
		text, ok, err := valText(r.get(f))
		if pe := typeFail(c, r, f, err, ok, "MedMCQA records have the four options opa, opb, opc, opd"); pe != nil {
			return normalized{}, pe
		}
		if strings.TrimSpace(text) == "" {
			return normalized{}, c.fail(r, f, CodeOptions, "option %c is empty", 'A'+i)
		}
		options[i] = qa.Option{Letter: string(rune('A' + i)), Text: text}
	}
	if ct, ok, err := valString(r.get("choice_type")); err != nil {
		return normalized{}, c.fail(r, "choice_type", CodeType, "%v", err)
	} else if ok && strings.EqualFold(strings.TrimSpace(ct), "multi") {
		return normalized{}, c.fail(r, "choice_type", CodeMulti,
			`multi-answer item (choice_type "multi"): cop names only one of its correct options, so it cannot be scored as single-answer; leave it out with --skip-invalid`)
	}
	cop, ok, err := valInt(r.get("cop"))
	switch {
	case err != nil:
		return normalized{}, c.fail(r, "cop", CodeType, "%v", err)
	case !ok:
		return normalized{}, c.fail(r, "cop", CodeGold, "missing; every record needs the index of its correct option")
	case cop == -1:
		return normalized{}, c.fail(r, "cop", CodeGold, "-1: the answer is withheld (the MedMCQA test split publishes no answers); use the dev split")
	case cop-int64(c.base) < 0 || cop-int64(c.base) >= int64(len(options)):
		return normalized{}, c.fail(r, "cop", CodeGold, "%d is not an option index; this file counts options from %d (%d–%d)", cop, c.base, c.base, c.base+len(options)-1)
	}
	q := qa.Question{Dataset: c.dataset, Split: c.split, Stem: stem, Options: options, Gold: options[cop-int64(c.base)].Letter}
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

// ---- PubMedQA ----

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

func normPubMedQA(c *fileCtx, r *record) (normalized, *ParseError) {
	// The original file (keyed by PMID, upper-case fields) and the HF rows
	// (pubid, question, context{contexts, labels, meshes}) name fields differently.
	orig := r.has("QUESTION")
	f := map[bool][5]string{
		true:  {"QUESTION", "CONTEXTS", "LABELS", "MESHES", "YEAR"},
		false: {"question", "context.contexts", "context.labels", "context.meshes", "year"},
	}[orig]
	names := fieldNames{id: "pubid", stem: f[0], options: "final_decision", gold: "final_decision", context: f[1]}
	pmid := r.key
	if pmid == "" {
		id, ok, err := valText(r.get("pubid"))
		if pe := typeFail(c, r, "pubid", err, ok, "every record needs its PubMed id"); pe != nil {
			return normalized{}, pe
		}
		pmid = strings.TrimSpace(id)
	} else {
		names.id = "" // the PMID is the record's key in the document
	}
	if pmid == "" {
		return normalized{}, c.fail(r, names.id, CodeID, "empty PubMed id")
	}
	stem, pe := stemOf(c, r, f[0])
	if pe != nil {
		return normalized{}, pe
	}
	contexts, ok, err := valStringList(r.path(f[1]))
	if err != nil {
		return normalized{}, c.fail(r, f[1], CodeType, "%v", err)
	}
	if !ok && orig {
		return normalized{}, c.fail(r, f[1], CodeMissing, "missing; PubMedQA items need their abstract passages")
	}
	decision, ok, err := valString(r.get("final_decision"))
	if pe := typeFail(c, r, "final_decision", err, ok, "every record needs its answer (yes, no or maybe)"); pe != nil {
		return normalized{}, pe
	}
	gold := pubmedLetter(decision)
	if gold == "" {
		return normalized{}, c.fail(r, "final_decision", CodeGold, "%q is not yes, no or maybe", clip(decision))
	}
	q := qa.Question{
		SourceID: pmid,
		Dataset:  c.dataset,
		Split:    c.split,
		Stem:     stem,
		Options:  slices.Clone(pubmedOptions),
		Gold:     gold,
	}
	for _, p := range contexts {
		if strings.TrimSpace(p) != "" {
			q.Context = append(q.Context, p)
		}
	}
	setMeta(&q, "pmid", pmid)
	if labels, ok, err := valStringList(r.path(f[2])); err == nil && ok {
		setMeta(&q, "labels", strings.Join(labels, "|"))
	}
	if meshes, ok, err := valStringList(r.path(f[3])); err == nil && ok {
		setMeta(&q, "meshes", strings.Join(meshes, "|"))
	}
	if year, ok, err := valText(r.get(f[4])); err == nil && ok {
		setMeta(&q, "year", year)
	}
	if c.gt != nil {
		want, in := c.gt[pmid]
		if in {
			q.Split = "test"
			c.gtSeen[pmid] = true
			if pubmedLetter(want) != gold {
				return normalized{}, c.fail(r, "final_decision", CodeGold, "%q disagrees with the ground-truth file %s (%q); correct one of them",
					decision, filepath.Base(c.gtPath), want)
			}
		} else {
			q.Split = "train"
		}
	}
	return normalized{q: q, names: names}, nil
}

// ---- MMLU (CSV without header, or HF rows: question, subject, choices, answer) ----

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
	var gold string
	switch a := r.get("answer").(type) {
	case string:
		gold = strings.ToUpper(strings.TrimSpace(a))
		if letterIndex(options, gold) < 0 {
			return normalized{}, c.fail(r, names.gold, CodeGold, "%q is not among the options %s", clip(a), letters(options))
		}
	default:
		n, ok, err := valInt(a)
		if err != nil {
			if s, ok2, err2 := valString(a); err2 == nil && ok2 { // a JSON string letter
				gold = strings.ToUpper(strings.TrimSpace(s))
				if letterIndex(options, gold) < 0 {
					return normalized{}, c.fail(r, names.gold, CodeGold, "%q is not among the options %s", clip(s), letters(options))
				}
				break
			}
			return normalized{}, c.fail(r, names.gold, CodeType, "must be a letter or a 0-based index, got %s", kindOf(a))
		}
		if !ok {
			return normalized{}, c.fail(r, names.gold, CodeGold, "missing; every record needs its answer")
		}
		if n < 0 || n >= int64(len(options)) {
			return normalized{}, c.fail(r, names.gold, CodeGold, "index %d is not among the %d options (HF exports count from 0)", n, len(options))
		}
		gold = options[n].Letter
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

// ---- MMLU-Pro ----

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
	for _, k := range []string{"category", "src"} {
		s, _, err := valString(r.get(k))
		if err != nil {
			return n, c.fail(r, k, CodeType, "%v", err)
		}
		setMeta(&n.q, k, s)
	}
	return n, nil
}

// ---- MedBullets (CSV with header, or rows with the same columns) ----

var medbulletsOptionFields = []string{"opa", "opb", "opc", "opd", "ope"}

func normMedBullets(c *fileCtx, r *record) (normalized, *ParseError) {
	names := fieldNames{stem: "question", options: "opa", gold: "answer_idx"}
	stem, pe := stemOf(c, r, "question")
	if pe != nil {
		return normalized{}, pe
	}
	var texts []string
	var fields []string
	for _, f := range medbulletsOptionFields {
		if !r.has(f) {
			break
		}
		text, _, err := valText(r.get(f))
		if err != nil {
			return normalized{}, c.fail(r, f, CodeType, "%v", err)
		}
		texts = append(texts, text)
		fields = append(fields, f)
	}
	// A 5-option column layout may leave the last option empty for a
	// 4-option item; empty options before a non-empty one are an error.
	for len(texts) > 0 && strings.TrimSpace(texts[len(texts)-1]) == "" {
		texts = texts[:len(texts)-1]
	}
	if len(texts) < 2 {
		return normalized{}, c.fail(r, "opa", CodeOptions, "%d option(s); need 2 to 5 in opa, opb, opc, opd, ope", len(texts))
	}
	options := make([]qa.Option, len(texts))
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			return normalized{}, c.fail(r, fields[i], CodeOptions, "option %c is empty but a later option is not", 'A'+i)
		}
		options[i] = qa.Option{Letter: string(rune('A' + i)), Text: t}
	}
	raw, ok, err := valString(r.get("answer_idx"))
	if pe := typeFail(c, r, "answer_idx", err, ok, "every record needs the gold option letter"); pe != nil {
		pe.Code = map[bool]string{true: CodeType, false: CodeGold}[err != nil]
		return normalized{}, pe
	}
	gold := strings.ToUpper(strings.TrimSpace(raw))
	gi := letterIndex(options, gold)
	if gi < 0 {
		return normalized{}, c.fail(r, "answer_idx", CodeGold, "%q is not among the options %s", clip(raw), letters(options))
	}
	if answer, ok, err := valString(r.get("answer")); err != nil {
		return normalized{}, c.fail(r, "answer", CodeType, "%v", err)
	} else if ok && strings.TrimSpace(answer) != "" && !sameText(answer, options[gi].Text) {
		return normalized{}, c.fail(r, "answer", CodeGold, "text %q does not match option %s %q; correct answer or answer_idx so they agree",
			clip(answer), gold, clip(options[gi].Text))
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

// ---- canonical rows (the Question struct as JSON, or the parquet written by WriteParquet) ----

func normCanonical(c *fileCtx, r *record) (normalized, *ParseError) {
	names := fieldNames{id: "id", stem: "stem", options: "options", gold: "gold", context: "context"}
	id, ok, err := valString(r.get("id"))
	if pe := typeFail(c, r, "id", err, ok, "canonical rows carry their id"); pe != nil {
		return normalized{}, pe
	}
	stem, pe := stemOf(c, r, "stem")
	if pe != nil {
		return normalized{}, pe
	}
	q := qa.Question{ID: id, Dataset: c.dataset, Split: c.split, Stem: stem}
	if s, _, err := valText(r.get("source_id")); err != nil {
		return normalized{}, c.fail(r, "source_id", CodeType, "%v", err)
	} else {
		q.SourceID = s
	}
	if s, ok, err := valString(r.get("dataset")); err != nil {
		return normalized{}, c.fail(r, "dataset", CodeType, "%v", err)
	} else if ok && s != "" {
		q.Dataset = s
	}
	if s, ok, err := valString(r.get("split")); err != nil {
		return normalized{}, c.fail(r, "split", CodeType, "%v", err)
	} else if ok {
		q.Split = s
	}
	ctx, _, err := valStringList(r.get("context"))
	if err != nil {
		return normalized{}, c.fail(r, "context", CodeType, "%v", err)
	}
	if len(ctx) > 0 {
		q.Context = ctx
	}
	opts, code, err := canonicalOptions(r.get("options"))
	if err != nil {
		return normalized{}, c.fail(r, "options", code, "%v", err)
	}
	q.Options = opts
	gold, ok, err := valString(r.get("gold"))
	if pe := typeFail(c, r, "gold", err, ok, "every row needs the gold option letter"); pe != nil {
		if err == nil {
			pe.Code = CodeGold
		}
		return normalized{}, pe
	}
	q.Gold = gold
	meta, err := canonicalMeta(r.get("meta"))
	if err != nil {
		return normalized{}, c.fail(r, "meta", CodeType, "%v", err)
	}
	q.Meta = meta
	return normalized{q: q, names: names, keepID: true}, nil
}

// canonicalOptions reads [{"letter": "A", "text": "…"}, …] (letters are
// checked by validation), an array of texts, or an object of letters.
func canonicalOptions(v any) ([]qa.Option, string, error) {
	if o, ok, _ := valObject(v); ok {
		return optionsFromObject(o)
	}
	items, ok, err := valList(v)
	if err != nil {
		return nil, CodeType, fmt.Errorf("must be an array of {letter, text} objects, got %s", kindOf(v))
	}
	if !ok {
		return nil, CodeMissing, errors.New("missing; every row needs its options")
	}
	if len(items) > 0 {
		if _, isObj, _ := valObject(items[0]); !isObj {
			return optionsFromList(v)
		}
	}
	opts := make([]qa.Option, len(items))
	for i, it := range items {
		m, ok, err := valObject(it)
		if err != nil || !ok {
			return nil, CodeType, fmt.Errorf("option %d must be a {letter, text} object, got %s", i+1, kindOf(it))
		}
		l, ok1, err1 := valString(m["letter"])
		t, ok2, err2 := valString(m["text"])
		if err1 != nil || err2 != nil || !ok1 || !ok2 {
			return nil, CodeType, fmt.Errorf("option %d must have string fields letter and text", i+1)
		}
		opts[i] = qa.Option{Letter: l, Text: t}
	}
	return opts, "", nil
}

// canonicalMeta reads meta as an object of strings (JSON) or as a JSON
// string holding one (parquet).
func canonicalMeta(v any) (map[string]string, error) {
	if isNullValue(v) {
		return nil, nil
	}
	if s, ok, err := valString(v); err == nil && ok {
		if strings.TrimSpace(s) == "" {
			return nil, nil
		}
		v = json.RawMessage(s)
	}
	m, ok, err := valObject(v)
	if err != nil || !ok {
		return nil, fmt.Errorf("must be an object of strings (or a JSON string of one), got %s", kindOf(v))
	}
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(m))
	for k, val := range m {
		s, ok, err := valText(val)
		if err != nil {
			return nil, fmt.Errorf("meta %q %v", k, err)
		}
		if ok {
			out[k] = s
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// ---- mapped (explicit FieldMap) ----

func normMapped(c *fileCtx, r *record) (normalized, *ParseError) {
	m := c.src.Map
	names := fieldNames{id: m["id"], stem: m["question"], options: m["options"], gold: m["answer"], context: m["context"]}
	stem, ok, err := valString(r.path(names.stem))
	switch {
	case err != nil:
		return normalized{}, c.fail(r, names.stem, CodeType, "%v", err)
	case !ok:
		return normalized{}, c.fail(r, names.stem, CodeMissing, "missing (mapped as question=%s)", names.stem)
	case strings.TrimSpace(stem) == "":
		return normalized{}, c.fail(r, names.stem, CodeStem, "empty question stem")
	}
	options, field, code, err := mappedOptions(r, names.options)
	if err != nil {
		return normalized{}, c.fail(r, field, code, "%v", err)
	}
	gold, code, err := mappedAnswer(r.path(names.gold), options, c.base)
	if err != nil {
		return normalized{}, c.fail(r, names.gold, code, "%v", err)
	}
	q := qa.Question{Dataset: c.dataset, Split: c.split, Stem: stem, Options: options, Gold: gold}
	n := normalized{q: q, names: names}
	if names.id != "" {
		id, ok, err := valText(r.path(names.id))
		if err != nil {
			return n, c.fail(r, names.id, CodeType, "%v", err)
		}
		if !ok || strings.TrimSpace(id) == "" {
			return n, c.fail(r, names.id, CodeID, "missing or empty id (mapped as id=%s)", names.id)
		}
		n.q.SourceID = strings.TrimSpace(id)
	}
	if names.context != "" {
		v := r.path(names.context)
		if s, ok, err := valString(v); err == nil && ok {
			if strings.TrimSpace(s) != "" {
				n.q.Context = []string{s}
			}
		} else if ctx, _, err := valStringList(v); err != nil {
			return n, c.fail(r, names.context, CodeType, "must be a string or an array of strings, got %s", kindOf(v))
		} else if len(ctx) > 0 {
			n.q.Context = ctx
		}
	}
	if col := m["split"]; col != "" {
		s, ok, err := valText(r.path(col))
		if err != nil {
			return n, c.fail(r, col, CodeType, "%v", err)
		}
		if ok {
			n.q.Split = s
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		name, ok := strings.CutPrefix(k, "meta.")
		if !ok {
			continue
		}
		s, _, err := valText(r.path(m[k]))
		if err != nil {
			return n, c.fail(r, m[k], CodeType, "%v", err)
		}
		setMeta(&n.q, name, s)
	}
	return n, nil
}

// mappedOptions reads the options column(s): "a|b|c" names one column per
// option; one column may hold an array of texts, an object of letters, or
// (from CSV) a JSON string of either.
func mappedOptions(r *record, spec string) ([]qa.Option, string, string, error) {
	if strings.Contains(spec, "|") {
		cols := strings.Split(spec, "|")
		var texts []string
		for _, col := range cols {
			s, ok, err := valText(r.path(col))
			if err != nil {
				return nil, col, CodeType, err
			}
			if !ok {
				s = ""
			}
			texts = append(texts, s)
		}
		for len(texts) > 0 && strings.TrimSpace(texts[len(texts)-1]) == "" {
			texts = texts[:len(texts)-1]
		}
		items := make([]any, len(texts))
		for i, t := range texts {
			items[i] = t
		}
		opts, code, err := optionsFromList(items)
		if err != nil {
			return nil, spec, code, err
		}
		return opts, "", "", nil
	}
	v := r.path(spec)
	if s, ok, err := valString(v); err == nil && ok {
		if t := strings.TrimSpace(s); strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{") {
			if !json.Valid([]byte(t)) {
				return nil, spec, CodeType, fmt.Errorf("the text %q is not valid JSON; give the options as a JSON array or object, or name one column per option (options=a|b|c)", clip(t))
			}
			v = json.RawMessage(t)
		} else {
			return nil, spec, CodeType, errors.New("must be an array of option texts or an object of letters, got a string; for one column per option use options=a|b|c")
		}
	}
	if _, ok, _ := valObject(v); ok {
		opts, code, err := optionsFromObject(v)
		return opts, spec, code, err
	}
	opts, code, err := optionsFromList(v)
	return opts, spec, code, err
}

// mappedAnswer turns an answer into a letter: a letter of the options, an
// integer index counted from base, or the exact text of one option.
func mappedAnswer(v any, options []qa.Option, base int) (string, string, error) {
	if isNullValue(v) {
		return "", CodeGold, errors.New("missing; every record needs its answer")
	}
	if n, ok, err := valInt(v); err == nil && ok {
		i := n - int64(base)
		if i < 0 || i >= int64(len(options)) {
			return "", CodeGold, fmt.Errorf("index %d is not among the %d options (counted from %d)", n, len(options), base)
		}
		return options[i].Letter, "", nil
	}
	s, ok, err := valString(v)
	if err != nil || !ok {
		return "", CodeType, fmt.Errorf("must be an option letter, an index or an option text, got %s", kindOf(v))
	}
	t := strings.TrimSpace(s)
	if len(t) == 1 {
		if i := letterIndex(options, strings.ToUpper(t)); i >= 0 {
			return options[i].Letter, "", nil
		}
	}
	match := ""
	for _, o := range options {
		if sameText(o.Text, t) {
			if match != "" {
				return "", CodeGold, fmt.Errorf("%q matches the text of several options; give a letter or an index", clip(t))
			}
			match = o.Letter
		}
	}
	if match == "" {
		return "", CodeGold, fmt.Errorf("%q is neither an option letter (%s), an index, nor the text of an option", clip(t), letters(options))
	}
	return match, "", nil
}

// ---- the pre-scan that decides how integer answers count ----

// answerIndexProbe returns, for a record, the integer answer and the number
// of options, or ok=false when the record has no integer answer.
type answerIndexProbe func(r *record) (answer int64, nOptions int, ok bool)

func medmcqaProbe(r *record) (int64, int, bool) {
	n, ok, err := valInt(r.get("cop"))
	return n, len(medmcqaOptionFields), ok && err == nil
}

func mappedProbe(m FieldMap) answerIndexProbe {
	return func(r *record) (int64, int, bool) {
		n, ok, err := valInt(r.path(m["answer"]))
		if err != nil || !ok {
			return 0, 0, false
		}
		opts, _, _, err := mappedOptions(r, m["options"])
		if err != nil {
			return 0, 0, false
		}
		return n, len(opts), true
	}
}

// decideBase reads every record and decides how integer answers count: any
// 0 means from 0, any answer equal to the number of options means from 1;
// both is an error; neither gives def.
func decideBase(rr recordReader, probe answerIndexProbe, def int) (base int, seen0, seenN bool, err error) {
	for {
		r, err := rr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) && !pe.Fatal {
				continue
			}
			break // the main pass reports it
		}
		n, k, ok := probe(r)
		if !ok {
			continue
		}
		if n == 0 {
			seen0 = true
		}
		if n == int64(k) {
			seenN = true
		}
	}
	switch {
	case seen0 && seenN:
		return 0, true, true, errors.New("the answer indices include both 0 and the number of options, so they cannot be counted from 0 or from 1 consistently; fix the file or state the base (IndexBase / --answer-base)")
	case seen0:
		return 0, true, false, nil
	case seenN:
		return 1, false, true, nil
	}
	return def, false, false, nil
}

// FieldMap maps medteam's fields to the source's field or column names for
// FormatMapped: keys "question" (required), "options" (required: one column
// holding an array or an object of letters, or "a|b|c" naming one column per
// option), "answer" (required: a letter, an index — see Source.IndexBase —
// or the text of an option), "id", "context" (a string or an array of
// strings), "split" and "meta.<name>" (copied into Question.Meta[name]).
// Names may be dotted paths into nested objects ("context.contexts").
type FieldMap map[string]string

// ParseFieldMap parses "question=stem,answer=label,options=choices". The
// aliases stem→question and gold→answer are accepted as keys.
func ParseFieldMap(s string) (FieldMap, error) {
	m := FieldMap{}
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty field map; give e.g. question=stem,options=choices,answer=label")
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("field map entry %q is not key=column", part)
		}
		switch k {
		case "stem":
			k = "question"
		case "gold":
			k = "answer"
		}
		switch {
		case k == "question" || k == "options" || k == "answer" || k == "id" || k == "context" || k == "split":
		case strings.HasPrefix(k, "meta.") && len(k) > len("meta."):
		default:
			return nil, fmt.Errorf("unknown field map key %q; keys are question, options, answer, id, context, split, meta.<name>", k)
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("field map key %q given twice", k)
		}
		m[k] = v
	}
	return m, m.check()
}

func (m FieldMap) check() error {
	var missing []string
	for _, k := range []string{"question", "options", "answer"} {
		if m[k] == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the field map lacks %s; e.g. --map question=stem,options=choices,answer=label", strings.Join(missing, ", "))
	}
	return nil
}

// String formats the map as ParseFieldMap reads it, keys sorted.
func (m FieldMap) String() string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ",")
}

// guessDataset names the dataset of a standardised or mapped file from its
// path ("…/medmcqa/test.jsonl" → "medmcqa"), or returns def.
func guessDataset(path, def string) string {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(path)), "/")
	slices.Reverse(parts)
	for _, p := range parts {
		p = strings.ToLower(p)
		switch {
		case strings.Contains(p, "medmcqa"):
			return DatasetMedMCQA
		case strings.Contains(p, "mmlu_pro") || strings.Contains(p, "mmlu-pro") || strings.Contains(p, "mmlupro"):
			return DatasetMMLUPro
		case strings.Contains(p, "medbullets"):
			return DatasetMedBullets
		case strings.Contains(p, "pubmedqa"):
			return DatasetPubMedQA
		case strings.Contains(p, "medqa"):
			return DatasetMedQA
		case strings.Contains(p, "mmlu"):
			return DatasetMMLU
		}
	}
	return def
}
