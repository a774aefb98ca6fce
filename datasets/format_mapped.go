package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

// FormatMapped is any JSONL/JSON/CSV/parquet file with an explicit
// FieldMap.
const FormatMapped Format = "mapped"

// mappedFormat reads any file whose fields the source names with a
// FieldMap (--map): JSON Lines, a JSON array or a document keyed by id, CSV
// with a header, parquet. It is never detected. The dataset is named after
// the path, else "custom".
var mappedFormat = &formatDef{
	Name:         FormatMapped,
	Doc:          "any JSONL/JSON/CSV/parquet with --map question=…,options=…,answer=…",
	Dataset:      "custom",
	GuessDataset: true,
	Keyed:        &keyedDoc{},
	CheckSource:  func(src *Source) error { return src.Map.check() },
	IndexBase: &indexRule{
		What:    "integer answers",
		Probe:   func(src *Source) answerIndexProbe { return mappedProbe(src.Map) },
		Default: func(container) int { return 0 },
	},
	Normalize: normMapped,
}

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
	for _, read := range mappedOptionalFields {
		if pe := read(c, r, m, &n.q); pe != nil {
			return n, pe
		}
	}
	return n, nil
}

// mappedOptionalFields read the fields a map may name besides the
// question, options and answer, in order: id, context, split, meta.<k>.
var mappedOptionalFields = []func(c *fileCtx, r *record, m FieldMap, q *qa.Question) *ParseError{
	mappedID, mappedContext, mappedSplit, mappedMeta,
}

// mappedID reads the source's id (SourceID), which must not be empty.
func mappedID(c *fileCtx, r *record, m FieldMap, q *qa.Question) *ParseError {
	col := m["id"]
	if col == "" {
		return nil
	}
	id, ok, err := valText(r.path(col))
	if err != nil {
		return c.fail(r, col, CodeType, "%v", err)
	}
	if !ok || strings.TrimSpace(id) == "" {
		return c.fail(r, col, CodeID, "missing or empty id (mapped as id=%s)", col)
	}
	q.SourceID = strings.TrimSpace(id)
	return nil
}

// mappedContext reads the context: one passage or an array of them.
func mappedContext(c *fileCtx, r *record, m FieldMap, q *qa.Question) *ParseError {
	col := m["context"]
	if col == "" {
		return nil
	}
	v := r.path(col)
	if s, ok, err := valString(v); err == nil && ok {
		if strings.TrimSpace(s) != "" {
			q.Context = []string{s}
		}
	} else if ctx, _, err := valStringList(v); err != nil {
		return c.fail(r, col, CodeType, "must be a string or an array of strings, got %s", kindOf(v))
	} else if len(ctx) > 0 {
		q.Context = ctx
	}
	return nil
}

// mappedSplit reads the split, which overrides the file name's.
func mappedSplit(c *fileCtx, r *record, m FieldMap, q *qa.Question) *ParseError {
	col := m["split"]
	if col == "" {
		return nil
	}
	s, ok, err := valText(r.path(col))
	if err != nil {
		return c.fail(r, col, CodeType, "%v", err)
	}
	if ok {
		q.Split = s
	}
	return nil
}

// mappedMeta copies the meta.<name> fields into Meta[name], in key order.
func mappedMeta(c *fileCtx, r *record, m FieldMap, q *qa.Question) *ParseError {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		name, ok := strings.CutPrefix(k, "meta.")
		if !ok {
			continue
		}
		s, _, err := valText(r.path(m[k]))
		if err != nil {
			return c.fail(r, m[k], CodeType, "%v", err)
		}
		setMeta(q, name, s)
	}
	return nil
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
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty field map; give e.g. question=stem,options=choices,answer=label")
	}
	m := FieldMap{}
	for _, part := range strings.Split(s, ",") {
		k, v, err := parseFieldMapEntry(part)
		if err != nil {
			return nil, err
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("field map key %q given twice", k)
		}
		m[k] = v
	}
	return m, m.check()
}

// fieldMapAliases are the other names accepted for field map keys.
var fieldMapAliases = map[string]string{"stem": "question", "gold": "answer"}

// parseFieldMapEntry parses one key=column entry of a field map.
func parseFieldMapEntry(part string) (key, column string, err error) {
	k, v, ok := strings.Cut(part, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || k == "" || v == "" {
		return "", "", fmt.Errorf("field map entry %q is not key=column", part)
	}
	if alias, ok := fieldMapAliases[k]; ok {
		k = alias
	}
	switch {
	case k == "question" || k == "options" || k == "answer" || k == "id" || k == "context" || k == "split":
	case strings.HasPrefix(k, "meta.") && len(k) > len("meta."):
	default:
		return "", "", fmt.Errorf("unknown field map key %q; keys are question, options, answer, id, context, split, meta.<name>", k)
	}
	return k, v, nil
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
