package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/medteam-bench/medteam/qa"
)

// FormatCanonical is medteam's own rows: the Question struct (JSONL or
// parquet).
const FormatCanonical Format = "canonical"

// canonicalFormat reads medteam's own rows, as Convert writes them: the
// qa.Question JSON, or the parquet columns id, dataset, split, stem,
// context (list), options (list of {letter, text}), gold, meta (a JSON
// string). Rows keep the id, dataset and split they were written with; the
// file name states no split.
var canonicalFormat = &formatDef{
	Name:         FormatCanonical,
	Doc:          "medteam canonical rows (datasets convert): id, dataset, split, stem, context, options, gold, meta",
	Dataset:      "canonical",
	GuessDataset: true,
	Fields:       func(f fieldSet) bool { return f.has("id", "stem", "options", "gold") },
	Prepare: func(c *fileCtx) error {
		c.split = "" // the rows carry their split
		return nil
	},
	Normalize: normCanonical,
}

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
