package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/medteam-bench/medteam/qa"
)

// This file holds what the normalisers of the formats (format_*.go) share:
// the context of the file being read, the problem helpers and the readers
// of options.

// fieldNames says which source field holds each part of a question, so that
// problems found after conversion name the field the user can fix.
type fieldNames struct {
	id, stem, options, gold, context string
}

// field maps a part of a question (qa.Violation.Part) to the source's field
// name.
func (f fieldNames) field(part string) string {
	switch part {
	case qa.PartID:
		return f.id
	case qa.PartStem:
		return f.stem
	case qa.PartOptions:
		return f.options
	case qa.PartGold:
		return f.gold
	case qa.PartContext:
		return f.context
	}
	return ""
}

// fileCtx is what a normaliser knows about the file being read.
type fileCtx struct {
	src     *Source
	name    string // file path for messages
	def     *formatDef
	enc     container
	dataset string // Question.Dataset
	// idDataset is the id prefix (ContentID's dataset): the override or the
	// format's family, never a name read from the path, so that a file gives
	// the same ids under any name.
	idDataset string
	split     string // split stated by the file name
	subject   string // MMLU subject stated by the file name
	base      int    // 0 or 1: how integer answers count (MedMCQA cop, mapped answers)
	// keepSplit is the split kept when the source names none ("test" for
	// PubMedQA read with its ground truth); "" keeps all.
	keepSplit string
	gt        *groundTruth // PubMedQA's split file, when read with one
	triage    *triageCtx   // the generic triage format's scale and specialties
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

// normFunc turns one record into a question (see formatDef.Normalize).
type normFunc func(c *fileCtx, r *record) (normalized, *ParseError)

func (c *fileCtx) fail(r *record, field, code, format string, args ...any) *ParseError {
	pe := &ParseError{Source: c.name, Line: r.line, Field: field, Code: code, Msg: fmt.Sprintf(format, args...)}
	if r.line == 0 {
		pe.Row = r.row
	}
	return pe
}

// typeFail reports a value read with err and ok: a CodeType problem for a
// value of the wrong type, a CodeMissing one (saying what is needed) for a
// missing value, nil for a value that is there.
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
	keys, vals, code, err := optionMembers(v)
	if err != nil {
		return nil, code, err
	}
	byLetter := make(map[string]any, len(keys)) // kept on the stack: it does not leave this function
	for i, k := range keys {
		if _, dup := byLetter[k]; dup {
			return nil, CodeOptions, fmt.Errorf("duplicate option letter %q; each letter may appear once", k)
		}
		byLetter[k] = vals[i]
	}
	if err := checkOptionKeys(keys); err != nil {
		return nil, CodeOptions, err
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

// optionMembers returns the keys and values of an options object in order:
// a JSON object's members as written (repeats kept), a parquet struct's
// non-null members by name.
func optionMembers(v any) (keys []string, vals []any, code string, err error) {
	if isNullValue(v) {
		return nil, nil, CodeMissing, errors.New("missing; every record needs an options object such as {\"A\": \"…\", \"B\": \"…\"}")
	}
	switch x := v.(type) {
	case json.RawMessage:
		ks, vs, err := rawObjectOrdered(x)
		if err != nil {
			return nil, nil, CodeType, fmt.Errorf("must be an object mapping letters to option texts, got %s", jsonKind(x))
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
		return nil, nil, CodeType, fmt.Errorf("must be an object mapping letters to option texts, got %s", kindOf(v))
	}
	return keys, vals, "", nil
}

// checkOptionKeys checks that there are 2 to qa.MaxOptions option keys and
// that each is a capital letter among the first qa.MaxOptions.
func checkOptionKeys(keys []string) error {
	if len(keys) < 2 || len(keys) > qa.MaxOptions {
		return fmt.Errorf("%d option(s); need 2 to %d", len(keys), qa.MaxOptions)
	}
	for _, k := range keys {
		if len(k) != 1 || k[0] < 'A' || k[0] >= 'A'+qa.MaxOptions {
			return fmt.Errorf("option key %q is not a capital letter A–%c", k, 'A'+qa.MaxOptions-1)
		}
	}
	return nil
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

// dropPadding drops the padding options at the end of a list, so that the
// model never sees them; dropped counts them. A padding option is one whose
// text, trimmed, is "n/a" in any case: MMLU-Pro pads some questions to ten
// options with "N/A" (its own scripts drop them before prompting), and
// MedAgentsBench's AfriMedQA copy pads four-option questions with option E
// "n/a". Only trailing ones are padding: at least two options stay, and an
// "n/a" before a real option is kept (it is then an option's text). "NA"
// (sodium is "Na"), "None" (a real answer) and an empty text (an error of
// its own) are not padding.
func dropPadding(opts []qa.Option) (kept []qa.Option, dropped int) {
	n := len(opts)
	for n > 2 && strings.EqualFold(strings.TrimSpace(opts[n-1].Text), "n/a") {
		n--
	}
	return opts[:n], len(opts) - n
}

// dropPaddingOf drops the padding options of a normalised question (every
// layout; not a canonical row, which medteam wrote after the drop and whose
// id is kept, nor a triage item, whose options are its scale) and records
// how many in its meta ("padding_options_dropped"). A gold that names a
// padding option is a CodeGold problem of the gold's field.
func (c *fileCtx) dropPaddingOf(n *normalized, r *record) (int, *ParseError) {
	if n.keepID || n.q.Kind == qa.KindTriage {
		return 0, nil
	}
	kept, dropped := dropPadding(n.q.Options)
	if dropped == 0 {
		return 0, nil
	}
	if i := letterIndex(n.q.Options, n.q.Gold); i >= len(kept) {
		return 0, c.fail(r, n.names.gold, CodeGold, "%q is option %s %q, a padding option (trailing \"n/a\" options are dropped: the model is never shown them); give the letter of the real answer among %s",
			n.q.Gold, n.q.Gold, clip(n.q.Options[i].Text), letters(kept))
	}
	n.q.Options = kept
	setMeta(&n.q, "padding_options_dropped", strconv.Itoa(dropped))
	return dropped, nil
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

// clip shortens s for an error message.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
